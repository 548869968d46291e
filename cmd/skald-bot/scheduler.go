package main

import (
	"context"
	"errors"
	"fmt"
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
// policy skipped or queued is a 409 whose message says so and names the run it
// yielded to (see Trigger).
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

// The words a 409 of POST /api/jobs/{name}/run starts its reason with; `jobs run`
// recognises them.
const (
	triggerSkipped = "trigger skipped"
	triggerQueued  = "trigger queued"
)

// Trigger starts a run of job name now. A trigger the overlap policy skipped or
// queued is an api.ErrConflict (409) that still wraps cron.ErrSkipped or
// cron.ErrQueued, with one plain line as its message: "heartbeat: trigger skipped:
// run 7 is still waiting for approval (request 13)", "heartbeat: trigger queued: run 7
// is still running; this one starts when it ends".
func (a apiJobs) Trigger(ctx context.Context, name string) (store.Run, error) {
	r, err := a.e.Trigger(ctx, name)
	switch {
	case errors.Is(err, cron.ErrSkipped):
		err = conflict{fmt.Sprintf("%s: %s: %s", name, triggerSkipped, a.unfinished(name)), err}
	case errors.Is(err, cron.ErrQueued):
		err = conflict{fmt.Sprintf("%s: %s: %s; this one starts when it ends", name, triggerQueued, a.unfinished(name)), err}
	}
	return r, err
}

// unfinished says which run of job name a skipped or queued trigger yielded to: the
// oldest unfinished one, "run 7 is still running" or "run 7 is still waiting for
// approval (request 13)"; "a run is still unfinished" when it has just finished.
func (a apiJobs) unfinished(name string) string {
	rs, _ := a.e.Runs(name, 0) // newest first
	for i := len(rs) - 1; i >= 0; i-- {
		switch r := rs[i]; r.Status {
		case store.RunRunning:
			return fmt.Sprintf("run %d is still running", r.ID)
		case store.RunWaitingApproval:
			return fmt.Sprintf("run %d is still waiting for approval (request %d)", r.ID, r.RequestID)
		}
	}
	return "a run is still unfinished"
}

func (a apiJobs) Runs(name string) ([]store.Run, error) { return a.e.Runs(name, 0) }

func (a apiJobs) Run(id uint64) (store.Run, error) { return a.e.RunByID(id) }

// conflict is err with the message msg, made an api.ErrConflict (409).
type conflict struct {
	msg string
	err error
}

func (c conflict) Error() string   { return c.msg }
func (c conflict) Unwrap() []error { return []error{c.err, api.ErrConflict} }
