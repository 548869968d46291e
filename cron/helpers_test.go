package cron_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// env is a run engine over a real store and a real gate, in a temporary workspace
// holding data/, out/ and secrets/. The seeded rules apply (data/* allowed for file
// tools, secrets/* denied, everything else required), plus one rule allowing agent
// "ops" to run execute_cmd, so a job's shell steps run at once and its write_file to
// out/ needs approval.
type env struct {
	t     testing.TB
	dir   string // holds the store
	root  string // the workspace root, resolved
	path  string // the store file
	jobs  []cron.Job
	tools map[string]cron.Tool
	edit  func(*cron.Options)
	// gateEdit, when set, adjusts the gate's options before start builds it.
	gateEdit func(*gate.Options)
	db       *store.DB
	gate     *gate.Manager
	eng      *cron.Engine
	events   <-chan gate.Event
	// stop stops the engine and the gate and waits for both.
	stop func()
}

var admin = store.Actor{By: "alice", Via: "telegram"}

// newCronEnv opens the store of an env with jobs and the rule allowing agent "ops"
// to run execute_cmd; nothing runs until start.
func newCronEnv(t testing.TB, jobs ...cron.Job) *env {
	t.Helper()
	base := testkit.Dir(t, "ws/data", "ws/out", "ws/secrets")
	root := filepath.Join(base, "ws")
	e := &env{t: t, dir: base, root: root, path: filepath.Join(base, "skald.db"), jobs: jobs}
	e.open()
	if _, err := e.db.CreateRule(rules.Rule{GroupID: rules.DefaultGroup, AgentID: "ops",
		ToolPattern: "execute_cmd", Action: rules.Allow, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	return e
}

// open opens the store; it is closed at the end of the test.
func (e *env) open() {
	e.t.Helper()
	e.db = teststore.OpenAt(e.t, e.path, store.Options{})
}

// start builds a gate and an engine over the store and runs both until stop.
func (e *env) start() {
	e.t.Helper()
	e.gate = e.newGate(e.gateEdit)
	events, unsubscribe := e.gate.Subscribe(1000)
	e.events = events
	e.eng = e.newEngine(e.gate, func(o *cron.Options) {
		o.Tools, o.Location = e.tools, time.UTC
		if e.edit != nil {
			e.edit(o)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	gateDone, engDone := make(chan error, 1), make(chan error, 1)
	go func() { gateDone <- e.gate.Run(ctx) }()
	go func() { engDone <- e.eng.Run(ctx) }()
	select {
	case <-e.eng.Ready():
	case err := <-engDone:
		e.t.Fatalf("engine Run: %v", err)
	}
	stopped := false
	e.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-engDone; err != nil {
			e.t.Errorf("engine Run: %v", err)
		}
		if err := <-gateDone; err != nil {
			e.t.Errorf("gate Run: %v", err)
		}
		unsubscribe()
	}
	e.t.Cleanup(e.stop)
}

// started returns an env with the one job j, started, and j's run once wait (such as
// waitingAtStep2) returns it waiting on a human.
func started(t *testing.T, j cron.Job, wait func(*testing.T, *env, string) store.Run) (
	*env, store.Run) {
	t.Helper()
	e := newCronEnv(t, j)
	e.start()
	return e, wait(t, e, j.Name)
}

// restart stops everything, closes the store, reopens it and starts a new gate and
// engine, as a new process would.
func (e *env) restart() {
	e.t.Helper()
	e.stop()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
	e.start()
}

// next returns the next run event named name for run id (0: any run), skipping others.
func (e *env) next(name string, id uint64) cron.RunEvent {
	e.t.Helper()
	return e.nextWithin(name, id, time.Minute)
}

// nextWithin is next giving up after d (of the bubble's fake time under synctest).
func (e *env) nextWithin(name string, id uint64, d time.Duration) cron.RunEvent {
	e.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-e.events:
			if !ok {
				e.t.Fatalf("event subscription dropped waiting for %s", name)
			}
			if d, ok := ev.Data.(cron.RunEvent); ok && ev.Name == name &&
				(id == 0 || d.RunID == id) {
				return d
			}
		case <-timeout:
			e.t.Fatalf("no %s event for run %d", name, id)
		}
	}
}

// trigger starts a manual run of job name and fails the test on error.
func (e *env) trigger(name string) store.Run {
	e.t.Helper()
	r, err := e.eng.Trigger(context.Background(), name)
	if err != nil {
		e.t.Fatalf("Trigger(%s): %v", name, err)
	}
	return r
}

// waiting triggers job name and returns its run once it waits for approval of a
// request; waitingForAnswer once it waits on a clarification (an ask_user step).
func waiting(t *testing.T, e *env, name string) store.Run {
	t.Helper()
	return waitingOn(t, e, name, false)
}

func waitingForAnswer(t *testing.T, e *env, name string) store.Run {
	t.Helper()
	return waitingOn(t, e, name, true)
}

func waitingOn(t *testing.T, e *env, name string, clarification bool) store.Run {
	t.Helper()
	r := e.trigger(name)
	e.next(cron.EventRunWaiting, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunWaitingApproval || (r.ClarificationID != 0) != clarification ||
		(r.RequestID != 0) == clarification {
		t.Fatalf("run %+v, want waiting (for a clarification: %v)", r, clarification)
	}
	return r
}

// run reads run id from the store.
func (e *env) run(id uint64) store.Run {
	e.t.Helper()
	r, err := e.db.Run(id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// resolve approves or rejects request id as alice.
func (e *env) resolve(id uint64, approve bool, note string) {
	e.t.Helper()
	a := gate.Answer{Approve: approve, Note: note, By: "alice", Via: "telegram"}
	if _, err := e.gate.Resolve(context.Background(), id, a); err != nil {
		e.t.Fatalf("Resolve(%d): %v", id, err)
	}
}

// approveForSession triggers job, approves the request its run waits on as alice with a
// 🔄 Session bypass, and returns the run and its session.
func (e *env) approveForSession(job string) (store.Run, string) {
	e.t.Helper()
	r := e.trigger(job)
	ev := e.next(cron.EventRunWaiting, r.ID)
	session := e.run(r.ID).SessionID
	zero := int64(0) // 0: the session
	if _, err := e.gate.Resolve(context.Background(), ev.RequestID, gate.Answer{Approve: true,
		By: "alice", Via: "telegram", BypassSecs: &zero}); err != nil {
		e.t.Fatalf("Resolve(%d): %v", ev.RequestID, err)
	}
	return r, session
}

// decide resolves the request run r waits on (see resolve) and returns the run once it
// finished, with its run_finished event.
func (e *env) decide(r store.Run, approve bool, note string) (store.Run, cron.RunEvent) {
	e.t.Helper()
	e.resolve(r.RequestID, approve, note)
	ev := e.next(cron.EventRunFinished, r.ID)
	return e.run(r.ID), ev
}

// file returns the content of a workspace file, and whether it exists.
func (e *env) file(rel string) (string, bool) {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b), true
}

// wantFile fails the test unless workspace file rel exists and holds want.
func (e *env) wantFile(rel, want string) {
	e.t.Helper()
	if got, ok := e.file(rel); !ok || got != want {
		e.t.Errorf("%s holds %q (exists: %v), want %q", rel, got, ok, want)
	}
}

// lines counts the lines of a workspace file (0 when absent).
func (e *env) lines(rel string) int {
	s, _ := e.file(rel) // absent: ""
	return strings.Count(s, "\n")
}

// backup is a three-step job: a shell step allowed at once, a write to out/ that needs
// approval, and another shell step.
func backup(name string, overlap cron.Overlap) cron.Job {
	return cron.Job{
		Name: name, Schedule: "0 2 * * *", AgentID: "ops", ContextLabel: "CronJob: " + name,
		Overlap: overlap,
		Steps: []cron.Step{
			{Tool: "execute_cmd",
				Args: map[string]any{"cmd": "echo one >> data/step1.log", "timeout": "30s"}},
			{Tool: "write_file",
				Args: map[string]any{"path": "out/report.txt", "content": "done"}},
			{Tool: "execute_cmd", Args: map[string]any{"cmd": "echo three >> data/step3.log"}},
		},
	}
}

func ruleAllow(tool string) rules.Rule {
	return rules.Rule{GroupID: rules.DefaultGroup, AgentID: "ops", ToolPattern: tool,
		Action: rules.Allow, Priority: 1}
}

// newGate returns a gate over the store that nothing runs, its options changed by edit
// (nil: none), as another process such as the CLI would have.
func (e *env) newGate(edit func(*gate.Options)) *gate.Manager {
	e.t.Helper()
	return testgate.Over(e.t, e.db, e.root, edit)
}

// newEngine returns an engine over the store and g with the env's jobs that nothing
// runs, its options changed by edit (nil: none).
func (e *env) newEngine(g *gate.Manager, edit func(*cron.Options)) *cron.Engine {
	e.t.Helper()
	opt := cron.Options{Store: e.db, Gate: g, Jobs: e.jobs, WorkspaceRoot: e.root,
		Logger: testkit.Logger()}
	if edit != nil {
		edit(&opt)
	}
	eng, err := cron.New(opt)
	if err != nil {
		e.t.Fatalf("cron.New: %v", err)
	}
	return eng
}
