package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// ruleLine is a rule without its id, for comparing lists.
func ruleLine(r rules.Rule) string {
	return fmt.Sprintf("%s %s %s path=%q agent=%q source=%q %d",
		r.GroupID, r.Action, r.ToolPattern, r.PathPattern, r.AgentID, r.Source, r.Priority)
}

func ruleLines(t *testing.T, d *DB) []string {
	t.Helper()
	rs, err := d.Rules()
	testkit.Must(t, err)
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = ruleLine(r)
	}
	return out
}

// seeded is what a new database holds, in (group, priority, id) order.
var seeded = []string{
	`default allow @fs_any path="memory/*" agent="" source="" 5`,
	`default allow @fs_any path="data/*" agent="" source="" 5`,
	`default deny @fs_any path="secrets/*" agent="" source="" 5`,
	`default allow write_todos path="" agent="" source="" 10`,
	`default allow notify path="" agent="" source="" 10`,
	`default allow activate_tools path="" agent="" source="" 10`,
	`default allow show_file_to_user path="" agent="" source="" 10`,
	`default allow image_generate path="" agent="" source="" 10`,
	`default allow TodoWrite path="" agent="" source="" 10`,
	`default require execute_cmd path="" agent="" source="" 1000`,
	`default require Bash path="" agent="" source="" 1000`,
	`default require * path="" agent="" source="" 999999`,
}

func TestSeedNewDatabase(t *testing.T) {
	d, _ := openTest(t)
	if got := ruleLines(t, d); !slices.Equal(got, seeded) {
		t.Fatalf("seeded rules:\n%q\nwant\n%q", got, seeded)
	}
	gs, err := d.Groups()
	testkit.Must(t, err)
	if len(gs) != 1 || gs[0].ID != "default" {
		t.Fatalf("groups = %+v", gs)
	}
	es, err := d.Audit(0)
	testkit.Must(t, err)
	if len(es) != 13 { // the group and 12 rules
		t.Fatalf("%d audit entries, want 13", len(es))
	}
	for _, e := range es {
		if e.By != "system" || e.Via != "seed" || e.At != testkit.T0 {
			t.Errorf("seed audit entry %+v", e)
		}
	}
	if es[0].Action != "rule.create" ||
		es[0].Detail != "#12 require * priority=999999 group=default" {
		t.Errorf("last seed entry = %+v", es[0])
	}
}

func TestSeedIsIdempotentAndKeepsAdminChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, _ := openAt(t, path)
	rs, err := d.Rules()
	testkit.Must(t, err)
	byLine := map[string]rules.Rule{}
	for _, r := range rs {
		byLine[r.ToolPattern+" "+r.PathPattern] = r
	}
	// The admin makes the catch-all allow, the secrets rule require, and deletes the
	// memory rule and the Bash rule.
	catchAll := byLine["* "]
	catchAll.Action = rules.Allow
	_, err = d.UpdateRule(catchAll, alice)
	testkit.Must(t, err)
	secrets := byLine["@fs_any secrets/*"]
	secrets.Action = rules.Require
	_, err = d.UpdateRule(secrets, alice)
	testkit.Must(t, err)
	testkit.Must(t, d.DeleteRule(byLine["@fs_any memory/*"].ID, alice))
	testkit.Must(t, d.DeleteRule(byLine["Bash "].ID, alice))
	testkit.Must(t, d.Close())

	d, _ = openAt(t, path)
	got := ruleLines(t, d)
	want := slices.Concat([]string{
		`default allow @fs_any path="data/*" agent="" source="" 5`,
		`default require @fs_any path="secrets/*" agent="" source="" 5`, // kept as changed
		`default allow @fs_any path="memory/*" agent="" source="" 5`,    // seeded again, new id
	}, seeded[3:9], []string{ // the priority-10 rules, as seeded
		`default require execute_cmd path="" agent="" source="" 1000`,
		`default allow * path="" agent="" source="" 999999`, // never overwritten
	})
	if !slices.Equal(got, want) {
		t.Fatalf("after reopen:\n%q\nwant\n%q", got, want)
	}
	if es, err := d.Audit(1); err != nil || len(es) != 1 || es[0].Action != AuditRuleCreate {
		t.Errorf("reseed not audited: newest entry %+v (%v)", es, err)
	}
	testkit.Must(t, d.Close())

	// A third open finds everything and writes nothing.
	before := testkit.FileBytes(t, path)
	d, _ = openAt(t, path)
	testkit.Must(t, d.Close())
	testkit.FileUnchanged(t, path, before)
}

// TestSeedFirstRulesOnlyWhenNoRules: the first rules come back only when there are no
// rules at all; a filtered "*" rule is not a catch-all.
func TestSeedFirstRulesOnlyWhenNoRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, _ := openAt(t, path)
	rs, err := d.Rules()
	testkit.Must(t, err)
	for _, r := range rs {
		testkit.Must(t, d.DeleteRule(r.ID, alice))
	}
	_, err = d.CreateRule(rules.Rule{ToolPattern: "*", AgentID: "ops", Action: rules.Allow,
		Priority: 1}, alice)
	testkit.Must(t, err)
	testkit.Must(t, d.Close())

	d, _ = openAt(t, path)
	want := []string{
		`default allow * path="" agent="ops" source="" 1`,
		`default allow @fs_any path="memory/*" agent="" source="" 5`,
		`default allow @fs_any path="data/*" agent="" source="" 5`,
		`default deny @fs_any path="secrets/*" agent="" source="" 5`,
		`default require * path="" agent="" source="" 999999`,
	}
	if got := ruleLines(t, d); !slices.Equal(got, want) {
		t.Fatalf("after reopen:\n%q\nwant\n%q", got, want)
	}
	testkit.Must(t, d.Close())

	// No rules at all: everything is seeded again.
	d, _ = openAt(t, path)
	rs, err = d.Rules()
	testkit.Must(t, err)
	for _, r := range rs {
		testkit.Must(t, d.DeleteRule(r.ID, alice))
	}
	testkit.Must(t, d.Close())
	d, _ = openAt(t, path)
	if got := ruleLines(t, d); !slices.Equal(got, seeded) {
		t.Fatalf("after deleting everything:\n%q\nwant\n%q", got, seeded)
	}
}

// TestSeedKeepsOldShellPriority: a store seeded when the shell requires sat at
// priority 10 keeps them there when it is opened again.
func TestSeedKeepsOldShellPriority(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, _ := openAt(t, path)
	rs, err := d.Rules()
	testkit.Must(t, err)
	for _, r := range rs {
		if r.ToolPattern == "Bash" || r.ToolPattern == "execute_cmd" {
			r.Priority = 10
			_, err := d.UpdateRule(r, alice)
			testkit.Must(t, err)
		}
	}
	testkit.Must(t, d.Close())
	d, _ = openAt(t, path)
	rs, err = d.Rules()
	testkit.Must(t, err)
	n := 0
	for _, r := range rs {
		if r.ToolPattern == "Bash" || r.ToolPattern == "execute_cmd" {
			n++
			if r.Priority != 10 {
				t.Errorf("after reopening: %+v, want priority 10 kept", r)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d shell requires after reopening, want 2", n)
	}
}
