package rules

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// watchedSet compiles the seeded rules of a new workspace with an open Watcher, with
// every view settled (the clock an hour ahead); both are undone at the end.
func watchedSet(t *testing.T) (root string, s *Set, w *Watcher) {
	t.Helper()
	clock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { clock = time.Now })
	root = workspace(t)
	w = openWatcher(t)
	opt := seedOptions(root)
	opt.Watcher = w
	return root, Compile(nil, seedRules(), opt), w
}

// wantRead checks that s decides a Read of each path as want.
func wantRead(t *testing.T, s *Set, step string, want Action, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if d := s.Evaluate(DefaultGroup, read(p)); d.Action != want {
			t.Errorf("%s: Read %s → %+v, want %s", step, p, d, want)
		}
	}
}

// TestWatcherSeesSwap swaps secrets/ for a symlink to where it was moved right before
// a check, with the directories watched: the check reads the event the rename queued
// and resolves again, so the deny follows the name at once; between changes the root
// is trusted without an lstat. Closed, the Watcher leaves the checks to lstat.
func TestWatcherSeesSwap(t *testing.T) {
	root, s, w := watchedSet(t)
	denied := func(step string, paths ...string) {
		t.Helper()
		wantRead(t, s, step, Deny, paths...)
	}
	rootTrusted := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		x := w.watches[depKey{root, true}]
		return x != nil && x.trusted
	}
	denied("before", "secrets/key")
	if !rootTrusted() {
		t.Fatal("the workspace root is not trusted after a check confirmed it")
	}
	// rebuilt reports whether the view changed while f ran.
	rebuilt := func(f func()) bool {
		v := s.view.Load()
		f()
		return s.view.Load() != v
	}
	if rebuilt(func() { denied("unchanged", "secrets/key") }) {
		t.Error("a watched view was rebuilt although nothing changed")
	}
	if !rebuilt(func() {
		mustRename(t, root+"/secrets", root+"/v")
		mustSymlink(t, "v", root+"/secrets")
		denied("swap", "secrets/key", "v/key")
	}) {
		t.Error("the swap did not rebuild the view")
	}
	denied("after the swap", "v/key")
	if !rootTrusted() {
		t.Error("the root is not trusted again once an lstat confirmed its new identity")
	}

	// Closed: every check lstats, and a swap is seen all the same.
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	mustRename(t, root+"/v", root+"/v2")
	if err := os.Remove(root + "/secrets"); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "v2", root+"/secrets")
	denied("closed", "secrets/key", "v2/key")
}

// TestWatcherFollowsReplacedDirectory: a watch stays with its inode, so when data/ is
// replaced by a new directory, the new one is watched: a symlink made in it later
// moves the protected data/skald, and the next check sees it.
func TestWatcherFollowsReplacedDirectory(t *testing.T) {
	root, s, _ := watchedSet(t)
	check := func(step, p string, want Action) {
		t.Helper()
		wantRead(t, s, step, want, p)
	}
	check("before", "data/skald/skald.db", Deny)
	mustRename(t, root+"/data", root+"/data-old")
	if err := os.Mkdir(root+"/data", 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // rebuild, then watch the new data/ and trust it
		check(fmt.Sprint("replaced ", i), "docs", Require)
	}
	mustSymlink(t, "../docs", root+"/data/skald")
	check("linked", "docs/x", Deny)
}

// TestWatcherFallback: a dependency that cannot be watched (beyond maxWatches, or a
// directory that does not exist) is checked by lstat, and an overflowed queue trusts
// nothing.
func TestWatcherFallback(t *testing.T) {
	w := &Watcher{}
	if err := w.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	root := workspace(t)
	missing := &dep{dir: root + "/nope", inside: true}
	if _, ok := w.prepare(missing); ok {
		t.Error("prepare of a missing directory: watched")
	}
	d := &dep{dir: root, inside: true}
	gen, ok := w.prepare(d)
	if !ok {
		t.Fatal("prepare of the root: not watched")
	}
	id, _ := statID(root)
	w.confirm(d, gen, id)
	d.id = id
	got := make([]bool, 1)
	w.trusted([]dep{*d}, got)
	if !got[0] {
		t.Fatal("a confirmed directory is not trusted")
	}
	w.mu.Lock()
	w.untrustAll() // what IN_Q_OVERFLOW does
	w.mu.Unlock()
	w.trusted([]dep{*d}, got)
	if got[0] {
		t.Error("trusted after an overflow")
	}
	w.mu.Lock()
	for i := len(w.watches); i < maxWatches; i++ {
		w.watches[depKey{dir: string(rune(i)), inside: true}] = &watch{wd: -1}
	}
	w.mu.Unlock()
	if _, ok := w.prepare(&dep{dir: root + "/docs", inside: true}); ok {
		t.Error("prepare beyond maxWatches: watched")
	}
}
