package web_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
	"github.com/skald-circle/skald-bot/web"
)

const (
	adminToken = "admin-secret-token-0123"
	agentToken = "agent-secret-token-0123"
)

// env is a real store, a gate, and the API server with the web inbox mounted, on a
// loopback port until the test ends.
type env struct {
	t     *testing.T
	db    *store.DB
	gate  *gate.Manager
	url   string
	clock *testkit.Clock
}

// newWebEnv starts the env; edit may change the web and API options.
func newWebEnv(t *testing.T, edit ...func(*web.Options, *api.Options)) *env {
	t.Helper()
	root := testkit.Dir(t, "data")
	db := teststore.Open(t, store.Options{})
	g := testgate.Over(t, db, root, nil)
	e := &env{t: t, db: db, gate: g, clock: testkit.NewClock(time.Now())}
	wopt := web.Options{Gate: g, Store: db, Token: adminToken, AgentTokens: []string{agentToken},
		Profiles: []rules.Profile{{ID: "dev", SecurityGroup: "default", WorkingDirectory: root}},
		Logger:   testkit.Logger(), Now: e.clock.Now}
	aopt := api.Options{Gate: g, Store: db, Token: adminToken, Logger: testkit.Logger(),
		AgentTokens: []api.AgentToken{{Token: agentToken}}}
	for _, f := range edit {
		f(&wopt, &aopt)
	}
	h, err := web.New(wopt)
	testkit.Must(t, err)
	aopt.Web = h
	srv, err := api.New(aopt)
	testkit.Must(t, err)
	testgate.Run(t, g)
	e.url, _ = testkit.Serve(t, srv.Serve) // its cleanup, registered last, runs first
	return e
}

// pending registers a call that the seeded catch-all requires and returns its id.
func (e *env) pending(args map[string]any) uint64 {
	e.t.Helper()
	out, err := e.gate.Check(context.Background(), gate.Call{ToolName: "deploy",
		SessionID: "s1", Arguments: args})
	testkit.Must(e.t, err)
	if out.Request == nil {
		e.t.Fatalf("check: %+v, want a request", out)
	}
	return out.Request.ID
}

// browser is an HTTP client with a cookie jar that does not follow redirects.
type browser struct {
	t    *testing.T
	e    *env
	c    *http.Client
	csrf string // the session's CSRF token, from the last page read
}

func (e *env) browser() *browser {
	jar, err := cookiejar.New(nil)
	testkit.Must(e.t, err)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: e.t, e: e, c: &http.Client{Jar: jar, CheckRedirect: noRedirect}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends a request and returns the response with its body read.
func (b *browser) do(method, path string, form url.Values,
	hdr ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.url+path, body)
	testkit.Must(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := b.c.Do(req)
	testkit.Must(b.t, err)
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	testkit.Must(b.t, err)
	if m := csrfField.FindStringSubmatch(string(data)); m != nil {
		b.csrf = m[1]
	}
	return resp, string(data)
}

// events opens the browser's event stream (GET /events); it is closed when the test
// ends.
func (b *browser) events() *http.Response {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), "GET", b.e.url+"/events", nil)
	testkit.Must(b.t, err)
	resp, err := b.c.Do(req)
	testkit.Must(b.t, err)
	b.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// shows reports whether page body shows text want (html/template escapes quotes).
func shows(body, want string) bool {
	return strings.Contains(html.UnescapeString(body), want)
}

// signIn signs in with token and returns the answer to the form's POST.
func (b *browser) signIn(token string) (*http.Response, string) {
	b.t.Helper()
	b.do("GET", "/signin", nil)
	return b.do("POST", "/signin", url.Values{"token": {token}, "csrf": {b.csrf}})
}

// signedIn is a browser signed in as the admin, its CSRF token read from the inbox.
func (e *env) signedIn() *browser {
	e.t.Helper()
	b := e.browser()
	if resp, body := b.signIn(adminToken); resp.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("sign-in: %d\n%s", resp.StatusCode, body)
	}
	if resp, body := b.do("GET", "/", nil); resp.StatusCode != http.StatusOK {
		e.t.Fatalf("inbox: %d\n%s", resp.StatusCode, body)
	}
	return b
}

// post sends a form with the session's CSRF token.
func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf)
	return b.do("POST", path, form)
}
