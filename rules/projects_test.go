package rules

import (
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// TestEvaluateProjects checks Options.Projects: a path lying deeper in another project
// is decided in its form relative to that project too, and a guarded place counts when
// it exists in that project although the own workspace has none.
func TestEvaluateProjects(t *testing.T) {
	base := testkit.Dir(t, "ws/src", "ws/proj/secrets", "ws/proj/src", "ws/proj/sub")
	root, proj := base+"/ws", base+"/ws/proj"
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 100},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "mcp__notes__*", Action: Allow, Priority: 100})
	top := Compile(nil, rs, Options{WorkspaceRoot: root, Projects: []string{root, proj}})
	own := Compile(nil, rs, Options{WorkspaceRoot: proj, Projects: []string{root, proj}})
	alone := Compile(nil, rs, Options{WorkspaceRoot: root})
	for _, c := range []struct {
		name     string
		s        *Set
		call     Call
		action   Action
		contains string
	}{
		{"into the project's secrets", top, Call{Tool: "Read", Args: map[string]any{"file_path": "proj/secrets/k"}}, Deny, ""},
		{"absolute", top, Call{Tool: "Read", Args: map[string]any{"file_path": proj + "/secrets/k"}}, Deny, ""},
		{"without Projects it is not", alone, Call{Tool: "Read", Args: map[string]any{"file_path": "proj/secrets/k"}}, Allow, ""},
		{"its code", top, Call{Tool: "Read", Args: map[string]any{"file_path": "proj/src/a.go"}}, Allow, ""},
		{"holding its secrets", top, Call{Tool: "Grep", Args: map[string]any{"path": "proj"}}, Require, "secrets"},
		{"the root holds its secrets", top, Call{Tool: "Grep", Args: map[string]any{"path": "."}}, Require, "secrets"},
		{"holding nothing", top, Call{Tool: "Grep", Args: map[string]any{"path": "src"}}, Allow, ""},
		{"another tool in its secrets", top, Call{Tool: "mcp__notes__x", Args: map[string]any{"p": "proj/secrets/k"}}, Require, "secrets"},
		{"from the project: its own secrets", own, Call{Tool: "Read", Args: map[string]any{"file_path": "secrets/k"}}, Deny, ""},
		{"from the project: the root is not deeper", own, Call{Tool: "Read", Args: map[string]any{"file_path": "src/a.go"}}, Allow, ""},
		{"from the project: above it", own, Call{Tool: "Grep", Args: map[string]any{"path": ".."}}, Require, "secrets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := c.s.Evaluate(DefaultGroup, c.call)
			if d.Action != c.action || d.Contains != c.contains {
				t.Errorf("Evaluate(%v) = %+v, want %s containing %q", c.call.Args, d, c.action, c.contains)
			}
		})
	}
}
