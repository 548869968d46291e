package cron_test

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

func TestApprovalTimeoutExpiresTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := backup("backup", "")
		j.ApprovalTimeout = time.Hour
		e, r := started(t, j, waitingAtStep2)
		req, err := e.gate.Request(r.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if got := req.ExpiresAt.Sub(req.CreatedAt); got != time.Hour {
			t.Fatalf("the request lives %s, want the job's approval_timeout 1h", got)
		}

		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		if got := e.run(r.ID); got.Status != store.RunWaitingApproval {
			t.Fatalf("a second before expiry the run is %s", got.Status)
		}
		time.Sleep(3 * time.Second)
		ev := e.next(cron.EventRunFinished, r.ID)
		got := e.run(r.ID)
		if got.Status != store.RunExpired || ev.Status != store.RunExpired || !ev.Notify ||
			got.Error != "step 2: approval request "+strconv.FormatUint(r.RequestID, 10)+
				" expired by system via gate" {
			t.Fatalf("run %+v, event %+v", got, ev)
		}
		if late := got.FinishedAt.Sub(req.ExpiresAt); late < 0 || late > 2*time.Second {
			t.Errorf("the run expired %s after its request's expires_at, want within 2s", late)
		}
		if got.Steps[1].Status != "expired" || got.Steps[1].Decision != "expired" {
			t.Errorf("step 2 %+v", got.Steps[1])
		}
		if _, ok := e.file("out/report.txt"); ok {
			t.Error("the expired step ran")
		}
	})
}

// TestScheduleFiresAndSurvivesPanics runs robfig/cron itself on the bubble's fake
// clock: an @every 1m job whose step panics fails every minute, and the scheduler
// keeps firing it.
func TestScheduleFiresAndSurvivesPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := cron.Job{Name: "tick", Schedule: "@every 1m", AgentID: "ops",
			Steps: []cron.Step{{Tool: "explode"}}}
		e := newCronEnv(t, j)
		explode := func(context.Context, cron.Env, map[string]any) (cron.Result, error) {
			panic("kaboom")
		}
		e.tools = map[string]cron.Tool{"explode": {Run: explode}}
		allow(t, e, "explode")
		start := time.Now()
		e.start()
		if next := e.eng.Jobs()[0].Next; !next.Equal(start.Add(time.Minute)) {
			t.Errorf("next firing %s, want a minute after the start %s", next, start)
		}
		for i := range 3 {
			ev := e.nextWithin(cron.EventRunFinished, 0, time.Hour)
			if ev.Status != store.RunFailed || ev.Trigger != cron.TriggerSchedule ||
				ev.Error != "step 1 (explode): panic: kaboom" {
				t.Fatalf("run %d: %+v", i+1, ev)
			}
			if got, want := time.Since(start), time.Duration(i+1)*time.Minute; got != want {
				t.Errorf("run %d finished %s after the start, want %s", i+1, got, want)
			}
		}
	})
}

// stopProbe is a slog.Handler that holds robfig/cron's "stop" line until Run has
// returned (then robfig's goroutine outlived Run: late is set) or a minute of the
// bubble's fake time has passed (nothing else can move: Run waits for that goroutine).
type stopProbe struct {
	returned chan struct{} // closed by the test once Run has returned
	late     atomic.Bool
}

func (p *stopProbe) Enabled(context.Context, slog.Level) bool { return true }
func (p *stopProbe) WithAttrs([]slog.Attr) slog.Handler       { return p }
func (p *stopProbe) WithGroup(string) slog.Handler            { return p }
func (p *stopProbe) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "robfig/cron: stop" {
		select {
		case <-p.returned:
			p.late.Store(true)
		case <-time.After(time.Minute):
		}
	}
	return nil
}

// TestRunWaitsForRobfigsGoroutine: when Engine.Run returns, robfig/cron's own
// goroutine has finished too — its last act, logging "stop", happened before.
func TestRunWaitsForRobfigsGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		probe := &stopProbe{returned: make(chan struct{})}
		e := newCronEnv(t, cron.Job{Name: "tick", Schedule: "@every 1h", Steps: []cron.Step{
			{Tool: "execute_cmd", Args: map[string]any{"cmd": "true"}},
		}})
		e.edit = func(o *cron.Options) { o.Logger = slog.New(probe) }
		e.start()
		e.stop()
		close(probe.returned)
		synctest.Wait()
		if probe.late.Load() {
			t.Fatal("robfig/cron's goroutine logged its stop after Engine.Run returned")
		}
	})
}

// TestSkippedScheduledTriggerLogsOnce: a scheduled trigger that the overlap policy
// skips is logged once, not once by the engine and again by the schedule.
func TestSkippedScheduledTriggerLogsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := backup("backup", cron.OverlapSkip)
		j.Schedule = "@every 1m"
		var logs testkit.Logs
		e := newCronEnv(t, j)
		e.edit = func(o *cron.Options) { o.Logger = logs.Logger() }
		e.start()
		r := waitingAtStep2(t, e, "backup")
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := e.run(r.ID); got.SkippedTriggers != 1 {
			t.Fatalf("run %d counts %d skipped triggers, want 1", r.ID, got.SkippedTriggers)
		}
		// The records about a trigger that started no run.
		if n := len(logs.Find("skipped")) + len(logs.Find("not started")); n != 1 {
			t.Errorf("%d log lines about the skipped trigger, want 1:\n%s", n, logs.All())
		}
	})
}
