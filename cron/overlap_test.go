package cron_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

func TestOverlapSkipCountsTheTriggerOnTheWaitingRun(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2) // skip is the default

	for i, trigger := range []string{cron.TriggerManual, cron.TriggerSchedule} {
		_, err := e.eng.Fire(context.Background(), "backup", trigger)
		testkit.WantErr(t, err, cron.ErrSkipped,
			`cron: trigger "backup": run `+strconv.FormatUint(r.ID, 10)+" is unfinished")
		if got := e.run(r.ID); got.SkippedTriggers != i+1 ||
			got.Status != store.RunWaitingApproval {
			t.Fatalf("after %d skipped triggers the run is %+v", i+1, got)
		}
	}
	if runs, err := e.eng.Runs("backup", 0); err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, want the skipped triggers not stored as runs (err %v)", len(runs), err)
	}
	if e.lines("data/step1.log") != 1 {
		t.Error("a skipped trigger ran a step")
	}

	if got, _ := e.decide(r, true, ""); got.SkippedTriggers != 2 {
		t.Errorf("the finished run lost its skipped triggers: %+v", got)
	}
	next := e.trigger("backup") // the job is free again
	if next.ID == r.ID {
		t.Fatal("no new run")
	}
}

func TestOverlapQueueKeepsOneTriggerAndCountsTheRest(t *testing.T) {
	e, r := started(t, backup("nightly", cron.OverlapQueue), waitingAtStep2)

	_, err := e.eng.Fire(context.Background(), "nightly", cron.TriggerSchedule)
	testkit.WantErr(t, err, cron.ErrQueued,
		`cron: trigger "nightly": run `+strconv.FormatUint(r.ID, 10)+" is unfinished")
	slot, err := e.db.GetMeta("cron.queue.nightly")
	if err != nil || slot == nil {
		t.Fatalf("queue slot %q %v, want it stored", slot, err)
	}
	var s struct{ Trigger string }
	if err := json.Unmarshal(slot, &s); err != nil || s.Trigger != cron.TriggerSchedule {
		t.Errorf("queue slot %s", slot)
	}
	if got := e.run(r.ID); got.SkippedTriggers != 0 {
		t.Errorf("a queued trigger was counted as skipped")
	}
	// The slot is full: the next trigger is dropped and counted on the waiting run.
	_, err = e.eng.Fire(context.Background(), "nightly", cron.TriggerManual)
	testkit.WantErr(t, err, cron.ErrSkipped)
	if got := e.run(r.ID); got.SkippedTriggers != 1 {
		t.Errorf("skipped_triggers %d, want 1", got.SkippedTriggers)
	}

	// The queue survives a restart, and runs when the waiting run ends.
	e.restart()
	e.resolve(r.RequestID, false, "")
	e.next(cron.EventRunFinished, r.ID)
	ev := e.next(cron.EventRunStarted, 0)
	if ev.Job != "nightly" || ev.Trigger != cron.TriggerSchedule || ev.RunID == r.ID {
		t.Fatalf("queued run's run_started %+v", ev)
	}
	e.next(cron.EventRunWaiting, ev.RunID)
	if slot, err := e.db.GetMeta("cron.queue.nightly"); err != nil || slot != nil {
		t.Errorf("queue slot %s still taken after the queued run started (err %v)", slot, err)
	}
	if runs, err := e.eng.Runs("nightly", 0); err != nil || len(runs) != 2 {
		t.Errorf("%d runs, want the first and the queued one (err %v)", len(runs), err)
	}
}

func TestOverlapAllowStartsEveryTrigger(t *testing.T) {
	e := newCronEnv(t, backup("many", cron.OverlapAllow))
	e.start()
	a := e.trigger("many")
	b := e.trigger("many")
	for range 2 {
		e.next(cron.EventRunWaiting, 0)
	}
	if e.run(a.ID).Status != store.RunWaitingApproval ||
		e.run(b.ID).Status != store.RunWaitingApproval {
		t.Error("both runs should wait for approval")
	}
	if e.lines("data/step1.log") != 2 {
		t.Errorf("step 1 ran %d times, want once per run", e.lines("data/step1.log"))
	}
	if e.run(a.ID).SkippedTriggers+e.run(b.ID).SkippedTriggers != 0 {
		t.Error("allow counted a skipped trigger")
	}
}
