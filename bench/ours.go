package bench

import (
	"context"

	"github.com/skald-circle/skald-bot/rules"
)

// Ours is our rule engine loaded with a Policy: a compiled rules.Set.
type Ours struct {
	set *rules.Set
}

var _ Engine = (*Ours)(nil)

// NewOurs compiles p with rules.Compile under the workspace root root (absolute; the
// call paths are relative to it). It reads no file: the policy's path patterns are
// already resolved.
func NewOurs(p Policy, root string) *Ours {
	return &Ours{set: rules.Compile(p.Groups, p.Rules, rules.Options{WorkspaceRoot: root})}
}

// Name returns "ours".
func (o *Ours) Name() string { return "ours" }

// Input returns c as Evaluate takes it: the path, when there is one, as the "path"
// argument. Building it allocates a map for a call with a path; the benchmarks build
// every engine's input before timing, as a caller has it decoded already.
func (o *Ours) Input(c Call) rules.Call {
	in := rules.Call{Tool: c.Tool, AgentID: c.Agent, Source: c.Source}
	if c.HasPath() {
		in.Args = map[string]any{"path": c.Path}
	}
	return in
}

// Eval decides in for group with Set.Evaluate (SPEC §4), path normalisation included.
func (o *Ours) Eval(group string, in rules.Call) Decision {
	d := o.set.Evaluate(group, in)
	return Decision{Action: d.Action, RuleID: d.RuleID}
}

// Decide decides c; it never fails.
func (o *Ours) Decide(_ context.Context, c Call) (Decision, error) {
	return o.Eval(c.Group, o.Input(c)), nil
}
