package store

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

// TestBatchRerunIsSafe: when one function of a db.Batch fails, bbolt rolls the batch
// back and runs the others again in a new transaction. CreateRequest and Resolve must
// come out of that exactly as if they had run once: one request per call, each
// resolved once, one audit entry each.
func TestBatchRerunIsSafe(t *testing.T) {
	d, _ := openTest(t)
	d.writers.Add(1) // as if another writer were always busy: every call goes through db.Batch
	defer d.writers.Add(-1)
	auditBefore, err := d.Audit(0)
	testkit.Must(t, err)

	const n = 40
	ids := make([]uint64, n)
	var wg sync.WaitGroup
	boom := errors.New("boom")
	for i := range n {
		wg.Go(func() {
			r, created, err := d.CreateRequest(newRequest("s", "tc"+strconv.Itoa(i)))
			if err != nil || !created {
				t.Errorf("create %d: %v (created %v)", i, err, created)
				return
			}
			ids[i] = r.ID
			res := Resolution{By: "u" + strconv.Itoa(i)}
			if _, err := d.Resolve(r.ID, Approved, res); err != nil {
				t.Errorf("resolve %d: %v", r.ID, err)
			}
		})
		// Failing functions in the same batches force re-runs.
		wg.Go(func() {
			if err := d.bolt.Batch(func(*bolt.Tx) error { return boom }); !errors.Is(err, boom) {
				t.Errorf("failing batch: %v", err)
			}
		})
	}
	wg.Wait()

	seen := map[uint64]bool{}
	for i, id := range ids {
		if id == 0 || seen[id] {
			t.Fatalf("call %d got id %d (ids %v)", i, id, ids)
		}
		seen[id] = true
		r, err := d.RequestByToolCall("s", "tc"+strconv.Itoa(i))
		testkit.Must(t, err)
		if r.ID != id || r.Status != Approved || r.Resolution.By != "u"+strconv.Itoa(i) {
			t.Fatalf("call %d: stored %+v %+v", i, r, r.Resolution)
		}
	}
	var count int
	testkit.Must(t, d.view(func(tx *bolt.Tx) error {
		count = tx.Bucket(bucketRequests).Stats().KeyN
		return nil
	}))
	if count != n {
		t.Fatalf("%d requests stored, want %d", count, n)
	}
	es, err := d.Audit(0)
	testkit.Must(t, err)
	if len(es)-len(auditBefore) != n {
		t.Fatalf("%d new audit entries, want %d", len(es)-len(auditBefore), n)
	}
}
