package rules_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skald-circle/skald-bot/rules"
)

func Example() {
	// A workspace with secrets/ and a symlink data/link → ../secrets/x.
	tmp, _ := os.MkdirTemp("", "skald-example")
	defer os.RemoveAll(tmp)
	root, _ := filepath.EvalSymlinks(tmp)
	os.MkdirAll(filepath.Join(root, "secrets", "x"), 0o755)
	os.MkdirAll(filepath.Join(root, "data"), 0o755)
	os.Symlink("../secrets/x", filepath.Join(root, "data", "link"))

	set := rules.Compile(
		[]rules.Group{{ID: "dev", Name: "Developers"}},
		[]rules.Rule{
			{ID: 1, GroupID: rules.DefaultGroup, ToolPattern: "@fs_any", PathPattern: "data/*",
				Action: rules.Allow, Priority: 5},
			{ID: 2, GroupID: rules.DefaultGroup, ToolPattern: "@fs_any", PathPattern: "secrets/*",
				Action: rules.Deny, Priority: 5},
			{ID: 3, GroupID: rules.DefaultGroup, ToolPattern: "*", Action: rules.Require,
				Priority: rules.MaxPriority},
			{ID: 4, GroupID: "dev", ToolPattern: "mcp__github__*", Action: rules.Allow,
				Priority: 100},
		},
		rules.Options{WorkspaceRoot: root},
	)

	for _, c := range []struct {
		group string
		call  rules.Call
	}{
		{"default", rules.Call{Tool: "read_file", Args: map[string]any{"path": "data/notes.txt"}}},
		{"default",
			rules.Call{Tool: "read_file", Args: map[string]any{"path": "data/link/../key"}}},
		{"default", rules.Call{Tool: "mcp__github__create_issue"}},
		{"dev", rules.Call{Tool: "mcp__github__create_issue"}},
	} {
		d := set.Evaluate(c.group, c.call)
		fmt.Printf("%s %s %q → %s (rule %d)\n", c.group, c.call.Tool, d.Path, d.Action, d.RuleID)
	}
	// Output:
	// default read_file "data/notes.txt" → allow (rule 1)
	// default read_file "secrets/key" → deny (rule 2)
	// default mcp__github__create_issue "" → require (rule 3)
	// dev mcp__github__create_issue "" → allow (rule 4)
}

func ExampleValidate() {
	err := rules.Validate(rules.Rule{GroupID: "default", ToolPattern: "a*b", Action: rules.Allow})
	fmt.Println(err)
	// Output: rules: tool_pattern "a*b": a star is only allowed at the end
}

func ExampleNormalize() {
	p, err := rules.Normalize("docs/../secrets/x", "", "/nonexistent-workspace")
	fmt.Println(p, err)
	// Output: secrets/x <nil>
}
