package rules

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// TestPatternFollowsName swaps secrets/ for a symlink to where it was moved, twice,
// with no new Compile: the seeded secrets/* deny covers what secrets names now, by
// either name, both while the directories' change times are recent (resolved on every
// call) and once they have settled (trusted until a change time moves).
func TestPatternFollowsName(t *testing.T) {
	for _, settled := range []bool{false, true} {
		name := "recent"
		if settled {
			name = "settled"
		}
		t.Run(name, func(t *testing.T) {
			if settled {
				clock = func() time.Time { return time.Now().Add(time.Hour) }
				t.Cleanup(func() { clock = time.Now })
			}
			root := workspace(t)
			s := Compile(nil, seedRules(), seedOptions(root))
			denied := func(step string, paths ...string) {
				t.Helper()
				for _, p := range paths {
					if d := s.Evaluate(DefaultGroup, read(p)); d.Action != Deny || d.RuleID != 11 {
						t.Errorf("%s: Read %s → %+v, want deny by rule 11", step, p, d)
					}
				}
			}
			notDenied := func(step, p string) {
				t.Helper()
				if d := s.Evaluate(DefaultGroup, read(p)); d.Action == Deny {
					t.Errorf("%s: Read %s → %+v, want no deny: secrets no longer names it",
						step, p, d)
				}
			}
			denied("before", "secrets/key", "data/link")
			if settled {
				v := s.view.Load()
				denied("unchanged", "secrets/key")
				if s.view.Load() != v {
					t.Error("a settled view was rebuilt although nothing changed")
				}
			}
			mustRename(t, root+"/secrets", root+"/.vault-1")
			mustSymlink(t, ".vault-1", root+"/secrets")
			denied("first swap", "secrets/key", ".vault-1/key", root+"/.vault-1/x/y")
			if err := os.Remove(root + "/secrets"); err != nil {
				t.Fatal(err)
			}
			mustRename(t, root+"/.vault-1", root+"/.vault-2")
			mustSymlink(t, ".vault-2", root+"/secrets")
			denied("second swap", "secrets/key", ".vault-2/key")
			notDenied("second swap", ".vault-1/key")
			// A restart resolves the same way, whatever the rule stored at creation.
			rs := seedRules()
			rs[10].ResolvedPathPattern = ".vault-1/*"
			s = Compile(nil, rs, seedOptions(root))
			denied("restart", "secrets/key", ".vault-2/key")
			notDenied("restart", ".vault-1/key")
			// Back to a plain directory under the old name.
			if err := os.Remove(root + "/secrets"); err != nil {
				t.Fatal(err)
			}
			mustRename(t, root+"/.vault-2", root+"/secrets")
			denied("back", "secrets/key")
			notDenied("back", ".vault-2/key")
		})
	}
}

// TestProtectedFollowsName moves the data directory away and links its name to where
// it went: it stays protected under both names without a new Compile.
func TestProtectedFollowsName(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	mustRename(t, root+"/state", root+"/moved")
	mustSymlink(t, "moved", root+"/state")
	for _, p := range []string{"state/skald.db", "moved/skald.db"} {
		if d := s.Evaluate(DefaultGroup, read(p)); d.Action != Deny ||
			d.Reason != ReasonProtected {
			t.Errorf("Read %s → %+v, want deny (protected)", p, d)
		}
	}
}

// TestDeniedPlaceFollowsName: the guard of a denied place follows its pattern too, for
// a directory tool above it and for a tool outside the file classes inside it.
func TestDeniedPlaceFollowsName(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 1})
	s := Compile(nil, rs, seedOptions(root))
	if err := os.MkdirAll(root+"/docs/hidden", 0o755); err != nil {
		t.Fatal(err)
	}
	mustRename(t, root+"/secrets", root+"/docs/hidden/vault")
	mustSymlink(t, "docs/hidden/vault", root+"/secrets")
	ls := Call{Tool: "LS", Args: map[string]any{"path": "docs"}}
	if d := s.Evaluate(DefaultGroup, ls); !d.Locked() || d.Contains != "docs/hidden/vault" {
		t.Errorf("LS docs → %+v, want locked require holding docs/hidden/vault", d)
	}
	d := s.Evaluate(DefaultGroup,
		Call{Tool: "mcp__notes__get", Args: map[string]any{"path": "docs/hidden/vault/key"}})
	if !d.Locked() || d.Reason != ReasonDenied+": docs/hidden/vault" {
		t.Errorf("mcp__notes__get in the moved secrets → %+v, want locked require", d)
	}
}

// TestPatternFollowsNameConcurrently swaps secrets/ again and again while calls are
// evaluated: Read secrets/key is denied at every moment, or, when the file system
// changed under the call each time it was tried, a require nothing lifts.
func TestPatternFollowsNameConcurrently(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	done := make(chan struct{})
	errs := make(chan string, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if d := s.Evaluate(DefaultGroup, read("secrets/key")); d.Action != Deny &&
					!d.Locked() {
					errs <- fmt.Sprintf("Read secrets/key → %+v during a swap", d)
					return
				}
			}
		}()
	}
	for i := range 50 {
		from, to := root+"/secrets", fmt.Sprintf("%s/.vault-%d", root, i)
		if i > 0 {
			if err := os.Remove(from); err != nil {
				t.Fatal(err)
			}
			from = fmt.Sprintf("%s/.vault-%d", root, i-1)
		}
		mustRename(t, from, to)
		mustSymlink(t, to[len(root)+1:], root+"/secrets")
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestPatternsOfMissingRoot: a workspace root that does not exist (yet) resolves every
// pattern as written, and a call is decided at once, not held as if it kept changing.
func TestPatternsOfMissingRoot(t *testing.T) {
	root := t.TempDir() + "/not-yet"
	rs := []Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "@fs_write", PathPattern: "src/*",
		Action: Allow}}
	s := Compile(nil, rs, Options{WorkspaceRoot: root})
	create := Call{Tool: "Write", Args: map[string]any{"file_path": root + "/src/a.ts"}}
	if d := s.Evaluate(DefaultGroup, create); d.Action != Allow || d.RuleID != 1 {
		t.Errorf("Write src/a.ts → %+v, want allow by rule 1", d)
	}
}

// TestOutsideFollowsEntry: a protected path outside the workspace depends on the entries
// looked up on the way to it, not on their directories' change times. A busy directory
// on the way (/tmp) that gains an unrelated name rebuilds nothing; the protected
// directory moved away and its name linked to where it went is still protected, by
// both names.
func TestOutsideFollowsEntry(t *testing.T) {
	clock = func() time.Time { return time.Now().Add(time.Hour) } // every view settled
	t.Cleanup(func() { clock = time.Now })
	root := workspace(t)
	outside := workspace(t) // a directory beside the workspace, holding state/
	opt := seedOptions(root)
	opt.Protected = []string{outside + "/state"}
	s := Compile(nil, seedRules(), opt)
	protected := func(step string, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if d := s.Evaluate(DefaultGroup, read(p)); d.Action != Deny ||
				d.Reason != ReasonProtected {
				t.Errorf("%s: Read %s → %+v, want deny (protected)", step, p, d)
			}
		}
	}
	protected("before", outside+"/state/skald.db")
	v := s.view.Load()
	if err := os.WriteFile(outside+"/unrelated", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	protected("busy directory", outside+"/state/skald.db")
	if s.view.Load() != v {
		t.Error("an unrelated name beside the protected path rebuilt the view")
	}
	mustRename(t, outside+"/state", outside+"/moved")
	mustSymlink(t, "moved", outside+"/state")
	protected("swapped", outside+"/state/skald.db", outside+"/moved/skald.db")
}
