package store

import (
	"errors"
	"slices"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

func TestCreateRule(t *testing.T) {
	d, _ := openTest(t)
	r, err := d.CreateRule(rules.Rule{ID: 99, ToolPattern: "mcp__gmail__*", Action: rules.Deny,
		AgentID: "mailer", Source: "cron", Priority: 50, Note: "no mail from cron"}, alice)
	testkit.Must(t, err)
	if r.ID != 13 || r.GroupID != "default" { // 12 seeds before it; ID 99 ignored
		t.Fatalf("created %+v", r)
	}
	got, err := d.Rule(r.ID)
	testkit.Must(t, err)
	if got != r {
		t.Fatalf("Rule(%d) = %+v, want %+v", r.ID, got, r)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	want := AuditEntry{ID: 14, At: testkit.T0, By: "alice", Via: "telegram", Action: "rule.create",
		RuleID: 13,
		Detail: `#13 deny mcp__gmail__* agent=mailer source=cron priority=50 group=default ` +
			`note="no mail from cron"`}
	if es[0] != want {
		t.Fatalf("audit = %+v\nwant    %+v", es[0], want)
	}
	// A second catch-all with the same action is accepted.
	_, err = d.CreateRule(rules.Rule{ToolPattern: "*", Action: rules.Require, Priority: 5000},
		alice)
	testkit.Must(t, err)
}

func TestRuleNotFound(t *testing.T) {
	d, _ := openTest(t)
	_, err := d.Rule(404)
	testkit.WantErr(t, err, ErrNotFound, "store: rule 404: not found")
}

// TestInvalidRulesChangeNothing: every kind of invalid rule gets a clear error and
// leaves the file byte for byte as it was.
func TestInvalidRulesChangeNothing(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	catchAll := findRule(t, d, func(r rules.Rule) bool { return rules.IsCatchAll(r) })
	bash := findRule(t, d, func(r rules.Rule) bool { return r.ToolPattern == "Bash" })
	path := d.Path()
	cases := []struct {
		name   string
		rule   rules.Rule
		target error
		says   string
	}{
		{"star inside", rules.Rule{ToolPattern: "a*b", Action: rules.Allow}, rules.ErrInvalidRule,
			`store: create rule: rules: tool_pattern "a*b": a star is only allowed at the end`},
		{"leading star", rules.Rule{ToolPattern: "*x*", Action: rules.Allow}, rules.ErrInvalidRule,
			`tool_pattern "*x*"`},
		{"unknown action", rules.Rule{ToolPattern: "Bash", Action: "maybe"}, rules.ErrInvalidRule,
			`action "maybe": must be allow, deny or require`},
		{"priority -1", rules.Rule{ToolPattern: "Bash", Action: rules.Allow, Priority: -1},
			rules.ErrInvalidRule, "priority -1: must be between 0 and 999999"},
		{"priority 1000000",
			rules.Rule{ToolPattern: "Bash", Action: rules.Allow, Priority: 1000000},
			rules.ErrInvalidRule, "priority 1000000"},
		{"second catch-all", rules.Rule{ToolPattern: "*", Action: rules.Allow, Priority: 10},
			rules.ErrCatchAll, "store: create rule: group default already has a catch-all " +
				"(rule 12); edit that one"},
		{"unknown group", rules.Rule{GroupID: "nope", ToolPattern: "Bash", Action: rules.Allow},
			ErrUnknownGroup, `store: create rule: unknown group "nope"`},
		{"bad group id", rules.Rule{GroupID: "Ops!", ToolPattern: "Bash", Action: rules.Allow},
			rules.ErrInvalidRule, `group_id "Ops!"`},
		{"bad path pattern",
			rules.Rule{ToolPattern: "@fs_read", PathPattern: "a/*/b", Action: rules.Allow},
			rules.ErrInvalidRule, `path_pattern "a/*/b"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := testkit.FileBytes(t, path)
			_, err := d.CreateRule(tc.rule, alice)
			testkit.WantErr(t, err, tc.target, tc.says)
			testkit.FileUnchanged(t, path, before)

			// The same rule as an update of an existing one is refused the same way.
			up := tc.rule
			up.ID = bash.ID
			_, err = d.UpdateRule(up, alice)
			if !errors.Is(err, tc.target) {
				t.Fatalf("update: error = %v, want %v", err, tc.target)
			}
			testkit.FileUnchanged(t, path, before)
			if got, err := d.Rule(bash.ID); err != nil || got != bash {
				t.Fatalf("rule %d changed: %+v (err %v)", bash.ID, got, err)
			}
		})
	}
	t.Run("no actor", func(t *testing.T) {
		before := testkit.FileBytes(t, path)
		_, err := d.CreateRule(rules.Rule{ToolPattern: "Bash", Action: rules.Allow},
			Actor{Via: "api"})
		testkit.WantErr(t, err, ErrInvalid,
			"store: create rule: invalid input: the actor (by) is required")
		testkit.FileUnchanged(t, path, before)
	})
	if got, err := d.Rule(catchAll.ID); err != nil || got != catchAll {
		t.Fatalf("catch-all changed: %+v (err %v)", got, err)
	}
}

// findRule returns the first stored rule keep accepts.
func findRule(t *testing.T, d *DB, keep func(rules.Rule) bool) rules.Rule {
	t.Helper()
	rs, err := d.Rules()
	testkit.Must(t, err)
	i := slices.IndexFunc(rs, keep)
	if i < 0 {
		t.Fatal("no such rule")
	}
	return rs[i]
}

func TestUpdateRule(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	bash := findRule(t, d, func(r rules.Rule) bool { return r.ToolPattern == "Bash" })

	// Move Bash to group ops as allow.
	up := bash
	up.GroupID, up.Action, up.Note = "ops", rules.Allow, "ops may"
	got, err := d.UpdateRule(up, alice)
	testkit.Must(t, err)
	if got != up {
		t.Fatalf("UpdateRule = %+v", got)
	}
	stored, err := d.Rule(bash.ID)
	testkit.Must(t, err)
	if stored != up {
		t.Fatalf("stored %+v", stored)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "rule.update" || es[0].RuleID != bash.ID ||
		es[0].Detail != `#2 require Bash priority=1000 group=default → `+
			`#2 allow Bash priority=1000 group=ops note="ops may"` {
		t.Fatalf("audit = %+v", es[0])
	}
	// The group index follows the move: deleting ops deletes the rule.
	testkit.Must(t, d.DeleteGroup("ops", nil, alice))
	_, err = d.Rule(bash.ID)
	testkit.WantErr(t, err, ErrNotFound)

	// The catch-all may change its own action.
	ca := findRule(t, d, rules.IsCatchAll)
	ca.Action = rules.Deny
	_, err = d.UpdateRule(ca, alice)
	testkit.Must(t, err)

	// An update that changes nothing writes nothing.
	before := testkit.FileBytes(t, d.Path())
	_, err = d.UpdateRule(ca, alice)
	testkit.Must(t, err)
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestUpdateRuleNotFound(t *testing.T) {
	d, _ := openTest(t)
	before := testkit.FileBytes(t, d.Path())
	_, err := d.UpdateRule(rules.Rule{ID: 404, ToolPattern: "Bash", Action: rules.Allow}, alice)
	testkit.WantErr(t, err, ErrNotFound, "store: update rule 404: not found")
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestDeleteRule(t *testing.T) {
	d, _ := openTest(t)
	bash := findRule(t, d, func(r rules.Rule) bool { return r.ToolPattern == "Bash" })
	testkit.Must(t, d.DeleteRule(bash.ID, alice))
	_, err := d.Rule(bash.ID)
	testkit.WantErr(t, err, ErrNotFound)
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "rule.delete" || es[0].RuleID != bash.ID || es[0].By != "alice" {
		t.Fatalf("audit = %+v", es[0])
	}

	before := testkit.FileBytes(t, d.Path())
	err = d.DeleteRule(bash.ID, alice)
	testkit.WantErr(t, err, ErrNotFound, "store: delete rule 2: not found")
	err = d.DeleteRule(1, Actor{})
	testkit.WantErr(t, err, ErrInvalid, "the actor (by) is required")
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestRulesOrder(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "a-team"}, alice))
	for _, p := range []int{30, 10, 30} {
		_, err := d.CreateRule(rules.Rule{GroupID: "a-team", ToolPattern: "x",
			Action: rules.Allow, Priority: p}, alice)
		testkit.Must(t, err)
	}
	rs, err := d.Rules()
	testkit.Must(t, err)
	var ids []uint64
	for _, r := range rs[:3] {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []uint64{14, 13, 15}) || rs[3].GroupID != "default" {
		t.Fatalf("order: %v then %s", ids, rs[3].GroupID)
	}
}
