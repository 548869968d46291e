package main

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// testServer is a real store, gate and API server on a loopback port, stopped at the
// end of the test.
type testServer struct {
	url   string
	db    *store.DB
	gate  *gate.Manager
	sched *cron.Engine // nil without jobs
}

// startServer serves the API with workspace root root (it need not exist unless jobs
// run a tool) and adminToken as a generated admin token; with jobs, a run engine serves them
// as `serve` wires it.
func startServer(t *testing.T, root string, jobs ...cron.Job) *testServer {
	t.Helper()
	db := teststore.Open(t, store.Options{})
	log := testkit.Logger()
	g := testgate.Over(t, db, root, nil)
	var (
		sched *cron.Engine
		aj    api.Jobs
		err   error
	)
	if len(jobs) > 0 {
		sched, err = cron.New(cron.Options{Store: db, Gate: g, Jobs: jobs, WorkspaceRoot: root,
			Location: time.UTC, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		aj = apiJobs{sched}
	}
	// As serve runs the example configuration: a generated admin token, which the
	// client commands of runClient send, and the local caller.
	srv, err := api.New(api.Options{Gate: g, Store: db, Jobs: aj, Logger: log,
		Token: adminToken, Generated: true, Channels: []string{"telegram"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	running := 2
	done := make(chan error, 3)
	go func() { done <- g.Run(ctx) }()
	go func() { done <- srv.Serve(ctx, ln) }()
	if sched != nil {
		running++
		go func() { done <- sched.Run(ctx) }()
		<-sched.Ready()
	}
	t.Cleanup(func() {
		cancel()
		for range running {
			if err := <-done; err != nil {
				t.Errorf("stop: %v", err)
			}
		}
	})
	return &testServer{url: "http://" + ln.Addr().String(), db: db, gate: g, sched: sched}
}

// answer resolves, from another goroutine, the next request the gate registers, as
// "jane" via via; the returned channel gets the request id.
func (s *testServer) answer(t *testing.T, approve bool, note, via string) <-chan uint64 {
	t.Helper()
	return onNext(t, s, func(d gate.ApprovalRequested) (uint64, error) {
		_, err := s.gate.Resolve(context.Background(), d.RequestID,
			gate.Answer{Approve: approve, Note: note, By: "jane", Via: via})
		return d.RequestID, err
	})
}

// onNext runs act, from another goroutine, on the data of the next event of s's gate
// that is a D, and sends the id act returns on the returned channel; an error of act
// fails the test. It subscribes before it returns, so no event after the call is missed.
func onNext[D any](t *testing.T, s *testServer, act func(D) (uint64, error)) <-chan uint64 {
	t.Helper()
	events, release := s.gate.Subscribe(8)
	ids := make(chan uint64, 1)
	go func() {
		defer release()
		for e := range events {
			if d, ok := e.Data.(D); ok {
				id, err := act(d)
				if err != nil {
					t.Errorf("acting on %T: %v", d, err)
				}
				ids <- id
				return
			}
		}
	}()
	return ids
}
