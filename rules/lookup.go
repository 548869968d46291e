package rules

import (
	"io/fs"
	"os"
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
	pending []lookPending
}

// lookPending is an answer a session looked up, to keep at its end.
type lookPending struct {
	key  string
	list bool // a listing's answer, else an lstat's
	a    lookAnswer
}

// begin starts the session on w (nil: none) for the workspace root.
func (l *lookSession) begin(w *Watcher, root string) {
	l.w, l.root, l.on = w, root, false
	l.pending = l.pending[:0]
	if w != nil {
		l.gen, l.on = w.lookBegin()
	}
}

// end keeps the session's answers in the Watcher when nothing changed meanwhile.
func (l *lookSession) end() {
	if l.on && len(l.pending) > 0 {
		l.w.lookEnd(l)
	}
	l.on = false
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
