package store

import (
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
