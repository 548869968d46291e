package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// shown makes a pending Bash request and records it as shown in Telegram chat -100
// as message 7 and in Slack channel C0FAKECHAN1 as message 1.5.
func (e *env) shown(session string) store.Request {
	e.t.Helper()
	r := e.require(session, "Bash", map[string]any{"command": "make deploy"})
	for _, m := range []store.Message{
		{Channel: "telegram", ChatID: "-100", Ref: "7"},
		{Channel: "slack", ChatID: "C0FAKECHAN1", Ref: "1.5"},
	} {
		if err := e.db.AddMessage(r.ID, m); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.request(r.ID)
}

func tapOn(r store.Request, who Who, action Action) Tap {
	t := Tap{Channel: who.Channel, UserID: who.ID, UserName: who.Name,
		Data: Callback{RequestID: r.ID, Action: action}.String()}
	for _, m := range r.Messages {
		if m.Channel == who.Channel {
			t.ChatID, t.MessageRef = m.ChatID, m.Ref
		}
	}
	return t
}

func TestTapResolves(t *testing.T) {
	e := newBotEnv(t, envOptions{bypassShort: 30 * time.Minute})
	ctx := context.Background()
	cases := []struct {
		who    Who
		action Action
		status store.Status
		toast  string
		bypass *store.BypassGrant
	}{
		{jane, ActionApprove, store.Approved, "Approved", nil},
		{jane, ActionReject, store.Rejected, "Rejected", nil},
		{alice, ActionBypassShort, store.Approved, "Approved · ⏱ 30 min bypass",
			&store.BypassGrant{Scope: "category:shell", Secs: 1800}},
		{slackBob, ActionBypassSession, store.Approved, "Approved · 🔄 session bypass",
			&store.BypassGrant{Scope: "category:shell", Secs: 0}},
	}
	for i, tc := range cases {
		r := e.shown("s" + string(rune('a'+i))) // e reports to t: set up before t.Run
		t.Run(string(tc.action)+" by "+tc.who.Name, func(t *testing.T) {
			res, err := e.bot.HandleTap(ctx, tapOn(r, tc.who, tc.action))
			if err != nil || !res.Resolved || res.Toast != tc.toast {
				t.Fatalf("%s by %s: %+v, %v; want toast %q",
					tc.action, tc.who.Name, res, err, tc.toast)
			}
			got := teststore.Request(t, e.db, r.ID)
			if got.Status != tc.status || got.Resolution.Via != tc.who.Channel ||
				got.Resolution.By != tc.who.Name+" ("+tc.who.ID+")" ||
				testkit.JSON(got.Resolution.Bypass) != testkit.JSON(tc.bypass) {
				t.Errorf("%s: stored %s %+v", tc.action, got.Status, got.Resolution)
			}
			if res.Request.Status != tc.status {
				t.Errorf("TapResult.Request is %s", res.Request.Status)
			}
		})
	}
}

// The ⏱ and 🔄 buttons grant a bypass: the next call of the same category in the
// session is allowed without a prompt; one of another category still asks.
func TestTapBypassCoversTheCategory(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	ctx := context.Background()
	for _, a := range []Action{ActionBypassShort, ActionBypassSession} {
		session := "sess-" + string(a)
		r := e.shown(session)
		if _, err := e.bot.HandleTap(ctx, tapOn(r, jane, a)); err != nil {
			t.Fatal(err)
		}
		out, err := e.g.Check(ctx, gate.Call{ToolName: "execute_cmd",
			Arguments: map[string]any{"cmd": "ls"}, SessionID: session})
		if err != nil || out.Decision != gate.VerdictAllow {
			t.Errorf("%s: next shell call = %+v, %v; want allow", a, out, err)
		}
		out, err = e.g.Check(ctx, gate.Call{ToolName: "mcp__gmail__send",
			Arguments: map[string]any{}, SessionID: session})
		if err != nil || out.Decision != gate.VerdictPending {
			t.Errorf("%s: MCP call = %+v, %v; want pending", a, out.Decision, err)
		}
		out, err = e.g.Check(ctx, gate.Call{ToolName: "Bash",
			Arguments: map[string]any{"command": "ls"}, SessionID: "other"})
		if err != nil || out.Decision != gate.VerdictPending {
			t.Errorf("%s: another session = %+v, %v; want pending", a, out.Decision, err)
		}
	}
}

func TestTapRefused(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	ctx := context.Background()
	r := e.shown("s1")
	good := tapOn(r, jane, ActionApprove)
	cases := []struct {
		name   string
		tap    Tap
		target error
		toast  string
	}{
		{"stranger in the group chat", tapOn(r, stranger, ActionApprove),
			ErrNotAuthorized, "Not authorized"},
		{"slack approver's id on telegram",
			func() Tap { t := good; t.UserID = slackBob.ID; return t }(),
			ErrNotAuthorized, "Not authorized"},
		{"no user id", func() Tap { t := good; t.UserID = ""; return t }(),
			ErrNotAuthorized, "Not authorized"},
		{"forged data", func() Tap { t := good; t.Data = "a:1:yes"; return t }(),
			ErrBadCallback, "Invalid button"},
		{"overlong data",
			func() Tap { t := good; t.Data = "a:1:ok" + string(make([]byte, 70)); return t }(),
			ErrBadCallback, "Invalid button"},
		{"unknown request", func() Tap { t := good; t.Data = "a:999:ok"; return t }(),
			gate.ErrNotFound, "Unknown request"},
		{"another message", func() Tap { t := good; t.MessageRef = "8"; return t }(),
			ErrNotBound, "Unknown request"},
		{"another chat", func() Tap { t := good; t.ChatID = "-200"; return t }(),
			ErrNotBound, "Unknown request"},
		{"the slack message's ids on telegram",
			func() Tap { t := good; t.ChatID, t.MessageRef = "C0FAKECHAN1", "1.5"; return t }(),
			ErrNotBound, "Unknown request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			res, err := e.bot.HandleTap(ctx, tc.tap)
			if !errors.Is(err, tc.target) || res.Toast != tc.toast || res.Resolved {
				t.Errorf("%+v, %v; want %v and toast %q", res, err, tc.target, tc.toast)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	if got := e.request(r.ID); got.Status != store.Pending {
		t.Fatalf("request is %s after refused taps", got.Status)
	}
}

func TestTapAfterTheOutcome(t *testing.T) {
	c := testkit.NewClock(time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC))
	e := newBotEnv(t, envOptions{clock: c})
	ctx := context.Background()
	r := e.shown("s1")
	if _, err := e.bot.HandleTap(ctx, tapOn(r, jane, ActionApprove)); err != nil {
		t.Fatal(err)
	}
	before := teststore.Snapshot(t, e.db)
	res, err := e.bot.HandleTap(ctx, tapOn(r, slackBob, ActionReject))
	if !errors.Is(err, gate.ErrAlreadyResolved) ||
		res.Toast != "Already approved by Jane Doe (100000001)" || res.Resolved {
		t.Errorf("late tap: %+v, %v", res, err)
	}
	if res.Request.Status != store.Approved {
		t.Errorf("late tap sees %s", res.Request.Status)
	}
	teststore.Unchanged(t, e.db, before)

	r2 := e.shown("s2")
	c.Set(r2.ExpiresAt.Add(time.Second))
	lastAudit := func() store.AuditEntry {
		t.Helper()
		es, err := e.db.Audit(1)
		if err != nil || len(es) != 1 {
			t.Fatalf("Audit(1) = %+v, %v", es, err)
		}
		return es[0]
	}
	lastBefore := lastAudit()
	res, err = e.bot.HandleTap(ctx, tapOn(r2, jane, ActionApprove))
	if !errors.Is(err, gate.ErrExpired) || res.Toast != "This request has expired" {
		t.Errorf("tap after expiry: %+v, %v", res, err)
	}
	if got := e.request(r2.ID); got.Status != store.Pending && got.Status != store.Expired {
		t.Errorf("request is %s after a tap past its expiry", got.Status)
	}
	if last := lastAudit(); last.Action != lastBefore.Action {
		t.Errorf("a tap past the expiry wrote %+v", last)
	}
	// Once the sweeper marked it expired, the same answer.
	if _, err := e.db.ExpireDue(c.Now()); err != nil {
		t.Fatal(err)
	}
	res, err = e.bot.HandleTap(ctx, tapOn(r2, jane, ActionApprove))
	if !errors.Is(err, gate.ErrAlreadyResolved) || res.Toast != "This request has expired" {
		t.Errorf("tap on an expired request: %+v, %v", res, err)
	}
}

// Two taps at once, on two channels: exactly one resolves, the other is told who won.
func TestTapRace(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	ctx := context.Background()
	for i := range 20 {
		r := e.shown("race" + string(rune('a'+i)))
		taps := []Tap{tapOn(r, jane, ActionApprove), tapOn(r, slackBob, ActionReject),
			tapOn(r, alice, ActionBypassShort)}
		results := make([]TapResult, len(taps))
		errs := make([]error, len(taps))
		var wg sync.WaitGroup
		for j := range taps {
			wg.Go(func() { results[j], errs[j] = e.bot.HandleTap(ctx, taps[j]) })
		}
		wg.Wait()
		won := 0
		for j := range taps {
			if results[j].Resolved {
				won++
			} else if !errors.Is(errs[j], gate.ErrAlreadyResolved) {
				t.Fatalf("loser %d: %+v, %v", j, results[j], errs[j])
			}
		}
		if won != 1 {
			t.Fatalf("%d taps won", won)
		}
	}
}
