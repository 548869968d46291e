//go:build !linux

package rules

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// fileID identifies a directory and its last change (see follow.go). Outside Linux the
// change time is not read, so no view is trusted: patterns are resolved on every call
// with a path.
type fileID struct{}

func statID(string) (fileID, bool) { return fileID{}, false }

func entryID(string) fileID { return fileID{} }

func (fileID) settled(time.Time) bool { return false }

// lstatInfo returns the lstat answer for name: what kind of file it is, or the lstat
// error.
func lstatInfo(name string) lstatEntry {
	fi, err := os.Lstat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return lstatEntry{name: name, err: err}
	}
	m := fi.Mode()
	return lstatEntry{name: name, link: m&fs.ModeSymlink != 0, device: m&fs.ModeDevice != 0,
		dir: m.IsDir(), regular: m.IsRegular()}
}

// linkIn reports whether dir/name is a symlink.
func linkIn(dir, name string) bool {
	e := lstatInfo(dir + "/" + name)
	return e.err == nil && e.link
}
