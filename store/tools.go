package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// MaxToolNameLen is the longest tool name the catalog accepts, in bytes.
const MaxToolNameLen = 256

// MaxTools is the most tool names the catalog keeps, so that callers inventing names
// cannot grow the store without bound (docs/design.md, "Limits").
const MaxTools = 10000

// AddTools adds tool names to the catalog of tools seen (GET /api/approval/tools), in
// one transaction; names already known are skipped, and when all are known nothing is
// written. Once the catalog holds MaxTools names, new ones are skipped without an
// error. ErrInvalid, and nothing added, when a name is empty or longer than
// MaxToolNameLen.
func (d *DB) AddTools(names []string) error {
	for _, n := range names {
		if n == "" || len(n) > MaxToolNameLen {
			return fmt.Errorf("store: add tools: %w: tool name %.40q must be 1 to %d bytes",
				ErrInvalid, n, MaxToolNameLen)
		}
	}
	err := d.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTools)
		added := false
		n := b.Stats().KeyN
		for _, name := range names {
			if b.Get([]byte(name)) != nil || n >= MaxTools {
				continue
			}
			n++
			if err := b.Put([]byte(name), nil); err != nil {
				return err
			}
			added = true
		}
		if !added {
			return errNoChange
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: add tools: %w", err)
	}
	return nil
}

// Tools returns every tool name seen, sorted (byte order).
func (d *DB) Tools() ([]string, error) {
	var out []string
	err := d.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTools).ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: tools: %w", err)
	}
	return out, nil
}
