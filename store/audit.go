package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Audit actions written by the store. Other packages append their own ("tool.denied",
// "bypass.granted", …) through AppendAudit.
const (
	AuditRuleCreate      = "rule.create"
	AuditRuleUpdate      = "rule.update"
	AuditRuleDelete      = "rule.delete"
	AuditGroupCreate     = "group.create"
	AuditGroupUpdate     = "group.update"
	AuditGroupDelete     = "group.delete"
	AuditGroupDuplicate  = "group.duplicate"
	AuditRequestExpired  = "request.expired"
	AuditRetentionPruned = "retention.prune"
)

// auditResolved is the action of a resolution to status s: "request.approved",
// "request.rejected" or "request.cancelled".
func auditResolved(s Status) string { return "request." + string(s) }

// System actors: the store's own changes are made by "system".
var (
	actorSeed      = Actor{By: "system", Via: "seed"}
	actorExpiry    = Actor{By: "system", Via: "gate"}
	actorRetention = Actor{By: "system", Via: "retention"}
)

// appendAudit appends e inside tx, assigning the next audit id; a zero At is now.
func (d *DB) appendAudit(tx *bolt.Tx, e AuditEntry) error {
	b := tx.Bucket(bucketAudit)
	id, err := b.NextSequence()
	if err != nil {
		return err
	}
	e.ID = id
	if e.At.IsZero() {
		e.At = d.now()
	}
	return putJSON(b, u64(id), e)
}

// audit appends an entry made by actor inside tx.
func (d *DB) audit(tx *bolt.Tx, by Actor, action string, ruleID, requestID uint64,
	detail string) error {
	return d.appendAudit(tx, AuditEntry{By: by.By, Via: by.Via, Action: action,
		RuleID: ruleID, RequestID: requestID, Detail: detail})
}

// AppendAudit appends entries to the audit log in one transaction, assigning their ids
// in order; a zero At is set to now. It is how the gate's background batcher writes
// denies and bypass changes. Every entry needs By and Action, else
// ErrInvalid and nothing is written. Appending no entries writes nothing.
func (d *DB) AppendAudit(entries ...AuditEntry) error {
	for i, e := range entries {
		if e.By == "" || e.Action == "" {
			return fmt.Errorf("store: append audit: entry %d: %w: by and action are required",
				i, ErrInvalid)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	err := d.update(func(tx *bolt.Tx) error {
		for _, e := range entries {
			if err := d.appendAudit(tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append audit: %w", err)
	}
	return nil
}

// Audit returns at most limit audit entries, newest (highest id) first; limit <= 0
// returns them all (GET /api/audit).
func (d *DB) Audit(limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = lastAs[AuditEntry](tx.Bucket(bucketAudit), limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: audit: %w", err)
	}
	return out, nil
}

// pruneAudit deletes the audit entries older than before. Entries are in id order,
// which is time order up to the lag of the background batcher (about a second), so the
// scan stops at the first entry not older than before.
func pruneAudit(tx *bolt.Tx, before time.Time) (int, error) {
	b := tx.Bucket(bucketAudit)
	var keys [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var e AuditEntry
		if err := decodeJSON(k, v, &e); err != nil {
			return 0, err
		}
		if !e.At.Before(before) {
			break
		}
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
