package api_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestRules(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	all, err := e.admin.Rules(ctx, "")
	if err != nil || len(all) == 0 {
		t.Fatalf("rules: %v %d", err, len(all))
	}
	r, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: "agents", ToolPattern: "mcp__gmail__*",
		Action: rules.Deny, Note: "no mail", Priority: 0})
	if err != nil || r.ID == 0 || r.Priority != 0 || r.GroupID != "agents" || r.Note != "no mail" {
		t.Fatalf("create: %v %+v", err, r)
	}
	// No priority in the body means the default.
	st, body := e.do("POST", "/api/approval/rules", adminToken,
		strings.NewReader(`{"group_id":"agents","tool_pattern":"Read","action":"allow"}`))
	if st != http.StatusCreated || !strings.Contains(body, `"priority":100`) {
		t.Fatalf("create without a priority: %d %s", st, body)
	}
	only, err := e.admin.Rules(ctx, "agents")
	if err != nil || len(only) != 2 {
		t.Fatalf("rules of agents: %v %+v", err, only)
	}
	r.Action, r.Priority = rules.Require, 7
	got, err := e.admin.UpdateRule(ctx, r)
	if err != nil || got.Action != rules.Require || got.Priority != 7 {
		t.Fatalf("update: %v %+v", err, got)
	}
	if err := e.admin.DeleteRule(ctx, r.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := e.admin.DeleteRule(ctx, r.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("delete again: %v, want 404", err)
	}
}

func TestRuleErrors(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		method, path, body string
		status             int
		msg                string
	}{
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"a*b","action":"deny"}`,
			422, `tool_pattern "a*b"`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash","action":"maybe"}`,
			422, "action"},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash","action":"deny","priority":-1}`,
			422, "priority"},
		{"POST", "/api/approval/rules",
			`{"group_id":"nope","tool_pattern":"Bash","action":"deny"}`,
			422, "unknown group"},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"*","action":"allow"}`,
			422, "already has a catch-all"},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Read","command_pattern":"git status *",` +
				`"action":"allow"}`,
			422, `command_pattern "git status *": ` +
				`only applies to the shell tools (Bash, execute_cmd), not "Read"`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash*","command_pattern":"git *",` +
				`"action":"allow"}`,
			422, `command_pattern "git *": needs a tool_pattern naming a shell tool`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash","command_pattern":"git  status",` +
				`"action":"allow"}`,
			422, `command_pattern "git  status"`},
		{"PUT", "/api/approval/rules/1",
			`{"group_id":"default","tool_pattern":"mcp__x__run","command_pattern":"ls *",` +
				`"action":"allow"}`,
			422, `only applies to the shell tools`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash","host_pattern":"example.com",` +
				`"action":"allow"}`,
			422,
			`host_pattern "example.com": only applies to the web tools (WebFetch), not "Bash"`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Web*","host_pattern":"example.com",` +
				`"action":"allow"}`,
			422, `host_pattern "example.com": needs a tool_pattern naming a web tool, not "Web*"`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"WebFetch",` +
				`"host_pattern":"https://example.com","action":"allow"}`,
			422, `host_pattern "https://example.com": ` +
				`must be a host name alone: no scheme, port, path or user`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"WebFetch","host_pattern":"a.*.com",` +
				`"action":"allow"}`,
			422, `host_pattern "a.*.com": a star is only allowed as "*" or a leading "*."`},
		{"PUT", "/api/approval/rules/1",
			`{"group_id":"default","tool_pattern":"Read","host_pattern":"x.org","action":"allow"}`,
			422, `only applies to the web tools`},
		{"POST", "/api/approval/rules",
			`{"group_id":"default","tool_pattern":"Bash","action":"deny"`,
			400, "malformed JSON"},
		{"POST", "/api/approval/rules",
			`{"id":5,"group_id":"default","tool_pattern":"Bash","action":"deny"}`,
			400, "a new rule takes no id"},
		{"PUT", "/api/approval/rules/1",
			`{"id":2,"group_id":"default","tool_pattern":"Bash","action":"deny"}`,
			400, "is not the path's"},
		{"PUT", "/api/approval/rules/1",
			`{"group_id":"default","tool_pattern":"x*y","action":"deny"}`,
			422, "tool_pattern"},
		{"PUT", "/api/approval/rules/99999",
			`{"group_id":"default","tool_pattern":"Bash","action":"deny"}`,
			404, "not found"},
		{"DELETE", "/api/approval/rules/99999", ``, 404, "not found"},
		{"DELETE", "/api/approval/rules/abc", ``, 400, "not a positive integer"},
		{"GET", "/api/approval/rules?group=nope", ``, 422, "unknown group"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e.in(t).wantError(c.method, c.path, adminToken, c.body, c.status, c.msg)
		})
	}
	teststore.Unchanged(t, e.db, before)
}

func TestGroups(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	if _, err := e.admin.CreateGroup(ctx, rules.Group{ID: "ci", Name: "CI"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: "ci", ToolPattern: "Bash",
		Action: rules.Allow}); err != nil {
		t.Fatal(err)
	}
	rs, err := e.admin.DuplicateGroup(ctx, "ci", "ci-2", "CI two")
	if err != nil || len(rs) != 1 || rs[0].GroupID != "ci-2" {
		t.Fatalf("duplicate: %v %+v", err, rs)
	}
	if g, err := e.admin.UpdateGroup(ctx, rules.Group{ID: "ci-2", Name: "Renamed"}); err != nil ||
		g.Name != "Renamed" {
		t.Fatalf("update: %v %+v", err, g)
	}
	gs, err := e.admin.Groups(ctx)
	if err != nil || len(gs) != 4 { // default, agents, ci, ci-2
		t.Fatalf("groups: %v %+v", err, gs)
	}
	if err := e.admin.DeleteGroup(ctx, "ci-2"); err != nil {
		t.Fatal(err)
	}
	if rs, err := e.admin.Rules(ctx, ""); err != nil || len(filterGroup(rs, "ci-2")) != 0 {
		t.Fatal("rules of a deleted group remain", err)
	}

	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		method, path, body string
		status             int
		msg                string
	}{
		{"DELETE", "/api/tool-permission-groups/default", ``, 409, "protected"},
		{"DELETE", "/api/tool-permission-groups/agents", ``, 409,
			"protected"}, // a profile uses it
		{"DELETE", "/api/tool-permission-groups/nope", ``, 404, "not found"},
		{"POST", "/api/tool-permission-groups", `{"id":"ci"}`, 409, "already exists"},
		{"POST", "/api/tool-permission-groups", `{"id":"Bad Id"}`, 422, "invalid"},
		{"POST", "/api/tool-permission-groups", `{"id":"x",`, 400, "malformed JSON"},
		{"PUT", "/api/tool-permission-groups/nope", `{"name":"x"}`, 404, "not found"},
		{"PUT", "/api/tool-permission-groups/ci", `{"id":"other"}`, 400, "is not the path's"},
		{"POST", "/api/tool-permission-groups/nope/duplicate", `{"id":"z"}`, 404, "not found"},
		{"POST", "/api/tool-permission-groups/ci/duplicate", `{"id":"default"}`, 409,
			"already exists"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e.in(t).wantError(c.method, c.path, adminToken, c.body, c.status, c.msg)
		})
	}
	teststore.Unchanged(t, e.db, before)
}

func TestVisibleAndTools(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	if _, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: "agents",
		ToolPattern: "mcp__gmail__*", Action: rules.Deny}); err != nil {
		t.Fatal(err)
	}
	v, err := e.admin.Visible(ctx, api.VisibleRequest{Profile: "agents",
		Tools: []string{"Bash", "mcp__gmail__send"}})
	if err != nil || len(v.Visible) != 1 || v.Visible[0] != "Bash" || len(v.Hidden) != 1 ||
		v.Hidden[0] != "mcp__gmail__send" {
		t.Fatalf("visible: %v %+v", err, v)
	}
	// The agent token gets its profile without naming it.
	v, err = e.client(agentToken).Visible(ctx,
		api.VisibleRequest{Tools: []string{"mcp__gmail__send"}})
	if err != nil || len(v.Hidden) != 1 || v.Visible == nil {
		t.Fatalf("agent visible: %v %+v", err, v)
	}
	e.wantError("POST", "/api/approval/visible", adminToken, `{"group":"nope","tools":["Bash"]}`,
		422, "unknown group")
	e.wantError("POST", "/api/approval/visible", adminToken, `{"tools":"Bash"}`, 400,
		"malformed JSON")

	e.pending(e.admin, "s", "")
	if _, err := e.admin.Check(ctx,
		api.CheckRequest{Call: callOf("mcp__github__create_issue")}); err != nil {
		t.Fatal(err)
	}
	cat, err := e.admin.Tools(ctx)
	if err != nil || !slices.Contains(cat.BuiltIn, "Bash") ||
		!slices.Contains(cat.MCP, "mcp__github__create_issue") ||
		!slices.Contains(cat.MCPServers, "github") {
		t.Fatalf("tools: %v %+v", err, cat)
	}
}

// TestRuleDefaultGroup checks a new rule without group_id goes to default, as in the
// CLI and the chat commands, and that a bad rule without one is refused for what is
// wrong with it, not for the group.
func TestRuleDefaultGroup(t *testing.T) {
	e := newAPIEnv(t)
	st, body := e.do("POST", "/api/approval/rules", adminToken,
		strings.NewReader(`{"tool_pattern":"Read","action":"allow"}`))
	if st != http.StatusCreated || !strings.Contains(body, `"group_id":"default"`) {
		t.Fatalf("create without group_id: %d %s", st, body)
	}
	r, err := e.admin.CreateRule(context.Background(), rules.Rule{ToolPattern: "Glob",
		Action: rules.Allow, Priority: 5})
	if err != nil || r.GroupID != rules.DefaultGroup {
		t.Fatalf("client create with no group: %v %+v", err, r)
	}
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/approval/rules", adminToken,
		`{"tool_pattern":"a*b","action":"deny"}`, 422, `tool_pattern "a*b"`)
	e.wantError("POST", "/api/approval/rules", adminToken,
		`{"tool_pattern":"Bash","action":"maybe"}`, 422, `action "maybe"`)
	teststore.Unchanged(t, e.db, before)
}

// TestRuleUpdateMerges checks PUT merges a partial body onto the stored rule, that an
// explicit "" clears an optional field, that the client's UpdateRule replaces the
// whole rule, and that a bad partial body changes nothing.
func TestRuleUpdateMerges(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	r, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: "agents", ToolPattern: "Write",
		PathPattern: "out/*", AgentID: "bot-1", Action: rules.Allow, Note: "reports",
		Priority: 30})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/approval/rules/" + strconv.FormatUint(r.ID, 10)
	st, body := e.do("PUT", path, adminToken, strings.NewReader(`{"action":"deny"}`))
	if st != http.StatusOK {
		t.Fatalf("partial PUT: %d %s", st, body)
	}
	got := e.ruleByID(r.ID)
	want := r
	want.Action = rules.Deny
	if got != want {
		t.Fatalf("after {\"action\":\"deny\"}:\n got %+v\nwant %+v", got, want)
	}
	if st, body := e.do("PUT", path, adminToken,
		strings.NewReader(`{"note":"","priority":0}`)); st != http.StatusOK {
		t.Fatalf("clearing PUT: %d %s", st, body)
	}
	want.Note, want.Priority = "", 0
	if got := e.ruleByID(r.ID); got != want {
		t.Fatalf("after clearing the note:\n got %+v\nwant %+v", got, want)
	}
	// The client sends the whole rule: an empty path pattern clears it.
	repl := want
	repl.PathPattern, repl.AgentID = "", ""
	if _, err := e.admin.UpdateRule(ctx, repl); err != nil {
		t.Fatal(err)
	}
	if got := e.ruleByID(r.ID); got.PathPattern != "" || got.ResolvedPathPattern != "" ||
		got.AgentID != "" || got.ToolPattern != "Write" {
		t.Fatalf("after the client's update: %+v", got)
	}

	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"tool_pattern":"x*y"}`, 422, `tool_pattern "x*y"`},
		{`{"action":"maybe"}`, 422, `action "maybe"`},
		{`{"priority":-1}`, 422, "priority"},
		{`{"group_id":"nope"}`, 422, "unknown group"},
		{`{"id":99,"action":"deny"}`, 400, "is not the path's"},
		{`{"actoin":"deny"}`, 400, `unknown field "actoin"`},
		{``, 400, "a JSON body is required"},
	} {
		t.Run(c.body, func(t *testing.T) {
			e.in(t).wantError("PUT", path, adminToken, c.body, c.status, c.msg)
		})
	}
	e.wantError("PUT", "/api/approval/rules/99999", adminToken, `{"action":"deny"}`, 404,
		"update rule 99999: not found")
	teststore.Unchanged(t, e.db, before)
}

// ruleByID returns rule id as stored.
func (e *env) ruleByID(id uint64) rules.Rule {
	e.t.Helper()
	rs, err := e.db.Rules()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	e.t.Fatalf("rule %d not stored", id)
	return rules.Rule{}
}

// TestApplyRulesRoute applies a plan through the client; a refused one lists every
// problem with 422 and changes nothing, as does an unknown field.
func TestApplyRulesRoute(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(adminToken)
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/approval/rules/apply", adminToken, `{"create_rule":[]}`,
		http.StatusBadRequest, "unknown field")
	_, err := c.ApplyRules(context.Background(), store.RuleChanges{CreateRules: []rules.Rule{
		{ToolPattern: "a*b", Action: rules.Allow, Priority: 1},
		{ToolPattern: "x", Action: "maybe", Priority: 1},
	}})
	if err == nil || !strings.Contains(err.Error(), "422") ||
		!strings.Contains(err.Error(), `"a*b"`) || !strings.Contains(err.Error(), `"maybe"`) {
		t.Fatalf("ApplyRules of invalid rules = %v, want 422 listing both", err)
	}
	teststore.Unchanged(t, e.db, before)
	out, err := c.ApplyRules(context.Background(), store.RuleChanges{
		CreateGroups: []rules.Group{{ID: "new"}},
		CreateRules: []rules.Rule{
			{GroupID: "new", ToolPattern: "Bash", Action: rules.Allow, Priority: 5}},
	})
	if err != nil || len(out) != 1 || out[0].ID == 0 || out[0].GroupID != "new" {
		t.Fatalf("ApplyRules = %+v, %v", out, err)
	}
}
