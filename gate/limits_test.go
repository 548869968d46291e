package gate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

const agentA, agentB = "agent-aaaaaaaaaaaa", "agent-bbbbbbbbbbbb"

// TestPendingLimitsConcurrent: callers racing past a limit get exactly as many
// requests as it allows; the others are refused and store nothing.
func TestPendingLimitsConcurrent(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Limits = gate.Limits{PendingPerCaller: 5, PendingTotal: 8}
	})
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = e.m.Check(context.Background(), gate.Call{ToolName: "Bash",
				SessionID: "s", ToolCallID: fmt.Sprint("t", i), Caller: agentA})
		})
	}
	wg.Wait()
	refused := 0
	for _, err := range errs {
		switch {
		case errors.Is(err, gate.ErrTooManyPending):
			refused++
		case err != nil:
			t.Fatal(err)
		}
	}
	pending, err := e.db.Pending()
	if err != nil {
		t.Fatal(err)
	}
	if refused != n-5 || len(pending) != 5 {
		t.Fatalf("%d refused, %d pending; want %d and 5", refused, len(pending), n-5)
	}
	// The total: agent B gets the 3 left.
	for i := range 3 {
		e.require(gate.Call{ToolName: "Bash", SessionID: "b", ToolCallID: fmt.Sprint("b", i),
			Caller: agentB})
	}
	before := teststore.Snapshot(t, e.db)
	cronStep := gate.Call{ToolName: "Bash", SessionID: "c", Caller: store.CallerCron}
	_, err = e.m.Check(context.Background(), cronStep)
	testkit.WantErr(t, err, gate.ErrTooManyPending,
		"gate: check Bash: too many pending requests: 8 are waiting for a human")
	teststore.Unchanged(t, e.db, before)
}

// TestPendingLimitsAcrossRestart: a new Manager counts the requests already pending
// in the store, and every way out of pending frees a slot.
func TestPendingLimitsAcrossRestart(t *testing.T) {
	limits := func(o *gate.Options) { o.Limits = gate.Limits{PendingPerCaller: 2} }
	e := newGateEnv(t, limits)
	a := e.require(gate.Call{ToolName: "Bash", SessionID: "s", ToolCallID: "t1", Caller: agentA})
	b := e.require(gate.Call{ToolName: "Bash", SessionID: "s", ToolCallID: "t2", Caller: agentA})
	m, err := gate.New(e.opt) // as after a restart, over the same store
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before := teststore.Snapshot(t, e.db)
	third := gate.Call{ToolName: "Bash", SessionID: "s", ToolCallID: "t3", Caller: agentA}
	_, err = m.Check(ctx, third)
	testkit.WantErr(t, err, gate.ErrTooManyPending,
		"this caller already has 2 waiting for a human")
	teststore.Unchanged(t, e.db, before)
	// A replay still gets its request; another caller is not held to A's limit.
	bash := func(session, tc, caller string) gate.Call {
		return gate.Call{ToolName: "Bash", SessionID: session, ToolCallID: tc, Caller: caller}
	}
	out, err := m.Check(ctx, bash("s", "t1", agentA))
	if err != nil || out.Request == nil || out.Request.ID != a.ID {
		t.Fatalf("a replay at the limit: %+v %v", out, err)
	}
	if _, err := m.Check(ctx, bash("o", "", agentB)); err != nil {
		t.Fatalf("another caller: %v", err)
	}
	_, err = m.CancelRequest(a.ID, "", store.Actor{By: "agent", Via: "api"}, agentA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Check(ctx, third); err != nil {
		t.Fatalf("after a cancellation: %v", err)
	}
	approve := gate.Answer{Approve: true, By: "alice", Via: "api"}
	if _, err := m.Resolve(ctx, b.ID, approve); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Check(ctx, bash("s", "t4", agentA)); err != nil {
		t.Fatalf("after a resolution: %v", err)
	}
	_, err = m.Check(ctx, bash("s", "t5", agentA))
	testkit.WantErr(t, err, gate.ErrTooManyPending)
	if _, err := m.CancelSession("s", admin); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Check(ctx, bash("s", "t5", agentA)); err != nil {
		t.Fatalf("after cancelling the session: %v", err)
	}
}

func TestNewRefusesNegativeLimits(t *testing.T) {
	e := newGateEnv(t)
	opt := e.opt
	opt.Limits.PendingTotal = -1
	if _, err := gate.New(opt); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("New with a negative limit: %v", err)
	}
}

// TestCronSessionForAgents: an agent's caller may not use a scheduled run's session
// id, whatever the call; the admin and the scheduler may.
func TestCronSessionForAgents(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, caller := range []string{agentA, store.CallerLocal} {
		for _, tool := range []string{"Bash", "Read"} {
			call := gate.Call{ToolName: tool, SessionID: "cron:heartbeat:1", Caller: caller,
				Arguments: map[string]any{"command": "rm -rf /", "file_path": "data/x"}}
			_, err := e.m.Check(context.Background(), call)
			testkit.WantErr(t, err, gate.ErrForbidden,
				"session ids beginning with cron: belong to scheduled runs")
		}
	}
	teststore.Unchanged(t, e.db, before)
	for _, caller := range []string{"", store.CallerAdmin, store.CallerCron} {
		e.require(gate.Call{ToolName: "Bash", SessionID: "cron:heartbeat:1", Caller: caller})
	}
}

// TestBypassCallers: an admin's bypass naming a caller covers that caller's calls
// only; a malformed caller is refused and grants nothing; EndSession drops them all.
func TestBypassCallers(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, bad := range []string{"agent-AAAAAAAAAAAA", "agent-", "admin ", "robot"} {
		_, err := e.m.SetBypass("s", "all", 0, bad, admin)
		testkit.WantErr(t, err, gate.ErrInvalidBypass,
			"want admin, local, cron or an agent token's name")
	}
	teststore.Unchanged(t, e.db, before)
	if bs := e.m.Bypasses("s"); bs != nil {
		t.Fatalf("refused bypasses granted %+v", bs)
	}
	if _, err := e.m.SetBypass("s", "tool:Bash", 0, store.CallerLocal, admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		caller string
		want   gate.Verdict
	}{
		{store.CallerLocal, gate.VerdictAllow}, {agentA, gate.VerdictPending},
		{"", gate.VerdictPending},
	} {
		t.Run(c.caller, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: "Bash", SessionID: "s", Caller: c.caller})
			if out.Decision != c.want {
				t.Errorf("caller %q: %s, want %s", c.caller, out.Decision, c.want)
			}
		})
	}
	if n := e.m.EndSession("s"); n != 1 || e.m.Bypasses("s") != nil {
		t.Errorf("EndSession dropped %d, left %+v", n, e.m.Bypasses("s"))
	}
}

// TestCatalogCap: once the catalog holds store.MaxTools names, new ones are not
// recorded, neither in memory nor in the store.
func TestCatalogCap(t *testing.T) {
	e := newGateEnv(t)
	names := make([]string, store.MaxTools)
	for i := range names {
		names[i] = fmt.Sprintf("mcp__s__t%05d", i)
	}
	if err := e.db.AddTools(names); err != nil {
		t.Fatal(err)
	}
	m, err := gate.New(e.opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	newTool := gate.Call{ToolName: "mcp__new__tool", SessionID: "s"}
	if _, err := m.Check(context.Background(), newTool); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil { // Run flushes the batcher on the way out
		t.Fatal(err)
	}
	c, err := m.Tools()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.db.Tools()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(c.MCP, "mcp__new__tool") || slices.Contains(stored, "mcp__new__tool") ||
		len(stored) != store.MaxTools {
		t.Errorf("a name past the cap was recorded (%d stored)", len(stored))
	}
}
