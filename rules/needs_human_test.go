package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNeedsHuman: a write to an Options.NeedsHuman path is a locked require under an
// allow-everything rule set, however the path is written; a read stays allowed.
func TestNeedsHuman(t *testing.T) {
	root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(root, ".claude/settings.json")
	if err := os.WriteFile(settings, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, ".claude/settings.json", filepath.Join(root, "cfg-link"))
	rs := []Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "*", Action: Allow}}
	opt := seedOptions(root)
	// .github/workflows does not exist yet: writing a folder that would hold it
	// creates it.
	opt.NeedsHuman = []string{settings, filepath.Join(root, ".github/workflows")}
	s := Compile(nil, rs, opt)
	file := func(tool, p string) Call {
		return Call{Tool: tool, Args: map[string]any{"file_path": p}}
	}
	bash := func(cmd string) Call {
		return Call{Tool: "Bash", Args: map[string]any{"command": cmd}}
	}
	cases := []struct {
		name   string
		call   Call
		locked bool
	}{
		{"write relative", file("Write", ".claude/settings.json"), true},
		{"write absolute", file("Write", settings), true},
		{"write dot-dot", file("Write", "./.claude/../.claude/settings.json"), true},
		{"write via symlink", file("Write", "cfg-link"), true},
		{"edit", file("Edit", ".claude/settings.json"), true},
		{"mcp write", Call{Tool: "mcp__filesystem__write_file",
			Args: map[string]any{"path": ".claude/settings.json"}}, true},
		{"read", file("Read", ".claude/settings.json"), false},
		{"write neighbour", file("Write", ".claude/other.json"), false},
		{"shell redirect", bash("echo x > .claude/settings.json"), true},
		{"shell cp", bash("cp x .claude/settings.json"), true},
		{"shell tee", bash("echo x | tee .claude/settings.json"), true},
		{"shell ksh -c", bash("ksh -c 'echo x > .claude/settings.json'"), true},
		{"shell busybox sh -c", bash("busybox sh -c 'cp x .claude/settings.json'"), true},
		{"shell busybox rm folder", bash("busybox rm -rf .claude"), true},
		{"shell ksh -c rm folder", bash("ksh -c 'rm -rf .claude'"), true},
		{"shell read redirect", bash("wc -c < .claude/settings.json"), false},
		// Removing or moving a folder that holds the file writes it too; reading or
		// listing the folder does not.
		{"shell rm folder", bash("rm -rf .claude"), true},
		{"shell mv folder", bash("mv .claude x"), true},
		{"shell rm root", bash("rm -rf ."), true},
		{"mcp move folder", Call{Tool: "mcp__filesystem__move_file",
			Args: map[string]any{"source": ".claude", "destination": "x"}}, true},
		{"shell ls folder", bash("ls .claude"), false},
		{"shell grep folder", bash("grep -r x .claude"), false},
		{"grep folder", Call{Tool: "Grep", Args: map[string]any{"pattern": "x",
			"path": ".claude"}}, false},
		{"shell rm other folder", bash("rm -rf docs"), false},
		// A program the gate does not know may write what it is given, below it too;
		// the known readers beside it are decided by the rules.
		{"shell unknown program folder", bash("mmv .claude x"), true},
		{"shell unknown program root", bash("dpkg-deb -x x.deb ."), true},
		{"shell unknown program dot-dot", bash("kioclient5 move docs/../.claude trash:/"), true},
		{"shell unknown program option value", bash("mytool --out=.claude"), true},
		{"shell unknown program under env", bash("env A=1 mytool .claude"), true},
		{"shell unknown program other folder", bash("mytool docs"), false},
		{"shell unknown program neighbour file", bash("mytool .claude/other.json"), false},
		{"shell du folder", bash("du -s .claude"), false},
		{"shell cat neighbour", bash("cat .claude/other.json"), false},
		{"write in a folder to be", file("Write", ".github/workflows/ci.yml"), true},
		{"shell mv to a folder to be", bash("mv memory .github"), true},
		{"shell cp -r to a folder to be", bash("cp -r memory .github/workflows"), true},
		{"shell ln -s to a folder to be", bash("ln -s memory .github"), true},
		{"mcp move to a folder to be", Call{Tool: "mcp__filesystem__move_file",
			Args: map[string]any{"source": "memory", "destination": ".github"}}, true},
		{"shell mkdir a neighbour to be", bash("mkdir .gitlab"), false},
		// A tool outside the file classes may write what its path names.
		{"other tool", Call{Tool: "mcp__notes__save",
			Args: map[string]any{"path": ".claude/settings.json"}}, true},
		{"other tool folder", Call{Tool: "mcp__notes__save",
			Args: map[string]any{"dir": ".claude"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := s.Evaluate(DefaultGroup, tc.call)
			if d.Locked() != tc.locked {
				t.Fatalf("Locked() = %v, want %v (%+v)", d.Locked(), tc.locked, d)
			}
			if tc.locked && d.Action != Require {
				t.Fatalf("action %v, want require", d.Action)
			}
			if !tc.locked && d.Action != Allow {
				t.Fatalf("action %v, want allow (%+v)", d.Action, d)
			}
		})
	}
}
