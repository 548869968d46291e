package api_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
)

// BenchmarkCheckAllow measures POST /api/approval/check on the allow path, in-process
// over loopback (a real server, store and gate; client and server share the machine's
// cores), with as many concurrent clients as GOMAXPROCS. It reports requests a second
// and the 99th percentile latency.
func BenchmarkCheckAllow(b *testing.B) {
	e := newAPIEnv(b)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	c := e.client(adminToken)
	c.HTTPClient = &http.Client{Transport: tr}
	req := api.CheckRequest{Call: gate.Call{ToolName: "TodoWrite", SessionID: "bench",
		AgentID: "bench", Arguments: map[string]any{"todos": []any{
			map[string]any{"content": "write the benchmark", "status": "in_progress"}}}}}
	ctx := context.Background()
	if res, err := c.Check(ctx, req); err != nil || res.Decision != gate.VerdictAllow {
		b.Fatalf("check: %v %+v", err, res)
	}
	var (
		mu  sync.Mutex
		all []time.Duration
	)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var lat []time.Duration
		for pb.Next() {
			t0 := time.Now()
			res, err := c.Check(ctx, req)
			lat = append(lat, time.Since(t0))
			if err != nil || res.Decision != gate.VerdictAllow {
				b.Errorf("check: %v %+v", err, res)
				return
			}
		}
		mu.Lock()
		all = append(all, lat...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	}
}
