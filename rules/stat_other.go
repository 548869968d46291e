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

// lstatLink reports whether name is a symlink or a device node, or the lstat error.
func lstatLink(name string) (link, device bool, err error) {
	fi, err := os.Lstat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return false, false, err
	}
	return fi.Mode()&fs.ModeSymlink != 0, fi.Mode()&fs.ModeDevice != 0, nil
}

// linkIn reports whether dir/name is a symlink.
func linkIn(dir, name string) bool {
	link, _, err := lstatLink(dir + "/" + name)
	return err == nil && link
}
