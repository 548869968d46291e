package rules

import (
	"errors"
	"fmt"
	"testing"
)

func validRule() Rule {
	return Rule{ID: 1, GroupID: "dev_team-2", ToolPattern: "Bash", Action: Allow,
		Priority: DefaultPriority}
}

func TestValidateAccepts(t *testing.T) {
	for _, edit := range []func(*Rule){
		func(r *Rule) {},
		func(r *Rule) { r.ToolPattern = "*" },
		func(r *Rule) { r.ToolPattern = "mcp__gmail__*" },
		func(r *Rule) { r.ToolPattern = "@fs_read" },
		func(r *Rule) { r.ToolPattern = "@fs_write" },
		func(r *Rule) { r.ToolPattern = "@fs_any" },
		func(r *Rule) { r.PathPattern = "secrets/*" },
		func(r *Rule) { r.PathPattern = "log*" },
		func(r *Rule) { r.PathPattern = "*" },
		func(r *Rule) { r.PathPattern = "/etc/passwd" },
		func(r *Rule) { r.PathPattern, r.ResolvedPathPattern = "secrets/*", "vault/*" },
		func(r *Rule) { r.Priority = MinPriority },
		func(r *Rule) { r.Priority = MaxPriority },
		func(r *Rule) { r.Action = Deny },
		func(r *Rule) { r.Action = Require },
		func(r *Rule) {
			r.AgentID, r.Source, r.Note = "any agent ✓", "claude-code", "free text *"
		},
	} {
		r := validRule()
		edit(&r)
		if err := Validate(r); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", r, err)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Rule)
		want string
	}{
		{func(r *Rule) { r.ToolPattern = "a*b" },
			`rules: tool_pattern "a*b": a star is only allowed at the end`},
		{func(r *Rule) { r.ToolPattern = "*x*" },
			`rules: tool_pattern "*x*": a star is only allowed at the end`},
		{func(r *Rule) { r.ToolPattern = "**" },
			`rules: tool_pattern "**": a star is only allowed at the end`},
		{func(r *Rule) { r.ToolPattern = "*x" },
			`rules: tool_pattern "*x": a star is only allowed at the end`},
		{func(r *Rule) { r.ToolPattern = "@fs_bogus" },
			`rules: tool_pattern "@fs_bogus": unknown class; use @fs_read, @fs_write or @fs_any`},
		{func(r *Rule) { r.ToolPattern = "@fs_read*" },
			`rules: tool_pattern "@fs_read*": unknown class; use @fs_read, @fs_write or @fs_any`},
		{func(r *Rule) { r.ToolPattern = "" }, `rules: tool_pattern "": must not be empty`},
		{func(r *Rule) { r.ToolPattern = "Bash " },
			`rules: tool_pattern "Bash ": must not contain spaces or control characters`},
		{func(r *Rule) { r.Action = "maybe" },
			`rules: action "maybe": must be allow, deny or require`},
		{func(r *Rule) { r.Action = "" }, `rules: action "": must be allow, deny or require`},
		{func(r *Rule) { r.Action = "Allow" },
			`rules: action "Allow": must be allow, deny or require`},
		{func(r *Rule) { r.Priority = -1 }, `rules: priority -1: must be between 0 and 999999`},
		{func(r *Rule) { r.Priority = 1000000 },
			`rules: priority 1000000: must be between 0 and 999999`},
		{func(r *Rule) { r.GroupID = "Dev Team" },
			`rules: group_id "Dev Team": must match [a-z0-9_-]+`},
		{func(r *Rule) { r.GroupID = "" }, `rules: group_id "": must match [a-z0-9_-]+`},
		{func(r *Rule) { r.GroupID = "dev/x" }, `rules: group_id "dev/x": must match [a-z0-9_-]+`},
		{func(r *Rule) { r.PathPattern = "a*b/*" },
			`rules: path_pattern "a*b/*": a star is only allowed as "<dir>/*" or at the end`},
		{func(r *Rule) { r.PathPattern = "**" },
			`rules: path_pattern "**": a star is only allowed as "<dir>/*" or at the end`},
		{func(r *Rule) { r.PathPattern = "x\x00/*" },
			`rules: path_pattern "x\x00/*": must not contain a NUL byte`},
		{func(r *Rule) { r.PathPattern, r.ResolvedPathPattern = "x/*", "*/x" },
			`rules: resolved_path_pattern "*/x": ` +
				`a star is only allowed as "<dir>/*" or at the end`},
		{func(r *Rule) { r.ResolvedPathPattern = "x/*" },
			`rules: resolved_path_pattern "x/*": set without a path_pattern`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			r := validRule()
			tc.edit(&r)
			before := r
			err := Validate(r)
			if err == nil {
				t.Errorf("Validate(%+v) = nil, want %q", r, tc.want)
				return
			}
			if !errors.Is(err, ErrInvalidRule) {
				t.Errorf("Validate(%+v) = %v, does not wrap ErrInvalidRule", r, err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("Validate(%+v) = %T, want *FieldError", r, err)
			}
			if err.Error() != tc.want {
				t.Errorf("Validate(%+v)\n got  %s\n want %s", r, err, tc.want)
			}
			if r != before {
				t.Errorf("Validate changed its argument")
			}
		})
	}
}

func TestCheckCatchAll(t *testing.T) {
	group := []Rule{
		{ID: 12, GroupID: "ops", ToolPattern: "*", Action: Require, Priority: MaxPriority},
		// filtered: no catch-all
		{ID: 13, GroupID: "ops", ToolPattern: "*", AgentID: "bot", Action: Allow},
		{ID: 14, GroupID: "ops", ToolPattern: "*", PathPattern: "x/*", Action: Deny},
		{ID: 15, GroupID: "other", ToolPattern: "*", Action: Allow}, // another group: ignored
	}
	catchAll := func(id uint64, a Action) Rule {
		return Rule{ID: id, GroupID: "ops", ToolPattern: "*", Action: a, Priority: 50}
	}
	for _, tc := range []struct {
		name string
		r    Rule
		want string // "" = accepted
	}{
		{"second catch-all, other action", catchAll(0, Allow),
			"group ops already has a catch-all (rule 12); edit that one"},
		{"second catch-all, deny", catchAll(0, Deny),
			"group ops already has a catch-all (rule 12); edit that one"},
		{"second catch-all, same action", catchAll(0, Require), ""},
		{"update of the catch-all itself", catchAll(12, Allow), ""},
		{"another rule turned into a catch-all", catchAll(13, Deny),
			"group ops already has a catch-all (rule 12); edit that one"},
		{"filtered by agent",
			Rule{GroupID: "ops", ToolPattern: "*", AgentID: "a", Action: Allow}, ""},
		{"filtered by source",
			Rule{GroupID: "ops", ToolPattern: "*", Source: "cron", Action: Allow}, ""},
		{"filtered by path",
			Rule{GroupID: "ops", ToolPattern: "*", PathPattern: "y*", Action: Allow}, ""},
		{"not a star", Rule{GroupID: "ops", ToolPattern: "x*", Action: Allow}, ""},
		{"in a group without one", Rule{GroupID: "dev", ToolPattern: "*", Action: Allow}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCatchAll(group, tc.r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckCatchAll = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("CheckCatchAll = %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrCatchAll) || !errors.Is(err, ErrInvalidRule) {
				t.Errorf("%v: want errors.Is ErrCatchAll and ErrInvalidRule", err)
			}
			var ce *CatchAllError
			if !errors.As(err, &ce) || ce.Group != "ops" || ce.RuleID != 12 {
				t.Errorf("errors.As CatchAllError: %+v", ce)
			}
		})
	}
	if !errors.Is(ErrCatchAll, ErrInvalidRule) {
		t.Error("ErrCatchAll does not wrap ErrInvalidRule")
	}
}

func TestIsCatchAll(t *testing.T) {
	for _, tc := range []struct {
		r    Rule
		want bool
	}{
		{Rule{ToolPattern: "*", Action: Deny}, true},
		{Rule{ToolPattern: "*", AgentID: "a"}, false},
		{Rule{ToolPattern: "*", Source: "s"}, false},
		{Rule{ToolPattern: "*", PathPattern: "*"}, false},
		{Rule{ToolPattern: "x*"}, false},
	} {
		t.Run(fmt.Sprint(tc.r), func(t *testing.T) {
			if got := IsCatchAll(tc.r); got != tc.want {
				t.Errorf("IsCatchAll(%+v) = %v, want %v", tc.r, got, tc.want)
			}
		})
	}
}

// FuzzValidate checks that Validate never panics, and that what it accepts compiles
// and evaluates.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"*", "a*b", "**", "@fs_any", "@fs_bogus", "mcp__x__*", "", "x\x00",
		"dir/*", "é*"} {
		f.Add(s, s, "default", "allow", 100)
	}
	f.Add("Bash", "a*b/*", "Dev", "maybe", -1)
	f.Fuzz(func(t *testing.T, tool, path, group, action string, priority int) {
		r := Rule{ID: 1, GroupID: group, ToolPattern: tool, PathPattern: path,
			Action: Action(action), Priority: priority}
		err := Validate(r)
		if err != nil {
			if !errors.Is(err, ErrInvalidRule) {
				t.Fatalf("Validate error %v does not wrap ErrInvalidRule", err)
			}
			return
		}
		s := Compile([]Group{{ID: group}}, []Rule{r}, Options{WorkspaceRoot: "/nonexistent-root"})
		d := s.Evaluate(group, Call{Tool: tool, Args: map[string]any{"path": path}})
		if d.Action != Allow && d.Action != Deny && d.Action != Require {
			t.Fatalf("Evaluate returned action %q", d.Action)
		}
	})
}
