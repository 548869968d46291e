package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
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

// newEnv opens a store and builds a Manager; edit adjusts the options first.
func newEnv(t testing.TB, edit ...func(*gate.Options)) *env {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(root, "ws")
	for _, d := range []string{"memory", "data", "secrets", "src", "docs", "out"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, dir: dir, root: root, path: filepath.Join(dir, "skald.db")}
	e.open()
	e.notes = &recorder{db: e.db, events: make(chan string, 100)}
	e.opt = gate.Options{
		Store:    e.db,
		Rules:    rules.Options{WorkspaceRoot: root, Protected: []string{dir + "/state"}},
		Notifier: e.notes,
		Logger:   quietLogger(),
	}
	for _, f := range edit {
		f(&e.opt)
	}
	e.m, err = gate.New(e.opt)
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return e
}

// open opens (or reopens) the store and closes it at the end of the test.
func (e *env) open() {
	e.t.Helper()
	db, err := store.Open(e.path, store.Options{})
	if err != nil {
		e.t.Fatalf("store.Open: %v", err)
	}
	e.db = db
	e.t.Cleanup(func() { _ = db.Close() })
}

// run starts e.m.Run and returns a function that stops it and waits for it; it is
// also stopped at the end of the test.
func (e *env) run() (stop func()) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.m.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				e.t.Errorf("Run: %v", err)
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
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
	out := e.check(c)
	if out.Decision != gate.VerdictPending || out.Request == nil {
		e.t.Fatalf("Check(%s) = %+v, want pending with a request", c.ToolName, out)
	}
	return *out.Request
}

// state is what the tests compare before and after a refused change.
type state struct {
	file    []byte
	rules   []rules.Rule
	groups  []rules.Group
	pending []store.Request
	audit   []store.AuditEntry
}

func (e *env) state() state {
	e.t.Helper()
	var s state
	var err error
	if s.file, err = os.ReadFile(e.path); err != nil {
		e.t.Fatal(err)
	}
	if s.rules, err = e.db.Rules(); err != nil {
		e.t.Fatal(err)
	}
	if s.groups, err = e.db.Groups(); err != nil {
		e.t.Fatal(err)
	}
	if s.pending, err = e.db.Pending(); err != nil {
		e.t.Fatal(err)
	}
	if s.audit, err = e.db.Audit(0); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// unchanged fails the test when the store differs from before: its file byte for
// byte, and (to say what changed) its rules, groups, pending requests and audit log.
func (e *env) unchanged(before state) {
	e.t.Helper()
	after := e.state()
	if !bytes.Equal(before.file, after.file) {
		e.t.Errorf("the store file changed")
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"rules", before.rules, after.rules}, {"groups", before.groups, after.groups},
		{"pending", before.pending, after.pending}, {"audit", before.audit, after.audit}} {
		if !jsonEqual(c.a, c.b) {
			e.t.Errorf("store %s changed:\nbefore %s\nafter  %s", c.name, js(c.a), js(c.b))
		}
	}
}

// wantErr fails the test unless err wraps target and its message holds each of parts.
func wantErr(t testing.TB, err, target error, parts ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want one wrapping %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func jsonEqual(a, b any) bool { return js(a) == js(b) }

// auditActions returns the actions of the audit log, oldest first.
func auditActions(t testing.TB, db *store.DB) []string {
	t.Helper()
	es, err := db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(es) - 1; i >= 0; i-- {
		out = append(out, es[i].Action)
	}
	return out
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

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

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
	r.send(ctx, "show "+itoa(req.ID)+" "+map[bool]string{true: "readable", false: "unreadable"}[readable])
	return nil
}

func (r *recorder) Update(ctx context.Context, req store.Request) error {
	r.mu.Lock()
	r.updated = append(r.updated, req)
	r.mu.Unlock()
	r.send(ctx, "update "+itoa(req.ID)+" "+string(req.Status))
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

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func itoa(n uint64) string { return strings.TrimSpace(js(n)) }
