package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// MaxMetaKeyLen is the longest key GetMeta, PutMeta and SeenDelivery accept, in bytes.
const MaxMetaKeyLen = 1024

func checkMetaKey(kind, key string) error {
	if key == "" || len(key) > MaxMetaKeyLen {
		return fmt.Errorf("%w: %s must be 1 to %d bytes", ErrInvalid, kind, MaxMetaKeyLen)
	}
	return nil
}

// GetMeta returns a copy of the value stored under key by PutMeta, or nil, nil when
// there is none. ErrInvalid for an empty key or one longer than MaxMetaKeyLen.
func (d *DB) GetMeta(key string) ([]byte, error) {
	if err := checkMetaKey("meta key", key); err != nil {
		return nil, fmt.Errorf("store: get meta %q: %w", key, err)
	}
	var v []byte
	err := d.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketValues).Get([]byte(key)); b != nil {
			v = append([]byte{}, b...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: get meta %q: %w", key, err)
	}
	return v, nil
}

// PutMeta stores v under key, replacing any value; a nil v deletes the key. It is for
// small values that must survive a restart, such as the last handled Telegram
// update_id. These values live in their own bucket, apart from the
// schema's magic and version. ErrInvalid for an empty key or one longer than
// MaxMetaKeyLen.
func (d *DB) PutMeta(key string, v []byte) error {
	if err := checkMetaKey("meta key", key); err != nil {
		return fmt.Errorf("store: put meta %q: %w", key, err)
	}
	err := d.update(func(tx *bolt.Tx) error {
		if v == nil {
			return tx.Bucket(bucketValues).Delete([]byte(key))
		}
		return tx.Bucket(bucketValues).Put([]byte(key), v)
	})
	if err != nil {
		return fmt.Errorf("store: put meta %q: %w", key, err)
	}
	return nil
}

// SeenDelivery de-duplicates chat deliveries (a Telegram update_id, a Slack envelope_id or
// trigger_id), so a replay acts once: it reports whether id was recorded less than ttl
// before now, and records it at now when it was not. In the same transaction it forgets
// every id recorded ttl or more before now, so the set stays small. A delivery seen again
// within ttl keeps its first time. ErrInvalid for an empty id, one longer than
// MaxMetaKeyLen, or ttl <= 0.
func (d *DB) SeenDelivery(id string, now time.Time, ttl time.Duration) (seen bool, err error) {
	if err := checkMetaKey("delivery id", id); err != nil {
		return false, fmt.Errorf("store: seen delivery %q: %w", id, err)
	}
	if ttl <= 0 {
		return false, fmt.Errorf("store: seen delivery %q: %w: ttl %v is not positive",
			id, ErrInvalid, ttl)
	}
	err = d.update(func(tx *bolt.Tx) error {
		seen = false
		ids, byTime := tx.Bucket(bucketDeliveries), tx.Bucket(bucketDeliveriesAt)
		pruned := false
		limit := timeNanos(now.Add(-ttl))
		var old [][]byte
		c := byTime.Cursor()
		for k, _ := c.First(); k != nil && keyNanos(k) <= limit; k, _ = c.Next() {
			old = append(old, append([]byte(nil), k...))
		}
		for _, k := range old {
			if err := byTime.Delete(k); err != nil {
				return err
			}
			if err := ids.Delete(k[8:]); err != nil {
				return err
			}
			pruned = true
		}
		if ids.Get([]byte(id)) != nil {
			seen = true
			if !pruned {
				return errNoChange
			}
			return nil
		}
		at := u64(timeNanos(now))
		if err := ids.Put([]byte(id), at); err != nil {
			return err
		}
		return byTime.Put(append(at, id...), nil)
	})
	if err != nil {
		return false, fmt.Errorf("store: seen delivery %q: %w", id, err)
	}
	return seen, nil
}
