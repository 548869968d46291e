package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SetWaiterGone records at as when the caller waiting on pending request id stopped
// waiting (Request.WaiterGoneAt); a zero at clears it, for a caller waiting again.
// It returns the request as stored after the call and whether it changed: a request
// that is not pending, or already holds the same kind of value (a time when at is
// not zero, none when it is), is left as it is. Errors (nothing is written):
// ErrNotFound, ErrWrite.
func (d *DB) SetWaiterGone(id uint64, at time.Time) (Request, bool, error) {
	var (
		out     Request
		changed bool
	)
	err := d.update(func(tx *bolt.Tx) error {
		r, ok, err := getRequest(tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		out, changed = r, false
		if r.Status != Pending || r.WaiterGoneAt.IsZero() == at.IsZero() {
			return errNoChange
		}
		r.WaiterGoneAt = at
		if err := putJSON(tx.Bucket(bucketRequests), u64(id), r); err != nil {
			return err
		}
		out, changed = r, true
		return nil
	})
	if err != nil {
		return Request{}, false, fmt.Errorf("store: waiter of request %d: %w", id, err)
	}
	return out, changed, nil
}

// MarkMessageFinal marks message m (by channel, chat and ref) of request id as edited
// to show the request's outcome, so later reconciliations leave it alone. An unknown
// or already final message writes nothing. Errors (nothing is written): ErrNotFound
// (no such request), ErrWrite.
func (d *DB) MarkMessageFinal(id uint64, m Message) error {
	err := d.updateRequest(id, func(r *Request) bool { return finalMessage(r.Messages, m) })
	if err != nil {
		return fmt.Errorf("store: mark message %s of request %d final: %w", m.Ref, id, err)
	}
	return nil
}
