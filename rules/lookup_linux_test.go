package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// watchedShell compiles the seeded rules with allow rules for command patterns, over a
// new workspace, with an open Watcher and every view settled.
func watchedShell(t *testing.T, patterns ...string) (root string, s *Set, w *Watcher) {
	t.Helper()
	root, _, w = watchedSet(t)
	opt := seedOptions(root)
	opt.Watcher = w
	return root, Compile(nil, commandRules(nil, patterns...), opt), w
}

// lookState returns how many answers and directories w's lookup cache holds, and
// its generation.
func lookState(w *Watcher) (answers, dirs int, gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.looks) + len(w.lists), len(w.lookDirs), w.lookGen
}

// TestLookupCacheSeesChanges decides shell calls whose config files resolve through
// the lookup cache while their directories change between the calls: a symlinked
// .git and Go file appear and go, a .git file is rewritten in place (no event: what
// it says is read on every call), a package directory is replaced by another, and
// its parent too. Each decision is the one a Set without a Watcher makes, and an
// unchanged script is decided from the cache without forgetting anything.
func TestLookupCacheSeesChanges(t *testing.T) {
	root, s, w := watchedShell(t, "git status *", "go test *")
	plain := allowCommands(root, "", nil, "git status *", "go test *")
	at := func(p string) string { return filepath.Join(root, p) }
	for _, d := range []string{"data/fakegit", "src/q", "src/p"} {
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"data/fakegit/config", "data/a_test.go", "src/p/p.go"} {
		testkit.WriteFile(t, at(f), "package p\n")
	}
	gitStatus := Call{Tool: "Bash", Cwd: "src/q", Args: map[string]any{"command": "git status"}}
	goTest := Call{Tool: "Bash", Args: map[string]any{"command": "go test ./src/p"}}
	steps := []struct {
		name   string
		change func()
		call   Call
		want   Action
	}{
		{"no .git", func() {}, gitStatus, Allow},
		{".git linked to data", func() {
			mustSymlink(t, "../../data/fakegit", at("src/q/.git"))
		}, gitStatus, Require},
		{".git removed", func() { mustRemove(t, at("src/q/.git")) }, gitStatus, Allow},
		{".git file naming docs",
			func() { testkit.WriteFile(t, at("src/q/.git"), "gitdir: ../../docs\n") },
			gitStatus, Allow},
		{".git file rewritten in place to name data", func() {
			testkit.WriteFile(t, at("src/q/.git"), "gitdir: ../../data/fakegit\n")
		}, gitStatus, Require},
		{".git file removed", func() { mustRemove(t, at("src/q/.git")) }, gitStatus, Allow},
		{"no linked Go file", func() {}, goTest, Allow},
		{"Go file linked to data", func() {
			mustSymlink(t, "../../data/a_test.go", at("src/p/a_test.go"))
		}, goTest, Require},
		{"link removed", func() { mustRemove(t, at("src/p/a_test.go")) }, goTest, Allow},
		{"package replaced", func() {
			mustRename(t, at("src/p"), at("src/p-old"))
			if err := os.Mkdir(at("src/p"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, "../../data/a_test.go", at("src/p/a_test.go"))
		}, goTest, Require},
		{"package back", func() {
			mustRemove(t, at("src/p/a_test.go"))
			mustRemove(t, at("src/p"))
			mustRename(t, at("src/p-old"), at("src/p"))
		}, goTest, Allow},
		{"parent replaced", func() {
			mustRename(t, at("src"), at("src-old"))
			if err := os.MkdirAll(at("src/p"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, "../../data/a_test.go", at("src/p/a_test.go"))
		}, goTest, Require},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change()
			for try := range 2 { // the second from the cache
				d := s.Evaluate(DefaultGroup, st.call)
				if want := plain.Evaluate(DefaultGroup, st.call); d.Action != st.want ||
					d.Reason != want.Reason {
					t.Fatalf("try %d: Evaluate = %s %q, want %s %q", try, d.Action, d.Reason,
						st.want, want.Reason)
				}
			}
			n, dirs, gen := lookState(w)
			if n == 0 || dirs == 0 {
				t.Fatalf("the cache keeps %d answers in %d directories, want some", n, dirs)
			}
			if d := s.Evaluate(DefaultGroup, st.call); d.Action != st.want {
				t.Fatalf("again: Evaluate = %s %q, want %s", d.Action, d.Reason, st.want)
			}
			if n2, dirs2, gen2 := lookState(w); n2 != n || dirs2 != dirs || gen2 != gen {
				t.Errorf("an unchanged call changed the cache: %d answers, %d dirs, gen %d; "+
					"was %d, %d, %d", n2, dirs2, gen2, n, dirs, gen)
			}
		})
	}
}

// TestLookupCacheClosed: once the Watcher is closed, its cache is gone and calls are
// decided by lookups, as without one.
func TestLookupCacheClosed(t *testing.T) {
	root, s, w := watchedShell(t, "git status *")
	call := Call{Tool: "Bash", Cwd: "docs", Args: map[string]any{"command": "git status"}}
	if d := s.Evaluate(DefaultGroup, call); d.Action != Allow {
		t.Fatalf("watched: Evaluate = %s %q, want allow", d.Action, d.Reason)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n, dirs, _ := lookState(w); n != 0 || dirs != 0 {
		t.Errorf("closed: the cache keeps %d answers in %d directories", n, dirs)
	}
	mustSymlink(t, "../data", filepath.Join(root, "docs/.git"))
	if d := s.Evaluate(DefaultGroup, call); d.Action != Require {
		t.Errorf("closed: Evaluate = %s %q, want require", d.Action, d.Reason)
	}
}

// TestAtOrUnder tells the paths the cache forgets for an event.
func TestAtOrUnder(t *testing.T) {
	for _, tt := range []struct {
		k, p string
		want bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/x", "/", true},
	} {
		t.Run(tt.k+" "+tt.p, func(t *testing.T) {
			if got := atOrUnder(tt.k, tt.p); got != tt.want {
				t.Errorf("atOrUnder(%q, %q) = %v, want %v", tt.k, tt.p, got, tt.want)
			}
		})
	}
}
