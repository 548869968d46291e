package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

func TestAuthNeedsTheToken(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, tok := range []string{"", "wrong", adminToken + "x", "admin-secret-toke"} {
		e.wantError("GET", "/api/inbox", tok, "", http.StatusUnauthorized, "unauthorized")
		e.wantError("POST", "/api/approval/check", tok, `{"tool_name":"Bash","session_id":"s"}`,
			http.StatusUnauthorized, "unauthorized")
	}
	// A scheme other than Bearer is refused too.
	req, err := http.NewRequest("GET", e.url+"/api/inbox", nil)
	testkit.Must(t, err)
	req.Header.Set("Authorization", "Basic "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("Basic auth: %d, want 401", resp.StatusCode)
	}
	teststore.Unchanged(t, e.db, before)

	if st, _ := e.do("GET", "/api/inbox", adminToken, nil); st != http.StatusOK {
		t.Fatalf("admin token: %d", st)
	}
	// Unknown routes under /api/ answer 401 before 404, so they reveal nothing.
	e.wantError("GET", "/api/nope", "", "", http.StatusUnauthorized, "unauthorized")
	for _, p := range []string{"/healthz", "/metrics"} {
		if st, body := e.do("GET", p, "", nil); st != http.StatusOK {
			t.Fatalf("GET %s without a token: %d %s", p, st, body)
		}
	}
}

func TestClientErrorsCarryStatusAndMessage(t *testing.T) {
	e := newAPIEnv(t)
	_, err := e.client("wrong").Inbox(context.Background())
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Message != "unauthorized: unknown token" {
		t.Fatalf("err = %#v, want *api.Error 401 unauthorized", err)
	}
	if !errors.Is(err, api.ErrUnauthorized) || errors.Is(err, api.ErrNotFound) {
		t.Fatalf("errors.Is mapping wrong for %v", err)
	}
	if err.Error() != "401: unauthorized: unknown token" {
		t.Fatalf("Error() = %q", err.Error())
	}
	// A transport failure is not an *api.Error.
	_, err = api.NewClient("http://127.0.0.1:1", "").Inbox(context.Background())
	if err == nil || errors.As(err, &ae) {
		t.Fatalf("closed port: err = %v, want a transport error", err)
	}
}

func TestNewRefusesBadTokens(t *testing.T) {
	e := newAPIEnv(t)
	const tok = "0123456789abcdef"
	cases := []struct {
		name string
		opt  api.Options
		msg  string
	}{
		{"no admin token", api.Options{AgentTokens: []api.AgentToken{{Token: agentToken}}},
			"the admin token is required"},
		{"one-character admin token", api.Options{Token: "T"},
			"the admin token must be at least 16 characters"},
		{"15 characters", api.Options{Token: tok[:15]},
			"the admin token must be at least 16 characters"},
		{"padded admin token", api.Options{Token: " " + tok},
			"must not begin or end with white space"},
		{"empty agent token", api.Options{Token: tok, AgentTokens: []api.AgentToken{{Token: ""}}},
			"agent token 1 is required"},
		{"short agent token", api.Options{Token: tok, AgentTokens: []api.AgentToken{{Token: "a"}}},
			"agent token 1 must be at least 16"},
		{"agent token = admin",
			api.Options{Token: tok, AgentTokens: []api.AgentToken{{Token: tok}}},
			"agent token 1 repeats another token"},
		{"agent token = admin and a space",
			api.Options{Token: tok, AgentTokens: []api.AgentToken{{Token: tok + " "}}},
			"agent token 1 must not begin or end with white space"},
		{"repeated agent token",
			api.Options{Token: tok,
				AgentTokens: []api.AgentToken{{Token: agentToken}, {Token: agentToken}}},
			"agent token 2 repeats another token"},
		{"empty allowed host",
			api.Options{Token: tok, AllowedHosts: []api.AllowedHost{{Port: "80"}}},
			"allowed host 1 has no host"},
		{"no gate", api.Options{Token: tok}, "Gate and Store are required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "no gate" {
				c.opt.Gate, c.opt.Store = e.gate, e.db
			}
			if _, err := api.New(c.opt); !errors.Is(err, api.ErrInvalid) ||
				!strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v, want ErrInvalid with %q", err, c.msg)
			}
		})
	}
}

// TestTokensComparedExactly: no trimming, case folding or prefix match lets a near miss
// of the admin token or of an agent token in, on a read or on a check: 401 naming an
// unknown token, and the store unchanged. The token itself, as net/http delivers the
// header (its surrounding white space already gone), is accepted.
func TestTokensComparedExactly(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	var headers []string
	for _, tok := range []string{adminToken, agentToken} {
		headers = append(headers, "Bearer  "+tok, "Bearer "+tok+"x", "Bearer "+tok[:17],
			"Bearer\t"+tok, "Basic "+tok, tok, "Bearer "+tok+"\u00a0", "Bearer \u00a0"+tok,
			"Bearer "+strings.ToUpper(tok), "Bearer "+tok+tok)
	}
	headers = append(headers, "Bearer", "Bearer ")
	check := `{"tool_name":"Bash","session_id":"s","arguments":{"command":"rm -rf /"}}`
	for _, h := range headers {
		t.Run(h, func(t *testing.T) {
			for _, c := range []struct{ method, path, body string }{
				{"GET", "/api/inbox", ""}, {"POST", "/api/approval/check", check},
			} {
				var body io.Reader
				if c.body != "" {
					body = strings.NewReader(c.body)
				}
				req, err := http.NewRequest(c.method, e.url+c.path, body)
				testkit.Must(t, err)
				req.Header.Set("Authorization", h)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				testkit.Must(t, err)
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				testkit.Must(t, err)
				if resp.StatusCode != http.StatusUnauthorized ||
					!strings.Contains(string(b), "unauthorized") {
					t.Errorf("%s %s: %d %s, want 401 unauthorized", c.method, c.path,
						resp.StatusCode, b)
				}
			}
		})
	}
	teststore.Unchanged(t, e.db, before)
	if _, err := e.client(adminToken).Inbox(context.Background()); err != nil {
		t.Fatalf("the admin token: %v", err)
	}
}

func TestAgentTokenRole(t *testing.T) {
	e := newAPIEnv(t)
	agent := e.client(agentToken)
	ctx := context.Background()
	before := teststore.Snapshot(t, e.db)

	// Beyond its role: 403, nothing changes.
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/inbox", ""},
		{"POST", "/api/inbox/approvals/1/resolve", `{"action":"approve"}`},
		{"POST", "/api/tools/t1/resolve", `{"action":"approve"}`},
		{"GET", "/api/approval/rules", ""},
		{"POST", "/api/approval/rules",
			`{"tool_pattern":"Bash","action":"allow","group_id":"default"}`},
		{"POST", "/api/approval/rules/apply", `{"create_groups":[{"id":"x"}]}`},
		{"DELETE", "/api/tool-permission-groups/agents", ""},
		{"POST", "/api/sessions/s/bypass", `{"secs":0}`},
		{"POST", "/api/sessions/s/cancel", ""},
		{"GET", "/api/audit", ""},
		{"GET", "/api/events", ""},
		{"POST", "/api/approval/check",
			`{"tool_name":"Bash","session_id":"s","profile":"default"}`},
		{"POST", "/api/approval/check", `{"tool_name":"Bash","session_id":"s","group":"default"}`},
		{"POST", "/api/approval/check", `{"tool_name":"Bash","session_id":"s","source":"cron"}`},
		{"POST", "/api/approval/visible", `{"profile":"default","tools":["Bash"]}`},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e.in(t).wantError(c.method, c.path, agentToken, c.body, http.StatusForbidden, "")
		})
	}
	teststore.Unchanged(t, e.db, before)

	// Its own check: evaluated in its profile, with its agent id, recorded with the
	// token's name and never the token.
	id := e.pending(agent, "s1", "t1")
	q, err := e.db.Request(id)
	if err != nil {
		t.Fatal(err)
	}
	if q.Profile != "agents" || q.GroupID != "agents" || q.AgentID != "bot-1" ||
		q.Caller != api.TokenName(agentToken) {
		t.Fatalf("request = profile %q group %q agent %q caller %q",
			q.Profile, q.GroupID, q.AgentID, q.Caller)
	}
	if strings.Contains(q.Caller, agentToken) {
		t.Fatal("the request holds the token itself")
	}
	// The group of its own profile may be named.
	if _, err := agent.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "TodoWrite",
		SessionID: "s1", Group: "agents"}}); err != nil {
		t.Fatalf("check naming its own group: %v", err)
	}

	// It reads its own request; another agent token may neither read nor cancel it.
	if got, err := agent.Request(ctx, id, 0); err != nil || got.ID != id {
		t.Fatalf("own request: %v %+v", err, got)
	}
	other := e.client(otherAgent)
	if _, err := other.Request(ctx, id, 0); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("another token's request: %v, want 403", err)
	}
	if _, err := other.Cancel(ctx, id, "x"); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("cancel another token's request: %v, want 403", err)
	}
	if _, err := agent.Resolve(ctx, id,
		api.ResolveRequest{Action: "approve"}); !errors.Is(err, api.ErrForbidden) {
		t.Fatalf("an agent approving its own request: %v, want 403", err)
	}
	if q2, err := e.db.Request(id); err != nil || q2.Status != store.Pending {
		t.Fatalf("status = %s after refused calls (err %v)", q2.Status, err)
	}

	// It cancels its own request.
	got, err := agent.Cancel(ctx, id, "terminal")
	if err != nil || got.Status != store.Cancelled || got.Resolution.Note != "terminal" {
		t.Fatalf("cancel own request: %v %+v", err, got)
	}
	// Visibility is held to its profile.
	if _, err := agent.Visible(ctx, api.VisibleRequest{Tools: []string{"Bash"}}); err != nil {
		t.Fatalf("visible: %v", err)
	}
}

// TestAgentTokenCannotReadAnotherTokensOutcome: the idempotency key does not let one
// agent token learn the outcome of another's request — the same call from another
// token is 409, naming no request (docs/design.md, "Idempotency").
func TestAgentTokenCannotReadAnotherTokensOutcome(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	agent, other := e.client(agentToken), e.client(otherAgent)
	id := e.pending(agent, "a", "a1")
	if _, err := e.admin.Resolve(ctx, id, api.ResolveRequest{Action: "approve"}); err != nil {
		t.Fatal(err)
	}
	before := teststore.Snapshot(t, e.db)
	body := `{"tool_name":"Bash","session_id":"a","tool_call_id":"a1",` +
		`"arguments":{"command":"rm -rf build"}}`
	e.wantError("POST", "/api/approval/check", otherAgent, body, http.StatusConflict,
		`tool call "a1" of session "a": tool_call_id reused for a different call: `+
			`made by another caller`)
	_, err := other.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash", SessionID: "a",
		ToolCallID: "a1", Arguments: map[string]any{"command": "rm -rf build"}}})
	if !errors.Is(err, api.ErrConflict) ||
		strings.Contains(err.Error(), fmt.Sprintf("request %d", id)) ||
		strings.Contains(err.Error(), "approved") {
		t.Fatalf("another token's repeat: %v, want 409 naming no request", err)
	}
	teststore.Unchanged(t, e.db, before)
	// The token that made it still gets its outcome.
	res, err := agent.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash", SessionID: "a",
		ToolCallID: "a1", Arguments: map[string]any{"command": "rm -rf build"}}})
	if err != nil || res.Decision != gate.VerdictApproved || res.RequestID != id {
		t.Fatalf("the same token's repeat: %+v %v, want approved", res, err)
	}
}
