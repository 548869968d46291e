package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
	"github.com/skald-circle/skald-bot/web"
)

// Only the admin token signs in; the session cookie is HttpOnly, SameSite=Strict,
// with an expiry, and not Secure over plain HTTP.
func TestSignIn(t *testing.T) {
	e := newWebEnv(t)
	for _, tc := range []struct {
		name, token string
		status      int
		want        string
	}{
		{"admin", adminToken, http.StatusSeeOther, ""},
		{"agent token", agentToken, http.StatusUnauthorized, "an agent token cannot sign in"},
		{"unknown", "some-other-token-000", http.StatusUnauthorized, "unknown token"},
		{"empty", "", http.StatusUnauthorized, "unknown token"},
		{"admin with a space", adminToken + " ", http.StatusUnauthorized, "unknown token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := e.browser()
			resp, body := b.signIn(tc.token)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("sign-in: %d, want %d with %q\n%s",
					resp.StatusCode, tc.status, tc.want, body)
			}
			var sess *http.Cookie
			for _, c := range resp.Cookies() {
				if c.Name == web.SessionCookie {
					sess = c
				}
			}
			if tc.status != http.StatusSeeOther {
				if sess != nil {
					t.Errorf("a refused sign-in set a session cookie: %v", sess)
				}
				if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther ||
					resp.Header.Get("Location") != "/signin" {
					t.Errorf("inbox after a refused sign-in: %d %s",
						resp.StatusCode, resp.Header.Get("Location"))
				}
				return
			}
			if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteStrictMode ||
				sess.MaxAge != int(web.DefaultSessionTTL/time.Second) || sess.Secure ||
				sess.Path != "/" {
				t.Fatalf("session cookie %+v", sess)
			}
		})
	}
}

// The sign-in form needs its own CSRF token: a POST without it is refused.
func TestSignInWithoutCSRF(t *testing.T) {
	e := newWebEnv(t)
	b := e.browser()
	resp, body := b.do("POST", "/signin", url.Values{"token": {adminToken}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "CSRF token") {
		t.Fatalf("sign-in without the token: %d\n%s", resp.StatusCode, body)
	}
	if len(resp.Cookies()) != 0 {
		t.Errorf("cookies set: %v", resp.Cookies())
	}
}

// Behind a TLS proxy (an https allowed host) the cookies are Secure.
func TestSecureCookieBehindTLS(t *testing.T) {
	e := newWebEnv(t, func(w *web.Options, a *api.Options) {
		hosts := []api.AllowedHost{{Host: "skald.example", HTTPS: true}}
		w.AllowedHosts, a.AllowedHosts = hosts, hosts
	})
	b := e.browser()
	hdr := []string{"Host", "skald.example", "Origin", "https://skald.example"}
	resp, body := b.do("GET", "/signin", nil, hdr[:2]...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign-in page: %d\n%s", resp.StatusCode, body)
	}
	c := resp.Cookies()
	if len(c) != 1 || !c[0].Secure {
		t.Fatalf("sign-in cookie %+v", c)
	}
	req, err := http.NewRequest("POST", e.url+"/signin", strings.NewReader(
		url.Values{"token": {adminToken}, "csrf": {c[0].Value}}.Encode()))
	testkit.Must(t, err)
	req.Host = "skald.example"
	req.Header.Set("Origin", "https://skald.example")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c[0])
	resp, err = b.c.Do(req)
	testkit.Must(t, err)
	resp.Body.Close()
	var sess *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == web.SessionCookie {
			sess = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || sess == nil || !sess.Secure {
		t.Fatalf("sign-in behind TLS: %d, session cookie %+v", resp.StatusCode, sess)
	}
}

// A foreign Origin is refused before the web inbox runs, as for the API.
func TestForeignOriginRefused(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	id := e.pending(nil)
	before := teststore.Snapshot(t, e.db)
	resp, body := b.do("POST", "/approvals/"+testkit.ID(id), url.Values{"action": {"approve"},
		"csrf": {b.csrf}}, "Origin", "http://evil.example")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "origin") {
		t.Fatalf("foreign origin: %d\n%s", resp.StatusCode, body)
	}
	teststore.Unchanged(t, e.db, before)
}

// Every POST without the session's CSRF token, or with a wrong one, is refused and
// changes nothing.
func TestPostWithoutCSRF(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	id := e.pending(nil)
	rs, err := e.gate.Rules(rules.DefaultGroup)
	testkit.Must(t, err)
	rid := testkit.ID(rs[0].ID)
	for _, tc := range []struct{ path string }{
		{"/approvals/" + testkit.ID(id)}, {"/rules"}, {"/rules/fs"}, {"/rules/tool"},
		{"/rules/" + rid + "/delete"}, {"/rules/" + rid + "/action"}, {"/groups"},
		{"/groups/default"}, {"/groups/default/duplicate"}, {"/signout"},
	} {
		for _, csrf := range []string{"", "wrong", b.csrf + "x"} {
			t.Run(tc.path+"/"+csrf, func(t *testing.T) {
				before := teststore.Snapshot(t, e.db)
				form := url.Values{"action": {"approve"}, "group": {"default"}, "id": {"g2"},
					"new_id": {"g3"}, "tool_pattern": {"x"}, "path": {"data/x/*"},
					"mode": {"deny"}, "tool": {"x"}}
				if csrf != "" {
					form.Set("csrf", csrf)
				}
				resp, body := b.do("POST", tc.path, form)
				if resp.StatusCode != http.StatusForbidden ||
					!strings.Contains(body, "CSRF token") {
					t.Fatalf("%d\n%s", resp.StatusCode, body)
				}
				teststore.Unchanged(t, e.db, before)
			})
		}
	}
	// The session survived: the right token still works.
	form := url.Values{"action": {"reject"}}
	resp, body := b.post("/approvals/"+testkit.ID(id), form)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("with the token: %d\n%s", resp.StatusCode, body)
	}
}

// The session cookie authenticates the web routes only: /api/* stays bearer-token.
func TestCookieDoesNotAuthenticateAPI(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	id := e.pending(nil)
	before := teststore.Snapshot(t, e.db)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/inbox", ""},
		{"GET", "/api/audit", ""},
		{"POST", "/api/inbox/approvals/" + testkit.ID(id) + "/resolve", `{"action":"approve"}`},
		{"POST", "/api/approval/rules", `{"tool_pattern":"x","action":"allow"}`},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, e.url+tc.path, strings.NewReader(tc.body))
			testkit.Must(t, err)
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := b.c.Do(req)
			testkit.Must(t, err)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%d, want 401", resp.StatusCode)
			}
		})
	}
	teststore.Unchanged(t, e.db, before)
	resp := b.events()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("the page's own event stream: %d %s",
			resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// The inbox's event stream opens with its comment, then carries the approval events
// of the gate, and is not cached.
func TestEventStream(t *testing.T) {
	e := newWebEnv(t)
	resp := e.signedIn().events()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("events: %d %v", resp.StatusCode, resp.Header)
	}
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); err != nil || line != ": skald-bot inbox\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	id := e.pending(nil)
	if name, data := testkit.ReadEvent(t, r); name != gate.EventApprovalRequested ||
		!strings.Contains(data, `"request_id":`+testkit.ID(id)) {
		t.Fatalf("event %s %s", name, data)
	}
}

// Pages carry the strict CSP and framing headers; the event stream and the pages
// need a session.
func TestHeadersAndSession(t *testing.T) {
	e := newWebEnv(t)
	anon := e.browser()
	resp, _ := anon.do("GET", "/signin", nil)
	if got := resp.Header.Get("Content-Security-Policy"); got != web.CSP ||
		!strings.Contains(got, "script-src 'self'") || strings.Contains(got, "unsafe") {
		t.Errorf("CSP %q", got)
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", resp.Header)
	}
	for _, p := range []string{"/", "/rules", "/groups", "/audit", "/jobs", "/profiles"} {
		if resp, _ := anon.do("GET", p, nil); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("GET %s without a session: %d", p, resp.StatusCode)
		}
	}
	if resp, _ := anon.do("GET", "/events", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("events without a session: %d", resp.StatusCode)
	}
	b := e.signedIn()
	for _, p := range []string{"/", "/rules", "/rules?group=default", "/groups", "/audit",
		"/audit?action=rule&limit=5", "/jobs", "/profiles", "/static/app.css", "/static/app.js"} {
		if resp, body := b.do("GET", p, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d\n%s", p, resp.StatusCode, body)
		}
	}
	// A session ends at its expiry, and at sign-out.
	e.clock.Add(web.DefaultSessionTTL)
	if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("inbox after the session expired: %d", resp.StatusCode)
	}
	b = e.signedIn()
	if resp, _ := b.post("/signout", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", resp.StatusCode)
	}
	if resp, _ := b.do("GET", "/", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("inbox after sign-out: %d", resp.StatusCode)
	}
}

// Arguments holding markup, quotes and bidi characters are shown inert and visible.
func TestArgumentsShownInert(t *testing.T) {
	e := newWebEnv(t)
	id := e.pending(map[string]any{
		"html":  `<script>alert("x")</script><img src=x onerror=alert(1)>`,
		"quote": `it's "quoted"`,
		"bidi":  "safe\u202Etxt.exe\u2066",
	})
	b := e.signedIn()
	resp, body := b.do("GET", "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	for _, want := range []string{`&lt;script&gt;alert(\&#34;x\&#34;)&lt;/script&gt;`,
		`&lt;img src=x onerror=alert(1)&gt;`, `it&#39;s \&#34;quoted\&#34;`,
		`safe\u202Etxt.exe\u2066`, `id="req-` + testkit.ID(id) + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "\u202E", "\u2066"} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds %q raw", bad)
		}
	}
	if strings.Contains(body, "<script>") || strings.Count(body, "<script") != 1 {
		t.Errorf("page holds a script other than app.js")
	}
}

// Approving with ⏱ from the web inbox resolves through the API's path: approved by
// admin via web, with the bypass; a second try is refused on the page.
func TestResolveFromWeb(t *testing.T) {
	e := newWebEnv(t)
	id := e.pending(nil)
	b := e.signedIn()
	resp, _ := b.post("/approvals/"+testkit.ID(id), url.Values{"action": {"short"}, "note": {"fine"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("resolve: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	q, err := e.db.Request(id)
	testkit.Must(t, err)
	res := q.Resolution
	if q.Status != store.Approved || res == nil || res.By != "admin" || res.Via != "web" ||
		res.Note != "fine" || res.Bypass == nil || res.Bypass.Secs != 15*60 {
		t.Fatalf("request %+v, resolution %+v", q, res)
	}
	_, body := b.do("GET", "/", nil)
	if !strings.Contains(body, "Request "+testkit.ID(id)+" approved, with a 15 min bypass.") {
		t.Errorf("no flash:\n%s", body)
	}
	before := teststore.Snapshot(t, e.db)
	for _, tc := range []struct {
		action string
		status int
		want   string
	}{
		{"reject", http.StatusConflict, "already approved by admin"},
		{"bogus", http.StatusBadRequest, `unknown action "bogus"`},
	} {
		t.Run(tc.action, func(t *testing.T) {
			resp, body := b.post("/approvals/"+testkit.ID(id), url.Values{"action": {tc.action}})
			if resp.StatusCode != tc.status || !shows(body, tc.want) {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
}

// The File System panel writes one @fs_* rule per row, deeper paths first; a second
// catch-all with another action is refused with the guard's message on the page.
func TestRulesPanels(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	for _, tc := range []struct {
		path, mode string
		tool       string
		action     rules.Action
		priority   int
	}{
		{"data/reports/*", "read", rules.ClassFSRead, rules.Allow, 4},
		{"data/reports/2026/q1/*", "deny", rules.ClassFSAny, rules.Deny, 2},
		{"logs/*", "require", rules.ClassFSAny, rules.Require, 5},
		{"out/*", "write", rules.ClassFSAny, rules.Allow, 5},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := b.post("/rules/fs", url.Values{"group": {"default"}, "path": {tc.path},
				"mode": {tc.mode}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			rs, err := e.gate.Rules("default")
			testkit.Must(t, err)
			var got *rules.Rule
			for i := range rs {
				if rs[i].PathPattern == tc.path {
					got = &rs[i]
				}
			}
			if got == nil || got.ToolPattern != tc.tool || got.Action != tc.action ||
				got.Priority != tc.priority {
				t.Fatalf("rule %+v", got)
			}
			_, body = b.do("GET", "/rules", nil)
			if !strings.Contains(body, `data-path="`+tc.path+`"`) {
				t.Errorf("rules page lacks the row")
			}
		})
	}
	for _, tc := range []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"second catch-all", "/rules", url.Values{"group": {"default"}, "panel": {"low"},
			"tool_pattern": {"*"}, "action": {"deny"}, "priority": {"500"}},
			http.StatusUnprocessableEntity, "group default already has a catch-all"},
		{"bad action", "/rules", url.Values{"group": {"default"}, "panel": {"overrides"},
			"tool_pattern": {"x"}, "action": {"maybe"}}, http.StatusUnprocessableEntity, "maybe"},
		{"bad priority", "/rules", url.Values{"group": {"default"}, "panel": {"overrides"},
			"tool_pattern": {"x"}, "action": {"allow"}, "priority": {"ten"}},
			http.StatusUnprocessableEntity, `priority "ten" is not a whole number`},
		{"fs bad mode", "/rules/fs", url.Values{"group": {"default"}, "path": {"a/*"},
			"mode": {"maybe"}}, http.StatusUnprocessableEntity, `unknown mode "maybe"`},
		{"fs no path", "/rules/fs", url.Values{"group": {"default"}, "path": {" "},
			"mode": {"deny"}}, http.StatusUnprocessableEntity, "a path is required"},
		{"unknown group", "/rules/fs", url.Values{"group": {"nope"}, "path": {"a/*"},
			"mode": {"deny"}}, http.StatusUnprocessableEntity, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			resp, body := b.post(tc.path, tc.form)
			if resp.StatusCode != tc.status || !shows(body, tc.want) ||
				!strings.Contains(body, `role="alert"`) {
				t.Fatalf("%d, want %d with %q\n%s", resp.StatusCode, tc.status, tc.want, body)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	// The matrix: a tool set to deny, then back to —.
	for _, action := range []string{"deny", "allow", ""} {
		resp, body := b.post("/rules/tool", url.Values{"group": {"default"}, "tool": {"WebFetch"},
			"action": {action}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("matrix %q: %d\n%s", action, resp.StatusCode, body)
		}
		rs, err := e.gate.Rules("default")
		testkit.Must(t, err)
		n := 0
		for _, r := range rs {
			if r.ToolPattern == "WebFetch" {
				n++
				if string(r.Action) != action || r.Priority != rules.DefaultPriority {
					t.Errorf("matrix %q: rule %+v", action, r)
				}
			}
		}
		if want := min(len(action), 1); n != want {
			t.Errorf("matrix %q: %d rules, want %d", action, n, want)
		}
	}
}

// TestRulesHostPattern: the rule form takes a host pattern, the page shows it, the
// Tools row of the tool leaves the host rule alone, and a host pattern on another
// tool is refused in its panel with the store unchanged.
func TestRulesHostPattern(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	resp, body := b.post("/rules", url.Values{"group": {"default"}, "panel": {"overrides"},
		"tool_pattern": {"WebFetch"}, "action": {"allow"}, "priority": {"100"},
		"host_pattern": {" *.example.com "}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("%d\n%s", resp.StatusCode, body)
	}
	hostRule := func() rules.Rule {
		t.Helper()
		rs, err := e.gate.Rules("default")
		testkit.Must(t, err)
		for _, r := range rs {
			if r.HostPattern != "" {
				return r
			}
		}
		t.Fatalf("no host rule in %+v", rs)
		return rules.Rule{}
	}
	r := hostRule()
	if r.HostPattern != "*.example.com" || r.ToolPattern != "WebFetch" || r.Action != rules.Allow {
		t.Fatalf("rule %+v", r)
	}
	if _, body := b.do("GET", "/rules", nil); !shows(body, "host <code>*.example.com</code>") {
		t.Errorf("rules page lacks the host pattern")
	}
	resp, body = b.post("/rules/tool", url.Values{"group": {"default"}, "tool": {"WebFetch"},
		"action": {"deny"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("matrix: %d\n%s", resp.StatusCode, body)
	}
	if got := hostRule(); got != r {
		t.Errorf("the Tools row changed the host rule: %+v, was %+v", got, r)
	}
	before := teststore.Snapshot(t, e.db)
	resp, body = b.post("/rules", url.Values{"group": {"default"}, "panel": {"overrides"},
		"tool_pattern": {"Bash"}, "action": {"allow"}, "host_pattern": {"example.com"}})
	want := `host_pattern "example.com": only applies to the web tools (WebFetch), not "Bash"`
	if resp.StatusCode != http.StatusUnprocessableEntity || !shows(body, want) {
		t.Fatalf("%d, want 422 with %q\n%s", resp.StatusCode, want, body)
	}
	teststore.Unchanged(t, e.db, before)
}

func TestFSPriority(t *testing.T) {
	for _, tc := range []struct {
		path string
		want int
	}{
		{"data/*", 5}, {"data", 5}, {"*", 5}, {"./data/*", 5}, {"data/a/*", 4},
		{"/abs/a/b/*", 3}, {"a/b/c/d/e/*", 1}, {"a/b/c/d/e/f/*", 0}, {"a/b/c/d/e/f/g/h/*", 0},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := web.FSPriority(tc.path); got != tc.want {
				t.Errorf("FSPriority(%q) = %d, want %d", tc.path, got, tc.want)
			}
		})
	}
}

// Groups: create, rename, duplicate, delete; a refusal shown on the page.
func TestGroups(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	steps := []struct {
		path   string
		form   url.Values
		status int
		want   string
	}{
		{"/groups", url.Values{"id": {"team"}, "name": {"Team"}}, http.StatusSeeOther, ""},
		{"/groups/team", url.Values{"name": {"The team"}}, http.StatusSeeOther, ""},
		{"/groups/team/duplicate", url.Values{"new_id": {"team2"}}, http.StatusSeeOther, ""},
		{"/groups/team/delete", nil, http.StatusSeeOther, ""},
		{"/groups", url.Values{"id": {"team2"}}, http.StatusConflict, "team2"},
		{"/groups/default/delete", nil, http.StatusConflict, "default"},
		{"/groups", url.Values{"id": {"Bad Id"}}, http.StatusUnprocessableEntity, "Bad Id"},
	}
	for _, s := range steps {
		t.Run(s.path, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			resp, body := b.post(s.path, s.form)
			if resp.StatusCode != s.status || !shows(body, s.want) {
				t.Fatalf("%d, want %d with %q\n%s", resp.StatusCode, s.status, s.want, body)
			}
			if s.status != http.StatusSeeOther {
				teststore.Unchanged(t, e.db, before)
			}
		})
	}
	gs, err := e.gate.Groups()
	testkit.Must(t, err)
	var ids []string
	for _, g := range gs {
		ids = append(ids, g.ID+"="+g.Name)
	}
	if got := strings.Join(ids, ","); got != "default=Default,team2=team2" &&
		!strings.HasPrefix(got, "default=Default,team2=") {
		t.Errorf("groups %s", got)
	}
}

// With the web inbox mounted, the API's own answers stay: JSON 404 for an unknown
// /api/ route, /healthz, and the mux's 405 for a wrong method on an API route.
func TestAPIUnchangedBeside(t *testing.T) {
	e := newWebEnv(t)
	b := e.browser()
	for _, tc := range []struct {
		method, path string
		status       int
		ctype        string
	}{
		{"GET", "/api/nope", http.StatusNotFound, "application/json"},
		{"GET", "/healthz", http.StatusOK, "application/json"},
		{"PATCH", "/api/inbox", http.StatusMethodNotAllowed, "application/json"},
		{"GET", "/nope", http.StatusNotFound, "text/plain"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp, body := b.do(tc.method, tc.path, nil, "Authorization", "Bearer "+adminToken)
			if resp.StatusCode != tc.status ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
				t.Fatalf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// A call made to mislead — an agent token's, with a look-alike source, and a command
// after 4 KiB of padding — shows in the inbox which token asked, the source flagged,
// what ⏱ and 🔄 would cover, and the command at the end of the arguments.
func TestInboxShowsWhoAsksAndTheCover(t *testing.T) {
	e := newWebEnv(t)
	caller := api.TokenName("agent-token-for-the-web-inbox")
	out, err := e.gate.Check(context.Background(), gate.Call{ToolName: "deploy",
		SessionID: "s1", Caller: caller, Source: "сron", Arguments: map[string]any{
			"cmd": "echo ok" + strings.Repeat(" ", 4096) + "; rm -rf / \u202egnp.exe"}})
	testkit.Must(t, err)
	if out.Request == nil {
		t.Fatalf("check: %+v, want a request", out)
	}
	resp, body := e.signedIn().do("GET", "/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	for _, want := range []string{"agent token " + caller + " (profile default)",
		`\u0441ron ⚠ non-ASCII`, "every call of tool deploy", "for this caller in this session",
		`; rm -rf / \u202Egnp.exe`} {
		if !strings.Contains(body, want) {
			t.Errorf("the inbox lacks %q", want)
		}
	}
	if strings.Contains(body, "сron") || strings.Contains(body, "\u202e") {
		t.Error("the inbox shows the look-alike or the override as they are")
	}
}
