package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// WriteTo writes a consistent copy of the whole database to w and returns the number
// of bytes written. The copy is the database as of the moment WriteTo starts: it is
// written from one read-only transaction (bbolt's Tx.WriteTo), so it holds every
// change committed before and none committed after, and opens as a database of its
// own (Open, Verify). On success it has written exactly the size of the file as that
// transaction sees it.
//
// It blocks until the whole copy is written to w, and does not block other callers:
// reads and writes go on, and commit, while it runs. Two bbolt costs last as long as
// it does, so w should be fast (a local file, a loopback connection): pages freed by
// the writes meanwhile are reused only after it ends (the file may grow), and a
// commit that must grow the file's memory map waits for it to end — with every write
// queued behind that one. Safe for concurrent use.
//
// Errors: ErrClosed, or w's first error (or a read error of the file), wrapped as
// "store: write copy: …"; w has then received an incomplete copy, which must not be
// used.
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
// consistent skald-bot database that this build can open — a copy WriteTo wrote, say.
// It opens the file read-only (waiting up to DefaultLockTimeout for a process that
// holds it, such as a running skald-bot on its own file), checks the meta bucket as
// Open does, that the file holds every page its header counts, and bbolt's consistency
// check of every page (Tx.Check), and that every clarification decodes and its pending
// index is consistent. It blocks until done: the whole file is read.
//
// Errors, each naming the path: ErrNotOurs (empty, not a bbolt file, not ours, or cut
// short), ErrSchemaVersion, ErrCorrupt (bbolt's check found damaged pages — the first
// few are named — or a page could not be read), ErrLocked, or the file system's error.
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
