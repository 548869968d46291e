package gate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// benchStore is the real store with n generated rules in group "bench" added to what
// it loads, so a benchmark need not write 10,000 rules one transaction at a time.
type benchStore struct {
	*store.DB
	rules []rules.Rule
}

func (s benchStore) Groups() ([]rules.Group, error) {
	gs, err := s.DB.Groups()
	return append(gs, rules.Group{ID: "bench", Name: "bench"}), err
}

func (s benchStore) Rules() ([]rules.Rule, error) {
	rs, err := s.DB.Rules()
	return append(rs, s.rules...), err
}

// benchRules is a realistic mix of n rules: exact tool names, mcp__x__* prefixes,
// @fs_* classes with path subtrees, and exact names filtered by agent or by source;
// three in four allow. It also returns calls, without and with a path argument, that
// those rules allow.
func benchRules(n int) (rs []rules.Rule, plain, withPath []gate.Call) {
	rnd := rand.New(rand.NewPCG(1, uint64(n)))
	agents := []string{"coder", "reviewer", "ops", "intern"}
	sources := []string{"web", "cli", "claude-code", "cron"}
	fsClasses := []string{"@fs_read", "@fs_any", "@fs_write"}
	for i := range n {
		r := rules.Rule{ID: uint64(100000 + i), GroupID: "bench", Action: rules.Allow,
			Priority: 10 + rnd.IntN(1000)}
		if i%4 == 3 {
			r.Action = []rules.Action{rules.Deny, rules.Require}[rnd.IntN(2)]
		}
		call := gate.Call{SessionID: "bench", Group: "bench"}
		switch i % 5 {
		case 0:
			r.ToolPattern = fmt.Sprintf("tool_%d", i)
			call.ToolName = r.ToolPattern
		case 1:
			r.ToolPattern = fmt.Sprintf("mcp__srv%d__*", i)
			call.ToolName = fmt.Sprintf("mcp__srv%d__send", i)
		case 2:
			r.ToolPattern = fsClasses[(i/5)%3]
			r.PathPattern = fmt.Sprintf("proj%d/*", i)
			r.ResolvedPathPattern = r.PathPattern
			call.ToolName = "read_file"
			call.Arguments = map[string]any{"path": fmt.Sprintf("proj%d/src/main.go", i)}
		case 3:
			r.ToolPattern = fmt.Sprintf("tool_%d", i)
			r.AgentID = agents[i%len(agents)]
			call.ToolName, call.AgentID = r.ToolPattern, r.AgentID
		case 4:
			r.ToolPattern = fmt.Sprintf("tool_%d", i)
			r.Source = sources[i%len(sources)]
			call.ToolName, call.Source = r.ToolPattern, r.Source
		}
		rs = append(rs, r)
		if r.Action != rules.Allow || r.ToolPattern == "@fs_write" {
			continue
		}
		if call.Arguments != nil {
			withPath = append(withPath, call)
		} else {
			plain = append(plain, call)
		}
	}
	return rs, plain, withPath
}

func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		rs, plain, withPath := benchRules(n)
		e := newGateEnv(b, func(o *gate.Options) {
			o.Store = benchStore{DB: o.Store.(*store.DB), rules: rs}
			o.Notifier = nil
		})
		for _, c := range withPath { // the called directories exist, so normalising walks them
			dir := filepath.Join(e.root, filepath.Dir(c.Arguments["path"].(string)))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		for _, cs := range []struct {
			name  string
			calls []gate.Call
		}{{"no-path", plain}, {"path", withPath}} {
			b.Run(fmt.Sprintf("rules=%d/%s", n, cs.name), func(b *testing.B) {
				ctx := context.Background()
				for _, c := range cs.calls { // every call is allowed, and its tool seen
					if out := e.check(c); out.Decision != gate.VerdictAllow {
						b.Fatalf("%s: %s, want allow", c.ToolName, out.Decision)
					}
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					out, err := e.m.Check(ctx, cs.calls[i%len(cs.calls)])
					if err != nil || out.Decision != gate.VerdictAllow {
						b.Fatal(out.Decision, err)
					}
				}
			})
		}
	}
}

// BenchmarkRegisterResolve registers a call that requires approval and approves it:
// two fsynced transactions. "parallel" runs 64 concurrent callers.
func BenchmarkRegisterResolve(b *testing.B) {
	ctx := context.Background()
	var seq atomic.Uint64
	once := func(e *env) {
		id := seq.Add(1)
		out, err := e.m.Check(ctx, gate.Call{ToolName: "Bash", SessionID: "bench",
			ToolCallID: fmt.Sprintf("tc-%d", id), Arguments: map[string]any{"command": "make"}})
		if err != nil || out.Decision != gate.VerdictPending {
			b.Fatal(out.Decision, err)
		}
		if _, err := e.m.Resolve(ctx, out.Request.ID, approve("alice")); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		e := newGateEnv(b, func(o *gate.Options) { o.Notifier = nil })
		e.run()
		b.ReportAllocs()
		for b.Loop() {
			once(e)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
	b.Run("parallel-64", func(b *testing.B) {
		e := newGateEnv(b, func(o *gate.Options) { o.Notifier = nil })
		e.run()
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((64 + procs - 1) / procs)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				once(e)
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
}

// TestCheckAllowAllocs checks that an allowed call without a path argument, of a tool
// already seen, allocates nothing (the gate's doc: a check reads no disk and allocates
// nothing) — and that path checks added none to it.
func TestCheckAllowAllocs(t *testing.T) {
	rs, plain, _ := benchRules(100)
	e := newGateEnv(t, func(o *gate.Options) {
		o.Store = benchStore{DB: o.Store.(*store.DB), rules: rs}
		o.Notifier = nil
	})
	ctx := context.Background()
	for _, c := range plain {
		if out := e.check(c); out.Decision != gate.VerdictAllow { // the tool is now seen
			t.Fatalf("%s: %s, want allow", c.ToolName, out.Decision)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = e.m.Check(ctx, c) }); n != 0 {
			t.Errorf("Check(%s) allocates %v times", c.ToolName, n)
		}
	}
}

// BenchmarkCheckShell gates a 5-command Bash script at 1,000 rules: 900 of the
// realistic mix and 100 command rules, 5 of which allow the script's commands.
func BenchmarkCheckShell(b *testing.B) {
	rs, _, _ := benchRules(900)
	for i := range 95 {
		rs = append(rs, rules.Rule{ID: uint64(200000 + i), GroupID: "bench", ToolPattern: "Bash",
			CommandPattern: fmt.Sprintf("tool%d sub%d *", i, i), Action: rules.Allow,
			Priority: rules.DefaultPriority})
	}
	for i, p := range []string{"git status *", "grep *", "go test *", "tail *", "cd *"} {
		rs = append(rs, rules.Rule{ID: uint64(300000 + i), GroupID: "bench", ToolPattern: "Bash",
			CommandPattern: p, Action: rules.Allow, Priority: rules.DefaultPriority})
	}
	e := newGateEnv(b, func(o *gate.Options) {
		o.Store = benchStore{DB: o.Store.(*store.DB), rules: rs}
		o.Notifier = nil
	})
	if err := os.MkdirAll(filepath.Join(e.root, "docs"), 0o755); err != nil {
		b.Fatal(err)
	}
	c := gate.Call{SessionID: "bench", Group: "bench", ToolName: "Bash",
		Arguments: map[string]any{"command": "cd docs && git status --short | " +
			"grep -v vendor > /dev/null; go test ./docs/... 2>&1 | tail -n 20"}}
	if out := e.check(c); out.Decision != gate.VerdictAllow || len(out.Commands) != 5 {
		b.Fatalf("%+v, want allow of 5 commands", out)
	}
	defer e.run()() // Run watches the directories the patterns depend on
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out, err := e.m.Check(ctx, c); err != nil || out.Decision != gate.VerdictAllow {
			b.Fatal(out.Decision, err)
		}
	}
}
