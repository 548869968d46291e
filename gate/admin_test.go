package gate_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
)

func TestRuleChangesRebuildTheSnapshot(t *testing.T) {
	e := newGateEnv(t)
	call := gate.Call{ToolName: "mcp__gmail__send", SessionID: "s"}
	if out := e.check(call); out.Decision != gate.VerdictPending {
		t.Fatalf("before any rule: %s", out.Decision)
	}
	r, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "mcp__gmail__*",
		Action: rules.Allow, Priority: 50, Note: "mail ok"}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if out := e.check(call); out.Decision != gate.VerdictAllow || out.RuleID != r.ID ||
		out.Note != "mail ok" {
		t.Errorf("after CreateRule: %+v", out)
	}
	r.Action = rules.Deny
	if _, err := e.m.UpdateRule(r, admin); err != nil {
		t.Fatal(err)
	}
	if out := e.check(call); out.Decision != gate.VerdictDeny {
		t.Errorf("after UpdateRule: %s", out.Decision)
	}
	if err := e.m.DeleteRule(r.ID, admin); err != nil {
		t.Fatal(err)
	}
	out := e.check(gate.Call{ToolName: "mcp__gmail__send", SessionID: "s2"})
	if out.Decision != gate.VerdictPending {
		t.Errorf("after DeleteRule: %s", out.Decision)
	}
	acts := teststore.AuditActions(t, e.db)
	for _, a := range []string{"rule.create", "rule.update", "rule.delete"} {
		if count(acts, a) == 0 {
			t.Errorf("audit lacks %s: %v", a, acts)
		}
	}
}

func TestRuleByID(t *testing.T) {
	e := newGateEnv(t)
	r, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
		Action: rules.Deny, Priority: 5}, admin)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.m.Rule(r.ID)
	if err != nil || got.ID != r.ID || got.Action != rules.Deny || got.ToolPattern != "Bash" {
		t.Fatalf("Rule(%d) = %+v, %v", r.ID, got, err)
	}
	if err := e.m.DeleteRule(r.ID, admin); err != nil {
		t.Fatal(err)
	}
	_, err = e.m.Rule(r.ID)
	if !errors.Is(err, gate.ErrNotFound) ||
		err.Error() != fmt.Sprintf("gate: rule %d: not found", r.ID) {
		t.Fatalf("Rule after delete: %v, want gate.ErrNotFound", err)
	}
}

func TestCreateRuleResolvesPathPattern(t *testing.T) {
	e := newGateEnv(t)
	// A symlink to secrets/ is matched through its resolved form.
	r, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "@fs_read",
		PathPattern: "docs/../memory/*", Action: rules.Deny, Priority: 1}, admin)
	if err != nil {
		t.Fatal(err)
	}
	if r.PathPattern != "docs/../memory/*" || r.ResolvedPathPattern != "memory/*" {
		t.Errorf("stored patterns %q → %q", r.PathPattern, r.ResolvedPathPattern)
	}
	out := e.check(gate.Call{ToolName: "read_file", SessionID: "s",
		Arguments: map[string]any{"path": "memory/x"}})
	if out.Decision != gate.VerdictDeny {
		t.Errorf("read_file memory/x: %s", out.Decision)
	}
}

// TestPathPatternFollowsAcrossRestart: a deny created while priv is a link to .priv-1
// is stored as written and follows the name, not where it resolved then: after a swap,
// a restart and another swap, priv/p and the directory it now names are denied, and the
// old target, created again, is not.
func TestPathPatternFollowsAcrossRestart(t *testing.T) {
	e := newGateEnv(t)
	link := filepath.Join(e.root, "priv")
	swap := func(from, to string) {
		t.Helper()
		if from == "" {
			testkit.Must(t, os.MkdirAll(filepath.Join(e.root, to), 0o755))
		} else {
			testkit.Must(t, os.Remove(link))
			testkit.Must(t, os.Rename(filepath.Join(e.root, from), filepath.Join(e.root, to)))
		}
		testkit.Must(t, os.Symlink(to, link))
	}
	swap("", ".priv-1")
	r, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "@fs_any",
		PathPattern: "priv/*", Action: rules.Deny, Priority: 1}, admin)
	testkit.Must(t, err)
	if r.PathPattern != "priv/*" || r.ResolvedPathPattern != ".priv-1/*" {
		t.Fatalf("stored patterns %q → %q", r.PathPattern, r.ResolvedPathPattern)
	}
	want := func(step, path string, denied bool) {
		t.Helper()
		out := e.check(gate.Call{ToolName: "read_file", SessionID: "s",
			Arguments: map[string]any{"path": path}})
		if got := out.Decision == gate.VerdictDeny && out.RuleID == r.ID; got != denied {
			t.Errorf("%s: read_file %s = %+v, want denied by rule %d: %v",
				step, path, out, r.ID, denied)
		}
	}
	want("linked", "priv/p", true)
	swap(".priv-1", ".priv-2")
	want("swapped", "priv/p", true)
	want("swapped", ".priv-2/p", true)

	testkit.Must(t, e.db.Close())
	e.open()
	e.opt.Store = e.db
	e.m = testgate.New(t, e.opt)
	e.run()
	stored, err := e.m.Rule(r.ID)
	testkit.Must(t, err)
	if stored.PathPattern != "priv/*" {
		t.Errorf("after the restart the rule's pattern is %q", stored.PathPattern)
	}
	want("restarted", "priv/p", true)
	want("restarted", ".priv-2/p", true)
	swap(".priv-2", ".priv-3")
	want("swapped again", "priv/p", true)
	want("swapped again", ".priv-3/p", true)
	testkit.Must(t, os.MkdirAll(filepath.Join(e.root, ".priv-1"), 0o755))
	want("swapped again", ".priv-1/p", false)
	want("swapped again", ".priv-2/p", false)
}

func TestInvalidRulesChangeNothing(t *testing.T) {
	e := newGateEnv(t)
	snapshot, err := e.m.Rules("")
	if err != nil {
		t.Fatal(err)
	}
	catchAll := uint64(0)
	for _, r := range snapshot {
		if rules.IsCatchAll(r) {
			catchAll = r.ID
		}
	}
	before := teststore.Snapshot(t, e.db)
	ok := rules.Rule{GroupID: "default", ToolPattern: "x", Action: rules.Allow, Priority: 100}
	with := func(f func(*rules.Rule)) rules.Rule { r := ok; f(&r); return r }
	for _, c := range []struct {
		rule   rules.Rule
		target error
		says   string
	}{
		{with(func(r *rules.Rule) { r.ToolPattern = "a*b" }), gate.ErrInvalidRule,
			`tool_pattern "a*b"`},
		{with(func(r *rules.Rule) { r.ToolPattern = "*x*" }), gate.ErrInvalidRule,
			`tool_pattern "*x*"`},
		{with(func(r *rules.Rule) { r.ToolPattern = "" }), gate.ErrInvalidRule, "tool_pattern"},
		{with(func(r *rules.Rule) { r.PathPattern = "se*crets/*" }), gate.ErrInvalidRule,
			"path_pattern"},
		{with(func(r *rules.Rule) { r.Action = "maybe" }), gate.ErrInvalidRule,
			`action "maybe": must be allow, deny or require`},
		{with(func(r *rules.Rule) { r.Priority = -1 }), gate.ErrInvalidRule, "priority -1"},
		{with(func(r *rules.Rule) { r.Priority = 1000000 }), gate.ErrInvalidRule,
			"priority 1000000"},
		{with(func(r *rules.Rule) { r.GroupID = "nope" }), gate.ErrUnknownGroup, "nope"},
		{with(func(r *rules.Rule) { r.GroupID = "Bad Id" }), gate.ErrInvalidRule, "group_id"},
		{with(func(r *rules.Rule) { r.ToolPattern, r.Action = "*", rules.Allow }),
			gate.ErrInvalidRule, "group default already has a catch-all (rule " +
				strconv.FormatUint(catchAll, 10) + "); edit that one"},
	} {
		t.Run(c.says, func(t *testing.T) {
			_, err := e.m.CreateRule(c.rule, admin)
			testkit.WantErr(t, err, c.target, "gate: create rule", c.says)
		})
	}
	bad := with(func(r *rules.Rule) { r.ID, r.Priority = catchAll, -1 })
	_, err = e.m.UpdateRule(bad, admin)
	testkit.WantErr(t, err, gate.ErrInvalidRule,
		"gate: update rule "+strconv.FormatUint(catchAll, 10), "priority -1")
	_, err = e.m.UpdateRule(with(func(r *rules.Rule) { r.ID = 99999 }), admin)
	testkit.WantErr(t, err, gate.ErrNotFound, "gate: update rule 99999")
	testkit.WantErr(t, e.m.DeleteRule(99999, admin), gate.ErrNotFound, "gate: delete rule 99999")
	teststore.Unchanged(t, e.db, before)
	after, err := e.m.Rules("")
	if err != nil || testkit.JSON(snapshot) != testkit.JSON(after) {
		t.Errorf("the snapshot changed after refused changes")
	}
}

func TestGroups(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "dev", SecurityGroup: "devs"}}
	})
	if err := e.m.CreateGroup(rules.Group{ID: "ops", Name: "Ops"}, admin); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.CreateRule(rules.Rule{GroupID: "ops", ToolPattern: "Bash", Action: rules.Allow,
		Priority: 1}, admin)
	if err != nil {
		t.Fatal(err)
	}
	copies, err := e.m.DuplicateGroup("ops", rules.Group{ID: "ops2", Name: "Ops 2"}, admin)
	if err != nil || len(copies) != 1 || copies[0].GroupID != "ops2" ||
		copies[0].ToolPattern != "Bash" {
		t.Fatalf("DuplicateGroup = %+v, %v", copies, err)
	}
	out := e.check(gate.Call{ToolName: "Bash", SessionID: "s", Group: "ops2"})
	if out.Decision != gate.VerdictAllow {
		t.Errorf("Bash in the copied group: %s", out.Decision)
	}
	if err := e.m.UpdateGroup(rules.Group{ID: "ops2", Name: "Second ops"}, admin); err != nil {
		t.Fatal(err)
	}
	gs, err := e.m.Groups()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range gs {
		ids = append(ids, g.ID)
		if g.ID == "ops2" && g.Name != "Second ops" {
			t.Errorf("ops2 name %q", g.Name)
		}
	}
	if testkit.JSON(ids) != `["default","devs","ops","ops2"]` {
		t.Errorf("groups %v", ids)
	}
	if rs, err := e.m.Rules("ops2"); err != nil || len(rs) != 1 {
		t.Errorf("Rules(ops2) = %v, %v", rs, err)
	}

	before := teststore.Snapshot(t, e.db)
	testkit.WantErr(t, e.m.DeleteGroup("default", admin), gate.ErrProtected,
		`gate: delete group "default"`)
	testkit.WantErr(t, e.m.DeleteGroup("devs", admin), gate.ErrProtected, `"devs"`)
	testkit.WantErr(t, e.m.DeleteGroup("nope", admin), gate.ErrNotFound, `"nope"`)
	testkit.WantErr(t, e.m.CreateGroup(rules.Group{ID: "ops", Name: "again"}, admin),
		gate.ErrExists, `gate: create group "ops"`)
	testkit.WantErr(t, e.m.CreateGroup(rules.Group{ID: "Bad!", Name: "x"}, admin),
		gate.ErrInvalid, `"Bad!"`)
	testkit.WantErr(t, e.m.CreateGroup(rules.Group{ID: "g1", Name: "a\u0000b\nc<b>x</b>"}, admin),
		gate.ErrInvalid, `gate: create group "g1"`, "must not hold control characters")
	testkit.WantErr(t,
		e.m.UpdateGroup(rules.Group{ID: "ops", Name: "Ops", Description: "a\nb"}, admin),
		gate.ErrInvalid, `gate: update group "ops"`, `group description "a\nb"`)
	testkit.WantErr(t, e.m.UpdateGroup(rules.Group{ID: "nope", Name: "x"}, admin),
		gate.ErrNotFound, `gate: update group "nope"`)
	_, err = e.m.DuplicateGroup("nope", rules.Group{ID: "x", Name: "x"}, admin)
	testkit.WantErr(t, err, gate.ErrNotFound, `gate: duplicate group "nope" as "x"`)
	_, err = e.m.DuplicateGroup("ops", rules.Group{ID: "ops2", Name: "x"}, admin)
	testkit.WantErr(t, err, gate.ErrExists)
	_, err = e.m.Rules("nope")
	testkit.WantErr(t, err, gate.ErrUnknownGroup, `gate: rules: group "nope"`)
	teststore.Unchanged(t, e.db, before)

	if err := e.m.DeleteGroup("ops2", admin); err != nil {
		t.Fatal(err)
	}
	_, err = e.m.Check(t.Context(), gate.Call{ToolName: "Bash", Group: "ops2"})
	testkit.WantErr(t, err, gate.ErrUnknownGroup, `group "ops2"`)
}

func TestVisible(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "dev", SecurityGroup: "devs"}}
	})
	for _, r := range []rules.Rule{
		{GroupID: "default", ToolPattern: "rm_rf", Action: rules.Deny, Priority: 1},
		{GroupID: "default", ToolPattern: "mcp__bank__*", Action: rules.Deny, Priority: 1,
			AgentID: "intern"},
		{GroupID: "devs", ToolPattern: "rm_rf", Action: rules.Allow, Priority: 1},
	} {
		if _, err := e.m.CreateRule(r, admin); err != nil {
			t.Fatal(err)
		}
	}
	tools := []string{"rm_rf", "mcp__bank__pay", "read_file"}
	for _, c := range []struct {
		group, profile, agent string
		visible, hidden       string
	}{
		// The agent filter applies only when the request names an agent: with none,
		// the intern's deny hides the bank tools too.
		{"", "", "", `["read_file"]`, `["rm_rf","mcp__bank__pay"]`},
		{"", "", "coder", `["mcp__bank__pay","read_file"]`, `["rm_rf"]`},
		{"", "", "intern", `["read_file"]`, `["rm_rf","mcp__bank__pay"]`},
		{"", "dev", "coder", `["rm_rf","mcp__bank__pay","read_file"]`, `[]`},
		{"default", "dev", "coder", `["mcp__bank__pay","read_file"]`, `["rm_rf"]`},
	} {
		t.Run(c.group, func(t *testing.T) {
			v, h, err := e.m.Visible(c.group, c.profile, c.agent, "", tools)
			if err != nil || testkit.JSON(v) != c.visible || testkit.JSON(h) != c.hidden {
				t.Errorf("Visible(%q, %q, %q) = %s %s %v, want %s %s",
					c.group, c.profile, c.agent, testkit.JSON(v), testkit.JSON(h), err,
					c.visible, c.hidden)
			}
		})
	}
	_, _, err := e.m.Visible("nope", "", "", "", tools)
	testkit.WantErr(t, err, gate.ErrUnknownGroup, "gate: visible")
	_, _, err = e.m.Visible("", "nope", "", "", tools)
	testkit.WantErr(t, err, gate.ErrUnknownProfile, "gate: visible")
}
