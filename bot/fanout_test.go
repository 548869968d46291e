package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

var bash = map[string]any{"command": "make deploy"}

// wantFinal fails the test unless request id's messages on channel c are final as
// asked.
func (e *env) wantFinal(id uint64, c *fakeChannel, final bool) {
	e.t.Helper()
	for _, m := range e.request(id).Messages {
		if m.Channel == c.name && m.Final != final {
			e.t.Errorf("message %+v: want final %v", m, final)
		}
	}
}

// runFanout runs an env with a Fanout over chans, the rest set by opt, until the test
// ends, and returns past Run's start-up Reconcile. It must be called in a synctest
// bubble.
func runFanout(t *testing.T, opt envOptions, chans ...*fakeChannel) *env {
	t.Helper()
	opt.fanout, opt.channels = true, chans
	e := newBotEnv(t, opt)
	t.Cleanup(e.run())
	synctest.Wait()
	return e
}

// heldPrompt runs a Fanout over fakes tg (chat -100) and sl (C0FAKECHAN1) and makes
// request r: its Slack prompt is sent, its Telegram one waits, as all tg's sends do,
// until release is closed.
func heldPrompt(t *testing.T) (e *env, tg, sl *fakeChannel, release chan struct{},
	r store.Request) {
	t.Helper()
	tg, sl = newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
	release = make(chan struct{})
	tg.gate = release
	e = runFanout(t, envOptions{}, tg, sl)
	r = e.require("s1", "Bash", bash)
	synctest.Wait()
	return e, tg, sl, release, r
}

// wantMessages fails the test unless the request's stored messages are exactly the
// sends of the channels (in any order), each Final as asked.
func (e *env) wantMessages(id uint64, final bool, chans ...*fakeChannel) {
	e.t.Helper()
	r := e.request(id)
	want := map[string]bool{}
	for _, c := range chans {
		for _, s := range c.sent() {
			if s.Prompt.RequestID == id {
				want[c.name+"/"+s.Target+"/"+s.Ref] = true
			}
		}
	}
	if len(r.Messages) != len(want) {
		e.t.Fatalf("request %d has messages %+v, want %v", id, r.Messages, want)
	}
	for _, m := range r.Messages {
		if !want[m.Channel+"/"+m.ChatID+"/"+m.Ref] || m.Final != final {
			e.t.Errorf("message %+v: want one of %v with final %v", m, want, final)
		}
	}
}

// editsOf returns the edits of request id's messages on c, by "target/ref".
func editsOf(c *fakeChannel, id uint64) map[string][]Prompt {
	out := map[string][]Prompt{}
	for _, s := range c.edited() {
		if s.Prompt.RequestID == id {
			out[s.Target+"/"+s.Ref] = append(out[s.Target+"/"+s.Ref], s.Prompt)
		}
	}
	return out
}

// wantEditedOnce fails the test unless every message of request id on the channels
// was edited exactly once, to a prompt without buttons whose outcome contains want.
func (e *env) wantEditedOnce(id uint64, want string, chans ...*fakeChannel) {
	e.t.Helper()
	for _, c := range chans {
		edits := editsOf(c, id)
		for _, s := range c.sent() {
			if s.Prompt.RequestID != id {
				continue
			}
			ps := edits[s.Target+"/"+s.Ref]
			if len(ps) != 1 {
				e.t.Errorf("%s message %s/%s edited %d times, want once",
					c.name, s.Target, s.Ref, len(ps))
				continue
			}
			if ps[0].Buttons != nil || !strings.Contains(ps[0].Outcome, want) {
				e.t.Errorf("%s message %s/%s edited to outcome %q with buttons %v; "+
					"want %q and none", c.name, s.Target, s.Ref, ps[0].Outcome, ps[0].Buttons,
					want)
			}
		}
	}
}

func TestFanoutShowAndUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100", "-200"), newFake("slack", "C0FAKECHAN1")
		e := runFanout(t, envOptions{bypassShort: time.Hour}, tg, sl)
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		if len(tg.sent()) != 2 || len(sl.sent()) != 1 {
			t.Fatalf("sent %d to telegram, %d to slack; want 2 and 1",
				len(tg.sent()), len(sl.sent()))
		}
		for _, s := range append(tg.sent(), sl.sent()...) {
			if s.Prompt.RequestID != r.ID || s.Prompt.Buttons[1][0].Label != "⏱ 1 h" ||
				s.Prompt.Buttons[0][0].Data != fmt.Sprintf("a:%d:ok", r.ID) {
				t.Errorf("prompt %+v", s.Prompt)
			}
		}
		e.wantMessages(r.ID, false, tg, sl)

		e.resolve(r.ID, gate.Answer{Approve: true, By: "api", Via: "api"})
		synctest.Wait()
		e.wantEditedOnce(r.ID, "✅ Approved by api · api", tg, sl)
		e.wantMessages(r.ID, true, tg, sl)
	})
}

// The outcome reaches every message also when it did not come from a chat: expiry,
// cancellation at the terminal.
func TestFanoutExpiryAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		e := runFanout(t, envOptions{}, tg)
		r1 := e.require("s1", "Bash", bash)
		r2 := e.require("s2", "Bash", bash)
		synctest.Wait()
		if _, err := e.g.CancelRequest(r2.ID, TerminalReason,
			store.Actor{By: "claude-code", Via: "api"}, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(r1.ExpiresAt) + 2*time.Second)
		synctest.Wait()
		e.wantEditedOnce(r1.ID, "⌛ Expired", tg)
		e.wantEditedOnce(r2.ID, "🚫 Cancelled (handled at the terminal)", tg)
	})
}

// A failing channel is retried with backoff and never holds up the other one.
func TestFanoutRetriesWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		sl.failSends = 3
		e := runFanout(t, envOptions{retry: Retry{Attempts: 4, Backoff: time.Second}}, tg, sl)
		start := time.Now()
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		if len(tg.sent()) != 1 || len(sl.sent()) != 0 {
			t.Fatalf("after the first attempt: %d telegram, %d slack",
				len(tg.sent()), len(sl.sent()))
		}
		e.wantMessages(r.ID, false, tg)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		var offsets []time.Duration
		sl.set(func(c *fakeChannel) {
			for _, a := range c.attempts {
				offsets = append(offsets, a.Sub(start))
			}
		})
		want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}
		if fmt.Sprint(offsets) != fmt.Sprint(want) {
			t.Errorf("slack attempts at %v, want %v", offsets, want)
		}
		e.wantMessages(r.ID, false, tg, sl)
		if len(e.failures) != 0 {
			t.Errorf("a failure was reported: %+v", <-e.failures)
		}
	})
}

func TestFanoutGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1", "C0FAKECHAN2")
		sl.failSends = 100
		tg.failSends, tg.failErr = 1, fmt.Errorf("chat not found: %w", ErrPermanent)
		e := runFanout(t, envOptions{retry: Retry{Attempts: 3, Backoff: time.Second}}, tg, sl)
		r := e.require("s1", "Bash", bash)
		time.Sleep(30 * time.Second) // before the sweep reconciles
		synctest.Wait()
		got := map[string]Failure{}
		for len(e.failures) > 0 {
			f := <-e.failures
			got[f.Channel+"/"+f.Target] = f
		}
		if f := got["telegram/-100"]; f.Op != "send" || f.Attempts != 1 || f.RequestID != r.ID ||
			!errors.Is(f.Err, ErrPermanent) {
			t.Errorf("telegram failure %+v; want one attempt, permanent", f)
		}
		for _, target := range sl.targets {
			if f := got["slack/"+target]; f.Attempts != 3 || f.Op != "send" {
				t.Errorf("slack %s failure %+v; want 3 attempts", target, f)
			}
		}
		if len(got) != 3 {
			t.Errorf("failures %v", got)
		}
		sl.set(func(c *fakeChannel) {
			if len(c.attempts) != 6 {
				t.Errorf("slack tried %d times, want 3 per channel", len(c.attempts))
			}
		})
		if rr := e.request(r.ID); len(rr.Messages) != 0 {
			t.Errorf("messages recorded: %+v", rr.Messages)
		}
	})
}

// A 429 is waited out for its retry_after, and does not use up an attempt.
func TestFanoutRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		tg.failSends, tg.failErr = 3, &RateLimitError{RetryAfter: 35 * time.Second,
			Err: errors.New("Too Many Requests: retry after 35")}
		e := runFanout(t, envOptions{retry: Retry{Attempts: 2, Backoff: time.Second}}, tg)
		start := time.Now()
		r := e.require("s1", "Bash", bash)
		time.Sleep(34 * time.Second)
		synctest.Wait()
		if len(tg.sent()) != 0 {
			t.Fatal("sent before retry_after")
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		s := tg.sent()
		if len(s) != 1 || s[0].At.Sub(start) != 105*time.Second {
			t.Fatalf("sent %+v; want once, after 3 × 35 s", s)
		}
		e.wantMessages(r.ID, false, tg)
		if len(e.failures) != 0 {
			t.Errorf("a rate limit was reported as a failure")
		}
	})
}

// An edit that fails is retried; the messages become final only when all are edited.
func TestFanoutEditRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		tg.failEdits = 2
		e := runFanout(t, envOptions{retry: Retry{Attempts: 5, Backoff: time.Second}}, tg, sl)
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		e.resolve(r.ID, gate.Answer{Approve: false, By: "cli", Via: "cli", Note: "not today"})
		synctest.Wait()
		if len(editsOf(sl, r.ID)) != 1 || len(editsOf(tg, r.ID)) != 0 {
			t.Fatalf("slack edits %v, telegram %v", editsOf(sl, r.ID), editsOf(tg, r.ID))
		}
		e.wantFinal(r.ID, tg, false) // each message final once edited
		e.wantFinal(r.ID, sl, true)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		e.wantEditedOnce(r.ID, "❌ Rejected by cli · cli", tg, sl)
		e.wantMessages(r.ID, true, tg, sl)
		if p := editsOf(sl, r.ID)["C0FAKECHAN1/1"][0]; p.Note != "not today" {
			t.Errorf("note %q", p.Note)
		}

		// An edit given up on leaves the messages not final, for the next reconciliation.
		tg.set(func(c *fakeChannel) { c.failEdits = 100 })
		r2 := e.require("s2", "Bash", bash)
		synctest.Wait()
		e.resolve(r2.ID, gate.Answer{Approve: true, By: "cli", Via: "cli"})
		time.Sleep(30 * time.Second) // before the sweep reconciles
		synctest.Wait()
		if f := <-e.failures; f.Op != "edit" || f.Channel != "telegram" || f.Attempts != 5 {
			t.Errorf("failure %+v", f)
		}
		e.wantFinal(r2.ID, tg, false)
		e.wantFinal(r2.ID, sl, true)
	})
}

// An arming edit that failed is retried after the outcome was shown: the retry finds
// the message final and leaves it, so it is edited once, for a request and for a
// question. TestFanoutEditRetry hits this when its two retries, due at the same
// instant, run in this order.
func TestFanoutArmRetryAfterOutcome(t *testing.T) {
	for _, tc := range []struct {
		name string
		// start makes the item; end ends it; messages reads its messages.
		start    func(e *env) uint64
		end      func(e *env, id uint64)
		messages func(e *env, id uint64) []store.Message
	}{
		{"request", func(e *env) uint64 { return e.require("s1", "Bash", bash).ID },
			func(e *env, id uint64) {
				e.resolve(id, gate.Answer{Approve: false, By: "cli", Via: "cli"})
			},
			func(e *env, id uint64) []store.Message { return e.request(id).Messages }},
		{"clarification", func(e *env) uint64 {
			c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "go on?",
				Options: []string{"yes", "no"}, Caller: store.CallerLocal})
			if err != nil {
				e.t.Fatal(err)
			}
			return c.ID
		}, func(e *env, id uint64) {
			if _, err := e.g.CancelClarification(id, "moot",
				store.Actor{By: "cli", Via: "cli"}, ""); err != nil {
				e.t.Fatal(err)
			}
		}, func(e *env, id uint64) []store.Message {
			c, err := e.db.Clarification(id)
			if err != nil {
				e.t.Fatal(err)
			}
			return c.Messages
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tg := newFake("telegram", "-100")
				tg.failEdits = 1 // the arming edit
				e := runFanout(t, envOptions{retry: Retry{Attempts: 5, Backoff: time.Second}},
					tg)
				id := tc.start(e)
				synctest.Wait()
				time.Sleep(time.Second / 2) // the outcome before the arming retry
				tc.end(e, id)
				synctest.Wait()
				time.Sleep(3 * time.Second)
				synctest.Wait()
				msgs := tc.messages(e, id)
				if len(msgs) != 1 || !msgs[0].Final || len(tg.sent()) != 1 {
					t.Fatalf("messages %+v of %d sent, want one, final", msgs, len(tg.sent()))
				}
				var edits []Prompt
				for _, s := range tg.edited() {
					if s.Ref == msgs[0].Ref {
						edits = append(edits, s.Prompt)
					}
				}
				if len(edits) != 1 || edits[0].Buttons != nil ||
					!strings.Contains(edits[0].Outcome, "by cli · cli") {
					t.Fatalf("message edited %d times (%+v), want once, to its outcome",
						len(edits), edits)
				}
			})
		})
	}
}

// A request resolved while its prompt is being sent: the late message shows the
// outcome too, and no message is edited twice.
func TestFanoutResolvedWhileSending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, tg, sl, release, r := heldPrompt(t)
		e.resolve(r.ID, gate.Answer{Approve: true, By: "api", Via: "api"})
		synctest.Wait()
		close(release)
		synctest.Wait()
		e.wantEditedOnce(r.ID, "✅ Approved", tg, sl)
		e.wantMessages(r.ID, true, tg, sl)

		// A send that failed and is retried after the resolution sends nothing.
		tg.set(func(c *fakeChannel) { c.gate, c.failSends = nil, 1 })
		r2 := e.require("s2", "Bash", bash)
		synctest.Wait()
		e.resolve(r2.ID, gate.Answer{Approve: false, By: "api", Via: "api"})
		time.Sleep(time.Minute)
		synctest.Wait()
		for _, s := range tg.sent() {
			if s.Prompt.RequestID == r2.ID {
				t.Errorf("a resolved request was sent: %+v", s)
			}
		}
		e.wantEditedOnce(r2.ID, "❌ Rejected", sl)
		e.wantMessages(r2.ID, true, sl)
	})
}

// Show and Reconcile of the same request at once: one message per chat.
func TestFanoutShowTwiceAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, tg, sl, release, r := heldPrompt(t)
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := e.fan.Reconcile(context.Background()); err != nil {
				t.Errorf("Reconcile: %v", err)
			}
		})
		synctest.Wait()
		close(release)
		wg.Wait()
		synctest.Wait()
		if len(tg.sent()) != 1 || len(sl.sent()) != 1 {
			t.Errorf("sent %d to telegram, %d to slack; want one each",
				len(tg.sent()), len(sl.sent()))
		}
		e.wantMessages(r.ID, false, tg, sl)
	})
}

// Two taps at once, on two channels, through the whole chain: one resolution, each
// message edited once, to the same outcome.
func TestFanoutTwoTapsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100", "-200"), newFake("slack", "C0FAKECHAN1")
		e := runFanout(t, envOptions{}, tg, sl)
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		r = e.request(r.ID)
		taps := []Tap{tapOn(r, jane, ActionApprove), tapOn(r, slackBob, ActionReject)}
		var results [2]TapResult
		var errs [2]error
		var wg sync.WaitGroup
		for i := range taps {
			wg.Go(func() { results[i], errs[i] = e.bot.HandleTap(context.Background(), taps[i]) })
		}
		wg.Wait()
		synctest.Wait()
		if results[0].Resolved == results[1].Resolved {
			t.Fatalf("results %+v", results)
		}
		for i, err := range errs { // the second tap finds the request resolved
			if results[i].Resolved && err != nil ||
				!results[i].Resolved && !errors.Is(err, gate.ErrAlreadyResolved) {
				t.Fatalf("tap %d: %v, resolved %v", i, err, results[i].Resolved)
			}
		}
		want := "✅ Approved by Jane Doe (100000001) · telegram"
		if results[1].Resolved {
			want = "❌ Rejected by bob (U0FAKEUSR01) · slack"
		}
		e.wantEditedOnce(r.ID, want, tg, sl)
		e.wantMessages(r.ID, true, tg, sl)
	})
}

// A restart between the prompt and the tap: the next start shows the
// prompts that were never sent, edits the messages of requests finished while it was
// down, and a tap on a message sent before the restart still resolves.
func TestFanoutRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// First run: Telegram only; Slack is configured after the restart.
		tg := newFake("telegram", "-100")
		e := newBotEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg}})
		stop := e.run()
		synctest.Wait()
		shown := e.require("s1", "Bash", bash)
		finished := e.require("s2", "Bash", bash)
		synctest.Wait()
		stop()
		// The two prompts are sent concurrently: which got message 1 is not fixed.
		refOf := func(id uint64) string {
			t.Helper()
			for _, s := range tg.sent() {
				if s.Prompt.RequestID == id {
					return s.Target + "/" + s.Ref
				}
			}
			t.Fatalf("no prompt of request %d sent to telegram: %+v", id, tg.sent())
			return ""
		}
		shownRef, finishedRef := refOf(shown.ID), refOf(finished.ID)
		// Resolved while no notifier runs: its message keeps its buttons.
		if _, err := e.db.Resolve(finished.ID, store.Rejected,
			store.Resolution{By: "cli", Via: "cli", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if err := e.db.Close(); err != nil {
			t.Fatal(err)
		}

		tg2, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		tg2.next = 100
		e2 := newBotEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg2, sl}, path: e.path})
		defer e2.run()()
		synctest.Wait()
		if len(tg2.sent()) != 0 {
			t.Errorf("prompts sent again to telegram: %+v", tg2.sent())
		}
		if s := sl.sent(); len(s) != 1 || s[0].Prompt.RequestID != shown.ID {
			t.Errorf("slack got %+v, want the pending request's prompt", s)
		}
		if e := editsOf(tg2, finished.ID); len(e) != 1 || len(e[finishedRef]) != 1 ||
			!strings.Contains(e[finishedRef][0].Outcome, "❌ Rejected by cli") {
			t.Errorf("the finished request's message %s was edited %v", finishedRef, e)
		}
		if r := e2.request(finished.ID); len(r.Messages) == 0 || !r.Messages[0].Final {
			t.Errorf("not final after reconciling: %+v", r.Messages)
		}

		r := e2.request(shown.ID)
		res, err := e2.bot.HandleTap(context.Background(), tapOn(r, jane, ActionApprove))
		if err != nil || !res.Resolved {
			t.Fatalf("tap after restart: %+v, %v", res, err)
		}
		synctest.Wait()
		e2.wantEditedOnce(shown.ID, "✅ Approved by Jane Doe", sl)
		// The message sent before the restart: edited to the request as it is (the
		// start-up reconciliation, buttons kept), then to its outcome.
		if e := editsOf(tg2, shown.ID)[shownRef]; len(e) != 2 || e[0].Buttons == nil ||
			e[1].Buttons != nil || !strings.Contains(e[1].Outcome, "✅ Approved by Jane Doe") {
			t.Errorf("the message sent before the restart was edited %v", e)
		}
		e2.wantMessages(shown.ID, true, tg, sl)
	})
}

// A prompt is posted without buttons and armed by an edit only once its message is
// recorded on the request.
func TestShowPostsThenRecordsThenArms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100", "-200")
		e := newBotEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg}})
		var unrecorded []string
		tg.onArm = func(target, ref string) {
			// The request is the only one: its id is 1.
			r := e.request(1)
			if !hasMessage(r.Messages, "telegram", target) {
				unrecorded = append(unrecorded, target+"/"+ref)
			}
		}
		defer e.run()()
		synctest.Wait()
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		if len(unrecorded) > 0 {
			t.Errorf("armed before recorded: %v", unrecorded)
		}
		sent := tg.sent()
		if len(sent) != 2 {
			t.Fatalf("sent %d, want 2", len(sent))
		}
		for _, s := range sent {
			if s.Posted.Buttons != nil || !s.Armed || s.Prompt.Buttons == nil {
				t.Errorf("message %s/%s posted with buttons %v, armed %v", s.Target, s.Ref,
					s.Posted.Buttons != nil, s.Armed)
			}
		}
		e.wantMessages(r.ID, false, tg)
		if n := len(tg.edited()); n != 0 {
			t.Errorf("%d edits beside the arms", n)
		}
	})
}

// A message recorded but never armed (the arm given up on, as a process stopped
// between the commit and the edit) is armed by the next start's reconciliation; a
// pending clarification's too.
func TestReconcileArmsRecordedMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		tg.failEdits, tg.failErr = 2, fmt.Errorf("chat not found: %w", ErrPermanent)
		e := newBotEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg}})
		stop := e.run()
		synctest.Wait()
		r := e.require("s1", "Bash", bash)
		c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "go on?",
			Options: []string{"yes", "no"}, Caller: store.CallerLocal})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		stop()
		if got := e.request(r.ID).Messages; len(got) != 1 {
			t.Fatalf("recorded %+v, want one message", got)
		}
		for _, s := range tg.sent() {
			if s.Armed {
				t.Fatalf("message %s armed although its edit failed", s.Ref)
			}
		}
		if err := e.db.Close(); err != nil {
			t.Fatal(err)
		}

		tg2 := newFake("telegram", "-100")
		e2 := newBotEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg2}, path: e.path})
		defer e2.run()()
		synctest.Wait()
		if n := len(tg2.sent()); n != 0 {
			t.Errorf("sent %d prompts again, want none", n)
		}
		ref := e2.request(r.ID).Messages[0].Ref
		cc, err := e2.db.Clarification(c.ID)
		if err != nil || len(cc.Messages) != 1 {
			t.Fatalf("clarification %+v, %v", cc.Messages, err)
		}
		armed := map[string]bool{}
		for _, s := range tg2.edited() {
			if s.Prompt.Buttons != nil {
				armed[s.Ref] = true
			}
		}
		if !armed[ref] || !armed[cc.Messages[0].Ref] {
			t.Errorf("armed %v, want the prompt %s and the question %s", armed, ref,
				cc.Messages[0].Ref)
		}
		if got := e2.request(r.ID); got.Status != store.Pending {
			t.Errorf("request %s", got.Status)
		}
	})
}

// A channel unreachable for minutes — longer than the retries cover — gets the prompt
// of a request made meanwhile, and the outcome of one resolved meanwhile, once it is
// back: each message sent once, each outcome edited once.
func TestFanoutChannelDownForMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		e := runFanout(t, envOptions{retry: Retry{Attempts: 3, Backoff: time.Second}}, tg, sl)
		old := e.require("s1", "Bash", bash)
		synctest.Wait()
		e.wantMessages(old.ID, false, tg, sl)

		down := errors.New("dial tcp: connection refused")
		sl.set(func(c *fakeChannel) { c.failSends, c.failEdits, c.failErr = 1<<30, 1<<30, down })
		r := e.require("s2", "Bash", bash)
		e.resolve(old.ID, gate.Answer{Approve: true, By: "jane", Via: "telegram"})
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := len(editsOf(sl, old.ID)); n != 0 || len(sl.sent()) != 1 {
			t.Fatalf("while down: %d edits, %d sends", n, len(sl.sent()))
		}
		e.wantMessages(r.ID, false, tg)

		sl.set(func(c *fakeChannel) { c.failSends, c.failEdits = 0, 0 })
		time.Sleep(2 * OfferSweepEvery)
		synctest.Wait()
		e.wantMessages(r.ID, false, tg, sl)
		if n := len(sl.sent()); n != 2 {
			t.Errorf("slack got %d prompts, want 2 (one per request)", n)
		}
		e.wantEditedOnce(old.ID, "✅ Approved by jane", tg, sl)
		time.Sleep(5 * OfferSweepEvery) // later sweeps send and edit nothing more
		synctest.Wait()
		if n := len(sl.sent()); n != 2 {
			t.Errorf("slack got %d prompts after more sweeps", n)
		}
		e.wantEditedOnce(old.ID, "✅ Approved by jane", tg, sl)
	})
}
