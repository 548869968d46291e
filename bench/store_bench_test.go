package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
	bolt "go.etcd.io/bbolt"
)

// callers is the number of concurrent callers of the parallel benchmarks.
const callers = 64

// benchArgs are the arguments of a typical shell call (as store's own benchmark).
var benchArgs = json.RawMessage(
	`{"command":"pg_dump app > data/app.sql","cwd":"/srv/app","timeout":"10m"}`)

// benchRequest is the approval request registered for tool call i.
func benchRequest(i uint64) store.Request {
	return store.Request{SessionID: "bench", ToolCallID: "tc-" + strconv.FormatUint(i, 10),
		ToolName: "execute_cmd", Arguments: benchArgs, AgentID: "ops", Source: "cron",
		Category: "shell", GroupID: rules.DefaultGroup, ExpiresAt: time.Now().Add(24 * time.Hour)}
}

// requests is what the register+resolve benchmark drives: the real store, or a copy of
// its two transactions written against bbolt directly (boltRequests).
type requests interface {
	register(r store.Request) (uint64, error)
	resolve(id uint64) error
}

// storeRequests is the real store: CreateRequest and Resolve, each committed and
// fsynced, concurrent ones together through db.Batch.
type storeRequests struct{ db *store.DB }

func (s storeRequests) register(r store.Request) (uint64, error) {
	got, created, err := s.db.CreateRequest(r)
	if err == nil && !created {
		err = errors.New("not created")
	}
	return got.ID, err
}

func (s storeRequests) resolve(id uint64) error {
	_, err := s.db.Resolve(id, store.Approved, store.Resolution{By: "bench", Via: "api"})
	return err
}

// boltRequests mirrors store.CreateRequest and store.Resolve transaction for
// transaction — the same buckets, keys, JSON values and audit entry, a read-only
// lookup first — so that the benchmark can commit each transition with a plain
// Update (batch false: one commit and fsync each) where the store gives no switch to
// turn db.Batch off. With batch true it batches as the store does, which checks that
// the mirror costs what the store costs.
type boltRequests struct {
	db      *bolt.DB
	batch   bool
	writers atomic.Int32 // callers inside write: a lone one commits at once, as the store
}

var (
	mirrorRequests = []byte("requests")
	mirrorByTC     = []byte("requests_by_tool_call")
	mirrorPending  = []byte("requests_pending")
	mirrorAudit    = []byte("audit")
)

func openBolt(b *testing.B, batch bool) *boltRequests {
	b.Helper()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "mirror.db"), 0o600,
		&bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	db.MaxBatchDelay, db.MaxBatchSize = 2*time.Millisecond, 256 // the store's settings
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{mirrorRequests, mirrorByTC, mirrorPending, mirrorAudit} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return &boltRequests{db: db, batch: batch}
}

func (m *boltRequests) write(fn func(*bolt.Tx) error) error {
	defer m.writers.Add(-1)
	if m.writers.Add(1) == 1 || !m.batch {
		return m.db.Update(fn)
	}
	return m.db.Batch(fn)
}

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func tcKey(r store.Request) []byte {
	k := binary.AppendUvarint(nil, uint64(len(r.ToolCallID)))
	k = append(k, r.ToolCallID...)
	k = binary.AppendUvarint(k, uint64(len(r.SessionID)))
	return append(k, r.SessionID...)
}

func pendingKey(r store.Request) []byte {
	return binary.BigEndian.AppendUint64(u64(uint64(r.ExpiresAt.UnixNano())), r.ID)
}

func (m *boltRequests) register(r store.Request) (uint64, error) {
	r.CreatedAt, r.Status = time.Now(), store.Pending
	if err := m.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(mirrorByTC).Get(tcKey(r)) != nil {
			return errors.New("already registered")
		}
		return nil
	}); err != nil {
		return 0, err
	}
	err := m.write(func(tx *bolt.Tx) error {
		if tx.Bucket(mirrorByTC).Get(tcKey(r)) != nil {
			return errors.New("already registered")
		}
		var err error
		if r.ID, err = tx.Bucket(mirrorRequests).NextSequence(); err != nil {
			return err
		}
		v, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := tx.Bucket(mirrorRequests).Put(u64(r.ID), v); err != nil {
			return err
		}
		if err := tx.Bucket(mirrorByTC).Put(tcKey(r), u64(r.ID)); err != nil {
			return err
		}
		return tx.Bucket(mirrorPending).Put(pendingKey(r), nil)
	})
	return r.ID, err
}

func (m *boltRequests) resolve(id uint64) error {
	get := func(tx *bolt.Tx) (store.Request, error) {
		var r store.Request
		v := tx.Bucket(mirrorRequests).Get(u64(id))
		if v == nil {
			return r, errors.New("not found")
		}
		if err := json.Unmarshal(v, &r); err != nil {
			return r, err
		}
		if r.Status != store.Pending {
			return r, errors.New("already resolved")
		}
		return r, nil
	}
	if err := m.db.View(func(tx *bolt.Tx) error { _, err := get(tx); return err }); err != nil {
		return err
	}
	return m.write(func(tx *bolt.Tx) error {
		r, err := get(tx)
		if err != nil {
			return err
		}
		if err := tx.Bucket(mirrorPending).Delete(pendingKey(r)); err != nil {
			return err
		}
		r.Status = store.Approved
		r.Resolution = &store.Resolution{By: "bench", Via: "api", At: time.Now()}
		v, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := tx.Bucket(mirrorRequests).Put(u64(id), v); err != nil {
			return err
		}
		aid, err := tx.Bucket(mirrorAudit).NextSequence()
		if err != nil {
			return err
		}
		a, err := json.Marshal(store.AuditEntry{ID: aid, At: time.Now(), By: "bench", Via: "api",
			Action: "request.approved", RequestID: id,
			Detail: r.ToolName + " session=" + r.SessionID})
		if err != nil {
			return err
		}
		return tx.Bucket(mirrorAudit).Put(u64(aid), a)
	})
}

func openStore(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// BenchmarkRegisterResolve measures register+resolve pairs — an approval request
// created, then approved — each transition committed and fsynced, from one caller and
// from 64 concurrent ones: the real store (concurrent transitions share a commit
// through db.Batch), and its transactions against bbolt directly with a plain Update
// per transition (no batching) and with db.Batch (the mirror's check against the
// store). pairs/s is the throughput.
func BenchmarkRegisterResolve(b *testing.B) {
	boltUpdate := func(b *testing.B) requests { return openBolt(b, false) }
	boltBatch := func(b *testing.B) requests { return openBolt(b, true) }
	for _, bc := range []struct {
		name    string
		callers int
		open    func(b *testing.B) requests
	}{
		{"impl=store/callers=1", 1, openStoreRequests},
		{"impl=store/callers=64", callers, openStoreRequests},
		{"impl=bolt-update/callers=1", 1, boltUpdate},
		{"impl=bolt-update/callers=64", callers, boltUpdate},
		{"impl=bolt-batch/callers=64", callers, boltBatch},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := bc.open(b)
			var seq atomic.Uint64
			pair := func() {
				id, err := s.register(benchRequest(seq.Add(1)))
				if err == nil {
					err = s.resolve(id)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			if bc.callers == 1 {
				for b.Loop() {
					pair()
				}
			} else {
				procs := runtime.GOMAXPROCS(0)
				b.SetParallelism((bc.callers + procs - 1) / procs)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						pair()
					}
				})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

func openStoreRequests(b *testing.B) requests {
	db := openStore(b, filepath.Join(b.TempDir(), "skald.db"))
	b.Cleanup(func() { _ = db.Close() })
	return storeRequests{db}
}

// pendingCount is how many pending requests the start-up and memory benchmarks store.
const pendingCount = 100000

var (
	pendingOnce sync.Once
	pendingFile string // a store holding pendingCount pending requests
	pendingErr  error
)

// pendingStore returns the path of a store file holding pendingCount pending
// requests, written once per process by 256 concurrent callers of CreateRequest (so
// that db.Batch fills its commits) into the temporary directory TestMain removes.
func pendingStore(tb testing.TB) string {
	tb.Helper()
	pendingOnce.Do(func() {
		start := time.Now()
		pendingFile = filepath.Join(filepath.Dir(workspace), "pending.db")
		db, err := store.Open(pendingFile, store.Options{})
		if err != nil {
			pendingErr = err
			return
		}
		defer db.Close()
		var next atomic.Uint64
		var wg sync.WaitGroup
		errs := make(chan error, 256)
		for range 256 {
			wg.Go(func() {
				for i := next.Add(1); i <= pendingCount; i = next.Add(1) {
					if _, _, err := db.CreateRequest(benchRequest(i)); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		pendingErr = <-errs
		tb.Logf("stored %d pending requests in %v",
			pendingCount, time.Since(start).Round(time.Millisecond))
	})
	if pendingErr != nil {
		tb.Fatal(pendingErr)
	}
	return pendingFile
}

// newGate builds the gate over db as the service would, without a notifier.
func newGate(tb testing.TB, db *store.DB) *gate.Manager {
	tb.Helper()
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		tb.Fatal(err)
	}
	m, err := gate.New(gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: workspace},
		Logger: testkit.Logger()})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// firstCall is the first tool call after start-up: a seeded allow.
var firstCall = gate.Call{ToolName: "TodoWrite", SessionID: "bench", Arguments: map[string]any{}}

// BenchmarkStartup measures a start-up with 0 and with 100,000 pending requests
// stored: store.Open, gate.New and the first Check (then the store is closed, outside
// the time that counts only as much as a Close costs).
func BenchmarkStartup(b *testing.B) {
	for _, n := range []int{0, pendingCount} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "skald.db")
			if n > 0 {
				path = pendingStore(b)
			} else {
				_ = openStore(b, path).Close()
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				db := openStore(b, path)
				out, err := newGate(b, db).Check(ctx, firstCall)
				if err != nil || out.Decision != gate.VerdictAllow {
					b.Fatal(out.Decision, err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPending measures listing the 100,000 pending requests (gate.Manager.Pending,
// from the store) and reports the memory they hold: file-MiB, the size of the store
// file; startup-heap-MiB, the heap the process holds after store.Open and gate.New;
// list-heap-MiB, the heap the listed requests hold. Heap figures are live heap after a
// GC; the store file itself is memory-mapped by bbolt, not on the heap.
func BenchmarkPending(b *testing.B) {
	path := pendingStore(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	heap := func() float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	base := heap()
	db := openStore(b, path)
	defer db.Close()
	m := newGate(b, db)
	started := heap()
	list, err := m.Pending()
	if err != nil || len(list) != pendingCount {
		b.Fatalf("Pending: %d requests, %v; want %d", len(list), err, pendingCount)
	}
	listed := heap()
	runtime.KeepAlive(list)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Pending(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
	b.ReportMetric(started-base, "startup-heap-MiB")
	b.ReportMetric(listed-started, "list-heap-MiB")
}
