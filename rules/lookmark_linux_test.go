package rules

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLookMarkUnread: a session begun without reading the event queue answers from
// the cache, and its mark tells whether an event queued meanwhile may have changed
// an answer it used: not while nothing changes (nor is the queue read again when a
// read began after the session's end), but once a name is created in a directory
// whose answers it used, although the session's stale answer still says it is absent.
func TestLookMarkUnread(t *testing.T) {
	root, _, w := watchedSet(t)
	name := filepath.Join(root, "docs", "new.txt")
	session := func() (lstatEntry, lookMark) {
		var l lookSession
		l.begin(w, root, true)
		e := l.lstat(name)
		return e, l.end()
	}
	if e, m := session(); e.err != syscall.ENOENT || m.stale() {
		t.Fatalf("first session: lstat err %v, stale %v; want ENOENT, false", e.err, m.stale())
	}
	n, _, _ := lookState(w)
	if n == 0 {
		t.Fatal("the first session kept no answer")
	}
	e, m := session()
	if e.err != syscall.ENOENT {
		t.Fatalf("from the cache: lstat err %v, want ENOENT", e.err)
	}
	w.mu.Lock()
	w.drain() // a read after the session's end: stale needs none of its own
	reads := w.drains
	w.mu.Unlock()
	if m.stale() {
		t.Fatal("stale with nothing changed")
	}
	if w.mu.Lock(); w.drains != reads {
		t.Errorf("stale read the queue again after a read that began after the end")
	}
	w.mu.Unlock()

	if err := os.WriteFile(name, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, m = session()
	if e.err != syscall.ENOENT {
		t.Fatalf("before the queue is read: lstat err %v, want the kept ENOENT", e.err)
	}
	if !m.stale() {
		t.Fatal("not stale after the file was created")
	}
	if e, m := session(); e.err != nil || m.stale() {
		t.Fatalf("after the read: lstat err %v, stale %v; want nil, false", e.err, m.stale())
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !m.stale() {
		t.Error("a mark of a Watcher closed since is not stale")
	}
}
