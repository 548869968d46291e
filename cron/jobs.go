package cron

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// JobInfo describes a configured job, for GET /api/jobs and the jobs command; cmd maps
// it onto the API's own type.
type JobInfo struct {
	Name         string
	Schedule     string
	AgentID      string
	Profile      string
	ContextLabel string
	Overlap      Overlap
	Notify       Notify
	// ApprovalTimeout is the job's own, zero when it uses the global one.
	ApprovalTimeout time.Duration
	// Steps is how many steps the job has.
	Steps int
	// Next is when the schedule fires next; zero for a schedule that never fires.
	Next time.Time
}

// List returns the names of the configured jobs, sorted (bot.Jobs). It does no I/O.
func (e *Engine) List() []string { return slices.Clone(e.names) }

// Jobs returns every configured job, sorted by name, with its next firing: robfig/
// cron's once Run has started it, else the schedule's next time after now. It does no
// I/O.
func (e *Engine) Jobs() []JobInfo {
	out := make([]JobInfo, 0, len(e.names))
	for _, name := range e.names {
		j := e.jobs[name]
		next := e.sched.Entry(j.entry).Next
		if next.IsZero() {
			next = j.schedule.Next(e.now())
		}
		out = append(out, JobInfo{
			Name: j.Name, Schedule: j.Schedule, AgentID: j.AgentID, Profile: j.Profile,
			ContextLabel: j.ContextLabel, Overlap: j.Overlap, Notify: j.Notify,
			ApprovalTimeout: j.ApprovalTimeout, Steps: len(j.Steps), Next: next,
		})
	}
	return out
}

// Trigger starts a manual run of job name now and returns it as first stored
// (bot.Jobs; POST /api/jobs/{name}/run): Fire with TriggerManual, and its errors —
// ErrNotFound, ErrSkipped, ErrQueued, ErrNotRunning, the store's. It does not wait for
// the run.
func (e *Engine) Trigger(ctx context.Context, name string) (store.Run, error) {
	return e.Fire(ctx, name, TriggerManual)
}

// Runs returns at most limit runs of job name, newest first; limit <= 0 returns them
// all (bot.Jobs; GET /api/jobs/{name}/runs). Errors: ErrNotFound for a job that is not
// configured, or the store's error.
func (e *Engine) Runs(name string, limit int) ([]store.Run, error) {
	if e.jobs[name] == nil {
		return nil, fmt.Errorf("cron: runs of %q: no such job: %w", name, ErrNotFound)
	}
	runs, err := e.store.Runs(name, limit)
	if err != nil {
		return nil, fmt.Errorf("cron: runs of %q: %w", name, err)
	}
	return runs, nil
}

// RecentRuns returns at most limit runs of every job, newest first; limit <= 0
// returns them all (GET /api/runs). Error: the store's.
func (e *Engine) RecentRuns(limit int) ([]store.Run, error) {
	runs, err := e.store.RecentRuns(limit)
	if err != nil {
		return nil, fmt.Errorf("cron: recent runs: %w", err)
	}
	return runs, nil
}

// RunByID returns run id as stored, with its steps (GET /api/runs/{id}). Errors:
// ErrNotFound, or the store's error.
func (e *Engine) RunByID(id uint64) (store.Run, error) {
	r, err := e.store.Run(id)
	if err != nil {
		return store.Run{}, fmt.Errorf("cron: %w", err)
	}
	return r, nil
}
