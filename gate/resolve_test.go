package gate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

func approve(by string) gate.Answer {
	return gate.Answer{Approve: true, By: by, Via: "telegram"}
}

func TestResolveWakesWaitersAndNotifies(t *testing.T) {
	e := newGateEnv(t)
	events, unsubscribe := e.m.Subscribe(10)
	defer unsubscribe()
	e.run()
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"})
	<-events // approval_requested
	e.notes.next(t)

	const waiters = 3
	got := make(chan store.Request, waiters)
	for range waiters {
		go func() {
			req, err := e.m.Wait(context.Background(), r.ID)
			if err != nil {
				t.Error(err)
			}
			got <- req
		}()
	}
	res, err := e.m.Resolve(context.Background(), r.ID,
		gate.Answer{Approve: false, Note: "not today", By: "bob (42)", Via: "slack"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != store.Rejected || res.Resolution.Note != "not today" ||
		res.Resolution.By != "bob (42)" {
		t.Errorf("resolved request %+v", res)
	}
	for range waiters {
		if w := <-got; w.Status != store.Rejected {
			t.Errorf("Wait returned %s, want rejected", w.Status)
		}
	}
	ev := <-events
	want := `{"request_id":` + strconv.FormatUint(r.ID, 10) +
		`,"tool_call_id":"tc1","status":"rejected"}`
	if ev.Name != gate.EventApprovalResolved || testkit.JSON(ev.Data) != want {
		t.Errorf("event %s %s, want approval_resolved %s", ev.Name, testkit.JSON(ev.Data), want)
	}
	if got := e.notes.next(t); got != "update "+strconv.FormatUint(r.ID, 10)+" rejected" {
		t.Errorf("notifier saw %q, want the update", got)
	}
	// A Wait on a finished request returns at once.
	if w, err := e.m.Wait(context.Background(), r.ID); err != nil || w.Status != store.Rejected {
		t.Errorf("Wait on a finished request: %v %v", w.Status, err)
	}
}

func TestWaitErrors(t *testing.T) {
	e := newGateEnv(t)
	_, err := e.m.Wait(context.Background(), 999)
	testkit.WantErr(t, err, gate.ErrNotFound, "gate: wait 999")

	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, err := e.m.Wait(ctx, r.ID)
		if !errors.Is(err, context.Canceled) || req.ID != r.ID || req.Status != store.Pending {
			t.Errorf("Wait after cancel: %+v %v, want the pending request and context.Canceled",
				req, err)
		}
	}()
	cancel()
	<-done
}

func TestResolveRefusals(t *testing.T) {
	e := newGateEnv(t)
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", Caller: "agent-0123456789ab"})
	before := teststore.Snapshot(t, e.db)
	neg, zero, huge := int64(-5), int64(0), int64(math.MaxInt64)
	for _, c := range []struct {
		id     uint64
		res    gate.Answer
		target error
		says   string
	}{
		{r.ID, gate.Answer{Approve: true, By: "agent", Via: "api", Caller: "agent-0123456789ab"},
			gate.ErrForbidden, "an agent may not resolve"},
		{r.ID, gate.Answer{Approve: true, By: "agent", Via: "api", Caller: "agent-bbbbbbbbbbbb"},
			gate.ErrForbidden, "forbidden"},
		{r.ID, gate.Answer{Approve: true, By: "agent", Via: "api", Caller: store.CallerLocal},
			gate.ErrForbidden, "an agent may not resolve"},
		{r.ID, gate.Answer{Approve: true, By: "alice", Via: "api", BypassSecs: &neg},
			gate.ErrInvalidBypass, "-5 seconds is negative"},
		{r.ID, gate.Answer{Approve: true, By: "alice", Via: "api", BypassSecs: &huge},
			gate.ErrInvalidBypass, "gate: resolve " + strconv.FormatUint(r.ID, 10) +
				": invalid bypass: 9223372036854775807 seconds is more than 31622400 (366 days)"},
		{r.ID, gate.Answer{Approve: true, By: "alice", Via: "api", BypassSecs: &huge,
			BypassScope: "all"}, gate.ErrInvalidBypass, "more than 31622400"},
		{r.ID, gate.Answer{Approve: true, By: "alice", Via: "api", BypassSecs: &zero,
			BypassScope: "everything"}, gate.ErrInvalidScope, `"everything"`},
		{r.ID, gate.Answer{Approve: true, By: "alice", Via: "api", BypassSecs: &zero,
			BypassScope: "category:"}, gate.ErrInvalidScope, `"category:"`},
		{r.ID, gate.Answer{Approve: true, Via: "api"}, store.ErrInvalid, "needs who"},
		{999, gate.Answer{Approve: true, By: "a", BypassSecs: &zero}, gate.ErrNotFound,
			"gate: resolve 999"},
	} {
		t.Run(c.says, func(t *testing.T) {
			_, err := e.m.Resolve(context.Background(), c.id, c.res)
			testkit.WantErr(t, err, c.target, c.says)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.m.Resolve(ctx, r.ID, approve("alice"))
	testkit.WantErr(t, err, context.Canceled)
	teststore.Unchanged(t, e.db, before)
	// Not found by the store's compare-and-set itself.
	_, err = e.m.Resolve(context.Background(), 999, approve("alice"))
	testkit.WantErr(t, err, gate.ErrNotFound, "gate: resolve 999")
	teststore.Unchanged(t, e.db, before)
	if bs := e.m.Bypasses("s1"); bs != nil {
		t.Errorf("a refused resolution granted %v", bs)
	}
}

func TestResolveRaceExactlyOnce(t *testing.T) {
	e := newGateEnv(t)
	e.run()
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = e.m.Resolve(context.Background(), r.ID,
				approve(fmt.Sprintf("user-%d", i)))
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("both user-%d and user-%d won", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("nobody won: %v", errs[0])
	}
	for i, err := range errs {
		if i != winner {
			testkit.WantErr(t, err, gate.ErrAlreadyResolved,
				fmt.Sprintf("already approved by user-%d via telegram", winner))
		}
	}
	if got := count(teststore.AuditActions(t, e.db), "request.approved"); got != 1 {
		t.Errorf("audit holds %d approvals, want 1", got)
	}
}

func TestExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newGateEnv(t, func(o *gate.Options) { o.ApprovalTimeout = time.Minute })
		events, unsubscribe := e.m.Subscribe(10)
		defer unsubscribe()
		stop := e.run()
		defer stop()
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc"})
		<-events
		e.notes.next(t)
		long := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ApprovalTimeout: time.Hour})
		<-events
		e.notes.next(t)
		if got := long.ExpiresAt.Sub(long.CreatedAt); got != time.Hour {
			t.Errorf("per-call timeout: request lives %s, want 1h", got)
		}

		req, err := e.m.Wait(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if late := time.Since(r.ExpiresAt); req.Status != store.Expired || late < 0 ||
			late > 2*time.Second {
			t.Errorf("request %s %s after its expiry, want expired within 2 s", req.Status, late)
		}
		if ev := <-events; testkit.JSON(ev.Data) != `{"request_id":`+
			strconv.FormatUint(r.ID, 10)+`,"tool_call_id":"tc","status":"expired"}` {
			t.Errorf("event %s %s", ev.Name, testkit.JSON(ev.Data))
		}
		if got := e.notes.next(t); got != "update "+strconv.FormatUint(r.ID, 10)+" expired" {
			t.Errorf("notifier saw %q", got)
		}
		out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc"})
		if out.Decision != gate.VerdictExpired {
			t.Errorf("check again after expiry: %s, want expired", out.Decision)
		}
		_, err = e.m.Resolve(context.Background(), r.ID, approve("alice"))
		testkit.WantErr(t, err, gate.ErrAlreadyResolved, "already expired by system via gate")
		if p, err := e.m.Pending(); err != nil || len(p) != 1 || p[0].ID != long.ID {
			t.Errorf("pending %v, want only the hour-long request (err %v)", p, err)
		}
	})
}

func TestResolveAfterExpiryBeforeSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// No Run: nothing sweeps, so the store's own check refuses the late resolution.
		e := newGateEnv(t, func(o *gate.Options) { o.ApprovalTimeout = time.Minute })
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
		time.Sleep(time.Minute + time.Second)
		before := teststore.Snapshot(t, e.db)
		_, err := e.m.Resolve(context.Background(), r.ID, approve("alice"))
		testkit.WantErr(t, err, gate.ErrExpired, "gate: resolve "+strconv.FormatUint(r.ID, 10))
		teststore.Unchanged(t, e.db, before)
	})
}

// The wall clock jumps forward past a request's expires_at: the next sweep expires it
// and a late approval is refused. It then jumps back before the expiry: the expired
// request stays expired (no approval, no check, no sweep brings it back), and a
// request made after the jump back expires by its own expires_at.
func TestClockJumps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := testkit.NewClock(testkit.T0)
		e := newGateEnv(t, func(o *gate.Options) { o.ApprovalTimeout = time.Hour; o.Now = clock.Now })
		stop := e.run()
		defer stop()
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"})
		if !r.ExpiresAt.Equal(testkit.T0.Add(time.Hour)) {
			t.Fatalf("expires at %s", r.ExpiresAt)
		}

		clock.Set(testkit.T0.Add(2 * time.Hour)) // forward, past expires_at
		_, err := e.m.Resolve(context.Background(), r.ID, approve("alice"))
		testkit.WantErr(t, err, gate.ErrExpired)
		time.Sleep(2 * time.Second) // the sweeper's ticker, in the bubble's time
		synctest.Wait()
		if got := e.request(r.ID); got.Status != store.Expired {
			t.Fatalf("after the jump forward the request is %s, want expired", got.Status)
		}

		clock.Set(testkit.T0.Add(time.Minute)) // backwards, before expires_at again
		time.Sleep(2 * time.Second)
		synctest.Wait()
		before := e.request(r.ID)
		_, err = e.m.Resolve(context.Background(), r.ID, approve("alice"))
		testkit.WantErr(t, err, gate.ErrAlreadyResolved, "already expired")
		out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"})
		if out.Decision != gate.VerdictExpired {
			t.Errorf("check of the expired call after the jump back: %s, want expired",
				out.Decision)
		}
		if got := e.request(r.ID); got.Status != store.Expired ||
			testkit.JSON(got) != testkit.JSON(before) {
			t.Errorf("the expired request changed after the jump back: %+v", got)
		}

		// A request made at the earlier time lives its hour from then.
		r2 := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc2"})
		if !r2.ExpiresAt.Equal(testkit.T0.Add(time.Minute + time.Hour)) {
			t.Fatalf("second request expires at %s", r2.ExpiresAt)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := e.request(r2.ID); got.Status != store.Pending {
			t.Fatalf("second request %s before its expiry", got.Status)
		}
		clock.Set(r2.ExpiresAt.Add(time.Second))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := e.request(r2.ID); got.Status != store.Expired {
			t.Fatalf("second request %s after its expiry", got.Status)
		}
	})
}

func (e *env) request(id uint64) store.Request {
	e.t.Helper()
	r, err := e.db.Request(id)
	testkit.Must(e.t, err)
	return r
}

func TestCancelRequest(t *testing.T) {
	e := newGateEnv(t)
	mine := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", Caller: "ci-bot"})
	before := teststore.Snapshot(t, e.db)
	for _, caller := range []string{"other-bot", store.CallerLocal} {
		_, err := e.m.CancelRequest(mine.ID, "terminal", store.Actor{By: "agent", Via: "api"},
			caller)
		testkit.WantErr(t, err, gate.ErrForbidden, "made by another caller")
	}
	_, err := e.m.CancelRequest(999, "", admin, "ci-bot")
	testkit.WantErr(t, err, gate.ErrNotFound, "gate: cancel 999")
	teststore.Unchanged(t, e.db, before)

	e.run() // shows the request queued before Run started
	if n := e.notes.next(t); n != "show "+strconv.FormatUint(mine.ID, 10)+" readable" {
		t.Errorf("notifier saw %q", n)
	}

	got, err := e.m.CancelRequest(mine.ID, "terminal", store.Actor{By: "ci-bot", Via: "api"},
		"ci-bot")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.Cancelled || got.Resolution.Note != "terminal" {
		t.Errorf("cancelled request %+v", got)
	}
	if n := e.notes.next(t); n != "update "+strconv.FormatUint(mine.ID, 10)+" cancelled" {
		t.Errorf("notifier saw %q", n)
	}
	_, err = e.m.CancelRequest(mine.ID, "again", admin, "")
	testkit.WantErr(t, err, gate.ErrAlreadyResolved, "already cancelled by ci-bot via api")

	// An admin may cancel any request.
	theirs := e.require(gate.Call{ToolName: "Bash", SessionID: "s2", Caller: "x"})
	if got, err := e.m.CancelRequest(theirs.ID, "", admin, ""); err != nil ||
		got.Status != store.Cancelled {
		t.Errorf("admin cancel: %v %v", got.Status, err)
	}
}

func TestCancelSession(t *testing.T) {
	e := newGateEnv(t)
	stop := e.run()
	a := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
	b := e.require(gate.Call{ToolName: "execute_cmd", SessionID: "s1"})
	other := e.require(gate.Call{ToolName: "Bash", SessionID: "s2"})
	if _, err := e.m.SetBypass("s1", "mcp:gmail", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	waited := make(chan store.Status, 1)
	go func() {
		r, err := e.m.Wait(context.Background(), a.ID)
		testkit.Must(t, err)
		waited <- r.Status
	}()
	got, err := e.m.CancelSession("s1", admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID ||
		got[0].Status != store.Cancelled {
		t.Errorf("CancelSession returned %+v", got)
	}
	if s := <-waited; s != store.Cancelled {
		t.Errorf("waiter saw %s", s)
	}
	if bs := e.m.Bypasses("s1"); bs != nil {
		t.Errorf("bypasses after cancel: %v", bs)
	}
	if r, err := e.m.Request(other.ID); err != nil || r.Status != store.Pending {
		t.Errorf("another session's request is %s (err %v)", r.Status, err)
	}
	acts := teststore.AuditActions(t, e.db)
	if count(acts, "request.cancelled") != 2 || acts[len(acts)-1] != gate.AuditSessionCancelled {
		t.Errorf("audit %v", acts)
	}
	stop() // so the batcher writes nothing while the store is compared
	before := teststore.Snapshot(t, e.db)
	_, err = e.m.CancelSession("", admin)
	testkit.WantErr(t, err, gate.ErrNoSession, "session id is required")
	teststore.Unchanged(t, e.db, before)
}

func TestRestart(t *testing.T) {
	e := newGateEnv(t)
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"})
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}

	e.open()
	e.opt.Store = e.db
	m, err := gate.New(e.opt)
	if err != nil {
		t.Fatal(err)
	}
	e.m = m
	e.run()
	if p, err := m.Pending(); err != nil || len(p) != 1 || p[0].ID != r.ID {
		t.Fatalf("pending after restart: %v (err %v)", p, err)
	}
	waited := make(chan store.Request, 1)
	go func() {
		w, err := m.Wait(context.Background(), r.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- w
	}()
	if _, err := m.Resolve(context.Background(), r.ID, approve("alice")); err != nil {
		t.Fatal(err)
	}
	if w := <-waited; w.Status != store.Approved {
		t.Errorf("Wait after restart returned %s", w.Status)
	}
	out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"})
	if out.Decision != gate.VerdictApproved || out.Request.ID != r.ID {
		t.Errorf("check again after restart: %+v", out)
	}

	// Status and audit entry persist across one more restart.
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	e.open()
	got, err := e.db.Request(r.ID)
	if err != nil || got.Status != store.Approved || got.Resolution.By != "alice" {
		t.Errorf("request after reopening: %+v %v", got, err)
	}
	if n := count(teststore.AuditActions(t, e.db), "request.approved"); n != 1 {
		t.Errorf("audit holds %d approvals after reopening", n)
	}
}

// slowShow is a Notifier whose Show blocks until release is closed.
type slowShow struct {
	release chan struct{}
	mu      sync.Mutex
	calls   []string
}

func (n *slowShow) Show(ctx context.Context, r store.Request) error {
	select {
	case <-n.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	n.record("show")
	return nil
}

func (n *slowShow) Update(ctx context.Context, r store.Request) error {
	n.record("update " + string(r.Status))
	return nil
}

func (n *slowShow) record(s string) {
	n.mu.Lock()
	n.calls = append(n.calls, s)
	n.mu.Unlock()
}

func (n *slowShow) seen() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.calls...)
}

func TestUpdateWaitsForShow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &slowShow{release: make(chan struct{})}
		e := newGateEnv(t, func(o *gate.Options) { o.Notifier = n })
		stop := e.run()
		defer stop()
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
		if _, err := e.m.Resolve(context.Background(), r.ID, approve("alice")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := n.seen(); len(got) != 0 {
			t.Fatalf("notifier calls %v before Show returned, want none", got)
		}
		close(n.release)
		synctest.Wait()
		if got := testkit.JSON(n.seen()); got != `["show","update approved"]` {
			t.Errorf("notifier calls %s, want show then update", got)
		}
	})
}
