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
//
// A file tool's call without a path gets the working directory noPathCwd: Evaluate
// decides such a call on its cwd (docs/design.md, "Path arguments"), while the Rego and
// Cedar encodings take it as a call no path rule matches, and a folder no generated
// pattern matches and that holds none is where both agree.
func (o *Ours) Input(c Call) rules.Call {
	in := rules.Call{Tool: c.Tool, AgentID: c.Agent, Source: c.Source}
	switch {
	case c.HasPath():
		in.Args = map[string]any{"path": c.Path}
	case o.set.IsFSRead(c.Tool) || o.set.IsFSWrite(c.Tool):
		in.Cwd = noPathCwd
	}
	return in
}

// noPathCwd is the working directory of a file tool's call without a path (see Input),
// relative to the workspace root: generated patterns are all under proj<N>/ and
// secret<N>/.
const noPathCwd = "cwd"

// Eval decides in for group with Set.Evaluate, path normalisation included.
func (o *Ours) Eval(group string, in rules.Call) Decision {
	d := o.set.Evaluate(group, in)
	return Decision{Action: d.Action, RuleID: d.RuleID}
}

// Decide decides c; it never fails.
func (o *Ours) Decide(_ context.Context, c Call) (Decision, error) {
	return o.Eval(c.Group, o.Input(c)), nil
}
