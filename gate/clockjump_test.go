package gate_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// The wall clock jumps forward past a request's expires_at: the next sweep expires it
// and a late approval is refused. It then jumps back before the expiry: the expired
// request stays expired (no approval, no check, no sweep brings it back), and a
// request made after the jump back expires by its own expires_at.
func TestClockJumps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := testkit.NewClock(testkit.T0)
		e := newEnv(t, func(o *gate.Options) { o.ApprovalTimeout = time.Hour; o.Now = clock.Now })
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
		if out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1"}); out.Decision != gate.VerdictExpired {
			t.Errorf("check of the expired call after the jump back: %s, want expired", out.Decision)
		}
		if got := e.request(r.ID); got.Status != store.Expired || testkit.JSON(got) != testkit.JSON(before) {
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
