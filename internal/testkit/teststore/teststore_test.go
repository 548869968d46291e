package teststore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// A snapshot sees a new rule and a new request: Unchanged would fail on either.
func TestSnapshotSeesChanges(t *testing.T) {
	db := teststore.Open(t, store.Options{Now: testkit.NewClock(testkit.T0).Now})
	before := teststore.Snapshot(t, db)
	teststore.Unchanged(t, db, before)

	if _, err := db.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "x",
		Action: rules.Allow, Priority: 5}, store.Actor{By: "t", Via: "test"}); err != nil {
		t.Fatal(err)
	}
	afterRule := teststore.Snapshot(t, db)
	if afterRule == before {
		t.Fatal("a new rule left the snapshot as it was")
	}
	if _, _, err := db.CreateRequest(store.Request{SessionID: "s", ToolName: "x",
		Arguments: []byte(`{}`), GroupID: rules.DefaultGroup,
		ExpiresAt: testkit.T0.Add(time.Hour), Status: store.Pending}); err != nil {
		t.Fatal(err)
	}
	afterRequest := teststore.Snapshot(t, db)
	if afterRequest == afterRule {
		t.Fatal("a new request left the snapshot as it was")
	}
	// The tool catalog, written by a gate in the background, is left out.
	testkit.Must(t, db.AddTools([]string{"Bash"}))
	teststore.Unchanged(t, db, afterRequest)
}

// SnapshotFile reads a closed store file as Snapshot reads it open, and closes it again:
// the file can be opened once more afterwards.
func TestSnapshotFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copy.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := teststore.Snapshot(t, db)
	testkit.Must(t, db.Close())
	if got := teststore.SnapshotFile(t, path); got != want {
		t.Fatalf("SnapshotFile = %s, want %s", got, want)
	}
	teststore.OpenAt(t, path, store.Options{Timeout: time.Second})
}
