package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// workspace is the workspace root every Ours engine of this process uses, resolved
// through symlinks; TestMain creates and removes it. The benchmarks create in it the
// directories their calls name, so that normalising walks existing directories.
var workspace string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "skald-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if workspace, err = filepath.EvalSymlinks(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	workspace = filepath.Join(workspace, "ws")
	return m.Run()
}

// engines are the three engines loaded with one generated policy, and the calls they
// must agree on. Loading them takes seconds at 10,000 rules (OPA compiles), so each
// (mix, size) is loaded once per process and shared by the tests and every -count of
// the benchmarks.
type engines struct {
	mix    Mix
	policy Policy
	calls  []Call // checkCalls of them
	ours   *Ours
	rego   *Rego
	cedar  *Cedar // nil for an Ordered mix

	checkOnce sync.Once
	checkErr  error
}

var (
	loadedMu sync.Mutex // guards loaded
	loaded   = map[string]*engines{}
)

// loadEngines returns the engines for (mix, n), loading them on first use.
func loadEngines(tb testing.TB, mix Mix, n int) *engines {
	tb.Helper()
	loadedMu.Lock()
	defer loadedMu.Unlock()
	key := fmt.Sprintf("%s/%d", mix, n)
	if e := loaded[key]; e != nil {
		return e
	}
	p := Generate(mix, n)
	e := &engines{mix: mix, policy: p, calls: Calls(p, checkCalls, 1), ours: NewOurs(p, workspace)}
	var err error
	if e.rego, err = NewRego(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	if mix == OrderFree {
		if e.cedar, err = NewCedar(p); err != nil {
			tb.Fatal(err)
		}
	}
	loaded[key] = e
	return e
}

// list returns the loaded engines, ours first.
func (e *engines) list() []Engine {
	l := []Engine{e.ours, e.rego}
	if e.cedar != nil {
		l = append(l, e.cedar)
	}
	return l
}

// check compares the engines on the generated calls, once per process: the rule too
// for an Ordered mix, the action only for an OrderFree one (Cedar names no single rule).
func (e *engines) check(ctx context.Context) error {
	e.checkOnce.Do(func() {
		e.checkErr = Compare(ctx, e.calls, e.mix == Ordered, e.list()...)
	})
	return e.checkErr
}
