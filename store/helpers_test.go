package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// alice is the actor of the tests' changes.
var alice = Actor{By: "alice", Via: "telegram"}

// openTest opens a new database in t.TempDir() with a clock at testkit.T0, closed at the end.
func openTest(t *testing.T) (*DB, *testkit.Clock) {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "skald.db"))
}

// openAt opens path with a clock at testkit.T0, closed at the end of the test.
func openAt(t *testing.T, path string) (*DB, *testkit.Clock) {
	t.Helper()
	c := testkit.NewClock(testkit.T0)
	d, err := Open(path, Options{Now: c.Now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d, c
}

// fileBytes returns the content of the database file.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unchanged fails the test when the file at path no longer holds before.
func unchanged(t *testing.T, path string, before []byte) {
	t.Helper()
	if !bytes.Equal(before, fileBytes(t, path)) {
		t.Errorf("%s changed on disk", filepath.Base(path))
	}
}

// auditActions returns the action of every audit entry, oldest first.
func auditActions(t *testing.T, d *DB) []string {
	t.Helper()
	es, err := d.Audit(0)
	testkit.Must(t, err)
	out := make([]string, len(es))
	for i, e := range es {
		out[len(es)-1-i] = e.Action
	}
	return out
}
