package store

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrWrite: a change could not be committed (the disk is full or read-only, an
// fsync failed, Options.FailCommit said so). The transaction was rolled back: nothing
// of the change was written.
var ErrWrite = errors.New("write failed; nothing was recorded")

// guard wraps fn of a write transaction: it records in *fnErr whether fn itself
// failed (a result such as ErrNotFound, not a write failure), and runs
// Options.FailCommit once fn succeeded.
func (d *DB) guard(fn func(*bolt.Tx) error, fnErr *bool) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		*fnErr = false
		if err := fn(tx); err != nil {
			*fnErr = true
			return err
		}
		if d.failCommit != nil {
			if err := d.failCommit(); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeErr maps the error of a write transaction: fn's own errors as mapErr does, a
// failed commit wrapped in ErrWrite.
func writeErr(err error, fnErr bool) error {
	if err == nil || fnErr || errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return mapErr(err)
	}
	return fmt.Errorf("%w: %w", ErrWrite, err)
}
