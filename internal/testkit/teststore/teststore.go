package teststore

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// Open opens a new store in t.TempDir() with opt, closed when the test ends.
func Open(t testing.TB, opt store.Options) *store.DB {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "skald.db"), opt)
}

// OpenAt opens the store file at path with opt, closed when the test ends.
func OpenAt(t testing.TB, path string, opt store.Options) *store.DB {
	t.Helper()
	if opt.Timeout == 0 {
		opt.Timeout = 5 * time.Second
	}
	db, err := store.Open(path, opt)
	if err != nil {
		t.Fatalf("open store %s: %v", path, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Request returns request id of db, failing the test at once when it cannot.
func Request(t testing.TB, db *store.DB, id uint64) store.Request {
	t.Helper()
	r, err := db.Request(id)
	if err != nil {
		t.Fatalf("request %d: %v", id, err)
	}
	return r
}

// SnapshotFile checks the store file at path with store.Verify, opens it and returns
// its Snapshot; the file is closed again before SnapshotFile returns, so a later write
// may replace it. It fails the test on any error.
func SnapshotFile(t testing.TB, path string) string {
	t.Helper()
	if err := store.Verify(path); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, store.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("open store %s: %v", path, err)
	}
	defer db.Close()
	return Snapshot(t, db)
}

// Snapshot returns what a client of the store can read — groups, rules, every request,
// the audit log, runs and clarifications — as JSON, for Unchanged. The tool catalog is left out: a
// running gate writes it in the background, so it changes without a request changing.
func Snapshot(t testing.TB, db *store.DB) string {
	t.Helper()
	var s struct {
		Groups, Rules, Requests, Audit, Runs, Clarifications any
	}
	var err error
	if s.Groups, err = db.Groups(); err != nil {
		t.Fatal(err)
	}
	if s.Rules, err = db.Rules(); err != nil {
		t.Fatal(err)
	}
	s.Requests = byID(t, db.Request)
	if s.Audit, err = db.Audit(0); err != nil {
		t.Fatal(err)
	}
	if s.Runs, err = db.Runs("", 0); err != nil {
		t.Fatal(err)
	}
	s.Clarifications = byID(t, db.Clarification)
	return testkit.JSON(s)
}

// byID reads items 1, 2, … through get until 64 ids in a row are missing (retention
// leaves gaps); another error fails the test.
func byID[T any](t testing.TB, get func(uint64) (T, error)) []T {
	t.Helper()
	var out []T
	for id, misses := uint64(1), 0; misses < 64; id++ {
		v, err := get(id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			misses++
			continue
		case err != nil:
			t.Fatal(err)
		}
		misses = 0
		out = append(out, v)
	}
	return out
}

// Unchanged fails the test when the store no longer reads as before, a Snapshot.
func Unchanged(t testing.TB, db *store.DB, before string) {
	t.Helper()
	if after := Snapshot(t, db); after != before {
		t.Fatalf("the store changed:\nbefore %s\nafter  %s", before, after)
	}
}

// AuditActions returns the actions of db's audit log, oldest first. It fails the test
// at once on an error.
func AuditActions(t testing.TB, db *store.DB) []string {
	t.Helper()
	es, err := db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[len(es)-1-i] = e.Action
	}
	return out
}
