package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/skald-circle/skald-bot/rules"
)

// Decision is what an engine decided for one call: the action, and the rule that
// decided (0 when no rule matched, so the default require applies, or when the engine
// cannot name one rule — Cedar).
type Decision struct {
	Action rules.Action
	RuleID uint64
}

// Engine is one policy engine loaded with one Policy. Decide decides a call; it is safe
// for concurrent use. Ours, Rego and Cedar implement it.
type Engine interface {
	// Name is "ours", "rego" or "cedar".
	Name() string
	// Decide returns the engine's decision for c, or an error wrapping ErrEngine.
	Decide(ctx context.Context, c Call) (Decision, error)
}

// maxReported is how many mismatching calls Compare's error lists.
const maxReported = 5

// Compare decides every call with every engine and checks that they agree with the
// first: on the action always, and on the rule id too when byRule is set (an Ordered
// mix, where the first match must be the same rule). It returns nil when all agree;
// otherwise an error wrapping ErrMismatch that counts the mismatching calls and lists
// the first five with each engine's decision, or the first engine error (wrapping
// ErrEngine). Fewer than two engines is an error (ErrMismatch: nothing to compare). It
// blocks until every call is decided or ctx is done (ctx's error).
func Compare(ctx context.Context, calls []Call, byRule bool, engines ...Engine) error {
	if len(engines) < 2 {
		return fmt.Errorf("bench: compare: %w: %d engine(s), need two", ErrMismatch, len(engines))
	}
	var report strings.Builder
	bad := 0
	got := make([]Decision, len(engines))
	for i, c := range calls {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bench: compare: %w", err)
		}
		same := true
		for j, e := range engines {
			d, err := e.Decide(ctx, c)
			if err != nil {
				return fmt.Errorf("bench: compare: call %d %s: %w", i, c, err)
			}
			got[j] = d
			if d.Action != got[0].Action || byRule && d.RuleID != got[0].RuleID {
				same = false
			}
		}
		if same {
			continue
		}
		if bad++; bad <= maxReported {
			fmt.Fprintf(&report, "\n  call %d %s:", i, c)
			for j, e := range engines {
				fmt.Fprintf(&report, " %s=%s", e.Name(), got[j].Action)
				if byRule {
					fmt.Fprintf(&report, "(rule %d)", got[j].RuleID)
				}
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("bench: compare: %w on %d of %d calls:%s",
			ErrMismatch, bad, len(calls), report.String())
	}
	return nil
}
