package rules

import (
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// lstat is syscall.Lstat without its allocation of a NUL-terminated copy of path: a
// path shorter than its stack buffer is copied there. It retries on EINTR.
func lstat(path string, st *syscall.Stat_t) error {
	var buf [512]byte
	if sysFstatat == 0 || len(path) >= len(buf) || strings.IndexByte(path, 0) >= 0 {
		for {
			if err := syscall.Lstat(path, st); err != syscall.EINTR {
				return err
			}
		}
	}
	copy(buf[:], path)
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, atFDCWD, uintptr(unsafe.Pointer(&buf[0])),
			uintptr(unsafe.Pointer(st)), atSymlinkNoFollow, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return errno
	}
}

// The fstatat arguments of an lstat.
const (
	atFDCWD           = ^uintptr(99) // AT_FDCWD, -100
	atSymlinkNoFollow = 0x100        // AT_SYMLINK_NOFOLLOW
)

// fileID identifies a directory and its last change, or an entry of a directory (see
// follow.go).
type fileID struct {
	dev, ino uint64
	ctime    int64  // nanoseconds since the epoch; 0 for an entry
	kind     uint32 // an entry's file type (S_IFMT bits)
}

// statID returns the identity of path, not following a final symlink, or the zero
// fileID and false when it cannot be read (it does not exist).
func statID(path string) (fileID, bool) {
	var st syscall.Stat_t
	if err := lstat(path, &st); err != nil {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino, ctime: st.Ctim.Nano()}, true
}

// entryID returns the identity of the entry path, not following a final symlink,
// without its change time: what the entry is, not what is in it. An entry that does
// not exist (or a file where a directory was expected) is the zero fileID; any other
// error is an identity of its own.
func entryID(path string) fileID {
	var st syscall.Stat_t
	if err := lstat(path, &st); err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return fileID{}
		}
		return fileID{ino: ^uint64(0)}
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino, kind: st.Mode & syscall.S_IFMT}
}

// settled reports whether the change time is old enough at now to tell a later change
// from it; a missing directory has settled.
func (id fileID) settled(now time.Time) bool {
	if id == (fileID{}) { // no directory: its creation changes the identity
		return true
	}
	margin := settleAfter
	if id.ctime%int64(time.Second) == 0 {
		margin = settleAfterCoarse
	}
	return now.UnixNano()-id.ctime > int64(margin)
}

// lstatInfo returns the lstat answer for name: what kind of file it is, or the lstat
// error (a syscall.Errno).
func lstatInfo(name string) lstatEntry {
	var st syscall.Stat_t
	if err := lstat(name, &st); err != nil {
		return lstatEntry{name: name, err: err}
	}
	return entryOfMode(name, st.Mode&syscall.S_IFMT)
}

// entryOfMode is the lstat answer for name of a file of type t (S_IFMT bits).
func entryOfMode(name string, t uint32) lstatEntry {
	return lstatEntry{name: name, link: t == syscall.S_IFLNK,
		device: t == syscall.S_IFCHR || t == syscall.S_IFBLK, dir: t == syscall.S_IFDIR,
		regular: t == syscall.S_IFREG}
}

// linkIn reports whether dir/name is a symlink, allocating nothing when the path is
// shorter than lstat's buffer.
func linkIn(dir, name string) bool {
	var buf [511]byte
	if len(dir)+1+len(name) > len(buf) {
		e := lstatInfo(dir + "/" + name)
		return e.err == nil && e.link
	}
	n := copy(buf[:], dir)
	buf[n] = '/'
	n += 1 + copy(buf[n+1:], name)
	var st syscall.Stat_t
	return lstat(unsafe.String(&buf[0], n), &st) == nil &&
		st.Mode&syscall.S_IFMT == syscall.S_IFLNK
}
