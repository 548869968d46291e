package cron

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	robfig "github.com/robfig/cron/v3"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Store is what the run engine needs of persistence; *store.DB implements it. Every
// method is one committed transaction and safe for concurrent use.
type Store interface {
	CreateRun(r store.Run) (store.Run, error)
	UpdateRun(r store.Run) error
	Run(id uint64) (store.Run, error)
	Runs(job string, limit int) ([]store.Run, error)
	RecentRuns(limit int) ([]store.Run, error)
	RunsByStatus(statuses ...store.RunStatus) ([]store.Run, error)
	RunByRequest(requestID uint64) (store.Run, error)
	GetMeta(key string) ([]byte, error)
	PutMeta(key string, v []byte) error
}

var _ Store = (*store.DB)(nil)

// Gate is what the run engine needs of the approval gate; *gate.Manager implements it.
type Gate interface {
	Check(ctx context.Context, c gate.Call) (gate.Outcome, error)
	Request(id uint64) (store.Request, error)
	// Ask and Clarification serve the ask_user step.
	Ask(q gate.Question) (store.Clarification, bool, error)
	Clarification(id uint64) (store.Clarification, error)
	Subscribe(buffer int) (<-chan gate.Event, func())
	Publish(e gate.Event)
	Profile(id string) (rules.Profile, bool)
	// EndSession ends the bypasses granted in a run's session when the run finishes.
	EndSession(sessionID string) int
}

var _ Gate = (*gate.Manager)(nil)

// Triggers: what started a run (store.Run.Trigger).
const (
	TriggerSchedule = "schedule" // robfig/cron fired the job's schedule
	TriggerManual   = "manual"   // the API, the CLI or a chat command (Trigger)
)

// SourceCron is the source of every tool call a run makes.
const SourceCron = "cron"

// eventBuffer is the engine's subscription buffer on the gate's bus. When it
// overflows the gate drops the subscription; the engine then subscribes again and
// looks at every waiting run, so no resolution is missed.
const eventBuffer = 256

// Options configure an Engine.
type Options struct {
	// Store and Gate are required.
	Store Store
	Gate  Gate
	// Jobs are the configured jobs; none is fine.
	Jobs []Job
	// Tools are the tools steps may name; nil means Builtins().
	Tools map[string]Tool
	// WorkspaceRoot is absolute and resolved through symlinks — the gate's
	// rules.Options.WorkspaceRoot. A profile's relative working directory, and an
	// empty one, resolve against it.
	WorkspaceRoot string
	// Location is where schedules without CRON_TZ= are read; nil means time.Local.
	Location *time.Location
	// Now is the run engine's clock (run and step times, durations); nil
	// means time.Now. robfig/cron itself reads time.Now: it takes no clock.
	Now func() time.Time
	// Logger nil means slog.Default(); the engine adds component=cron.
	Logger *slog.Logger
}

// Engine is the scheduler and durable run engine (docs/design.md, "Scheduled jobs"):
// each firing or manual Trigger becomes a run whose steps go through the gate; a run
// that needs approval is parked in the store, with no goroutine waiting. Create it with
// New and start it with Run. All methods are safe for concurrent use.
type Engine struct {
	store   Store
	gate    Gate
	jobs    map[string]*job
	names   []string // sorted
	tools   map[string]Tool
	now     func() time.Time
	log     *slog.Logger
	sched   *robfig.Cron
	started atomic.Bool

	// mu guards ctx and active, and serialises every read-modify-write of a run record
	// and of the queue slots, so two transitions of one run never interleave and an
	// overlap decision sees every run that started before it.
	mu sync.Mutex
	// ctx is Run's context while it runs, nil before and once it stops: run goroutines
	// start only while it is set.
	ctx context.Context
	// active holds the unfinished (running or waiting_approval) runs: job → run ids.
	active map[string]map[uint64]bool
	// wg counts the goroutines that drive runs.
	wg sync.WaitGroup
	// ready is closed once Run has restored the previous runs and started robfig/cron.
	ready chan struct{}
	// schedStarted is closed when robfig/cron's loop logs "start": from then on its
	// Stop reaches the loop. schedDone is closed when the goroutine Run gave the loop
	// has returned; nil until Run starts it.
	schedStarted chan struct{}
	schedDone    chan struct{}
}

// job is a configured Job with what the engine derives from it.
type job struct {
	Job
	schedule Schedule
	env      Env
	entry    robfig.EntryID
}

// New checks the jobs (Validate, and that each job's profile is one the gate knows)
// and builds an Engine over them; nothing starts until Run. Errors: a missing store or
// gate, a workspace root that is not absolute, or the joined problems of the jobs,
// each wrapping ErrInvalidJob and naming the job.
func New(opt Options) (*Engine, error) {
	if opt.Store == nil || opt.Gate == nil {
		return nil, errors.New("cron: new: a store and a gate are required")
	}
	if !filepath.IsAbs(opt.WorkspaceRoot) {
		return nil, fmt.Errorf("cron: new: workspace root %q is not an absolute path",
			opt.WorkspaceRoot)
	}
	e := &Engine{
		store: opt.Store, gate: opt.Gate, tools: opt.Tools, now: opt.Now, log: opt.Logger,
		jobs: make(map[string]*job), active: make(map[string]map[uint64]bool),
		ready: make(chan struct{}), schedStarted: make(chan struct{}),
	}
	if e.tools == nil {
		e.tools = Builtins()
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	e.log = e.log.With("component", "cron")
	if err := Validate(opt.Jobs, e.tools); err != nil {
		return nil, err
	}
	loc := opt.Location
	if loc == nil {
		loc = time.Local
	}
	logger := cronLogger{log: e.log, started: sync.OnceFunc(func() { close(e.schedStarted) })}
	e.sched = robfig.New(robfig.WithLocation(loc), robfig.WithLogger(logger),
		robfig.WithChain(robfig.Recover(logger)))
	var errs []error
	for _, cj := range opt.Jobs {
		j := &job{Job: withDefaults(cj)}
		p, ok := e.gate.Profile(j.Profile)
		if !ok {
			errs = append(errs, fmt.Errorf("cron: job %q: %w",
				j.Name, invalidf("profile %q is not configured", j.Profile)))
			continue
		}
		root := cmp.Or(p.WorkspaceRoot, opt.WorkspaceRoot) // a project's own workspace
		j.env = Env{Root: root, WorkDir: workDir(p.WorkingDirectory, root)}
		j.schedule, _ = Parse(j.Schedule) // Validate parsed it
		name := j.Name
		j.entry = e.sched.Schedule(j.schedule, robfig.FuncJob(func() { e.scheduled(name) }))
		e.jobs[name] = j
		e.names = append(e.names, name)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.Sort(e.names)
	return e, nil
}

// workDir is a profile's working directory made absolute against root.
func workDir(wd, root string) string {
	switch {
	case wd == "":
		return root
	case filepath.IsAbs(wd):
		return filepath.Clean(wd)
	}
	return filepath.Join(root, wd)
}

// scheduled is what robfig/cron calls when a job's schedule fires.
func (e *Engine) scheduled(name string) {
	r, err := e.Fire(context.Background(), name, TriggerSchedule)
	switch {
	case errors.Is(err, ErrSkipped), errors.Is(err, ErrQueued):
		// Fire logged it ("trigger skipped", "trigger queued"): once is enough.
	case err != nil:
		e.log.Error("scheduled trigger failed", "job", name, "err", err)
	default:
		e.log.Debug("scheduled run started", "job", name, "run_id", r.ID)
	}
}

// Run starts the engine and blocks until ctx is done. It first brings the runs of a
// previous process up to date (docs/design.md, "Scheduled jobs"), then runs the
// schedules and resumes waiting runs as their requests are resolved.
//
// When ctx is done it stops taking triggers, stops robfig/cron and waits for it,
// cancels the steps in flight (their runs end interrupted) and waits for every
// goroutine it started; only then does it return — nil, or the store's error when the
// start-up scan failed (nothing was started then). Runs waiting for approval stay
// waiting in the store. Run may be called once; a second call returns ErrRunning.
func (e *Engine) Run(ctx context.Context) error {
	if !e.started.CompareAndSwap(false, true) {
		return fmt.Errorf("cron: run: %w", ErrRunning)
	}
	events, unsubscribe := e.gate.Subscribe(eventBuffer)
	defer func() { unsubscribe() }()
	e.mu.Lock()
	e.ctx = ctx
	e.mu.Unlock()
	defer e.stop()
	if err := e.restore(); err != nil {
		return fmt.Errorf("cron: run: %w", err)
	}
	e.startSched()
	e.log.Info("scheduler started", "jobs", len(e.jobs))
	close(e.ready)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				e.log.Warn("event subscription dropped; " +
					"subscribing again and looking at every waiting run")
				events, unsubscribe = e.gate.Subscribe(eventBuffer)
				e.resumeResolved()
				continue
			}
			if d, ok := ev.Data.(gate.ApprovalResolved); ok &&
				ev.Name == gate.EventApprovalResolved {
				e.requestResolved(d.RequestID)
			}
			if d, ok := ev.Data.(gate.ClarificationResolved); ok {
				e.clarificationResolved(d.SessionID, d.ID)
			}
		}
	}
}

// Ready returns a channel closed once Run has brought the previous runs up to date and
// started the scheduler: from then on Fire and Trigger start runs (before, they return
// ErrNotRunning). It is never closed when Run fails at start-up.
func (e *Engine) Ready() <-chan struct{} { return e.ready }

// startSched runs robfig/cron's loop on a goroutine the engine owns (its Run, not
// Start, whose goroutine nobody can wait for) and returns once the loop runs, so that
// a Stop cannot come before it and be lost.
func (e *Engine) startSched() {
	e.schedDone = make(chan struct{})
	go func() {
		defer close(e.schedDone)
		e.sched.Run()
	}()
	<-e.schedStarted
}

// stop ends Run: no new run goroutine starts, robfig/cron stops — its loop's goroutine
// has returned and the jobs it fired have finished — and Run waits for everything it
// started.
func (e *Engine) stop() {
	e.mu.Lock()
	e.ctx = nil
	e.mu.Unlock()
	if e.schedDone != nil {
		<-e.sched.Stop().Done()
		<-e.schedDone
	}
	e.wg.Wait()
	e.log.Info("scheduler stopped")
}

// restore brings the runs a previous process left unfinished up to date (see Run).
func (e *Engine) restore() error {
	runs, err := e.store.RunsByStatus(store.RunRunning, store.RunWaitingApproval)
	if err != nil {
		return err
	}
	e.mu.Lock()
	for _, r := range runs {
		e.addActive(r.Job, r.ID)
	}
	for _, r := range runs {
		if r.Status == store.RunRunning {
			msg := fmt.Sprintf("interrupted: the service stopped during step %d", r.Step+1)
			e.finishLocked(r.Job, r.ID, store.RunInterrupted, msg, func(r *store.Run) {
				if r.Step < len(r.Steps) && r.Steps[r.Step].Status == string(store.RunRunning) {
					r.Steps[r.Step].Status = string(store.RunInterrupted)
				}
			})
		}
	}
	for _, name := range e.names {
		e.dequeueLocked(name)
	}
	e.mu.Unlock()
	e.resumeResolved()
	return nil
}

// resumeResolved looks at every waiting run and resumes or finishes those whose
// request is no longer pending.
func (e *Engine) resumeResolved() {
	runs, err := e.store.RunsByStatus(store.RunWaitingApproval)
	if err != nil {
		e.log.Error("listing waiting runs", "err", err)
		return
	}
	for _, r := range runs {
		if r.ClarificationID != 0 {
			e.clarificationResolved(r.SessionID, r.ClarificationID)
			continue
		}
		e.requestResolved(r.RequestID)
	}
}

// addActive and dropActive keep e.active; e.mu must be held.
func (e *Engine) addActive(name string, id uint64) {
	if e.active[name] == nil {
		e.active[name] = make(map[uint64]bool)
	}
	e.active[name][id] = true
}

func (e *Engine) dropActive(name string, id uint64) {
	delete(e.active[name], id)
	if len(e.active[name]) == 0 {
		delete(e.active, name)
	}
}

// cronLogger is robfig/cron's Logger over slog: its chatty Info (every wake-up) at
// debug level, errors (a recovered panic, with its stack) at error level. Its "start"
// (logged by robfig/cron v3.0.1's loop once it runs) calls started.
type cronLogger struct {
	log     *slog.Logger
	started func()
}

func (l cronLogger) Info(msg string, kv ...any) {
	if msg == "start" {
		l.started()
	}
	l.log.Debug("robfig/cron: "+msg, kv...)
}

func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("robfig/cron: "+msg, append([]any{"err", err}, kv...)...)
}
