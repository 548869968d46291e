package store

import (
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

func TestMeta(t *testing.T) {
	d, _ := openTest(t)
	v, err := d.GetMeta("telegram.offset")
	if err != nil || v != nil {
		t.Fatalf("absent: %q, %v", v, err)
	}
	testkit.Must(t, d.PutMeta("telegram.offset", []byte("12345")))
	v, err = d.GetMeta("telegram.offset")
	testkit.Must(t, err)
	if string(v) != "12345" {
		t.Fatalf("GetMeta = %q", v)
	}
	testkit.Must(t, d.PutMeta("empty", []byte{}))
	if v, err := d.GetMeta("empty"); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("empty value read as %#v (err %v)", v, err)
	}
	testkit.Must(t, d.PutMeta("telegram.offset", nil))
	if v, err := d.GetMeta("telegram.offset"); err != nil || v != nil {
		t.Fatalf("deleted key = %q (err %v)", v, err)
	}
	// The schema's own meta is out of reach.
	if v, err := d.GetMeta("magic"); err != nil || v != nil {
		t.Fatalf("magic visible: %q (err %v)", v, err)
	}

	before := testkit.FileBytes(t, d.Path())
	testkit.WantErr(t, d.PutMeta("", []byte("x")), ErrInvalid,
		`store: put meta "": invalid input: meta key must be 1 to 1024 bytes`)
	testkit.WantErr(t, d.PutMeta(strings.Repeat("k", 1025), []byte("x")), ErrInvalid,
		"meta key must be 1 to 1024 bytes")
	_, err = d.GetMeta("")
	testkit.WantErr(t, err, ErrInvalid, `store: get meta ""`)
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestSeenDelivery(t *testing.T) {
	d, _ := openTest(t)
	const ttl = 10 * time.Minute
	seen := func(id string, at time.Duration) bool {
		t.Helper()
		s, err := d.SeenDelivery(id, testkit.T0.Add(at), ttl)
		testkit.Must(t, err)
		return s
	}
	if seen("env-1", 0) {
		t.Fatal("new delivery seen")
	}
	if !seen("env-1", time.Minute) {
		t.Fatal("replay not seen")
	}
	before := testkit.FileBytes(t, d.Path())
	if !seen("env-1", ttl-time.Nanosecond) { // still within ttl of the first time
		t.Fatal("replay before ttl not seen")
	}
	// A replay writes nothing when there is nothing to prune.
	testkit.FileUnchanged(t, d.Path(), before)
	if seen("env-2", 5*time.Minute) {
		t.Fatal("env-2 seen")
	}
	// ttl after the first sight env-1 is forgotten; env-2 is not yet.
	if seen("env-1", ttl) {
		t.Fatal("env-1 remembered past ttl")
	}
	if !seen("env-2", ttl) {
		t.Fatal("env-2 forgotten early")
	}
	// Pruning happens on every call: far later, only the new id remains.
	seen("env-3", 24*time.Hour)
	var n int
	testkit.Must(t, d.view(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketDeliveries).Stats().KeyN + tx.Bucket(bucketDeliveriesAt).Stats().KeyN
		return nil
	}))
	if n != 2 {
		t.Fatalf("%d keys left in the delivery buckets, want 2", n)
	}

	before = testkit.FileBytes(t, d.Path())
	_, err := d.SeenDelivery("", testkit.T0, ttl)
	testkit.WantErr(t, err, ErrInvalid, "delivery id must be 1 to 1024 bytes")
	_, err = d.SeenDelivery("x", testkit.T0, 0)
	testkit.WantErr(t, err, ErrInvalid,
		`store: seen delivery "x": invalid input: ttl 0s is not positive`)
	testkit.FileUnchanged(t, d.Path(), before)
}
