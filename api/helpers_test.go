package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Tokens the tests use.
const (
	adminToken = "admin-secret-token"
	agentToken = "agent-secret-token"
	otherAgent = "other-agent-token"
)

// env is a real store in a temporary directory, a gate over it and an API Server
// serving on a loopback port, stopped (and checked to stop cleanly) at the end of the
// test.
type env struct {
	t       testing.TB
	root    string
	db      *store.DB
	gate    *gate.Manager
	srv     *api.Server
	metrics *api.Metrics
	url     string
	admin   *api.Client
	stop    func() // stops Serve, then the gate, and waits for both
}

// newAPIEnv builds the env with an admin token, two agent tokens (profile "agents",
// group "agents"; the first with agent_id "bot-1"), and edit applied to the options.
func newAPIEnv(t testing.TB, edit ...func(*api.Options)) *env {
	t.Helper()
	return newAPIEnvGate(t, nil, edit...)
}

// newAPIEnvGate is newAPIEnv with gedit (may be nil) applied to the gate's options.
func newAPIEnvGate(t testing.TB, gedit func(*gate.Options), edit ...func(*api.Options)) *env {
	t.Helper()
	return newAPIEnvStore(t, store.Options{}, gedit, edit...)
}

// newAPIEnvStore is newAPIEnvGate with the store opened with sopt.
func newAPIEnvStore(t testing.TB, sopt store.Options, gedit func(*gate.Options),
	edit ...func(*api.Options)) *env {
	t.Helper()
	root := filepath.Join(testkit.Dir(t, "ws/secrets"), "ws")
	db := teststore.Open(t, sopt)
	gopt := gate.Options{
		Store:    db,
		Rules:    rules.Options{WorkspaceRoot: root},
		Profiles: []rules.Profile{{ID: "agents", SecurityGroup: "agents", WorkingDirectory: root}},
	}
	if gedit != nil {
		gedit(&gopt)
	}
	g := testgate.New(t, gopt)
	stopGate := testgate.Run(t, g)

	e := &env{t: t, root: root, db: db, gate: g, metrics: api.NewMetrics()}
	opt := api.Options{
		Gate: g, Store: db, Token: adminToken, Metrics: e.metrics, Logger: testkit.Logger(),
		AgentTokens: []api.AgentToken{
			{Token: agentToken, Profile: "agents", AgentID: "bot-1"},
			{Token: otherAgent, Profile: "agents"},
		},
	}
	for _, f := range edit {
		f(&opt)
	}
	var err error
	e.srv, err = api.New(opt)
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	url, stopServe := testkit.Serve(t, e.srv.Serve)
	e.url = url
	e.stop = func() { stopServe(); stopGate() }
	e.admin = e.client(adminToken)
	return e
}

// in returns a copy of e whose helpers report to t: for the subtests of a table,
// which may not fail the test that started them.
func (e *env) in(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

// client returns an API client of the env's server with token.
func (e *env) client(token string) *api.Client {
	return api.NewClient(e.url, token)
}

// events opens GET /api/events with the admin token; the stream is closed when the
// test ends.
func (e *env) events() *http.Response {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), "GET", e.url+"/api/events", nil)
	testkit.Must(e.t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	testkit.Must(e.t, err)
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// do sends a raw request with token (token "" sends none), a body as JSON, and returns
// the status and body.
func (e *env) do(method, path, token string, body io.Reader) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	testkit.Must(e.t, err)
	return resp.StatusCode, string(b)
}

// wantError checks an error answer: its status and that its JSON error contains msg.
func (e *env) wantError(method, path, token, body string, status int, msg string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	got, b := e.do(method, path, token, rd)
	var eb struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(b), &eb); err != nil {
		e.t.Fatalf("%s %s: body %q is not a JSON error", method, path, b)
	}
	if got != status || !strings.Contains(eb.Error, msg) {
		e.t.Fatalf("%s %s = %d %q, want %d with %q", method, path, got, eb.Error, status, msg)
	}
}

// pending checks a Bash call that the seed rules send for approval, without waiting,
// and returns its request id.
func (e *env) pending(c *api.Client, session, toolCallID string) uint64 {
	e.t.Helper()
	res, err := c.Check(context.Background(), api.CheckRequest{Call: gate.Call{
		ToolName: "Bash", SessionID: session, ToolCallID: toolCallID,
		Arguments: map[string]any{"command": "rm -rf build"},
	}})
	if err != nil {
		e.t.Fatalf("check: %v", err)
	}
	if res.Decision != gate.VerdictPending || res.RequestID == 0 {
		e.t.Fatalf("check = %+v, want pending with a request", res)
	}
	return res.RequestID
}

// filterGroup is the rules of rs in group, in order.
func filterGroup(rs []rules.Rule, group string) []rules.Rule {
	var out []rules.Rule
	for _, r := range rs {
		if r.GroupID == group {
			out = append(out, r)
		}
	}
	return out
}

// callOf is a call of tool with no arguments in session "s".
func callOf(tool string) gate.Call {
	return gate.Call{ToolName: tool, SessionID: "s", Arguments: map[string]any{}}
}
