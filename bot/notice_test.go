package bot

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

func TestNoticeText(t *testing.T) {
	for _, c := range []struct {
		r    RunFinished
		want string
	}{
		{RunFinished{RunID: 12, Job: "nightly-backup", Status: "failed",
			Error: "step 2 (execute_cmd): exit status 1"},
			"🗓 nightly-backup run 12: failed — step 2 (execute_cmd): exit status 1"},
		{RunFinished{RunID: 3, Job: "report", Status: "succeeded"}, "🗓 report run 3: succeeded"},
		{RunFinished{RunID: 4, Job: "report", Status: "rejected",
			Error: "step 1: approval request 9 rejected by Jane (1) via telegram"},
			"🗓 report run 4: rejected — " +
				"step 1: approval request 9 rejected by Jane (1) via telegram"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := NoticeText(c.r); got != c.want {
				t.Errorf("NoticeText(%+v) = %q, want %q", c.r, got, c.want)
			}
		})
	}
}

func TestNewNoticesNeedsBusAndFanout(t *testing.T) {
	e := newBotEnv(t, envOptions{fanout: true})
	for _, opt := range []NoticesOptions{{Fanout: e.fan}, {Events: e.g}} {
		if _, err := NewNotices(opt); err == nil ||
			!strings.Contains(err.Error(), "an event bus and a Fanout are required") {
			t.Errorf("NewNotices(%+v) = %v", opt, err)
		}
	}
}

// notices returns Notices of e's gate events over e's Fanout, not running yet.
func (e *env) notices() *Notices {
	e.t.Helper()
	n, err := NewNotices(NoticesOptions{Events: e.g, Fanout: e.fan, Logger: testkit.Logger()})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// runNotices starts n.Run and returns a function that stops it and waits for it.
func runNotices(t *testing.T, n *Notices) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := n.Run(ctx); err != nil {
			t.Errorf("Notices Run: %v", err)
		}
	})
	return func() { cancel(); wg.Wait() }
}

// Only a run_finished event with notify set is announced, on every target of every
// channel, with the run's line; other events, and finished runs the job's policy
// keeps quiet, post nothing.
func TestNoticesAnnounceFinishedRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1", "C0FAKECHAN2")
		e := runFanout(t, envOptions{}, tg, sl)
		n := e.notices()
		// Published before Run starts: NewNotices has subscribed already.
		e.g.Publish(gate.Event{Name: EventRunFinished, Data: cron.RunEvent{RunID: 12,
			Job: "nightly-backup", Status: store.RunFailed,
			Error: "step 2 (execute_cmd): exit status 1", Notify: true}})
		defer runNotices(t, n)()
		for _, ev := range []gate.Event{
			{Name: EventRunFinished, Data: cron.RunEvent{RunID: 13, Job: "nightly-backup",
				Status: store.RunSucceeded}},
			{Name: "run_waiting", Data: cron.RunEvent{RunID: 14, Job: "nightly-backup",
				Status: store.RunWaitingApproval, RequestID: 3, Notify: true}},
			{Name: gate.EventApprovalResolved,
				Data: gate.ApprovalResolved{RequestID: 3, Status: store.Approved}},
			{Name: EventRunFinished, Data: "not a run"},
			{Name: EventRunFinished,
				Data: RunFinished{RunID: 15, Job: "report", Status: "succeeded", Notify: true}},
		} {
			e.g.Publish(ev)
		}
		synctest.Wait()
		// Two notices to one chat are posted at once, in no set order.
		want := []string{"🗓 nightly-backup run 12: failed — step 2 (execute_cmd): exit status 1",
			"🗓 report run 15: succeeded"}
		for _, c := range []*fakeChannel{tg, sl} {
			got := c.noticed()
			if len(got) != len(c.targets) {
				t.Errorf("%s notices %q, want them on %q", c.name, got, c.targets)
			}
			for _, target := range c.targets {
				if slices.Sort(got[target]); !reflect.DeepEqual(got[target], want) {
					t.Errorf("%s %s notices %q, want %q", c.name, target, got[target], want)
				}
			}
		}
		if len(tg.sent())+len(sl.sent()) != 0 {
			t.Error("a notice was sent as a prompt")
		}
	})
}

// A failing notice is retried with the Fanout's backoff, a 429 waits its
// retry_after, and one given up on is reported with Op "notice" without holding up
// the other channel.
func TestNoticesRetryAndGiveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg, sl := newFake("telegram", "-100"), newFake("slack", "C0FAKECHAN1")
		tg.failNotices = 2
		sl.failNotices, sl.failErr = 1, fmt.Errorf("channel_not_found: %w", ErrPermanent)
		e := runFanout(t, envOptions{retry: Retry{Attempts: 3, Backoff: time.Second}}, tg, sl)
		n := e.notices()
		defer runNotices(t, n)()
		finished := gate.Event{Name: EventRunFinished,
			Data: cron.RunEvent{RunID: 1, Job: "job", Status: store.RunFailed, Notify: true}}
		e.g.Publish(finished)
		synctest.Wait()
		if len(tg.noticed()) != 0 {
			t.Fatal("posted before the backoff")
		}
		time.Sleep(3 * time.Second) // waits of 1 s and 2 s
		synctest.Wait()
		if got := tg.noticed()["-100"]; len(got) != 1 || got[0] != "🗓 job run 1: failed" {
			t.Errorf("telegram notices %q after two failures", got)
		}
		select {
		case f := <-e.failures:
			if f.Op != "notice" || f.Channel != "slack" || f.Target != "C0FAKECHAN1" ||
				f.Attempts != 1 || !errors.Is(f.Err, ErrPermanent) {
				t.Errorf("failure %+v", f)
			}
		default:
			t.Error("the permanent failure was not reported")
		}

		// A 429 is waited out and uses up no attempt; three plain failures give up.
		tg.set(func(c *fakeChannel) {
			c.failNotices, c.failErr = 3,
				&RateLimitError{RetryAfter: 30 * time.Second, Err: errors.New("429")}
		})
		sl.set(func(c *fakeChannel) {
			c.failNotices, c.failErr, c.noticeCalls = 3, errors.New("connection reset"), 0
		})
		e.g.Publish(finished)
		time.Sleep(89 * time.Second)
		synctest.Wait()
		if got := tg.noticed()["-100"]; len(got) != 1 {
			t.Fatalf("telegram posted before 3 × 30 s: %q", got)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := tg.noticed()["-100"]; len(got) != 2 {
			t.Errorf("telegram notices %q, want the second after its rate limits", got)
		}
		sl.set(func(c *fakeChannel) {
			if c.noticeCalls != 3 || len(c.notices) != 0 {
				t.Errorf("slack: %d attempts, notices %q; want 3 attempts, none posted",
					c.noticeCalls, c.notices)
			}
		})
		if f := <-e.failures; f.Op != "notice" || f.Attempts != 3 {
			t.Errorf("failure %+v, want 3 attempts", f)
		}
	})
}

// A subscription the gate dropped as slow is made again: the events it held are
// still read, and runs finishing afterwards are announced.
func TestNoticesResubscribe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		e := runFanout(t, envOptions{}, tg)
		n := e.notices()
		// Nobody reads yet: the 65th event overflows the buffer and the gate drops it.
		e.g.Publish(gate.Event{Name: EventRunFinished,
			Data: cron.RunEvent{RunID: 1, Job: "a", Status: store.RunFailed, Notify: true}})
		for range noticeBuffer {
			e.g.Publish(gate.Event{Name: "run_started", Data: cron.RunEvent{RunID: 2, Job: "a"}})
		}
		defer runNotices(t, n)()
		synctest.Wait()
		e.g.Publish(gate.Event{Name: EventRunFinished,
			Data: cron.RunEvent{RunID: 3, Job: "a", Status: store.RunFailed, Notify: true}})
		synctest.Wait()
		if got, want := tg.noticed()["-100"],
			[]string{"🗓 a run 1: failed", "🗓 a run 3: failed"}; !reflect.DeepEqual(got, want) {
			t.Errorf("notices %q, want %q", got, want)
		}
	})
}

func TestNoticesRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBotEnv(t, envOptions{fanout: true})
		n := e.notices()
		defer runNotices(t, n)()
		synctest.Wait()
		if err := n.Run(context.Background()); err == nil ||
			!strings.Contains(err.Error(), "Run called twice") {
			t.Errorf("second Run = %v", err)
		}
	})
}
