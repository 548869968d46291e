package rules

import (
	"path/filepath"
	"testing"
)

// TestScriptLinkedToStdin: a script operand that is a link to standard input (or a
// descriptor) runs code from the input, so it is a locked require like bash
// /dev/stdin, under an allow-everything rule set: the link resolves through /proc/self
// or to a device, which is unresolvable (docs/design.md, "Unresolvable paths").
func TestScriptLinkedToStdin(t *testing.T) {
	root := workspace(t)
	mustSymlink(t, "/dev/stdin", filepath.Join(root, "s.sh"))
	mustSymlink(t, "/dev/stdin", filepath.Join(root, "s.py"))
	mustSymlink(t, "/dev/fd/0", filepath.Join(root, "fd.sh"))
	mustSymlink(t, "/proc/self/fd/0", filepath.Join(root, "proc.sh"))
	mustSymlink(t, "s.sh", filepath.Join(root, "two.sh"))
	rs := []Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "*", Action: Allow}}
	opt := seedOptions(root)
	opt.Watcher = openWatcher(t) // the cached lookups of a watcher decide alike
	for _, s := range []*Set{Compile(nil, rs, seedOptions(root)), Compile(nil, rs, opt)} {
		for _, cmd := range []string{"bash /dev/stdin < payload", "bash s.sh < payload",
			"python3 s.py", "sh fd.sh", "bash proc.sh", "bash two.sh < payload", "cat s.sh"} {
			t.Run(cmd, func(t *testing.T) {
				d := s.Evaluate(DefaultGroup, Call{Tool: "Bash",
					Args: map[string]any{"command": cmd}})
				if !d.Locked() {
					t.Fatalf("%+v, want a locked require", d)
				}
				if testing.Verbose() {
					t.Log(d.Reason, d.PathState)
				}
			})
		}
	}
}
