package store

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCreateResolve measures register+resolve pairs (CreateRequest then Resolve
// approving it), each transition committed and fsynced, serially and from 64
// concurrent callers (the target: at least 1,000 pairs a second with 64). Reproduce:
//
//	go test ./store -run '^$' -bench CreateResolve -benchtime 3s
func BenchmarkCreateResolve(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		d := openBench(b)
		var n atomic.Uint64
		for b.Loop() {
			createResolve(b, d, n.Add(1))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
	b.Run("parallel-64", func(b *testing.B) {
		d := openBench(b)
		var n atomic.Uint64
		b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				createResolve(b, d, n.Add(1))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}

func openBench(b *testing.B) *DB {
	b.Helper()
	d, err := Open(filepath.Join(b.TempDir(), "skald.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close() })
	return d
}

// benchArgs are the arguments of a typical shell call.
var benchArgs = json.RawMessage(
	`{"command":"pg_dump app > data/app.sql","timeout":"10m","cwd":"/srv/app"}`)

func createResolve(b *testing.B, d *DB, i uint64) {
	r, created, err := d.CreateRequest(Request{SessionID: "bench",
		ToolCallID: "tc-" + strconv.FormatUint(i, 10), ToolName: "execute_cmd",
		Arguments: benchArgs, AgentID: "ops", Source: "cron", Category: "shell",
		GroupID: "default", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || !created {
		b.Fatalf("create: %v (created %v)", err, created)
	}
	if _, err := d.Resolve(r.ID, Approved, Resolution{By: "bench", Via: "api"}); err != nil {
		b.Fatalf("resolve: %v", err)
	}
}
