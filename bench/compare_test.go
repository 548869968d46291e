package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// sizes are the policy sizes, in rules, that the tests check and the benchmarks time.
var sizes = []int{10, 100, 1000, 10000}

// checkCalls is how many generated calls the engines must agree on.
const checkCalls = 10000

// TestEnginesAgree checks, at every size, that ours and Rego decide the 10,000
// generated calls of the Ordered mix identically — action and rule — and that ours,
// Rego and Cedar decide those of the OrderFree mix identically.
func TestEnginesAgree(t *testing.T) {
	for _, n := range sizes {
		for _, mix := range []Mix{Ordered, OrderFree} {
			t.Run(fmt.Sprintf("%s/rules=%d", mix, n), func(t *testing.T) {
				if testing.Short() && n > 1000 {
					t.Skip("10,000 rules: Cedar scans every policy on every call")
				}
				e := loadEngines(t, mix, n)
				if err := e.check(context.Background()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestDecisionsVary guards the check itself: the generated calls reach every action,
// rules of both groups, and the default require, and some are guarded by a denied
// place, so agreement means something; and none names a folder holding a place a deny
// rule protects, which only ours guards.
func TestDecisionsVary(t *testing.T) {
	for _, mix := range []Mix{Ordered, OrderFree} {
		p := Generate(mix, 1000)
		root := t.TempDir()
		calls := Calls(p, checkCalls, 1)
		for _, c := range calls { // a held place counts only while it exists
			if c.HasPath() {
				testkit.Must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(c.Path)), 0o755))
			}
		}
		o := NewOurs(p, root)
		byGroup := map[string]uint64{}
		actions := map[rules.Action]int{}
		noRule, guarded := 0, 0
		for _, c := range calls {
			// The Rego and Cedar encodings do not model the guard on folders that hold
			// a denied place (ReasonContains): no generated call may reach it.
			full := o.set.Evaluate(c.Group, o.Input(c))
			if strings.HasPrefix(full.Reason, rules.ReasonContains) {
				t.Fatalf("%s: call %s names a folder holding %s", mix, c, full.Contains)
			}
			if strings.HasPrefix(full.Reason, rules.ReasonDenied) {
				guarded++
			}
			d, err := o.Decide(context.Background(), c)
			testkit.Must(t, err)
			actions[d.Action]++
			if d.RuleID == 0 {
				noRule++
				continue
			}
			byGroup[p.Rules[d.RuleID-1].GroupID]++
		}
		t.Logf("%s: actions %v, rules by group %v, no rule %d, guarded %d",
			mix, actions, byGroup, noRule, guarded)
		if guarded < checkCalls/100 {
			t.Errorf("%s: only %d calls lie in a denied place", mix, guarded)
		}
		for _, a := range []rules.Action{rules.Allow, rules.Deny, rules.Require} {
			if actions[a] < checkCalls/20 {
				t.Errorf("%s: only %d of %d calls decide %s", mix, actions[a], checkCalls, a)
			}
		}
		if byGroup[Group] < checkCalls/50 || byGroup[rules.DefaultGroup] < checkCalls/50 {
			t.Errorf("%s: rules that decided, by group: %v", mix, byGroup)
		}
		if mix == OrderFree && noRule < checkCalls/20 {
			t.Errorf("orderfree: only %d calls match no rule", noRule)
		}
	}
}

// TestOrderFreeIsOrderFree checks the claim the Cedar comparison rests on: reversing
// the priorities of an OrderFree policy changes no decision, while it does change
// decisions of the Ordered mix.
func TestOrderFreeIsOrderFree(t *testing.T) {
	for _, mix := range []Mix{Ordered, OrderFree} {
		p := Generate(mix, 1000)
		rev := p
		rev.Rules = slices.Clone(p.Rules)
		for i := range rev.Rules {
			rev.Rules[i].Priority = rules.MaxPriority - rev.Rules[i].Priority
			rev.Rules[i].ID = uint64(len(p.Rules)) + 1 - rev.Rules[i].ID
		}
		a, b := NewOurs(p, t.TempDir()), NewOurs(rev, t.TempDir())
		changed := 0
		for _, c := range Calls(p, checkCalls, 2) {
			da, err := a.Decide(context.Background(), c)
			testkit.Must(t, err)
			db, err := b.Decide(context.Background(), c)
			testkit.Must(t, err)
			if da.Action != db.Action {
				changed++
			}
		}
		switch {
		case mix == OrderFree && changed != 0:
			t.Errorf("orderfree: reversing the order changes %d decisions", changed)
		case mix == Ordered && changed == 0:
			t.Errorf("ordered: reversing the order changes nothing: " +
				"the mix does not test ordering")
		}
	}
}

// differ is an engine that answers like another except for one tool.
type differ struct {
	Engine
	tool string
}

func (d differ) Name() string { return "differ" }

func (d differ) Decide(ctx context.Context, c Call) (Decision, error) {
	got, err := d.Engine.Decide(ctx, c)
	if c.Tool == d.tool {
		got.Action = rules.Deny
		got.RuleID = 424242
	}
	return got, err
}

// failing is an engine that always fails.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Decide(context.Context, Call) (Decision, error) {
	return Decision{}, fmt.Errorf("boom: %w", ErrEngine)
}

func TestCompareReportsMismatch(t *testing.T) {
	p := Generate(Ordered, 10)
	o := NewOurs(p, t.TempDir())
	calls := []Call{
		{Group: "default", Tool: "Bash"},
		{Group: "default", Tool: "tool_1"},
		{Group: "dev", Tool: "tool_1"},
	}
	if err := Compare(context.Background(), calls, true, o, o); err != nil {
		t.Fatalf("an engine disagrees with itself: %v", err)
	}
	err := Compare(context.Background(), calls, true, o, differ{o, "tool_1"})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("Compare = %v, want ErrMismatch", err)
	}
	for _, want := range []string{"on 2 of 3 calls", "tool=tool_1", "differ=deny(rule 424242)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := Compare(context.Background(), calls, false, o); !errors.Is(err, ErrMismatch) ||
		!strings.Contains(err.Error(), "need two") {
		t.Errorf("Compare with one engine = %v, want ErrMismatch (need two)", err)
	}
	err = Compare(context.Background(), calls, false, o, failing{})
	if !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), "call 0") {
		t.Errorf("Compare with a failing engine = %v, want ErrEngine naming call 0", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Compare(ctx, calls, false, o, o); !errors.Is(err, context.Canceled) {
		t.Errorf("Compare with a done context = %v, want context.Canceled", err)
	}
}

func TestCedarRefusesOrder(t *testing.T) {
	_, err := NewCedar(Generate(Ordered, 10))
	if !errors.Is(err, ErrNotOrderFree) || !strings.Contains(err.Error(), "ordered mix") {
		t.Errorf("NewCedar(ordered) = %v, want ErrNotOrderFree", err)
	}
	p := Generate(OrderFree, 10)
	p.Rules[3].Action = rules.Require
	if _, err := NewCedar(p); !errors.Is(err, ErrNotOrderFree) ||
		!strings.Contains(err.Error(), "rule 4: ") {
		t.Errorf("NewCedar(require rule) = %v, want ErrNotOrderFree naming rule 4", err)
	}
}
