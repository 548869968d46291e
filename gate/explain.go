package gate

import (
	"fmt"

	"github.com/skald-circle/skald-bot/rules"
)

// Explanation is how the rules decide a call, as Explain finds it: the group and
// profile it is evaluated in, the rules' trace (rules.Set.Explain), and whether the
// profile fast-path would lift a require. Session bypasses are not looked at.
type Explanation struct {
	Group    string
	Profile  string
	Trace    rules.Trace
	FastPath bool
}

// Explain evaluates c as Check does — same group, profile and working directory —
// and tells why, registering and recording nothing (not even the tool in the
// catalog). Errors: ErrInvalidCall, ErrUnknownProfile, ErrUnknownGroup. Safe for
// concurrent use.
func (m *Manager) Explain(c Call) (Explanation, error) {
	if c.ToolName == "" {
		return Explanation{}, fmt.Errorf("gate: explain: %w: tool_name is required",
			ErrInvalidCall)
	}
	snap := m.snap.Load()
	p, group, err := m.route(snap, c.Group, c.Profile, c.Cwd)
	if err != nil {
		return Explanation{}, fmt.Errorf("gate: explain %s: %w", c.ToolName, err)
	}
	set := snap.setOf(p)
	tr := set.Explain(group, rules.Call{
		Tool: c.ToolName, AgentID: c.AgentID, Source: c.Source, Args: c.Arguments,
		Cwd: c.Cwd, WorkingDir: p.workDir, Places: &p.places,
	})
	d := tr.Decision
	fast := d.Action == rules.Require && !d.Locked() && d.Inside
	return Explanation{Group: group, Profile: p.ID, Trace: tr, FastPath: fast}, nil
}
