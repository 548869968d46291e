package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout of the buckets this build reads and writes (doc.go).
// Open refuses a file whose meta bucket holds a greater one (ErrSchemaVersion).
const SchemaVersion = 1

// magic marks a bbolt file as a skald-bot database (meta bucket, key "magic").
const magic = "skald-bot"

// DefaultLockTimeout is Open's wait for a file locked by another process when
// Options.Timeout is zero: just under 1 s, so a locked file is refused within a second.
const DefaultLockTimeout = 900 * time.Millisecond

// Batching of the hot transactions (CreateRequest, Resolve) through bbolt's db.Batch
// when several callers write at once. The delay is how long the first caller of a batch
// waits for company; it is short because a commit (two fsyncs) costs 1–2 ms here.
const (
	maxBatchDelay = 2 * time.Millisecond
	maxBatchSize  = 256
)

// Options configure Open. The zero value is usable.
type Options struct {
	// Timeout is the longest Open waits for the file lock held by another process,
	// both opens (the read-only check and the read-write open) together; zero means
	// DefaultLockTimeout.
	Timeout time.Duration
	// Now is the clock for the times the store fills in when they are zero
	// (Request.CreatedAt, Run.StartedAt, Resolution.At, AuditEntry.At,
	// Message.ShownAt); nil means time.Now. It must be safe for concurrent use.
	Now func() time.Time
	// FailCommit, for fault tests, is called before each write transaction commits;
	// a non-nil error rolls the transaction back and the method returns it wrapped in
	// ErrWrite, as for a disk that is full or read-only. Open's own set-up writes
	// are not checked. nil in production.
	FailCommit func() error
}

// DB is the skald-bot database: one bbolt file holding permission groups, rules,
// approval requests, the audit log, the tool catalog, job runs and small meta values
// (doc.go lists the buckets). It is safe for concurrent use. Every change is one
// transaction: a method that changes something returns only after the change is
// committed and fsynced, and a method that fails changes nothing.
type DB struct {
	bolt *bolt.DB
	path string
	now  func() time.Time
	// writers counts the callers inside batch(), so a lone writer commits at once
	// instead of waiting maxBatchDelay for company.
	writers    atomic.Int32
	failCommit func() error
}

// Bucket names (doc.go describes each).
var (
	bucketMeta          = []byte("meta")
	bucketValues        = []byte("values")
	bucketGroups        = []byte("groups")
	bucketRules         = []byte("rules")
	bucketRulesByGroup  = []byte("rules_by_group")
	bucketRequests      = []byte("requests")
	bucketRequestsByTC  = []byte("requests_by_tool_call")
	bucketPending       = []byte("requests_pending")
	bucketUnfinal       = []byte("requests_unfinal")
	bucketAudit         = []byte("audit")
	bucketTools         = []byte("tools")
	bucketRuns          = []byte("runs")
	bucketRunsByJob     = []byte("runs_by_job")
	bucketRunsByStatus  = []byte("runs_by_status")
	bucketRunsByRequest = []byte("runs_by_request")
	bucketDeliveries    = []byte("deliveries")
	bucketDeliveriesAt  = []byte("deliveries_by_time")
	bucketClars         = []byte("clarifications")
	bucketClarByCID     = []byte("clarifications_by_id")
	bucketClarPending   = []byte("clarifications_pending")
	bucketClarUnfinal   = []byte("clarifications_unfinal")
	bucketClarByReply   = []byte("clarifications_by_reply")

	allBuckets = [][]byte{
		bucketMeta, bucketValues, bucketGroups, bucketRules, bucketRulesByGroup,
		bucketRequests, bucketRequestsByTC, bucketPending, bucketUnfinal, bucketAudit, bucketTools,
		bucketRuns, bucketRunsByJob, bucketRunsByStatus, bucketRunsByRequest,
		bucketDeliveries, bucketDeliveriesAt,
		bucketClars, bucketClarByCID, bucketClarPending, bucketClarUnfinal, bucketClarByReply,
	}

	keyMagic  = []byte("magic")
	keySchema = []byte("schema")
)

// Open opens the database at path, creating the file (mode 0600) when it does not
// exist, and returns it ready for use. It blocks up to opt.Timeout for the file lock.
//
// A file that is not ours, or of a newer schema, is refused with its bytes untouched;
// missing buckets are created and missing seeds written (docs/design.md, "Rule
// order"). Opening a database that needs nothing writes nothing.
//
// Errors, each naming the path: ErrLocked (another process holds the file past
// opt.Timeout), ErrNotOurs, ErrSchemaVersion, or the file system's error.
func Open(path string, opt Options) (*DB, error) {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	deadline := time.Now().Add(timeout)

	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("store: open %s: %w: is a directory", path, ErrNotOurs)
	case err == nil && fi.Size() > 0:
		if err := checkFile(path, timeout); err != nil {
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	case err == nil, errors.Is(err, fs.ErrNotExist):
		// A new or empty file: nothing to protect.
	default:
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}

	// Whatever the read-only check waited counts against the same timeout.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: remaining(deadline)})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, mapOpenErr(err, timeout))
	}
	b.MaxBatchDelay = maxBatchDelay
	b.MaxBatchSize = maxBatchSize
	d := &DB{bolt: b, path: path, now: now}
	if err := d.init(); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	d.failCommit = opt.FailCommit
	return d, nil
}

// remaining is the lock wait left before deadline, at least 1 ns (bbolt reads a zero
// timeout as "wait forever").
func remaining(deadline time.Time) time.Duration {
	return max(time.Until(deadline), time.Nanosecond)
}

// checkFile opens the existing, non-empty file read-only (a shared lock; bbolt writes
// nothing in that mode) and checks it is a skald-bot database of a known version.
func checkFile(path string, timeout time.Duration) error {
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return mapOpenErr(err, timeout)
	}
	defer b.Close()
	return b.View(checkMeta)
}

// mapOpenErr maps bbolt's open errors to the store's sentinels.
func mapOpenErr(err error, timeout time.Duration) error {
	var pathErr *fs.PathError
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return fmt.Errorf("%w: gave up after %v", ErrLocked, timeout)
	case errors.As(err, &pathErr):
		return err
	default:
		// ErrInvalid, ErrVersionMismatch, ErrChecksum, a file too short to hold a
		// bbolt meta page (io.EOF), …: not a database we can read.
		return fmt.Errorf("%w: %v", ErrNotOurs, err)
	}
}

// checkMeta checks the meta bucket of a database that has one: our magic and a schema
// version this build knows. A database without a meta bucket is not ours.
func checkMeta(tx *bolt.Tx) error {
	m := tx.Bucket(bucketMeta)
	if m == nil {
		return fmt.Errorf("%w: no skald-bot meta bucket", ErrNotOurs)
	}
	if !bytes.Equal(m.Get(keyMagic), []byte(magic)) {
		return fmt.Errorf("%w: wrong magic in the meta bucket", ErrNotOurs)
	}
	v := m.Get(keySchema)
	if len(v) != 8 {
		return fmt.Errorf("%w: no schema version in the meta bucket", ErrNotOurs)
	}
	switch n := binary.BigEndian.Uint64(v); {
	case n > SchemaVersion:
		return fmt.Errorf("%w: the file has schema version %d, this build knows up to %d "+
			"(written by a newer skald-bot?)", ErrSchemaVersion, n, SchemaVersion)
	case n == 0:
		return fmt.Errorf("%w: schema version 0", ErrNotOurs)
	}
	return nil
}

// init runs once in Open, under the exclusive lock: it writes the meta of a new file,
// creates the missing buckets and seeds; when there is nothing to do it writes nothing.
func (d *DB) init() error {
	return d.update(func(tx *bolt.Tx) error {
		changed := false
		if tx.Bucket(bucketMeta) == nil {
			// A new file. Another process may have filled it between the read-only
			// check and now: refuse anything that already has buckets.
			err := tx.ForEach(func([]byte, *bolt.Bucket) error { return ErrNotOurs })
			if err != nil {
				return fmt.Errorf("%w: it holds buckets but no skald-bot meta", ErrNotOurs)
			}
			m, err := tx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			if err := m.Put(keyMagic, []byte(magic)); err != nil {
				return err
			}
			if err := m.Put(keySchema, u64(SchemaVersion)); err != nil {
				return err
			}
			changed = true
		} else if err := checkMeta(tx); err != nil {
			return err
		}
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				if _, err := tx.CreateBucket(name); err != nil {
					return err
				}
				changed = true
			}
		}
		seeded, err := d.seed(tx)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if !changed && !seeded {
			return errNoChange
		}
		return nil
	})
}

// Path returns the file the DB was opened on.
func (d *DB) Path() string { return d.path }

// Close closes the file and releases its lock. It waits for running transactions to
// finish. Methods called after Close return ErrClosed. Closing twice is harmless.
func (d *DB) Close() error {
	if err := d.bolt.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", d.path, err)
	}
	return nil
}

// errNoChange, returned by a write closure, rolls the transaction back (so nothing is
// written or fsynced) and makes update return nil.
var errNoChange = errors.New("no change")

// update runs fn in a read-write transaction; errNoChange rolls back and is no error.
func (d *DB) update(fn func(*bolt.Tx) error) error {
	var fnErr bool
	err := d.bolt.Update(d.guard(fn, &fnErr))
	if errors.Is(err, errNoChange) {
		return nil
	}
	return writeErr(err, fnErr)
}

// view runs fn in a read-only transaction.
func (d *DB) view(fn func(*bolt.Tx) error) error {
	return mapErr(d.bolt.View(fn))
}

// viewOne returns the record get finds in a read transaction; ErrNotFound when get
// reports none, else get's error, for the caller to wrap with its operation.
func viewOne[T any](d *DB, get func(*bolt.Tx) (T, bool, error)) (T, error) {
	var v T
	err := d.view(func(tx *bolt.Tx) error {
		var ok bool
		var err error
		v, ok, err = get(tx)
		if err == nil && !ok {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// batch runs fn in a read-write transaction shared, through bbolt's db.Batch, with
// other callers writing at the same moment; a lone caller commits at once. fn may run
// more than once: it must reset what it captures at its start, and report outcomes
// such as a lost compare-and-set as captured values, never as an error (an error makes
// bbolt re-run the batch).
func (d *DB) batch(fn func(*bolt.Tx) error) error {
	defer d.writers.Add(-1)
	var fnErr bool
	if d.writers.Add(1) == 1 {
		return writeErr(d.bolt.Update(d.guard(fn, &fnErr)), fnErr)
	}
	return writeErr(d.bolt.Batch(d.guard(fn, &fnErr)), fnErr)
}

// mapErr maps bbolt's errors to the store's sentinels at the boundary.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return ErrClosed
	case errors.Is(err, bolterrors.ErrKeyTooLarge), errors.Is(err, bolterrors.ErrValueTooLarge),
		errors.Is(err, bolterrors.ErrKeyRequired):
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return err
}
