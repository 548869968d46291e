package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// A, D and R are the actions the table tests expect, as one letter each.
const (
	A = Allow
	D = Deny
	R = Require
)

// workspace builds the test workspace in a fresh directory and returns its root,
// resolved through symlinks:
//
//	secrets/key, secrets/x/          the seeded deny
//	data/file.txt                    the seeded allow
//	data/link      → ../secrets/x    a symlink into secrets
//	data/new       → ../secrets/newx a symlink whose target does not exist yet
//	data/loop1 ↔ data/loop2          a symlink loop
//	data/state-link → ../state       a symlink into the data directory
//	data/config-link → ../skald.yaml a symlink to the config file
//	memory/a/b, memory-secrets/x, docs/
//	state/skald.db                   the data directory (Options.Protected)
//	data/skald/skald.db              a second one inside data/, as config.example.yaml has it
//	skald.yaml                       the config file (Options.Protected)
func workspace(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	buildWorkspace(tb, root)
	return root
}

// innerWorkspace is workspace one level down, at ws/ in the temporary directory, so
// that a path may leave it and still be inside a directory the test owns.
func innerWorkspace(tb testing.TB) string {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	root := base + "/ws"
	if err := os.Mkdir(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	buildWorkspace(tb, root)
	return root
}

// openWatcher opens a Watcher that is closed at the end of the test.
func openWatcher(tb testing.TB) *Watcher {
	tb.Helper()
	w := &Watcher{}
	if err := w.Open(); err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := w.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return w
}

func buildWorkspace(tb testing.TB, root string) {
	tb.Helper()
	for _, d := range []string{"secrets/x", "data/skald", "memory/a/b", "memory-secrets/x", "docs",
		"state"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range []string{"secrets/key", "data/file.txt", "state/skald.db",
		"data/skald/skald.db", "skald.yaml"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"data/link":        "../secrets/x",
		"data/new":         "../secrets/newx",
		"data/loop1":       "loop2",
		"data/loop2":       "loop1",
		"data/state-link":  "../state",
		"data/config-link": "../skald.yaml",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			tb.Fatal(err)
		}
	}
}

// seedRules are the rules the store seeds in group default, with the ids a fresh store
// gives them.
func seedRules() []Rule {
	rs := []Rule{
		{ID: 1, ToolPattern: "execute_cmd", Action: Require, Priority: 10},
		{ID: 2, ToolPattern: "Bash", Action: Require, Priority: 10},
	}
	for _, n := range []string{"write_todos", "notify", "activate_tools", "show_file_to_user",
		"image_generate", "TodoWrite"} {
		rs = append(rs, Rule{ID: uint64(len(rs) + 1), ToolPattern: n, Action: Allow, Priority: 10})
	}
	rs = append(rs,
		Rule{ID: 9, ToolPattern: "@fs_any", PathPattern: "memory/*", Action: Allow, Priority: 5},
		Rule{ID: 10, ToolPattern: "@fs_any", PathPattern: "data/*", Action: Allow, Priority: 5},
		Rule{ID: 11, ToolPattern: "@fs_any", PathPattern: "secrets/*", Action: Deny, Priority: 5},
		Rule{ID: 12, ToolPattern: "*", Action: Require, Priority: 999999},
	)
	for i := range rs {
		rs[i].GroupID = DefaultGroup
	}
	return rs
}

// seedOptions are the options of the test workspace: state/, data/skald/ and
// skald.yaml protected.
func seedOptions(root string) Options {
	return Options{
		WorkspaceRoot: root,
		Protected: []string{filepath.Join(root, "state"), filepath.Join(root, "data/skald"),
			filepath.Join(root, "skald.yaml")},
	}
}

// gitDir makes dir (relative to root) a repository's root: it holds a .git directory.
func gitDir(tb testing.TB, root, dir string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(root, dir, ".git"), 0o755); err != nil {
		tb.Fatal(err)
	}
}

func mustRename(tb testing.TB, from, to string) {
	tb.Helper()
	if err := os.Rename(from, to); err != nil {
		tb.Fatal(err)
	}
}

func mustRemove(tb testing.TB, name string) {
	tb.Helper()
	if err := os.Remove(name); err != nil {
		tb.Fatal(err)
	}
}

func mustSymlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Fatal(err)
	}
}
