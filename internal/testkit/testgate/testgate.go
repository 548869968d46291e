package testgate

import (
	"context"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// New returns gate.New(opt), opt.Logger being testkit.Logger() when nil. It fails the
// test at once on an error.
func New(t testing.TB, opt gate.Options) *gate.Manager {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = testkit.Logger()
	}
	g, err := gate.New(opt)
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return g
}

// Over returns a gate over db with the workspace root root and the quiet logger, as
// New builds it, after edit (none, or nil) has changed the options.
func Over(t testing.TB, db *store.DB, root string, edit func(*gate.Options)) *gate.Manager {
	t.Helper()
	opt := gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: root}}
	if edit != nil {
		edit(&opt)
	}
	return New(t, opt)
}

// Run runs g until the returned stop is called or the test ends; stop cancels Run,
// waits for it to return and marks the test failed when it returned an error. stop may
// be called more than once.
func Run(t testing.TB, g *gate.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("gate Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// Require checks c with g and returns the request it registered. It fails the test at
// once when Check fails or the call is not pending with a request.
func Require(t testing.TB, g *gate.Manager, c gate.Call) store.Request {
	t.Helper()
	out, err := g.Check(context.Background(), c)
	if err != nil {
		t.Fatalf("Check(%s): %v", c.ToolName, err)
	}
	if out.Decision != gate.VerdictPending || out.Request == nil {
		t.Fatalf("Check(%s) = %+v, want pending with a request", c.ToolName, out)
	}
	return *out.Request
}
