package rules

import (
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The lookup cache keeps, across calls, the lstat answers and directory listings
// that shell calls' path work asks for (path resolution, config files, a
// repository's root), so that a script naming the same paths again makes no
// system call for them. An answer about a path is kept only when every directory
// from the workspace root (or "/" outside it) down to the one the answer depends on
// — the path's own directory, or the listed one — is watched by inotify, each watch
// set before the lookup, and no event for one of those came by the end of the call
// (lookGen unchanged). Any event in a watched directory forgets the answers at or
// under the entry it names (the entry, its listing, everything below it, and the
// watches there) and the directory's own listing; an event on the directory itself
// forgets everything under it; a full queue forgets everything. So an answer kept
// is what a lookup would tell, unless a mount or a move above the workspace root
// changed what a path names: as for the view, that is seen within watchRecheck,
// after which an answer is looked up again and a watch is checked by lstat.

// maxLooks bounds the answers a Watcher keeps; maxLookDirs the directories it
// watches for them.
const (
	maxLooks    = 4096
	maxLookDirs = 256
)

// lookAnswer is one kept answer: an lstat's, or a listing's (links, err).
type lookAnswer struct {
	at    time.Time // when it was looked up, before the system call
	e     lstatEntry
	links []string
	err   error
}

func (a *lookAnswer) fresh(now time.Time) bool {
	age := now.Sub(a.at)
	return age >= 0 && age < watchRecheck
}

// lookBegin reads the queued events when read is true and returns the generation a
// session starts at; ok is false when w is closed.
func (w *Watcher) lookBegin(read bool) (gen uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return 0, false
	}
	if read {
		w.drain()
	}
	return w.lookGen, true
}

// lookEnd keeps l's answers, reading the queued events first, unless an event came
// for a directory of the cache since l began; for an unread session it returns the
// mark to check.
func (w *Watcher) lookEnd(l *lookSession) lookMark {
	w.mu.Lock()
	defer w.mu.Unlock()
	var m lookMark
	if l.unread {
		m = lookMark{w: w, gen: l.gen, drains: w.drains}
	}
	if !w.up || len(l.pending) == 0 {
		return m
	}
	w.drain()
	if w.lookGen != l.gen {
		return m
	}
	for _, p := range l.pending {
		m := w.looks
		if p.list {
			m = w.lists
		}
		if len(m) >= maxLooks {
			clear(m)
		}
		m[p.key] = p.a
	}
	return m
}

// lookStale is lookMark.stale: true also when w was closed since.
func (w *Watcher) lookStale(m lookMark) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return true
	}
	if w.drains == m.drains {
		w.drain()
	}
	return w.lookGen != m.gen
}

// lookLstat returns the lstat answer for name, kept or looked up.
func (w *Watcher) lookLstat(l *lookSession, name string) lstatEntry {
	now := clock()
	w.mu.Lock()
	if a, hit := w.looks[name]; hit && a.fresh(now) {
		w.mu.Unlock()
		l.used(a.at, true)
		return a.e
	}
	dir := filepath.Dir(name)
	stop, keep := w.lookWatch(l.root, dir)
	w.mu.Unlock()
	if !keep && stop != "" {
		if err := absentUnder(w.lookLstat(l, stop)); err != nil {
			return lstatEntry{name: name, err: err}
		}
	}
	e := lstatInfo(name)
	l.used(now, keep)
	if keep {
		l.pending = append(l.pending, lookPending{key: name, a: lookAnswer{at: now, e: e}})
	}
	return e
}

// lookSymlinks is lookSession.symlinks, kept or looked up.
func (w *Watcher) lookSymlinks(l *lookSession, dir string) ([]string, error) {
	now := clock()
	w.mu.Lock()
	if a, hit := w.lists[dir]; hit && a.fresh(now) {
		w.mu.Unlock()
		l.used(a.at, true)
		return a.links, a.err
	}
	_, keep := w.lookWatch(l.root, dir)
	w.mu.Unlock()
	if !keep {
		// Not a directory that can be watched: when its lstat tells it is none, the
		// listing fails as os.ReadDir's open would.
		if err := absentUnder(w.lookLstat(l, dir)); err != nil {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
	}
	links, err := readSymlinks(dir)
	l.used(now, keep)
	if keep {
		l.pending = append(l.pending, lookPending{key: dir, list: true,
			a: lookAnswer{at: now, links: links, err: err}})
	}
	return links, err
}

// absentUnder returns the error an lstat of a path below the one e answers for, or
// an open of it as a directory, gets when e tells that it is no directory (ENOENT,
// ENOTDIR); else nil.
func absentUnder(e lstatEntry) error {
	switch {
	case e.err == syscall.ENOENT || e.err == syscall.ENOTDIR:
		return e.err
	case e.err == nil && !e.dir && !e.link:
		return syscall.ENOTDIR
	}
	return nil
}

// lookWatch watches every directory from the workspace root (or "/") down to dir,
// absolute and clean, and reports whether all are watched. When not, stop is the
// first one that could not be watched, below one that is, or "". The caller holds
// w.mu.
func (w *Watcher) lookWatch(root, dir string) (stop string, ok bool) {
	if !w.up || dir == "" || dir[0] != '/' || filepath.Clean(dir) != dir {
		return "", false
	}
	start := "/"
	if root != "" && root != "/" && inWorkspace(dir, root) {
		start = root
	}
	if !w.lookWatchDir(start) {
		return "", false
	}
	for k := len(start) + 1; k <= len(dir); k++ {
		if k < len(dir) && dir[k] != '/' {
			continue
		}
		if !w.lookWatchDir(dir[:k]) {
			return dir[:k], false
		}
	}
	return "", true
}

// lookWatchDir watches the directory d for the cache unless it is watched, and
// reports whether it is. A watch older than watchRecheck is checked to be on the
// directory d names. The caller holds w.mu.
func (w *Watcher) lookWatchDir(d string) bool {
	now := clock()
	if x := w.lookDirs[d]; x != nil {
		if age := now.Sub(x.at); age >= 0 && age < watchRecheck {
			return true
		}
		if dev, ino := dirInode(d); dev == x.dev && ino == x.ino {
			x.at = now
			return true
		}
		w.lookForget(d)
	}
	if a, hit := w.looks[d]; hit && a.fresh(now) && (a.e.err != nil || !a.e.dir) {
		return false // known to be no directory: no open to fail
	}
	if len(w.lookDirs) >= maxLookDirs {
		return false
	}
	wd, dev, ino, err := addWatch(w.fd, d)
	if err != nil {
		return false
	}
	x := &watch{look: d, wd: wd, dev: dev, ino: ino, at: now}
	w.lookDirs[d] = x
	w.byWD[wd] = append(w.byWD[wd], x)
	return true
}

// lookEvent forgets what an event for the watch wd, naming name ("" for the watched
// directory itself), may have changed. The caller holds w.mu.
func (w *Watcher) lookEvent(wd int32, name string) {
	var dirs []string
	for _, x := range w.byWD[wd] {
		if x.look != "" {
			dirs = append(dirs, x.look)
		}
	}
	for _, d := range dirs {
		if name == "" {
			w.lookForget(d)
			continue
		}
		delete(w.lists, d)
		w.lookForget(joinName(d, name))
	}
}

// joinName returns the entry name of the directory dir.
func joinName(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// lookForget forgets the answers and watches at or under p. The caller holds w.mu.
func (w *Watcher) lookForget(p string) {
	w.lookGen++
	for k := range w.looks {
		if atOrUnder(k, p) {
			delete(w.looks, k)
		}
	}
	for k := range w.lists {
		if atOrUnder(k, p) {
			delete(w.lists, k)
		}
	}
	for k, x := range w.lookDirs {
		if atOrUnder(k, p) {
			w.lookUnwatch(x)
		}
	}
}

// atOrUnder reports whether the clean absolute path k is p or lies under it.
func atOrUnder(k, p string) bool {
	return p == "/" || k == p || strings.HasPrefix(k, p) && k[len(p)] == '/'
}

// lookUnwatch removes the cache's watch x; the kernel's watch goes when nothing else
// uses it. The caller holds w.mu.
func (w *Watcher) lookUnwatch(x *watch) {
	delete(w.lookDirs, x.look)
	list := w.byWD[x.wd]
	for i, y := range list {
		if y == x {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) > 0 {
		w.byWD[x.wd] = list
		return
	}
	delete(w.byWD, x.wd)
	_, _ = syscall.InotifyRmWatch(w.fd, uint32(x.wd)) // EINVAL when the kernel removed it
}

// lookFlush forgets every answer and watch of the cache. The caller holds w.mu.
func (w *Watcher) lookFlush() {
	w.lookForget("/")
}
