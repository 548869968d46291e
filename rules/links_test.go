package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// linkWorkspace is workspace with folders that hold symlinks, one neighbour each:
//
//	docs/sx     → ../secrets       a link to a denied place
//	up/u        → ..               a link to an ancestor of it
//	abs/a       → <root>/secrets   an absolute link
//	into/k      → ../secrets/x     a link into it
//	prot/p      → ../state         a link to the data directory (protected)
//	dang/d      → ../nosuch        a dangling link
//	loop/l1 ↔ loop/l2              a link loop
//	ok/m        → ../memory        a link to a harmless folder
//	deep/a/sx   → ../../secrets    a link two levels down
//	wd/l        → ../wdeny         a link to what only Write is denied
//	deep2/a/b/sx → ../../../secrets three levels down
func linkWorkspace(t *testing.T) string {
	t.Helper()
	root := workspace(t)
	for _, d := range []string{"up", "abs", "into", "prot", "dang", "loop", "ok", "deep/a",
		"wd", "wdeny", "deep2/a/b", "many/a", "many/b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"docs/sx": "../secrets", "up/u": "..", "abs/a": root + "/secrets",
		"into/k": "../secrets/x", "prot/p": "../state", "dang/d": "../nosuch",
		"loop/l1": "l2", "loop/l2": "l1", "ok/m": "../memory", "deep/a/sx": "../../secrets",
		"wd/l": "../wdeny", "deep2/a/b/sx": "../../../secrets",
	} {
		mustSymlink(t, target, filepath.Join(root, link))
	}
	return root
}

// TestEvaluateFolderLinks covers (docs/design.md, "Protected and guarded places") a
// folder holding a symlink that leads to a guarded place, into one or above one: it
// holds that place, so a call on it is a locked require however the rules allow
// reading; a link elsewhere, dangling or in a loop holds nothing, and the folders a
// glob walks are looked into, but not below a "**".
func TestEvaluateFolderLinks(t *testing.T) {
	root := linkWorkspace(t)
	opt := seedOptions(root)
	opt.MCPFilesystem = []string{"filesystem"}
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "Write", PathPattern: "wdeny/*",
			Action: Deny, Priority: 1},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 50},
		Rule{ID: 22, GroupID: DefaultGroup, ToolPattern: "mcp__notes__*", Action: Allow,
			Priority: 50},
	)
	s := Compile(nil, rs, opt)
	// globIn is the arguments of a Glob for pattern in the folder dir.
	globIn := func(pattern, dir string) map[string]any {
		return map[string]any{"pattern": pattern, "path": dir}
	}
	// contains "" wants allow; "*" a locked require holding any place; "!" a deny.
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		cwd        string
		contains   string
	}{
		{"Grep a folder with a link to the place", "Grep",
			map[string]any{"path": "docs", "pattern": "x"}, "", "secrets"},
		{"LS it", "LS", map[string]any{"path": "docs"}, "", "secrets"},
		{"LS it, absolute", "LS", map[string]any{"path": root + "/docs"}, "", "secrets"},
		{"Grep without a path in it", "Grep", map[string]any{"pattern": "x"}, root + "/docs",
			"secrets"},
		{"directory_tree", "mcp__filesystem__directory_tree", map[string]any{"path": "docs"}, "",
			"secrets"},
		{"search_files", "mcp__filesystem__search_files",
			map[string]any{"path": "docs", "pattern": "key"}, "", "secrets"},
		{"list_directory", "mcp__filesystem__list_directory", map[string]any{"path": "docs"}, "",
			"secrets"},
		{"a tool outside the file classes", "mcp__notes__list", map[string]any{"path": "docs"},
			"", "secrets"},
		{"Glob */key in it", "Glob", globIn("*/key", "docs"), "", "secrets"},
		{"Glob docs/*/key", "Glob", map[string]any{"pattern": "docs/*/key"}, "", "secrets"},
		{"Glob docs/s*/key", "Glob", map[string]any{"pattern": "docs/s*/key"}, "", "secrets"},
		{"Glob {ok,docs}/*/key", "Glob", map[string]any{"pattern": "{ok,docs}/*/key"}, "",
			"secrets"},
		{"Glob sx/* in it", "Glob", globIn("sx/*", "docs"), "", "!"},
		{"Glob with ** in it", "Glob", globIn("**/key", "docs"), "", "secrets"},
		{"Grep's glob in it", "Grep", map[string]any{"glob": "*/key", "path": "docs"}, "",
			"secrets"},
		{"a link to an ancestor", "Grep", map[string]any{"path": "up"}, "", "*"},
		{"an absolute link", "LS", map[string]any{"path": "abs"}, "", "secrets"},
		{"a link into the place", "LS", map[string]any{"path": "into"}, "", "secrets"},
		{"a link to the data directory", "LS", map[string]any{"path": "prot"}, "", "state"},
		{"a link in data/ into secrets/x", "LS", map[string]any{"path": "data"}, "", "*"},
		{"a dangling link", "LS", map[string]any{"path": "dang"}, "", ""},
		{"a link loop", "LS", map[string]any{"path": "loop"}, "", ""},
		{"a link to a harmless folder", "LS", map[string]any{"path": "ok"}, "", ""},
		{"Glob through it", "Glob", globIn("*/*", "ok"), "", ""},
		{"a link to what Write only is denied", "Grep", map[string]any{"path": "wd"}, "", ""},
		{"a file is no folder", "Read", map[string]any{"file_path": "data/file.txt"}, "", ""},
		// Two levels down: a glob walking there finds it, a search does not look.
		{"Grep, link two levels down", "Grep", map[string]any{"path": "deep"}, "", ""},
		{"Glob */*/key, link two levels down", "Glob", globIn("*/*/key", "deep"), "", "secrets"},
		{"Glob */key, link two levels down", "Glob", globIn("*/key", "deep"), "", "secrets"},
		{"Glob a/*/key, link two levels down", "Glob", globIn("a/*/key", "deep"), "", "secrets"},
		{"Glob */b/*, link three levels down", "Glob", globIn("*/b/*", "deep2"), "", "secrets"},
		{"Glob **/key, link two levels down", "Glob", globIn("**/key", "deep"), "", ""},
		{"Glob */**/key, link two levels down", "Glob", globIn("*/**/key", "deep"), "", "secrets"},
		// A class negated by "!" and an extended glob's group match as a shell's do.
		{"Glob [!x]*/*, link two levels down", "Glob", globIn("[!x]*/*", "deep"), "", "secrets"},
		{"Glob [!a]*/*, link two levels down", "Glob", globIn("[!a]*/*", "deep"), "", ""},
		{"Glob @(a)/*/key, link two levels down", "Glob", globIn("@(a)/*/key", "deep"), "",
			"secrets"},
		{"Glob !(x)/*/key, link two levels down", "Glob", globIn("!(x)/*/key", "deep"), "",
			"secrets"},
		{"Glob @(deep2)/a/*/key", "Glob", map[string]any{"pattern": "@(deep2)/a/*/key"}, "",
			"*"},
		{"Glob *.go where a link beside it leads nowhere", "Glob",
			globIn("*/*.go", "loop"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Tool: tc.tool, Args: tc.args, Cwd: tc.cwd}
			d := s.Evaluate(DefaultGroup, c)
			switch tc.contains {
			case "":
				if d.Action != Allow {
					t.Errorf("%s %v = %+v, want allow", tc.tool, tc.args, d)
				}
			case "!":
				if d.Action != Deny {
					t.Errorf("%s %v = %+v, want deny", tc.tool, tc.args, d)
				}
			default:
				if !d.Locked() || d.Contains == "" ||
					tc.contains != "*" && d.Contains != tc.contains ||
					d.Reason != ReasonContains+": "+d.Contains {
					t.Errorf("%s %v = %+v, want a locked require holding %s", tc.tool, tc.args,
						d, tc.contains)
				}
			}
		})
	}
}

// TestEvaluateFolderLinksWatched is TestEvaluateFolderLinks' first case with a
// Watcher keeping the listing: a link made after a call is seen by the next.
func TestEvaluateFolderLinksWatched(t *testing.T) {
	root := workspace(t)
	opt := seedOptions(root)
	opt.Watcher = openWatcher(t)
	rs := append(seedRules(),
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 50})
	s := Compile(nil, rs, opt)
	grep := Call{Tool: "Grep", Args: map[string]any{"path": "docs"}}
	for range 2 {
		if d := s.Evaluate(DefaultGroup, grep); d.Action != Allow {
			t.Fatalf("Grep docs = %+v, want allow", d)
		}
	}
	mustSymlink(t, "../secrets", filepath.Join(root, "docs", "sx"))
	if d := s.Evaluate(DefaultGroup, grep); !d.Locked() || d.Contains != "secrets" {
		t.Fatalf("Grep docs with docs/sx → ../secrets = %+v, want locked, holding secrets", d)
	}
	mustRemove(t, filepath.Join(root, "docs", "sx"))
	if d := s.Evaluate(DefaultGroup, grep); d.Action != Allow {
		t.Fatalf("Grep docs once the link is gone = %+v, want allow", d)
	}
}

// TestEvaluateGlobWalkBound: a glob that walks more folders than maxGlobWalk is for a
// human (locked, unresolvable); a "**" is not walked, so it stays allowed.
func TestEvaluateGlobWalkBound(t *testing.T) {
	root := workspace(t)
	for i := range maxGlobWalk + 1 {
		if err := os.MkdirAll(filepath.Join(root, "wide", "d", string(rune('a'+i%26))+
			string(rune('a'+i/26)), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rs := append(seedRules(),
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 50})
	s := Compile(nil, rs, seedOptions(root))
	for pattern, locked := range map[string]bool{"*/*/*/*.go": true, "**/*.go": false,
		"d/a*/x/*.go": false} {
		d := s.Evaluate(DefaultGroup, Call{Tool: "Glob",
			Args: map[string]any{"pattern": pattern, "path": "wide"}})
		if d.Locked() != locked || !locked && d.Action != Allow ||
			locked && d.PathState != PathInvalid {
			t.Errorf("Glob %s = %+v, want locked %v", pattern, d, locked)
		}
	}
}
