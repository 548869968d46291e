package rules

import (
	"io/fs"
	"os"
	"time"
)

// lookSession is one shell call's use of a Watcher's lookup cache (lookup_linux.go):
// from begin to end its lstat and listing answers may come from the cache, and the
// answers it had to look up are kept at end, when no event came meanwhile. Its zero
// value, or a session of a closed or nil Watcher, looks everything up.
type lookSession struct {
	w       *Watcher
	root    string // the workspace root: a path under it is watched from there down
	gen     uint64 // the Watcher's lookGen at begin
	on      bool
	unread  bool // begun without reading the event queue: see lookMark
	pending []lookPending
	// unkept counts the lookups that could not be kept; oldest is when the oldest
	// answer the session used was looked up.
	unkept int
	oldest time.Time
}

// lookPending is an answer a session looked up, to keep at its end.
type lookPending struct {
	key  string
	list bool // a listing's answer, else an lstat's
	a    lookAnswer
}

// begin starts the session on w (nil: none) for the workspace root. With unread, it
// does not read the event queue first: the answers it uses may then be older than
// an event already queued, and its caller must check the lookMark end returns.
func (l *lookSession) begin(w *Watcher, root string, unread bool) {
	l.w, l.root, l.on, l.unread = w, root, false, unread
	l.pending, l.unkept, l.oldest = l.pending[:0], 0, time.Time{}
	if w != nil {
		l.gen, l.on = w.lookBegin(!unread)
	}
}

// end keeps the session's answers in the Watcher when nothing changed meanwhile,
// and returns what an unread session's caller checks.
func (l *lookSession) end() lookMark {
	var m lookMark
	if l.on && (len(l.pending) > 0 || l.unread) {
		m = l.w.lookEnd(l)
	}
	l.on = false
	return m
}

// lookMark is where an unread session ended. An answer it used is what a lookup
// would have told unless an event for its directory was queued before the
// session's last lookup; a read of the queue at or after the end sees every such
// event, so the session's answers held when the generation is unchanged after one.
type lookMark struct {
	w           *Watcher // nil: nothing to check
	gen, drains uint64   // the session's generation; the Watcher's reads at the end
}

// stale reports whether the session m marks may have used an answer an event had
// already changed, reading the event queue unless a read began after its end.
func (m lookMark) stale() bool {
	return m.w != nil && m.w.lookStale(m)
}

// derived reports whether an answer derived from what the session looked up so far
// may be kept (every lookup could be), with the session's generation and the time
// of its oldest answer, which holds tells to an answer's later user.
func (l *lookSession) derived() (gen uint64, at time.Time, ok bool) {
	if !l.on || l.unkept > 0 {
		return 0, time.Time{}, false
	}
	at = l.oldest
	if at.IsZero() {
		at = clock()
	}
	return l.gen, at, true
}

// holds reports whether an answer derived in a session that began at generation gen
// from answers as old as at still holds in this session: no event came since, and
// at is not older than watchRecheck.
func (l *lookSession) holds(gen uint64, at time.Time) bool {
	if !l.on || gen != l.gen {
		return false
	}
	age := clock().Sub(at)
	return age >= 0 && age < watchRecheck
}

// used notes an answer the session used, looked up at at; kept is false when it
// could not be kept.
func (l *lookSession) used(at time.Time, kept bool) {
	if !kept {
		l.unkept++
	} else if l.oldest.IsZero() || at.Before(l.oldest) {
		l.oldest = at
	}
}

// lstat returns the lstat answer for name.
func (l *lookSession) lstat(name string) lstatEntry {
	if !l.on {
		return lstatInfo(name)
	}
	return l.w.lookLstat(l, name)
}

// symlinks returns the names of the symlinks in the directory dir, in the order of
// os.ReadDir, or its error.
func (l *lookSession) symlinks(dir string) ([]string, error) {
	if !l.on {
		return readSymlinks(dir)
	}
	return l.w.lookSymlinks(l, dir)
}

// readSymlinks is lookSession.symlinks without a cache.
func readSymlinks(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	return names, err
}
