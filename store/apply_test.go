package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// alice is the actor of the external tests' changes.
var alice = store.Actor{By: "alice", Via: "telegram"}

func TestApplyRules(t *testing.T) {
	d := teststore.Open(t, store.Options{})
	all, err := d.Rules()
	testkit.Must(t, err)
	var catchAll rules.Rule
	for _, r := range all {
		if r.ToolPattern == "*" && r.PathPattern == "" {
			catchAll = r
		}
	}
	old, err := d.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "x",
		Action: rules.Allow, Priority: 100}, alice)
	testkit.Must(t, err)
	changed := catchAll
	changed.Action = rules.Deny
	out, err := d.ApplyRules(store.RuleChanges{
		CreateGroups: []rules.Group{{ID: "shop"}},
		UpdateGroups: []rules.Group{{ID: "default", Name: "Default", Description: "all"}},
		DeleteRules:  []uint64{old.ID},
		UpdateRules:  []rules.Rule{changed},
		CreateRules: []rules.Rule{
			{GroupID: "shop", ToolPattern: "Bash", CommandPattern: "npm run *",
				Action: rules.Allow, Priority: 100},
			{GroupID: "shop", ToolPattern: "*", Action: rules.Require, Priority: 5},
		},
	}, alice)
	testkit.Must(t, err)
	if len(out) != 2 || out[0].ID == 0 || out[0].GroupID != "shop" || out[1].ID <= out[0].ID {
		t.Fatalf("created %+v", out)
	}
	if _, err := d.Rule(old.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rule %d still there: %v", old.ID, err)
	}
	if r, err := d.Rule(catchAll.ID); err != nil || r.Action != rules.Deny {
		t.Errorf("catch-all %+v %v, want deny", r, err)
	}
	if g, err := d.Group("default"); err != nil || g.Name != "Default" || g.Description != "all" {
		t.Errorf("default group %+v %v", g, err)
	}
	acts := teststore.AuditActions(t, d)
	want := []string{store.AuditGroupCreate, store.AuditGroupUpdate, store.AuditRuleDelete,
		store.AuditRuleUpdate, store.AuditRuleCreate, store.AuditRuleCreate}
	if got := acts[len(acts)-len(want):]; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("audit %v, want it to end with %v", got, want)
	}
	// Nothing to change writes nothing.
	before := testkit.FileBytes(t, d.Path())
	if out, err := d.ApplyRules(store.RuleChanges{}, alice); err != nil || out != nil {
		t.Errorf("empty ApplyRules = %v, %v", out, err)
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

// TestApplyRulesRefused checks every problem is listed and nothing is written.
func TestApplyRulesRefused(t *testing.T) {
	d := teststore.Open(t, store.Options{})
	before := testkit.FileBytes(t, d.Path())
	for _, c := range []struct {
		name string
		c    store.RuleChanges
		by   store.Actor
		says []string
	}{
		{"no actor", store.RuleChanges{}, store.Actor{}, []string{"the actor (by) is required"}},
		{"invalid rules, all listed", store.RuleChanges{
			CreateGroups: []rules.Group{{ID: "Bad Id"}},
			CreateRules: []rules.Rule{{ToolPattern: "a*b", Action: rules.Allow, Priority: 1},
				{ToolPattern: "x", Action: "maybe", Priority: 1}},
		}, alice, []string{`create group "Bad Id"`, `tool_pattern "a*b"`, `"maybe"`}},
		{"state problems, all listed", store.RuleChanges{
			CreateGroups: []rules.Group{{ID: "default"}},
			DeleteRules:  []uint64{999},
			UpdateRules: []rules.Rule{{ID: 998, GroupID: "default", ToolPattern: "x",
				Action: rules.Allow, Priority: 1}},
			CreateRules: []rules.Rule{
				{GroupID: "nope", ToolPattern: "x", Action: rules.Allow, Priority: 1},
				{ToolPattern: "*", Action: rules.Allow, Priority: 1}},
		}, alice, []string{`create group "default": already exists`, "delete rule 999: not found",
			"update rule 998: not found", `unknown group "nope"`, "already has a catch-all"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := d.ApplyRules(c.c, c.by)
			if err == nil || !strings.HasPrefix(err.Error(), "store: apply rules: ") {
				t.Fatalf("ApplyRules = %v", err)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			testkit.FileUnchanged(t, d.Path(), before)
		})
	}
}
