package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// WriteTo writes a consistent copy of the whole database to w, as of the moment it
// starts (one read-only transaction, bbolt's Tx.WriteTo), and returns the number of
// bytes written; the copy opens as a database of its own (Open, Verify). It blocks until
// the copy is written and lets reads and writes commit meanwhile, but while it runs
// freed pages are not reused (the file may grow) and a commit that must grow the memory
// map waits for it, so w should be fast (a local file, loopback). Safe for concurrent
// use. Errors: ErrClosed, or w's first error (or a read error), wrapped as "store: write
// copy: …"; w then holds an incomplete copy, which must not be used.
func (d *DB) WriteTo(w io.Writer) (int64, error) {
	var n int64
	ew := &errWriter{w: w}
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(ew)
		if ew.err != nil { // bbolt formats some of w's errors with %s
			return ew.err
		}
		return err
	})
	if err != nil {
		return n, fmt.Errorf("store: write copy: %w", err)
	}
	return n, nil
}

// errWriter remembers the first error of w, so WriteTo can return it as is.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// Verify checks, without writing a byte, that the file at path is a whole and
// consistent skald-bot database this build can open (a copy WriteTo wrote, say): the
// meta bucket as Open checks it, every page its header counts, bbolt's Tx.Check, and
// every clarification and its pending index. It opens the file read-only, waiting up to
// DefaultLockTimeout for a process that holds it, and blocks until the whole file is
// read. Errors, each naming the path: ErrNotOurs (empty, not a bbolt file, not ours, or
// cut short), ErrSchemaVersion, ErrCorrupt (damaged pages, the first few named, or an
// unreadable page), ErrLocked, or the file system's error.
func Verify(path string) (err error) {
	// A page read past the end of a cut-short file faults in the memory map; make that a
	// panic of this goroutine, turned into ErrCorrupt, instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: verify %s: %w: unreadable page (%v)", path, ErrCorrupt, r)
		}
	}()
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("store: verify %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("store: verify %s: %w: is a directory", path, ErrNotOurs)
	case fi.Size() == 0:
		return fmt.Errorf("store: verify %s: %w: empty file", path, ErrNotOurs)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: DefaultLockTimeout})
	if err != nil {
		return fmt.Errorf("store: verify %s: %w", path, mapOpenErr(err, DefaultLockTimeout))
	}
	defer b.Close()
	err = b.View(func(tx *bolt.Tx) error {
		// Every page lies below the header's high-water mark: a shorter file was cut.
		if tx.Size() > fi.Size() {
			return fmt.Errorf("%w: cut short: %d bytes of %d", ErrNotOurs, fi.Size(), tx.Size())
		}
		if err := checkMeta(tx); err != nil {
			return err
		}
		var errs []error
		for e := range tx.Check() {
			if len(errs) < maxCheckErrors {
				errs = append(errs, e)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(errs...))
		}
		return checkClarifications(tx)
	})
	if err != nil {
		return fmt.Errorf("store: verify %s: %w", path, err)
	}
	return nil
}

// maxCheckErrors is how many of bbolt's check errors Verify names.
const maxCheckErrors = 3
