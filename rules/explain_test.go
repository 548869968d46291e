package rules

import (
	"slices"
	"testing"
)

func TestExplain(t *testing.T) {
	root := workspace(t)
	gitDir(t, root, "docs")
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "Bash", CommandPattern: "git status",
			Action: Allow, Priority: 1},
		Rule{ID: 21, GroupID: "dev", ToolPattern: "Read", AgentID: "bot", Action: Allow,
			Priority: 1},
		Rule{ID: 22, GroupID: "dev", ToolPattern: "Read", Source: "cron", Action: Allow,
			Priority: 2},
	)
	set := Compile([]Group{{ID: "dev", Name: "Dev"}}, rs, seedOptions(root))
	type step struct {
		id      uint64
		matched bool
		why     string
	}
	for _, c := range []struct {
		name  string
		group string
		call  Call
		want  []step
	}{
		{"a read of secrets: the path patterns before it do not match", DefaultGroup,
			Call{Tool: "Read", Args: map[string]any{"file_path": "secrets/key"}},
			[]step{{20, false, "tool pattern does not match Read"},
				{9, false, "path pattern memory/* matches none of the call's paths: secrets/key"},
				{10, false, "path pattern data/* matches none of the call's paths: secrets/key"},
				{11, true, ""}}},
		{"a script: the command pattern does not match", DefaultGroup,
			// git reads its cwd: away from the guarded root
			Call{Tool: "Bash", Cwd: root + "/docs",
				Args: map[string]any{"command": "git push"}},
			[]step{{20, false, "command pattern git status matches none of: git push"},
				{9, false, "tool pattern does not match Bash"},
				{10, false, "tool pattern does not match Bash"},
				{11, false, "tool pattern does not match Bash"},
				{1, false, "tool pattern does not match Bash"},
				{2, true, ""}}},
		{"agent and source filters of the group, then the default tier", "dev",
			Call{Tool: "Read", AgentID: "claude", Source: "cli",
				Args: map[string]any{"file_path": "docs"}},
			[]step{{21, false, `agent "claude" is not the rule's "bot"`},
				{22, false, `source "cli" is not the rule's "cron"`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := set.Explain(c.group, c.call)
			if d := set.Evaluate(c.group, c.call); d.Action != tr.Decision.Action ||
				d.RuleID != tr.Decision.RuleID {
				t.Fatalf("Explain's decision %+v, Evaluate's %+v", tr.Decision, d)
			}
			if len(tr.Steps) < len(c.want) {
				t.Fatalf("steps %+v, want at least %+v", tr.Steps, c.want)
			}
			for i, w := range c.want {
				got := tr.Steps[i]
				if got.RuleID != w.id || got.Matched != w.matched || got.Why != w.why {
					t.Errorf("step %d: %+v, want %+v", i, got, w)
				}
			}
			last := tr.Steps[len(tr.Steps)-1]
			if tr.Decision.RuleID != 0 && (!last.Decided || last.RuleID != tr.Decision.RuleID) {
				t.Errorf("the last step %+v is not the deciding rule %d", last, tr.Decision.RuleID)
			}
		})
	}
	t.Run("the group's rules carry its name, the default tier's default", func(t *testing.T) {
		tr := set.Explain("dev", Call{Tool: "Read", Args: map[string]any{"file_path": "docs"}})
		if !slices.ContainsFunc(tr.Steps,
			func(s TraceStep) bool { return s.RuleID == 21 && s.Group == "dev" }) ||
			!slices.ContainsFunc(tr.Steps,
				func(s TraceStep) bool { return s.RuleID == 12 && s.Group == DefaultGroup }) {
			t.Fatalf("steps %+v", tr.Steps)
		}
	})
}
