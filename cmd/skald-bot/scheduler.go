package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// The scheduler serves the chat's job commands as it is.
var _ bot.Jobs = (*cron.Engine)(nil)

// cronJobs converts the configuration's jobs into the scheduler's (SPEC §7).
func cronJobs(cfg *config.Config) []cron.Job {
	jobs := make([]cron.Job, len(cfg.Jobs))
	for i, j := range cfg.Jobs {
		steps := make([]cron.Step, len(j.Steps))
		for k, s := range j.Steps {
			steps[k] = cron.Step{Tool: s.Tool, Args: s.Args}
		}
		jobs[i] = cron.Job{
			Name: j.Name, Schedule: j.Schedule, AgentID: j.AgentID, Profile: j.Profile,
			ContextLabel: j.ContextLabel, Overlap: cron.Overlap(j.Overlap),
			ApprovalTimeout: j.ApprovalTimeout.Duration, Notify: cron.Notify(j.Notify), Steps: steps,
		}
	}
	return jobs
}

// newScheduler builds the run engine over the gate and the store; its Run is the
// "scheduler" component. Errors: the jobs' problems (cron.ErrInvalidJob, naming the
// job).
func newScheduler(cfg *config.Config, gt *gate.Manager, db *store.DB, log *slog.Logger) (*cron.Engine, error) {
	return cron.New(cron.Options{
		Store: db, Gate: gt, Jobs: cronJobs(cfg),
		WorkspaceRoot: cfg.WorkspaceRoot, Logger: log,
	})
}

// apiJobs adapts the run engine to the API's Jobs (SPEC §8): a trigger the overlap
// policy skipped or queued is a 409.
type apiJobs struct{ e *cron.Engine }

var _ api.Jobs = apiJobs{}

func (a apiJobs) List() ([]api.Job, error) {
	infos := a.e.Jobs()
	out := make([]api.Job, len(infos))
	for i, j := range infos {
		out[i] = api.Job{Name: j.Name, Schedule: j.Schedule, AgentID: j.AgentID, Profile: j.Profile,
			ContextLabel: j.ContextLabel, Steps: j.Steps, Next: j.Next}
	}
	return out, nil
}

func (a apiJobs) Trigger(ctx context.Context, name string) (store.Run, error) {
	r, err := a.e.Trigger(ctx, name)
	if errors.Is(err, cron.ErrSkipped) || errors.Is(err, cron.ErrQueued) {
		err = conflict{err}
	}
	return r, err
}

func (a apiJobs) Runs(name string) ([]store.Run, error) { return a.e.Runs(name, 0) }

func (a apiJobs) Run(id uint64) (store.Run, error) { return a.e.RunByID(id) }

// conflict keeps an error's message and makes it an api.ErrConflict (409).
type conflict struct{ error }

func (c conflict) Unwrap() []error { return []error{c.error, api.ErrConflict} }
