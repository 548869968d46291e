package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cedar-policy/cedar-go"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/skald-circle/skald-bot/rules"
)

// benchCallsPerKind is how many calls, of each kind, a decision benchmark cycles
// through: the first ones of the checked calls without a path, and with one.
const benchCallsPerKind = 1000

// splitByPath splits the first calls of e into those without and with a path, and
// creates in the workspace the directories the path calls name, so that our
// normalisation walks existing directories as it would in a real workspace.
func splitByPath(tb testing.TB, e *engines) (noPath, withPath []Call) {
	tb.Helper()
	for _, c := range e.calls {
		switch {
		case !c.HasPath() && len(noPath) < benchCallsPerKind:
			noPath = append(noPath, c)
		case c.HasPath() && len(withPath) < benchCallsPerKind:
			withPath = append(withPath, c)
		}
	}
	for _, c := range withPath {
		if err := os.MkdirAll(filepath.Join(workspace, filepath.Dir(c.Path)), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return noPath, withPath
}

// BenchmarkDecide measures one decision, per engine, at every size of both mixes, for
// calls without and with a path argument (the same 1,000 generated calls of each kind
// for every engine, cycled). Each engine's input — rules.Call, OPA's input document as an
// ast.Value, cedar.Request — is built before timing, as a caller has it decoded already. Ours
// includes normalising the path (os.Lstat per existing component); the others are
// handed it normalised. Before timing, the engines must agree on the 10,000 checked
// calls (Compare): a mismatch fails the benchmark.
//
// Names are Decide/mix=…/rules=…/calls=…/engine=…, for benchstat -col /engine.
func BenchmarkDecide(b *testing.B) {
	for _, mix := range []Mix{Ordered, OrderFree} {
		for _, n := range sizes {
			// Engines load only for the sizes -bench selects.
			b.Run(fmt.Sprintf("mix=%s/rules=%d", mix, n), func(b *testing.B) {
				benchDecide(b, mix, n)
			})
		}
	}
}

// benchDecide runs BenchmarkDecide's sub-benchmarks of one policy.
func benchDecide(b *testing.B, mix Mix, n int) {
	ctx := context.Background()
	e := loadEngines(b, mix, n)
	if err := e.check(ctx); err != nil {
		b.Fatal(err)
	}
	noPath, withPath := splitByPath(b, e)
	for _, kind := range []struct {
		name  string
		calls []Call
	}{{"nopath", noPath}, {"path", withPath}} {
		calls := kind.calls
		name := "calls=" + kind.name + "/engine="
		benchEngine(b, name+"ours", calls, e.ours.Input, func(c Call, in rules.Call) error {
			e.ours.Eval(c.Group, in)
			return nil
		})
		benchEngine(b, name+"rego", calls, e.rego.Input, func(_ Call, in ast.Value) error {
			_, err := e.rego.Eval(ctx, in)
			return err
		})
		if e.cedar == nil {
			continue
		}
		benchEngine(b, name+"cedar", calls, e.cedar.Input, func(_ Call, in cedar.Request) error {
			_, err := e.cedar.Eval(in)
			return err
		})
	}
}

// benchEngine runs a sub-benchmark name of eval over calls in turn, their inputs made
// by input before the clock starts.
func benchEngine[In any](b *testing.B, name string, calls []Call, input func(Call) In,
	eval func(Call, In) error) {
	b.Run(name, func(b *testing.B) {
		ins := make([]In, len(calls))
		for i, c := range calls {
			ins[i] = input(c)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			j := i % len(calls)
			if err := eval(calls[j], ins[j]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNormalize measures what our engine does for a path that the other two
// skip: rules.Normalize of the path calls' paths in the workspace. It does
// not depend on the number of rules.
func BenchmarkNormalize(b *testing.B) {
	_, withPath := splitByPath(b, loadEngines(b, OrderFree, 1000))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := rules.Normalize(withPath[i%len(withPath)].Path, "", workspace); err != nil {
			b.Fatal(err)
		}
	}
}
