package cron_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/store"
)

// TestRetentionPrunesAtStartAndDaily: with Retention set, a run finished longer ago
// than that is dropped when the engine starts, and again each day; unfinished runs
// are kept whatever their age.
func TestRetentionPrunesAtStartAndDaily(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, backup("backup", ""))
		e.edit = func(o *cron.Options) { o.Retention = 48 * time.Hour }
		now := time.Now()
		old, err := e.db.CreateRun(store.Run{Job: "backup", Status: store.RunSucceeded, StartedAt: now.Add(-72 * time.Hour), FinishedAt: now.Add(-71 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		recent, err := e.db.CreateRun(store.Run{Job: "backup", Status: store.RunFailed, StartedAt: now.Add(-30 * time.Hour), FinishedAt: now.Add(-30 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		waiting, err := e.db.CreateRun(store.Run{Job: "backup", Status: store.RunWaitingApproval, RequestID: 12345, StartedAt: now.Add(-96 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		e.start()
		if _, err := e.db.Run(old.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a run finished 71h ago survived a 48h retention: %v", err)
		}
		e.run(recent.ID)
		e.run(waiting.ID)

		// A day later the recent run finished 54h ago: the daily prune drops it.
		time.Sleep(24*time.Hour - time.Minute)
		synctest.Wait()
		e.run(recent.ID)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if _, err := e.db.Run(recent.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the daily prune kept a run finished 54h ago: %v", err)
		}
		if r := e.run(waiting.ID); r.Status != store.RunWaitingApproval {
			t.Errorf("the waiting run is %s", r.Status)
		}
	})
}
