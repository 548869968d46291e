package store_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

var errDiskFull = errors.New("no space left on device")

// faulty opens a store whose commits fail while the returned switch is on.
func faulty(t *testing.T) (*store.DB, *atomic.Bool) {
	t.Helper()
	var fail atomic.Bool
	db := teststore.OpenAt(t, filepath.Join(t.TempDir(), "skald.db"), store.Options{
		FailCommit: func() error {
			if fail.Load() {
				return errDiskFull
			}
			return nil
		},
	})
	return db, &fail
}

func pendingRequest(session string) store.Request {
	return store.Request{SessionID: session, ToolName: "Bash",
		Arguments: json.RawMessage(`{"command":"make"}`), Status: store.Pending,
		CreatedAt: testkit.T0, ExpiresAt: testkit.T0.Add(time.Hour)}
}

// Every write whose commit fails returns ErrWrite with the cause, and leaves the store
// as it was; once the disk is back, the same write succeeds.
func TestFailedCommitChangesNothing(t *testing.T) {
	approve := store.Resolution{By: "alice", Via: "telegram", At: testkit.T0}
	for _, tc := range []struct {
		name  string
		write func(db *store.DB, id uint64) error
	}{
		{"create request", func(db *store.DB, _ uint64) error {
			_, _, err := db.CreateRequest(pendingRequest("s2"))
			return err
		}},
		{"resolve", func(db *store.DB, id uint64) error {
			_, err := db.Resolve(id, store.Approved, approve)
			return err
		}},
		{"expire", func(db *store.DB, _ uint64) error {
			_, err := db.ExpireDue(testkit.T0.Add(2 * time.Hour))
			return err
		}},
		{"cancel session", func(db *store.DB, _ uint64) error {
			_, err := db.CancelSession("s1", approve)
			return err
		}},
		{"add message", func(db *store.DB, id uint64) error {
			return db.AddMessage(id, store.Message{Channel: "telegram", ChatID: "1", Ref: "2"})
		}},
		{"create rule", func(db *store.DB, _ uint64) error {
			_, err := db.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Read",
				Action: rules.Allow, Priority: 5}, alice)
			return err
		}},
		{"create run", func(db *store.DB, _ uint64) error {
			_, err := db.CreateRun(store.Run{Job: "nightly"})
			return err
		}},
		{"put meta", func(db *store.DB, _ uint64) error { return db.PutMeta("k", []byte("v")) }},
		{"seen delivery", func(db *store.DB, _ uint64) error {
			_, err := db.SeenDelivery("env-1", testkit.T0, time.Hour)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, fail := faulty(t)
			req, _, err := db.CreateRequest(pendingRequest("s1"))
			testkit.Must(t, err)
			before := teststore.Snapshot(t, db)
			fail.Store(true)
			err = tc.write(db, req.ID)
			testkit.WantErr(t, err, store.ErrWrite, "nothing was recorded",
				"no space left on device")
			if !errors.Is(err, errDiskFull) {
				t.Errorf("%v does not wrap the cause", err)
			}
			teststore.Unchanged(t, db, before)
			if got, err := db.Request(req.ID); err != nil || got.Status != store.Pending {
				t.Fatalf("request after the failed write: %s, %v", got.Status, err)
			}
			fail.Store(false)
			testkit.Must(t, tc.write(db, req.ID))
		})
	}
}

// A result is not a write failure: a resolution that loses to another one is
// ErrAlreadyResolved, not ErrWrite, while the disk is fine.
func TestResultIsNotWriteFailure(t *testing.T) {
	db, _ := faulty(t)
	req, _, err := db.CreateRequest(pendingRequest("s1"))
	testkit.Must(t, err)
	res := store.Resolution{By: "alice", Via: "telegram", At: testkit.T0}
	_, err = db.Resolve(req.ID, store.Approved, res)
	testkit.Must(t, err)
	_, err = db.Resolve(req.ID, store.Rejected, res)
	testkit.WantErr(t, err, store.ErrAlreadyResolved)
	if errors.Is(err, store.ErrWrite) {
		t.Errorf("%v is a write failure", err)
	}
	_, err = db.Resolve(999, store.Rejected, res)
	testkit.WantErr(t, err, store.ErrNotFound)
	if errors.Is(err, store.ErrWrite) {
		t.Errorf("%v is a write failure", err)
	}
}

// MarkMessageFinal marks one message; the request leaves the unfinalized list only
// once all are final. An unknown request changes nothing.
func TestMarkMessageFinal(t *testing.T) {
	db, _ := faulty(t)
	req, _, err := db.CreateRequest(pendingRequest("s1"))
	testkit.Must(t, err)
	a := store.Message{Channel: "telegram", ChatID: "1", Ref: "2"}
	b := store.Message{Channel: "slack", ChatID: "C1", Ref: "3.4"}
	testkit.Must(t, db.AddMessage(req.ID, a))
	testkit.Must(t, db.AddMessage(req.ID, b))
	_, err = db.Resolve(req.ID, store.Approved,
		store.Resolution{By: "alice", Via: "telegram", At: testkit.T0})
	testkit.Must(t, err)

	before := teststore.Snapshot(t, db)
	testkit.WantErr(t, db.MarkMessageFinal(999, a), store.ErrNotFound, "request 999")
	teststore.Unchanged(t, db, before)

	testkit.Must(t, db.MarkMessageFinal(req.ID, a))
	got, err := db.Request(req.ID)
	testkit.Must(t, err)
	if !got.Messages[0].Final || got.Messages[1].Final {
		t.Fatalf("messages %+v, want only the first final", got.Messages)
	}
	if un, err := db.Unfinalized(); err != nil || len(un) != 1 {
		t.Fatalf("unfinalized %d (%v), want the request", len(un), err)
	}
	testkit.Must(t, db.MarkMessageFinal(req.ID, b))
	if un, err := db.Unfinalized(); err != nil || len(un) != 0 {
		t.Fatalf("unfinalized %d (%v) once all are final", len(un), err)
	}
}
