package store

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

func TestOpenNewFileHasMetaAndBuckets(t *testing.T) {
	d, _ := openTest(t)
	err := d.bolt.View(func(tx *bolt.Tx) error {
		if err := checkMeta(tx); err != nil {
			return err
		}
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				t.Errorf("bucket %s missing", name)
			}
		}
		return nil
	})
	testkit.Must(t, err)
}

func TestReopenWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, _ := openAt(t, path)
	testkit.Must(t, d.Close())
	before := testkit.FileBytes(t, path)
	d2, err := Open(path, Options{})
	testkit.Must(t, err)
	testkit.Must(t, d2.Close())
	testkit.FileUnchanged(t, path, before)
}

func TestOpenEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	testkit.Must(t, os.WriteFile(path, nil, 0o600))
	d, _ := openAt(t, path)
	if _, err := d.Group("default"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesForeignFiles: a file that is not ours, or of a newer schema, is
// refused and left byte for byte as it was.
func TestOpenRefusesForeignFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	cases := []struct {
		name   string
		make   func(t *testing.T, path string)
		target error
		says   string
	}{
		{"random bytes", func(t *testing.T, path string) {
			testkit.Must(t, os.WriteFile(path, random, 0o600))
		}, ErrNotOurs, "not a skald-bot database"},
		{"short text file", func(t *testing.T, path string) {
			testkit.Must(t, os.WriteFile(path, []byte("hello\n"), 0o600))
		}, ErrNotOurs, "not a skald-bot database"},
		{"bbolt file without our meta", func(t *testing.T, path string) {
			boltFile(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
		}, ErrNotOurs, "no skald-bot meta bucket"},
		{"empty bbolt file", func(t *testing.T, path string) {
			boltFile(t, path, func(*bolt.Tx) error { return nil })
		}, ErrNotOurs, "no skald-bot meta bucket"},
		{"meta bucket of another program", func(t *testing.T, path string) {
			boltFile(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket(bucketMeta)
				if err != nil {
					return err
				}
				return b.Put(keyMagic, []byte("someone-else"))
			})
		}, ErrNotOurs, "wrong magic"},
		{"newer schema version", func(t *testing.T, path string) {
			d, err := Open(path, Options{})
			testkit.Must(t, err)
			testkit.Must(t, d.Close())
			boltFile(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketMeta).Put(keySchema,
					binary.BigEndian.AppendUint64(nil, SchemaVersion+1))
			})
		}, ErrSchemaVersion, "schema version 2, this build knows up to 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "skald.db")
			tc.make(t, path)
			before := testkit.FileBytes(t, path)
			d, err := Open(path, Options{})
			if err == nil {
				d.Close()
			}
			testkit.WantErr(t, err, tc.target, tc.says, path)
			testkit.FileUnchanged(t, path, before)
		})
	}
}

// boltFile writes a bbolt file at path with one transaction.
func boltFile(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	testkit.Must(t, err)
	testkit.Must(t, b.Update(fn))
	testkit.Must(t, b.Close())
}

func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir, Options{})
	testkit.WantErr(t, err, ErrNotOurs, "is a directory")
}

func TestOpenMissingDirectory(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope", "skald.db"), Options{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error = %v, want a not-exist error", err)
	}
}

// TestOpenLocked: a file held by another opener (bbolt's flock is per open file, so
// a second Open in this process competes like another process would) is refused with
// ErrLocked once the timeout passes, without touching the file.
func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, _ := openAt(t, path)
	before := testkit.FileBytes(t, path)

	for _, timeout := range []time.Duration{50 * time.Millisecond, 0} {
		start := time.Now()
		d2, err := Open(path, Options{Timeout: timeout})
		if err == nil {
			d2.Close()
		}
		testkit.WantErr(t, err, ErrLocked, path, "locked by another process")
		t.Logf("timeout %v: refused after %v", timeout, time.Since(start))
	}
	testkit.FileUnchanged(t, path, before)

	// Once the holder closes, the file opens.
	testkit.Must(t, d.Close())
	d3, err := Open(path, Options{Timeout: 50 * time.Millisecond})
	testkit.Must(t, err)
	testkit.Must(t, d3.Close())
}

func TestUseAfterClose(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.Close())
	testkit.Must(t, d.Close())
	_, err := d.Groups()
	testkit.WantErr(t, err, ErrClosed, "store: groups")
	_, _, err = d.CreateRequest(Request{ToolName: "Bash", ExpiresAt: testkit.T0.Add(time.Hour)})
	testkit.WantErr(t, err, ErrClosed)
}

// TestRestart: a request registered before a restart is resolved after it; its status
// and audit entry persist across another restart.
func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, err := Open(path, Options{Now: func() time.Time { return testkit.T0 }})
	testkit.Must(t, err)
	req, _, err := d.CreateRequest(Request{SessionID: "s1", ToolCallID: "tc1", ToolName: "Bash",
		Arguments: []byte(`{"command":"rm -rf build"}`), ExpiresAt: testkit.T0.Add(time.Hour)})
	testkit.Must(t, err)
	testkit.Must(t, d.Close())

	d, err = Open(path, Options{Now: func() time.Time { return testkit.T0.Add(time.Minute) }})
	testkit.Must(t, err)
	pending, err := d.Pending()
	testkit.Must(t, err)
	if len(pending) != 1 || pending[0].ID != req.ID {
		t.Fatalf("pending after restart = %+v", pending)
	}
	res := Resolution{By: "alice", Via: "telegram", Note: "ok"}
	if _, err := d.Resolve(req.ID, Approved, res); err != nil {
		t.Fatal(err)
	}
	testkit.Must(t, d.Close())

	d, err = Open(path, Options{})
	testkit.Must(t, err)
	defer d.Close()
	got, err := d.RequestByToolCall("s1", "tc1")
	testkit.Must(t, err)
	if got.Status != Approved || got.Resolution == nil || got.Resolution.By != "alice" ||
		!got.Resolution.At.Equal(testkit.T0.Add(time.Minute)) {
		t.Fatalf("after restart: %+v %+v", got, got.Resolution)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if len(es) != 1 || es[0].Action != "request.approved" || es[0].RequestID != req.ID ||
		es[0].By != "alice" {
		t.Fatalf("last audit entry = %+v", es)
	}
	if p, err := d.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("still pending: %+v (err %v)", p, err)
	}
}
