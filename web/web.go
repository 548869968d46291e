package web

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// CSP is the Content-Security-Policy of every page: scripts and styles from the
// service's own files only, nothing inline, no framing, forms posting only to itself.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// Options configure a Handler.
type Options struct {
	// Gate is required: requests, rules, groups, the event bus.
	Gate *gate.Manager
	// Store is required: the audit log.
	Store api.Store
	// Jobs nil means no scheduler: the Jobs page lists none.
	Jobs api.Jobs
	// Token is the admin token, the only one that signs in; required.
	Token string
	// AgentTokens are refused at sign-in with a message of their own.
	AgentTokens []string
	// AllowedHosts are the API's; a request whose Host is an HTTPS one (a TLS proxy in
	// front) gets Secure cookies.
	AllowedHosts []api.AllowedHost
	// Profiles are the configuration's, shown read-only.
	Profiles []rules.Profile
	// BypassShort is the ⏱ button's window; zero means 15 minutes.
	BypassShort time.Duration
	// SessionTTL is how long a sign-in lasts; zero means DefaultSessionTTL.
	SessionTTL time.Duration
	// Logger nil means slog.Default(); the handler adds component=web.
	Logger *slog.Logger
	// Now is the clock of sessions; nil means time.Now.
	Now func() time.Time
}

// Handler serves the web inbox (docs/design.md, "Web inbox"). It is safe for
// concurrent use; it starts no goroutine of its own (an event stream lives as long as
// its request).
type Handler struct {
	gate     *gate.Manager
	store    api.Store
	jobs     api.Jobs
	admin    []byte // SHA-256 of the admin token
	agents   [][]byte
	hosts    []api.AllowedHost
	profiles []rules.Profile
	short    time.Duration
	sessions *sessions
	pages    map[string]*template.Template
	log      *slog.Logger
	mux      *http.ServeMux
}

// actor is who the web inbox's resolutions and changes are recorded as.
var actor = store.Actor{By: "admin", Via: "web"}

// New returns the Handler of opt. Errors: no Gate, Store or Token, a template that
// does not parse.
func New(opt Options) (*Handler, error) {
	if opt.Gate == nil || opt.Store == nil || opt.Token == "" {
		return nil, errors.New("web: new: Gate, Store and Token are required")
	}
	h := &Handler{gate: opt.Gate, store: opt.Store, jobs: opt.Jobs,
		admin: digest(opt.Token), profiles: opt.Profiles, short: opt.BypassShort,
		log: opt.Logger, mux: http.NewServeMux()}
	for _, t := range opt.AgentTokens {
		h.agents = append(h.agents, digest(t))
	}
	for _, a := range opt.AllowedHosts {
		a.Host = strings.ToLower(a.Host)
		h.hosts = append(h.hosts, a)
	}
	if h.short <= 0 {
		h.short = 15 * time.Minute
	}
	ttl, now := opt.SessionTTL, opt.Now
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	if now == nil {
		now = time.Now
	}
	h.sessions = newSessions(ttl, now)
	if h.log == nil {
		h.log = slog.Default()
	}
	h.log = h.log.With("component", "web")
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, fmt.Errorf("web: new: %w", err)
	}
	h.routes()
	return h, nil
}

func digest(s string) []byte {
	d := sha256.Sum256([]byte(s))
	return d[:]
}

// routes registers the pages. Every route but sign-in and the static files needs a
// session; every POST its CSRF token.
func (h *Handler) routes() {
	static, _ := fs.Sub(staticFS, "static")
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	h.mux.HandleFunc("GET /signin", h.signinPage)
	h.mux.HandleFunc("POST /signin", h.signin)

	s := func(pattern string, f pageFunc) {
		h.mux.HandleFunc(pattern, h.authed(f))
	}
	s("POST /signout", h.signout)
	s("GET /{$}", h.inbox)
	s("GET /inbox/approvals", h.inboxList)
	s("GET /inbox/approvals/{id}", h.inboxItem)
	s("POST /approvals/{id}", h.resolve)
	s("GET /events", h.events)
	s("GET /inbox/questions", h.questionList)
	s("GET /inbox/questions/{id}", h.questionItem)
	s("POST /clarifications/{id}", h.answer)

	s("GET /groups", h.groups)
	s("POST /groups", h.createGroup)
	s("POST /groups/{id}", h.renameGroup)
	s("POST /groups/{id}/duplicate", h.duplicateGroup)
	s("POST /groups/{id}/delete", h.deleteGroup)

	s("GET /rules", h.rules)
	s("POST /rules", h.createRule)
	s("POST /rules/{id}/action", h.setRuleAction)
	s("POST /rules/{id}/delete", h.deleteRule)
	s("POST /rules/tool", h.setToolAction)
	s("POST /rules/fs", h.createFSRule)
	s("POST /rules/{id}/fs", h.setFSMode)

	s("GET /profiles", h.profilesPage)
	s("GET /audit", h.audit)
	s("GET /jobs", h.jobsPage)
	s("POST /jobs/{name}/run", h.runJob)
	s("GET /runs/{id}", h.run)
}

// pageFunc is a page handler that needs a session; an error it returns is answered by
// fail.
type pageFunc func(http.ResponseWriter, *http.Request, session) error

// ServeHTTP answers one browser request with the security headers of every page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer makes Chromium send Origin: null
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, api.MaxBodyBytes)
	}
	h.mux.ServeHTTP(w, r)
}

// authed wraps a page that needs a session: without one a GET is sent to the sign-in
// page and anything else refused (401); a POST without its session's CSRF token is
// refused (403) before f runs.
func (h *Handler) authed(f pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok := h.sessions.get(r)
		if !ok {
			if r.Method == http.MethodGet && r.URL.Path != "/events" {
				http.Redirect(w, r, "/signin", http.StatusSeeOther)
				return
			}
			http.Error(w, "unauthorized: sign in at /signin first", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			if err := r.ParseForm(); err != nil {
				http.Error(w, "bad request: the form could not be read", http.StatusBadRequest)
				return
			}
			if !same(r.PostForm.Get("csrf"), sess.csrf) {
				h.log.Warn("csrf token missing or wrong", "path", r.URL.Path)
				http.Error(w, "forbidden: the form's CSRF token is missing or wrong; "+
					"reload the page and try again", http.StatusForbidden)
				return
			}
		}
		if err := f(w, r, sess); err != nil {
			h.fail(w, r, err)
		}
	}
}

// pathID parses the path value id of r, the id of a what; ErrBadRequest when it is
// not a number.
func pathID(r *http.Request, what string) (uint64, error) {
	v := r.PathValue("id")
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s id %q is not a number", api.ErrBadRequest, what, v)
	}
	return id, nil
}

// fail answers an error no page shows inline: its status and the API's message.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := api.ErrorOf(err)
	if status == http.StatusInternalServerError {
		h.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	http.Error(w, msg, status)
}

// secure reports whether r reached the service over TLS: directly, or through a
// proxy at an HTTPS allowed host.
func (h *Handler) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host, port := r.Host, ""
	if hh, p, err := net.SplitHostPort(r.Host); err == nil {
		host, port = hh, p
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, a := range h.hosts {
		if a.HTTPS && a.Host == host && (a.Port == "" || a.Port == port) {
			return true
		}
	}
	return false
}

// page is what every page's layout shows.
type page struct {
	Title string
	Nav   string // the nav entry to mark current
	Count int    // pending approvals and clarifications: the badge
	CSRF  string
	Flash string
	Error string // an error shown at the top of the page
	Data  any
}

// render writes template name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string,
	sess session, p page) {
	if p.CSRF == "" {
		p.CSRF = sess.csrf
	}
	p.Count = h.pendingCount()
	if p.Flash == "" && sess.csrf != "" {
		p.Flash = h.sessions.flash(r, "")
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		h.log.Error("render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes()) //nolint:errcheck // the browser went away
}

// done records msg for the next page and redirects there (POST, redirect, GET).
func (h *Handler) done(w http.ResponseWriter, r *http.Request, to, msg string) error {
	h.sessions.flash(r, msg)
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// signinPage is GET /signin: the token form, with a fresh sign-in CSRF cookie.
func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request) {
	h.signinForm(w, r, http.StatusOK, "")
}

func (h *Handler) signinForm(w http.ResponseWriter, r *http.Request, status int, msg string) {
	tok := randomToken()
	http.SetCookie(w, cookie(signinCookie, tok, signinTTL, h.secure(r)))
	var buf bytes.Buffer
	err := h.pages["signin"].ExecuteTemplate(&buf, "layout",
		page{Title: "Sign in", CSRF: tok, Error: msg})
	if err != nil {
		h.log.Error("render", "page", "signin", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes()) //nolint:errcheck // the browser went away
}

// signin is POST /signin with token and csrf: the admin token opens a session; agent
// tokens and anything else are refused (401), a missing sign-in CSRF token too (403).
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad request: the form could not be read", http.StatusBadRequest)
		return
	}
	c, err := r.Cookie(signinCookie)
	if err != nil || !same(r.PostForm.Get("csrf"), c.Value) {
		http.Error(w, "forbidden: the sign-in form's CSRF token is missing or wrong; "+
			"reload the sign-in page", http.StatusForbidden)
		return
	}
	d := digest(r.PostForm.Get("token"))
	if subtle.ConstantTimeCompare(d, h.admin) != 1 {
		msg := "unknown token: sign in with the admin token"
		for _, a := range h.agents {
			if subtle.ConstantTimeCompare(d, a) == 1 {
				msg = "an agent token cannot sign in: only the admin token can"
			}
		}
		h.log.Info("sign-in refused", "reason", msg)
		h.signinForm(w, r, http.StatusUnauthorized, msg)
		return
	}
	value, _ := h.sessions.open()
	secure := h.secure(r)
	http.SetCookie(w, cookie(signinCookie, "", 0, secure))
	http.SetCookie(w, cookie(SessionCookie, value, h.sessions.ttl, secure))
	h.log.Info("signed in")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// signout is POST /signout: the session ends and its cookie goes.
func (h *Handler) signout(w http.ResponseWriter, r *http.Request, _ session) error {
	h.sessions.close(r)
	http.SetCookie(w, cookie(SessionCookie, "", 0, h.secure(r)))
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
	return nil
}
