package rules

import (
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Watcher watches, with inotify, the directories a Set's path patterns depend on, so
// that a check need not lstat each of them (see follow.go), and those shell calls
// looked paths up in, to keep the answers (lookup_linux.go). Its zero value is closed:
// every dependency is then checked by lstat. Open and Close are safe for concurrent
// use with the checks of the Sets that hold it (Options.Watcher).
type Watcher struct {
	mu sync.Mutex // guards everything below
	fd int        // the inotify descriptor, -1 (or 0 in the zero value) when closed
	up bool       // fd is open
	// watches are by dependency key (a directory, or entryKey + an entry), byWD by
	// the watch descriptor the kernel gave the directory watched for it.
	watches map[depKey]*watch
	byWD    map[int32][]*watch
	buf     [4096]byte
	// The lookup cache (lookup_linux.go): lstat answers and listings by path, the
	// watches of the directories they depend on, and lookGen, which counts what
	// made it forget.
	looks, lists map[string]lookAnswer
	lookDirs     map[string]*watch
	lookGen      uint64
	drains       uint64 // counts the calls of drain
}

// watch is what is known of one dependency.
type watch struct {
	name string // for an entry, its base name: only events naming it count
	look string // for the lookup cache: the directory watched (every event counts)
	wd   int32  // -1: no watch set
	// gen counts the events seen for it; id is its identity as an lstat after the watch
	// was set confirmed it at generation idGen, at time at.
	gen, idGen uint64
	id         fileID
	trusted    bool
	at         time.Time
	// dev and ino are the directory the watch is on: a watch stays with its inode
	// when the name is moved, so a path naming another one is watched again.
	dev, ino uint64
}

// maxWatches bounds the dependencies a Watcher watches; the rest are checked by lstat.
const maxWatches = 256

// The events that may change a dependency: a name created, removed or renamed in the
// watched directory, its permissions, or the directory itself moved or removed. The
// watch is set through /proc/self/fd on a descriptor of the directory, so that the
// inode watched is the one its identity was read from.
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM |
	syscall.IN_MOVED_TO | syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF |
	syscall.IN_ONLYDIR

// selfGone are the events after which a watch no longer watches what its path names.
const selfGone = syscall.IN_MOVE_SELF | syscall.IN_DELETE_SELF | syscall.IN_UNMOUNT |
	syscall.IN_IGNORED

// Open starts watching; an error (no inotify, too many instances) leaves w closed.
// Opening an open Watcher does nothing.
func (w *Watcher) Open() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.up {
		return nil
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return &watchError{err}
	}
	w.fd, w.up = fd, true
	w.watches, w.byWD = map[depKey]*watch{}, map[int32][]*watch{}
	w.looks, w.lists, w.lookDirs = map[string]lookAnswer{}, map[string]lookAnswer{},
		map[string]*watch{}
	return nil
}

// Close stops watching and closes the descriptor; the Sets that hold w check by
// lstat from then on. Closing a closed Watcher does nothing.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return nil
	}
	w.up = false
	w.watches, w.byWD = nil, nil
	w.looks, w.lists, w.lookDirs = nil, nil, nil
	if err := syscall.Close(w.fd); err != nil {
		return &watchError{err}
	}
	return nil
}

type watchError struct{ err error }

func (e *watchError) Error() string { return "rules: inotify: " + e.err.Error() }
func (e *watchError) Unwrap() error { return e.err }

// trusted reports, for each of deps, whether it still has the identity it had when
// the view was built without an lstat: watched, confirmed with that identity, and
// no event for it since. It first reads every queued event.
func (w *Watcher) trusted(deps []dep, out []bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return
	}
	w.drain()
	now := clock()
	for i := range deps {
		d := &deps[i]
		x := w.watches[depKey{d.dir, d.inside}]
		out[i] = x != nil && x.trusted && x.id == d.id && now.Sub(x.at) < watchRecheck &&
			now.Sub(x.at) >= 0
	}
}

// drain reads the queued events and marks what they touch untrusted. The caller
// holds w.mu.
func (w *Watcher) drain() {
	w.drains++
	for {
		n, err := syscall.Read(w.fd, w.buf[:])
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) {
				w.untrustAll() // the queue cannot be read: trust nothing
			}
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameLen := int(ev.Len)
			name := ""
			if nameLen > 0 && off+syscall.SizeofInotifyEvent+nameLen <= n {
				b := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+nameLen]
				for i, c := range b {
					if c == 0 {
						b = b[:i]
						break
					}
				}
				name = string(b)
			}
			off += syscall.SizeofInotifyEvent + nameLen
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				w.untrustAll()
				continue
			}
			looked := false
			for _, x := range w.byWD[ev.Wd] {
				if x.look != "" {
					looked = true
				} else if x.name == "" || name == "" || name == x.name {
					x.gen++
					x.trusted = false
				}
			}
			if looked {
				w.lookEvent(ev.Wd, name)
			}
			if ev.Mask&selfGone != 0 { // moved or gone: watch the path again
				w.unwatch(ev.Wd)
			}
		}
	}
}

// unwatch removes the watch wd; its dependencies are watched again by path at their
// next check. The caller holds w.mu.
func (w *Watcher) unwatch(wd int32) {
	for _, x := range w.byWD[wd] {
		if x.look != "" {
			w.lookForget(x.look)
			continue
		}
		x.wd, x.trusted = -1, false
		x.gen++
	}
	delete(w.byWD, wd)
	_, _ = syscall.InotifyRmWatch(w.fd, uint32(wd)) // EINVAL when the kernel removed it
}

func (w *Watcher) untrustAll() {
	for _, x := range w.watches {
		x.gen++
		x.trusted = false
	}
	w.lookFlush()
}

// prepare sets the watch of d when it has none and returns its generation, before the
// caller lstats d; ok is false when d cannot be watched.
func (w *Watcher) prepare(d *dep) (gen uint64, ok bool) {
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return 0, false
	}
	key := depKey{d.dir, d.inside}
	x := w.watches[key]
	if x == nil {
		if len(w.watches) >= maxWatches {
			return 0, false
		}
		x = &watch{wd: -1}
		if !d.inside {
			x.name = filepath.Base(d.dir)
		}
		w.watches[key] = x
	}
	if x.wd < 0 {
		dir := d.dir
		if !d.inside {
			dir = filepath.Dir(d.dir) // an entry: its directory tells when it changes
		}
		wd, dev, ino, err := addWatch(w.fd, dir)
		if err != nil {
			return 0, false // not there, not a directory, no permission: lstat it
		}
		x.wd, x.dev, x.ino = wd, dev, ino
		w.byWD[x.wd] = append(w.byWD[x.wd], x)
	}
	return x.gen, true
}

// confirm trusts d with identity id, which an lstat after prepare returned gen read,
// unless an event came meanwhile or the watch is on another directory than the one
// the path names now.
func (w *Watcher) confirm(d *dep, gen uint64, id fileID) {
	dev, ino := id.dev, id.ino
	if !d.inside {
		dev, ino = dirInode(filepath.Dir(d.dir))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.up {
		return
	}
	x := w.watches[depKey{d.dir, d.inside}]
	switch {
	case x == nil || x.gen != gen || x.wd < 0:
	case x.dev != dev || x.ino != ino:
		w.unwatch(x.wd)
	default:
		x.id, x.idGen, x.trusted, x.at = id, gen, true, clock()
	}
}

// oPath is O_PATH, which package syscall does not define: a descriptor that only
// names the file (the same value on every Linux architecture Go supports).
const oPath = 0x200000

// addWatch watches the directory dir through a descriptor of it and returns the watch
// and the device and inode it is on.
func addWatch(fd int, dir string) (wd int32, dev, ino uint64, err error) {
	dfd, err := syscall.Open(dir, oPath|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|
		syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	defer syscall.Close(dfd)
	var st syscall.Stat_t
	if err := syscall.Fstat(dfd, &st); err != nil {
		return 0, 0, 0, err
	}
	n, err := syscall.InotifyAddWatch(fd, "/proc/self/fd/"+strconv.Itoa(dfd), watchMask)
	if err != nil {
		return 0, 0, 0, err
	}
	return int32(n), uint64(st.Dev), st.Ino, nil
}

// dirInode returns the device and inode of the directory dir, zero when it cannot be
// read.
func dirInode(dir string) (dev, ino uint64) {
	var st syscall.Stat_t
	if err := lstat(dir, &st); err != nil {
		return 0, 0
	}
	return uint64(st.Dev), st.Ino
}

// depKey is a dependency among a Watcher's watches: a directory in the workspace, or
// an entry outside it.
type depKey struct {
	dir    string
	inside bool
}
