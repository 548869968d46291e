package rules

import (
	"fmt"
	"os"
	"testing"
	"time"

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
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "mcp__notes__*", Action: Allow,
			Priority: 100})
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
		{"into the project's secrets", top,
			Call{Tool: "Read", Args: map[string]any{"file_path": "proj/secrets/k"}}, Deny, ""},
		{"absolute", top,
			Call{Tool: "Read", Args: map[string]any{"file_path": proj + "/secrets/k"}}, Deny, ""},
		{"without Projects it is not", alone,
			Call{Tool: "Read", Args: map[string]any{"file_path": "proj/secrets/k"}}, Allow, ""},
		{"its code", top, Call{Tool: "Read", Args: map[string]any{"file_path": "proj/src/a.go"}},
			Allow, ""},
		{"holding its secrets", top, Call{Tool: "Grep", Args: map[string]any{"path": "proj"}},
			Require, "secrets"},
		{"the root holds its secrets", top, Call{Tool: "Grep", Args: map[string]any{"path": "."}},
			Require, "secrets"},
		{"holding nothing", top,
			Call{Tool: "Grep", Args: map[string]any{"path": "src"}}, Allow, ""},
		{"another tool in its secrets", top,
			Call{Tool: "mcp__notes__x", Args: map[string]any{"p": "proj/secrets/k"}},
			Require, "secrets"},
		{"from the project: its own secrets", own,
			Call{Tool: "Read", Args: map[string]any{"file_path": "secrets/k"}}, Deny, ""},
		{"from the project: the root is not deeper", own,
			Call{Tool: "Read", Args: map[string]any{"file_path": "src/a.go"}}, Allow, ""},
		{"from the project: above it", own, Call{Tool: "Grep", Args: map[string]any{"path": ".."}},
			Require, "secrets"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := c.s.Evaluate(DefaultGroup, c.call)
			if d.Action != c.action || d.Contains != c.contains {
				t.Errorf("Evaluate(%v) = %+v, want %s containing %q",
					c.call.Args, d, c.action, c.contains)
			}
		})
	}
}

// TestProjectPatternFollowsName links a project's secrets to .vault, then swaps the
// link for one to .vault-2 with no new Compile: the project's secrets/* deny covers
// what its secrets names in the project's own tree, from the top-level workspace as
// from the project's, for a file tool, a tool outside the file classes and a read
// holding the project, with every directory lstat'ed and with a Watcher alike, the
// views settled (the clock an hour ahead) so that only a changed directory makes them
// resolve again.
func TestProjectPatternFollowsName(t *testing.T) {
	clock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { clock = time.Now })
	for _, watched := range []bool{false, true} {
		t.Run(fmt.Sprintf("watched=%v", watched), func(t *testing.T) {
			base := testkit.Dir(t, "ws/docs", "ws/src/p/.vault", "ws/src/p/.vault-2",
				"ws/src/p/lib")
			root, proj := base+"/ws", base+"/ws/src/p"
			mustSymlink(t, ".vault", proj+"/secrets")
			var w *Watcher
			if watched {
				w = openWatcher(t)
			}
			rs := append(seedRules(),
				Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow,
					Priority: 100},
				Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "mcp__notes__*", Action: Allow,
					Priority: 100})
			opt := Options{Projects: []string{root, proj}, Watcher: w}
			opt.WorkspaceRoot = root
			top := Compile(nil, rs, opt)
			opt.WorkspaceRoot = proj
			own := Compile(nil, rs, opt)
			type check struct {
				name     string
				s        *Set
				call     Call
				action   Action
				contains string
			}
			run := func(step string, cases []check) {
				t.Helper()
				for _, c := range cases {
					t.Run(step+": "+c.name, func(t *testing.T) {
						d := c.s.Evaluate(DefaultGroup, c.call)
						if d.Action != c.action || d.Contains != c.contains {
							t.Errorf("Evaluate(%s %v) = %+v, want %s containing %q", c.call.Tool,
								c.call.Args, d, c.action, c.contains)
						}
					})
				}
			}
			readOf := func(p string) Call {
				return Call{Tool: "Read", Args: map[string]any{"file_path": p}}
			}
			notes := func(p string) Call {
				return Call{Tool: "mcp__notes__get", Args: map[string]any{"path": p}}
			}
			grep := func(p string) Call {
				return Call{Tool: "Grep", Args: map[string]any{"path": p}}
			}
			run("linked", []check{
				{"top: by the link", top, readOf("src/p/secrets/key"), Deny, ""},
				{"top: by the target", top, readOf("src/p/.vault/key"), Deny, ""},
				{"top: absolute target", top, readOf(proj + "/.vault/key"), Deny, ""},
				{"top: other tool", top, notes("src/p/.vault/key"), Require, ".vault"},
				{"top: holding the project", top, grep("src"), Require, "src/p/.vault"},
				{"top: its code", top, readOf("src/p/lib/a.go"), Allow, ""},
				{"top: the next target is no secret yet", top, readOf("src/p/.vault-2/key"),
					Allow, ""},
				{"own: by the link", own, readOf("secrets/key"), Deny, ""},
				{"own: by the target", own, readOf(".vault/key"), Deny, ""},
			})
			testkit.Must(t, os.Remove(proj+"/secrets"))
			mustSymlink(t, ".vault-2", proj+"/secrets")
			run("swapped", []check{
				{"top: by the link", top, readOf("src/p/secrets/key"), Deny, ""},
				{"top: by the new target", top, readOf("src/p/.vault-2/key"), Deny, ""},
				{"top: other tool", top, notes("src/p/.vault-2/key"), Require, ".vault-2"},
				{"top: the old target", top, readOf("src/p/.vault/key"), Allow, ""},
				{"own: by the new target", own, readOf(".vault-2/key"), Deny, ""},
				{"own: the old target", own, readOf(".vault/key"), Allow, ""},
			})
		})
	}
}
