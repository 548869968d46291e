package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is the tests' start of time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is a settable clock for Options.Now; safe for concurrent use.
type clock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// alice is the actor of the tests' changes.
var alice = Actor{By: "alice", Via: "telegram"}

// openTest opens a new database in t.TempDir() with a clock at t0, closed at the end.
func openTest(t *testing.T) (*DB, *clock) {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "skald.db"))
}

// openAt opens path with a clock at t0, closed at the end of the test.
func openAt(t *testing.T, path string) (*DB, *clock) {
	t.Helper()
	c := &clock{now: t0}
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

// wantErr fails the test unless err matches target and its message holds every one
// of parts.
func wantErr(t *testing.T, err, target error, parts ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// auditActions returns the action of every audit entry, oldest first.
func auditActions(t *testing.T, d *DB) []string {
	t.Helper()
	es, err := d.Audit(0)
	must(t, err)
	out := make([]string, len(es))
	for i, e := range es {
		out[len(es)-1-i] = e.Action
	}
	return out
}
