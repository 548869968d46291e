package store

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

func TestCreateGroup(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops", Description: "night shift"}, alice))
	g, err := d.Group("ops")
	testkit.Must(t, err)
	if g != (rules.Group{ID: "ops", Name: "ops", Description: "night shift"}) {
		t.Fatalf("Group = %+v", g)
	}
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "a_1-x", Name: "Alpha"}, alice))
	gs, err := d.Groups()
	testkit.Must(t, err)
	var ids []string
	for _, g := range gs {
		ids = append(ids, g.ID)
	}
	if !slices.Equal(ids, []string{"a_1-x", "default", "ops"}) {
		t.Fatalf("Groups = %v", ids)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "group.create" || es[0].Detail != `a_1-x "Alpha"` || es[0].By != "alice" {
		t.Fatalf("audit = %+v", es[0])
	}
}

func TestCreateGroupErrors(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	before := testkit.FileBytes(t, d.Path())
	cases := []struct {
		g      rules.Group
		by     Actor
		target error
		says   string
	}{
		{rules.Group{ID: "ops"}, alice, ErrExists, `store: create group "ops": already exists`},
		{rules.Group{ID: "default"}, alice, ErrExists, `"default": already exists`},
		{rules.Group{ID: "Ops"}, alice, ErrInvalid, `group id "Ops" must match [a-z0-9_-]+`},
		{rules.Group{ID: ""}, alice, ErrInvalid, `group id ""`},
		{rules.Group{ID: "a b"}, alice, ErrInvalid, `group id "a b"`},
		{rules.Group{ID: strings.Repeat("a", 65)}, alice, ErrInvalid, "at most 64 bytes"},
		{rules.Group{ID: "new"}, Actor{}, ErrInvalid, "the actor (by) is required"},
		{rules.Group{ID: "g1", Name: "a\u0000b\nc<b>x</b>"}, alice, ErrInvalid,
			`store: create group "g1": invalid input: group name "a\x00b\nc<b>x</b>" ` +
				`must not hold control characters (newline, tab, NUL, …)`},
		{rules.Group{ID: "g1", Name: "a\tb"}, alice, ErrInvalid,
			`group name "a\tb" must not hold control characters`},
		{rules.Group{ID: "g1", Name: "ok", Description: "line\r\nbreak"}, alice, ErrInvalid,
			`group description "line\r\nbreak" must not`},
		{rules.Group{ID: "g1", Name: "c1 \u0085"}, alice, ErrInvalid, "group name"},
		{rules.Group{ID: "g1", Name: "bad \xff"}, alice, ErrInvalid,
			`group name "bad \xff" is not valid UTF-8`},
	}
	for _, tc := range cases {
		t.Run(tc.says, func(t *testing.T) {
			testkit.WantErr(t, d.CreateGroup(tc.g, tc.by), tc.target, tc.says)
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
	if _, err := d.Group("missing"); err == nil {
		t.Fatal("Group(missing) found something")
	} else {
		testkit.WantErr(t, err, ErrNotFound, `store: group "missing": not found`)
	}
}

func TestUpdateGroup(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	g := rules.Group{ID: "ops", Name: "Ops", Description: "night"}
	testkit.Must(t, d.UpdateGroup(g, alice))
	g, err := d.Group("ops")
	testkit.Must(t, err)
	if g.Name != "Ops" || g.Description != "night" {
		t.Fatalf("Group = %+v", g)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "group.update" || es[0].Detail != `ops → ops "Ops"` {
		t.Fatalf("audit = %+v", es[0])
	}

	before := testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.UpdateGroup(g, alice)) // no change: nothing written
	testkit.WantErr(t, d.UpdateGroup(rules.Group{ID: "nope"}, alice), ErrNotFound,
		`store: update group "nope": not found`)
	testkit.WantErr(t, d.UpdateGroup(rules.Group{ID: "ops", Name: "x"}, Actor{}), ErrInvalid,
		"actor")
	testkit.WantErr(t, d.UpdateGroup(rules.Group{ID: "ops", Name: "a\u0000b\nc"}, alice),
		ErrInvalid, `store: update group "ops": invalid input: `+
			`group name "a\x00b\nc" must not hold control characters`)
	bad := rules.Group{ID: "ops", Name: "Ops", Description: "x\ny"}
	testkit.WantErr(t, d.UpdateGroup(bad, alice), ErrInvalid, `group description "x\ny"`)
	testkit.FileUnchanged(t, d.Path(), before)
	// HTML is only text: the channels escape it.
	testkit.Must(t, d.UpdateGroup(rules.Group{ID: "ops", Name: "<b>Ops</b> & co",
		Description: "night «shift»"}, alice))
	if g, err := d.Group("ops"); err != nil || g.Name != "<b>Ops</b> & co" {
		t.Fatalf("Group = %+v, %v", g, err)
	}
}

func TestDeleteGroupDeletesItsRules(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	// a longer id with the same prefix
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "opsx"}, alice))
	var mine []uint64
	for _, tool := range []string{"Bash", "Read"} {
		r, err := d.CreateRule(rules.Rule{GroupID: "ops", ToolPattern: tool, Action: rules.Allow},
			alice)
		testkit.Must(t, err)
		mine = append(mine, r.ID)
	}
	other, err := d.CreateRule(rules.Rule{GroupID: "opsx", ToolPattern: "Bash",
		Action: rules.Deny}, alice)
	testkit.Must(t, err)

	testkit.Must(t, d.DeleteGroup("ops", []string{"default", "opsx"}, alice))
	if _, err := d.Group("ops"); err == nil {
		t.Fatal("group ops still there")
	}
	for _, id := range mine {
		if _, err := d.Rule(id); err == nil {
			t.Fatalf("rule %d of ops still there", id)
		}
	}
	if _, err := d.Rule(other.ID); err != nil {
		t.Fatalf("rule of opsx: %v", err)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "group.delete" || es[0].Detail != "ops with 2 rules (#13 #14)" {
		t.Fatalf("audit = %+v", es[0])
	}
}

func TestDeleteGroupRefused(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	_, err := d.CreateRule(rules.Rule{GroupID: "ops", ToolPattern: "Bash", Action: rules.Allow},
		alice)
	testkit.Must(t, err)
	before := testkit.FileBytes(t, d.Path())
	testkit.WantErr(t, d.DeleteGroup("default", nil, alice), ErrProtected,
		`store: delete group "default": group is protected: the default group cannot be deleted`)
	testkit.WantErr(t, d.DeleteGroup("ops", []string{"ops"}, alice), ErrProtected,
		"a profile uses it")
	testkit.WantErr(t, d.DeleteGroup("nope", nil, alice), ErrNotFound,
		`store: delete group "nope": not found`)
	testkit.WantErr(t, d.DeleteGroup("ops", nil, Actor{}), ErrInvalid, "actor")
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestDuplicateGroup(t *testing.T) {
	d, _ := openTest(t)
	src, err := d.Rules()
	testkit.Must(t, err)
	copies, err := d.DuplicateGroup("default", rules.Group{ID: "strict", Description: "copy"},
		alice)
	testkit.Must(t, err)
	if len(copies) != len(src) {
		t.Fatalf("%d copies of %d rules", len(copies), len(src))
	}
	srcIDs := map[uint64]bool{}
	for _, r := range src {
		srcIDs[r.ID] = true
	}
	for i, c := range copies {
		if c.GroupID != "strict" || srcIDs[c.ID] || (i > 0 && c.ID != copies[i-1].ID+1) {
			t.Fatalf("copy %d = %+v", i, c)
		}
		stored, err := d.Rule(c.ID)
		testkit.Must(t, err)
		if stored != c {
			t.Fatalf("stored %+v, returned %+v", stored, c)
		}
	}
	// Same rules, group aside, in the same order.
	var a, b []string
	byID := func(rs []rules.Rule) []rules.Rule {
		return slices.SortedFunc(slices.Values(rs),
			func(x, y rules.Rule) int { return cmp.Compare(x.ID, y.ID) })
	}
	for _, r := range byID(src) {
		r.GroupID = "strict"
		a = append(a, ruleLine(r))
	}
	for _, r := range copies {
		b = append(b, ruleLine(r))
	}
	if !slices.Equal(a, b) {
		t.Fatalf("copies differ:\n%q\n%q", a, b)
	}
	g, err := d.Group("strict")
	testkit.Must(t, err)
	if g.Name != "strict" || g.Description != "copy" {
		t.Fatalf("group = %+v", g)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != "group.duplicate" ||
		es[0].Detail != "strict from group default with 12 rules" {
		t.Fatalf("audit = %+v", es[0])
	}
	// The copy's catch-all is its own: changing it leaves default's alone.
	ca := findRule(t, d,
		func(r rules.Rule) bool { return r.GroupID == "strict" && rules.IsCatchAll(r) })
	ca.Action = rules.Deny
	_, err = d.UpdateRule(ca, alice)
	testkit.Must(t, err)
	if orig := findRule(t, d, func(r rules.Rule) bool {
		return r.GroupID == "default" && rules.IsCatchAll(r)
	}); orig.Action != rules.Require {
		t.Fatalf("default catch-all = %+v", orig)
	}
}

func TestDuplicateGroupErrors(t *testing.T) {
	d, _ := openTest(t)
	testkit.Must(t, d.CreateGroup(rules.Group{ID: "ops"}, alice))
	before := testkit.FileBytes(t, d.Path())
	_, err := d.DuplicateGroup("nope", rules.Group{ID: "new"}, alice)
	testkit.WantErr(t, err, ErrNotFound,
		`store: duplicate group "nope" as "new": group "nope": not found`)
	_, err = d.DuplicateGroup("default", rules.Group{ID: "ops"}, alice)
	testkit.WantErr(t, err, ErrExists, `group "ops": already exists`)
	_, err = d.DuplicateGroup("default", rules.Group{ID: "Bad Id"}, alice)
	testkit.WantErr(t, err, ErrInvalid, `group id "Bad Id"`)
	_, err = d.DuplicateGroup("default", rules.Group{ID: "new"}, Actor{})
	testkit.WantErr(t, err, ErrInvalid, "actor")
	_, err = d.DuplicateGroup("default", rules.Group{ID: "new", Name: "a\nb"}, alice)
	testkit.WantErr(t, err, ErrInvalid, `store: duplicate group "default" as "new": `+
		`invalid input: group name "a\nb" must not hold control characters`)
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestEnsureGroups(t *testing.T) {
	d, _ := openTest(t)
	cfg := Actor{By: "system", Via: "config"}
	created, err := d.EnsureGroups([]string{"ops", "default", "dev", "ops"}, cfg)
	testkit.Must(t, err)
	if !slices.Equal(created, []string{"ops", "dev"}) {
		t.Fatalf("created %v", created)
	}
	es, err := d.Audit(2)
	testkit.Must(t, err)
	if es[0].Detail != "dev (named by the configuration)" ||
		es[1].Detail != "ops (named by the configuration)" || es[0].Via != "config" {
		t.Fatalf("audit = %+v", es)
	}

	before := testkit.FileBytes(t, d.Path())
	created, err = d.EnsureGroups([]string{"ops", "dev"}, cfg)
	testkit.Must(t, err)
	if len(created) != 0 {
		t.Fatalf("created again: %v", created)
	}
	_, err = d.EnsureGroups([]string{"fine", "Not Fine"}, cfg)
	testkit.WantErr(t, err, ErrInvalid, `store: ensure groups: invalid input: group id "Not Fine"`)
	_, err = d.EnsureGroups([]string{"fine"}, Actor{})
	testkit.WantErr(t, err, ErrInvalid, "actor")
	testkit.FileUnchanged(t, d.Path(), before)
}
