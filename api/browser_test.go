package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
)

// raw sends one request with the given headers (Host too) through a real client and
// returns the status and the JSON error ("" when the answer is not one).
func (e *env) raw(method, path, body string, headers map[string]string) (int, string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	var eb struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &eb)
	return resp.StatusCode, eb.Error
}

// TestBrowserAttacksRefused: what a web page can send — a text/plain "simple" POST
// from a foreign origin, a rebound DNS name in Host — is refused with a clear error
// before anything runs, admin token or not, and the store is unchanged.
func TestBrowserAttacksRefused(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "t1")
	before := teststore.Snapshot(t, e.db)
	bearer := "Bearer " + adminToken
	const (
		origin = "forbidden: a call from origin \"https://evil.example\" is refused"
		host   = "forbidden: host \"evil.example\" is not this service"
		media  = "unsupported media type \"text/plain\": " +
			"send the body as Content-Type: application/json"
		evil    = "https://evil.example"
		rule    = `{"action":"allow","tool_pattern":"Bash","priority":0}`
		approve = `{"action":"approve","bypass_secs":0,"bypass_scope":"all"}`
	)
	cases := []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		msg                      string
	}{
		{"text/plain rule from another origin", "POST", "/api/approval/rules", rule,
			map[string]string{"Content-Type": "text/plain", "Origin": evil}, 403, origin},
		{"text/plain rule from another origin, admin token", "POST", "/api/approval/rules", rule,
			map[string]string{"Content-Type": "text/plain", "Origin": evil,
				"Authorization": bearer}, 403, origin},
		{"text/plain resolve from another origin", "POST",
			"/api/inbox/approvals/" + testkit.ID(id) + "/resolve", approve,
			map[string]string{"Content-Type": "text/plain", "Origin": evil,
				"Authorization": bearer}, 403, origin},
		{"JSON resolve from another origin", "POST",
			"/api/inbox/approvals/" + testkit.ID(id) + "/resolve", approve,
			map[string]string{"Content-Type": "application/json", "Origin": evil,
				"Authorization": bearer}, 403, origin},
		{"text/plain rule, same origin", "POST", "/api/approval/rules", rule,
			map[string]string{"Content-Type": "text/plain", "Authorization": bearer}, 415, media},
		{"form resolve", "POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", "action=approve",
			map[string]string{"Content-Type": "application/x-www-form-urlencoded",
				"Authorization": bearer}, 415, "unsupported media type"},
		{"body without a type", "PUT", "/api/approval/rules/1", `{"action":"allow"}`,
			map[string]string{"Authorization": bearer}, 415, `unsupported media type ""`},
		{"null origin", "POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", approve,
			map[string]string{"Content-Type": "application/json", "Origin": "null",
				"Authorization": bearer}, 403, `origin "null"`},
		{"localhost origin on 127.0.0.1", "DELETE", "/api/approval/rules/1", "",
			map[string]string{"Origin": "http://localhost" + e.url[strings.LastIndex(e.url, ":"):],
				"Authorization": bearer}, 403, "is refused"},
		{"foreign host, backup", "GET", "/api/backup", "",
			map[string]string{"Host": "evil.example", "Authorization": bearer}, 403, host},
		{"foreign host, events", "GET", "/api/events", "",
			map[string]string{"Host": "evil.example", "Authorization": bearer}, 403, host},
		{"foreign host, healthz", "GET", "/healthz", "",
			map[string]string{"Host": "evil.example"}, 403, host},
		{"foreign host, metrics", "GET", "/metrics", "",
			map[string]string{"Host": "evil.example:8377"}, 403, `host "evil.example:8377"`},
		{"foreign host, resolve", "POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", approve,
			map[string]string{"Host": "evil.example", "Content-Type": "application/json",
				"Authorization": bearer}, 403, host},
		{"loopback look-alike host", "GET", "/api/inbox", "",
			map[string]string{"Host": "127.0.0.1.evil.example", "Authorization": bearer},
			403, "is not this service"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, msg := e.raw(c.method, c.path, c.body, c.headers)
			if st != c.status || !strings.Contains(msg, c.msg) {
				t.Fatalf("%s %s = %d %q, want %d with %q",
					c.method, c.path, st, msg, c.status, c.msg)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	// The service's own origin, localhost and a JSON type with parameters are fine.
	port := e.url[strings.LastIndex(e.url, ":"):]
	for _, h := range []map[string]string{
		{"Origin": e.url},
		{"Host": "localhost" + port, "Origin": "http://localhost" + port},
		{"Host": "[::1]" + port},
	} {
		h["Authorization"], h["Content-Type"] = bearer, "application/json; charset=utf-8"
		if st, msg := e.raw("POST", "/api/approval/visible", `{"tools":["Bash"]}`, h); st != 200 {
			t.Errorf("%v: %d %q, want 200", h, st, msg)
		}
	}
}

// TestAllowedHosts: a host of api.allowed_hosts is answered, on its port only when it
// names one; an https entry's origin is accepted (a TLS proxy in front).
func TestAllowedHosts(t *testing.T) {
	e := newAPIEnv(t, func(o *api.Options) {
		o.AllowedHosts = []api.AllowedHost{{Host: "skald.lan", Port: "8377"},
			{Host: "Skald.Example", HTTPS: true}}
	})
	bearer := "Bearer " + adminToken
	cases := []struct {
		host, origin string
		status       int
	}{
		{"skald.lan:8377", "", 200},
		{"SKALD.lan:8377", "http://skald.lan:8377", 200},
		{"skald.lan:9000", "", 403},
		{"skald.lan", "", 403},
		{"skald.example", "https://skald.example", 200},
		{"127.0.0.1", "https://skald.example", 200}, // a proxy that rewrites Host
		{"skald.example:443", "https://skald.example:8443", 403},
		{"skald.example", "http://evil.example", 403},
		{"skald.lan:8377", "https://skald.lan:8377", 403}, // no https entry for it
	}
	for _, c := range cases {
		t.Run(c.host+" "+c.origin, func(t *testing.T) {
			h := map[string]string{"Host": c.host, "Authorization": bearer}
			if c.origin != "" {
				h["Origin"] = c.origin
			}
			if st, msg := e.raw("GET", "/api/inbox", "", h); st != c.status {
				t.Fatalf("Host %q Origin %q: %d %q, want %d", c.host, c.origin, st, msg, c.status)
			}
		})
	}
}

// TestLocalCaller: with a generated admin token and no agent tokens, the agent routes
// take calls without a token as the local caller, which can never approve, reject,
// bypass or change rules, nor see or cancel a request it did not make.
func TestLocalCaller(t *testing.T) {
	e := newAPIEnv(t, func(o *api.Options) { o.Generated, o.AgentTokens = true, nil })
	ctx := context.Background()
	local := e.client("")
	id := e.pending(local, "s", "t1")
	q, err := local.Request(ctx, id, 0)
	if err != nil || q.Caller != "local" {
		t.Fatalf("the local caller's own request: %+v %v", q, err)
	}
	adminID := e.pending(e.admin, "s2", "t2")
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", `{"action":"approve"}`},
		{"POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", `{"action":"reject"}`},
		{"POST", "/api/tools/t1/resolve", `{"action":"approve"}`},
		{"POST", "/api/approval/rules", `{"action":"allow","tool_pattern":"Bash"}`},
		{"DELETE", "/api/approval/rules/1", ""},
		{"POST", "/api/sessions/s/bypass", `{"secs":0}`},
		{"POST", "/api/sessions/s/cancel", ""},
		{"GET", "/api/inbox", ""},
		{"GET", "/api/backup", ""},
		{"GET", "/api/events", ""},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e.in(t).wantError(c.method, c.path, "", c.body, http.StatusUnauthorized,
				"unauthorized: this call needs the admin token")
			teststore.Unchanged(t, e.db, before)
		})
	}
	e.wantError("GET", "/api/approval/requests/"+testkit.ID(adminID), "", "", http.StatusForbidden,
		"made by another caller")
	e.wantError("POST", "/api/approval/requests/"+testkit.ID(adminID)+"/cancel", "", "",
		http.StatusForbidden, "made by another caller")
	e.wantError("POST", "/api/approval/check", "",
		`{"tool_name":"Bash","session_id":"s","source":"cron","arguments":{"command":"ls"}}`,
		http.StatusForbidden, "may not claim source cron")
	teststore.Unchanged(t, e.db, before)
	if _, err := local.Cancel(ctx, id, "terminal"); err != nil {
		t.Fatalf("the local caller cancels its own request: %v", err)
	}
	// A wrong token is not the local caller.
	e.wantError("POST", "/api/approval/check", "wrong-token-0123456789",
		`{"tool_name":"TodoWrite","session_id":"s"}`, 401, "unknown token")
}

// TestNoLocalCallerWithTokens: a configured admin token, or any agent token, closes
// the token-less routes.
func TestNoLocalCallerWithTokens(t *testing.T) {
	for name, edit := range map[string]func(*api.Options){
		"configured admin token": func(o *api.Options) { o.AgentTokens = nil },
		"agent tokens":           func(o *api.Options) { o.Generated = true },
	} {
		t.Run(name, func(t *testing.T) {
			e := newAPIEnv(t, edit)
			before := teststore.Snapshot(t, e.db)
			e.in(t).wantError("POST", "/api/approval/check", "",
				`{"tool_name":"Bash","session_id":"s","arguments":{"command":"ls"}}`,
				http.StatusUnauthorized, "needs the admin token")
			teststore.Unchanged(t, e.db, before)
			if _, err := e.admin.Check(context.Background(), api.CheckRequest{
				Call: gate.Call{ToolName: "TodoWrite", SessionID: "s"}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
