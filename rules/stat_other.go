//go:build !linux

package rules

import "time"

// fileID identifies a directory and its last change (see follow.go). Outside Linux the
// change time is not read, so no view is trusted: patterns are resolved on every call
// with a path.
type fileID struct{}

func statID(string) (fileID, bool) { return fileID{}, false }

func entryID(string) fileID { return fileID{} }

func (fileID) settled(time.Time) bool { return false }
