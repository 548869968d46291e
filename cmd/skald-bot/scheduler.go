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

// cronJobs converts the configuration's jobs into the scheduler's.
func cronJobs(cfg *config.Config) []cron.Job {
	jobs := make([]cron.Job, len(cfg.Jobs))
	for i, j := range cfg.Jobs {
		steps := make([]cron.Step, len(j.Steps))
		for k, s := range j.Steps {
			steps[k] = cron.Step{Tool: s.Tool, Args: s.Args}
		}
		jobs[i] = cron.Job{
			Name: j.Name, Schedule: j.Schedule, AgentID: j.AgentID, Profile: j.Profile,
			ContextLabel: j.ContextLabel, Overlap: j.Overlap,
			ApprovalTimeout: j.ApprovalTimeout.Duration, Notify: j.Notify, Steps: steps,
		}
	}
	return jobs
}

// newScheduler builds the run engine over the gate and the store; its Run is the
// "scheduler" component. Errors: the jobs' problems (cron.ErrInvalidJob, naming the
// job).
func newScheduler(cfg *config.Config, gt *gate.Manager, db *store.DB,
	log *slog.Logger) (*cron.Engine, error) {
	return cron.New(cron.Options{
		Store: db, Gate: gt, Jobs: cronJobs(cfg),
		WorkspaceRoot: cfg.WorkspaceRoot, Logger: log,
	})
}

// apiJobs adapts the run engine to the API's Jobs: a trigger the overlap
// policy skipped or queued is a 409 whose message says so and names the run it
// yielded to (see Trigger).
type apiJobs struct{ e *cron.Engine }

var _ api.Jobs = apiJobs{}

func (a apiJobs) List() ([]api.Job, error) {
	infos := a.e.Jobs()
	out := make([]api.Job, len(infos))
	for i, j := range infos {
		out[i] = api.Job{Name: j.Name, Schedule: j.Schedule, AgentID: j.AgentID,
			Profile: j.Profile, ContextLabel: j.ContextLabel, Steps: j.Steps, Next: j.Next}
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
// cron.ErrQueued, with the one plain line of notStartedLine as its message. One that
// arrives while the scheduler is starting or stopping is an api.ErrUnavailable (503)
// that wraps cron.ErrNotRunning; it started nothing.
func (a apiJobs) Trigger(ctx context.Context, name string) (store.Run, error) {
	r, err := a.e.Trigger(ctx, name)
	if msg, ok := notStartedLine(name, err); ok {
		err = retold{msg, []error{err, api.ErrConflict}}
	} else if errors.Is(err, cron.ErrNotRunning) {
		msg := name + ": the scheduler is starting or stopping; try again in a moment"
		err = retold{msg, []error{err, api.ErrUnavailable}}
	}
	return r, err
}

func (a apiJobs) Runs(name string) ([]store.Run, error) { return a.e.Runs(name, 0) }

func (a apiJobs) RecentRuns(limit int) ([]store.Run, error) { return a.e.RecentRuns(limit) }

func (a apiJobs) Run(id uint64) (store.Run, error) { return a.e.RunByID(id) }

// chatJobs adapts the run engine to the chat's Jobs (bot.Jobs): the chat's
// `run <job>` answers a trigger the overlap policy skipped or queued with the same line
// as the API's 409.
type chatJobs struct{ *cron.Engine }

var _ bot.Jobs = chatJobs{}

// Trigger starts a run of job name now. A trigger the overlap policy skipped or
// queued is an error that still wraps cron.ErrSkipped or cron.ErrQueued, with the one
// plain line of notStartedLine as its message, which the chat shows.
func (c chatJobs) Trigger(ctx context.Context, name string) (store.Run, error) {
	r, err := c.Engine.Trigger(ctx, name)
	if msg, ok := notStartedLine(name, err); ok {
		err = retold{msg, []error{err}}
	}
	return r, err
}

// notStartedLine says in one plain line why a trigger of job name, which returned err,
// started no run when the overlap policy skipped or queued it, naming the run it
// yielded to: "heartbeat: trigger skipped: run 7 is still waiting for approval
// (request 13)", "heartbeat: trigger queued: run 7 is still running; this one starts
// when it ends". ok is false for any other err, nil included.
func notStartedLine(name string, err error) (msg string, ok bool) {
	var b *cron.BlockedError
	if !errors.As(err, &b) {
		return "", false
	}
	if errors.Is(b.Err, cron.ErrQueued) {
		return fmt.Sprintf("%s: %s: %s; this one starts when it ends", name, triggerQueued,
			unfinished(b)), true
	}
	return fmt.Sprintf("%s: %s: %s", name, triggerSkipped, unfinished(b)), true
}

// unfinished says which run a trigger yielded to: "run 7 is still running" or "run 7
// is still waiting for approval (request 13)".
func unfinished(b *cron.BlockedError) string {
	if b.Status == store.RunWaitingApproval {
		return fmt.Sprintf("run %d is still waiting for approval (request %d)",
			b.RunID, b.RequestID)
	}
	return fmt.Sprintf("run %d is still running", b.RunID)
}

// retold is an error told as msg that wraps errs.
type retold struct {
	msg  string
	errs []error
}

func (r retold) Error() string   { return r.msg }
func (r retold) Unwrap() []error { return r.errs }
