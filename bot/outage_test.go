package bot

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
)

// A channel unreachable for minutes — longer than the retries cover — gets the prompt
// of a request made meanwhile, and the outcome of one resolved meanwhile, once it is
// back: each message sent once, each outcome edited once.
func TestFanoutChannelDownForMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		e := newEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg, sl},
			retry: Retry{Attempts: 3, Backoff: time.Second}})
		defer e.run()()
		synctest.Wait() // Run's start-up Reconcile
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
