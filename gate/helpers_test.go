package gate_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// env is a Manager over a real store in a temporary directory, with a workspace that
// holds memory/, data/, secrets/, src/, docs/ and out/.
type env struct {
	t     testing.TB
	dir   string
	path  string // the store file
	root  string // the workspace root, resolved
	db    *store.DB
	m     *gate.Manager
	notes *recorder
	opt   gate.Options
}

var admin = store.Actor{By: "alice", Via: "telegram"}

// newGateEnv opens a store and builds a Manager; edit adjusts the options first.
func newGateEnv(t testing.TB, edit ...func(*gate.Options)) *env {
	t.Helper()
	dir := testkit.Dir(t, "ws/memory", "ws/data", "ws/secrets", "ws/src", "ws/docs", "ws/out")
	root := filepath.Join(dir, "ws")
	e := &env{t: t, dir: dir, root: root, path: filepath.Join(dir, "skald.db")}
	e.open()
	e.notes = &recorder{db: e.db, events: make(chan string, 100)}
	e.opt = gate.Options{
		Store:    e.db,
		Rules:    rules.Options{WorkspaceRoot: root, Protected: []string{dir + "/state"}},
		Notifier: e.notes,
		Logger:   testkit.Logger(),
	}
	for _, f := range edit {
		f(&e.opt)
	}
	e.m = testgate.New(t, e.opt)
	return e
}

// open opens (or reopens) the store and closes it at the end of the test.
func (e *env) open() {
	e.t.Helper()
	e.db = teststore.OpenAt(e.t, e.path, store.Options{})
}

// run starts e.m.Run and returns a function that stops it and waits for it; it is
// also stopped at the end of the test.
func (e *env) run() (stop func()) {
	e.t.Helper()
	return testgate.Run(e.t, e.m)
}

// check runs Check and fails the test on error.
func (e *env) check(c gate.Call) gate.Outcome {
	e.t.Helper()
	out, err := e.m.Check(context.Background(), c)
	if err != nil {
		e.t.Fatalf("Check(%s): %v", c.ToolName, err)
	}
	return out
}

// require registers a call that requires approval and returns its request.
func (e *env) require(c gate.Call) store.Request {
	e.t.Helper()
	return testgate.Require(e.t, e.m, c)
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// recorder is a hand-written Notifier: it records what it was asked to show and
// update, and whether each request was already readable from the store at Show time.
type recorder struct {
	db     *store.DB
	events chan string // "show <id> <readable>" and "update <id> <status>", in order

	mu      sync.Mutex
	shown   []uint64
	updated []store.Request
}

func (r *recorder) Show(ctx context.Context, req store.Request) error {
	stored, err := r.db.Request(req.ID)
	readable := err == nil && stored.Status == store.Pending && stored.ToolName == req.ToolName
	r.mu.Lock()
	r.shown = append(r.shown, req.ID)
	r.mu.Unlock()
	r.send(ctx, "show "+strconv.FormatUint(req.ID, 10)+" "+
		map[bool]string{true: "readable", false: "unreadable"}[readable])
	return nil
}

func (r *recorder) Update(ctx context.Context, req store.Request) error {
	r.mu.Lock()
	r.updated = append(r.updated, req)
	r.mu.Unlock()
	r.send(ctx, "update "+strconv.FormatUint(req.ID, 10)+" "+string(req.Status))
	return nil
}

func (r *recorder) send(ctx context.Context, s string) {
	select {
	case r.events <- s:
	case <-ctx.Done():
	}
}

// next returns the recorder's next call.
func (r *recorder) next(t testing.TB) string {
	t.Helper()
	return <-r.events
}

func (r *recorder) shows() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.shown)
}
