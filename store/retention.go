package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Prune applies the retention (docs/design.md, "Persistence") in one transaction: it deletes the
// finished approval requests resolved before before, the finished clarifications
// that ended before it, the finished runs that finished
// before before, and the audit entries older than before, with their index entries,
// and returns how many records it deleted. Pending requests and unfinished runs are
// kept whatever their age. When it deleted something it appends one audit entry
// "retention.prune" (by "system" via "retention") with the counts; when there is
// nothing to delete it writes nothing.
func (d *DB) Prune(before time.Time) (n int, err error) {
	err = d.update(func(tx *bolt.Tx) error {
		reqs, err := pruneRequests(tx, before)
		if err != nil {
			return err
		}
		runs, err := pruneRuns(tx, before)
		if err != nil {
			return err
		}
		audits, err := pruneAudit(tx, before)
		if err != nil {
			return err
		}
		clars, err := pruneClarifications(tx, before)
		if err != nil {
			return err
		}
		n = reqs + runs + audits + clars
		if n == 0 {
			return errNoChange
		}
		detail := fmt.Sprintf("before %s: %d requests, %d runs, %d audit entries",
			before.UTC().Format(time.RFC3339), reqs, runs, audits)
		if clars > 0 {
			detail += fmt.Sprintf(", %d clarifications", clars)
		}
		return d.audit(tx, actorRetention, AuditRetentionPruned, 0, 0, detail)
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune: %w", err)
	}
	return n, nil
}

// prunable returns the records of b, in id order, for which done holds. Ids are in
// creation order, and a record created at or after before cannot have finished before
// it, so the scan stops at the first record whose created time is not before before.
func prunable[T any](b *bolt.Bucket, before time.Time, created func(T) time.Time,
	done func(T) bool) ([]T, error) {
	var out []T
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var r T
		if err := decodeJSON(k, v, &r); err != nil {
			return nil, err
		}
		if !created(r).Before(before) {
			break
		}
		if done(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
