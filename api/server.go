package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// ActorHeader names who an admin's API call acts for: resolutions and changes are
// recorded with its value as `by`, "api" when it is absent. The CLI sends "cli". For
// an agent token or the local caller it is ignored: the caller's name is recorded.
const ActorHeader = "X-Skald-Actor"

// ShutdownTimeout is how long Serve lets in-flight requests finish once its context
// ends, before it closes their connections.
const ShutdownTimeout = 5 * time.Second

// Store is what the API reads from persistence beyond the gate; *store.DB implements
// it. Each method is one read transaction, safe for concurrent use.
type Store interface {
	// Audit returns at most limit entries, newest first.
	Audit(limit int) ([]store.AuditEntry, error)
	// RequestsByToolCallID returns every request with that tool call id, oldest first.
	RequestsByToolCallID(toolCallID string) ([]store.Request, error)
	// WriteTo writes a consistent copy of the whole database to w from one read
	// transaction and returns the bytes written (GET /api/backup).
	WriteTo(w io.Writer) (int64, error)
}

var _ Store = (*store.DB)(nil)

// Jobs is what the API needs of the scheduler; cmd adapts cron to it.
// Errors for an unknown job or run wrap store.ErrNotFound (404). Implementations must
// be safe for concurrent use.
type Jobs interface {
	// List returns the configured jobs, by name.
	List() ([]Job, error)
	// Trigger starts a run of job name now and returns it as first stored; it does not
	// wait for the run to finish.
	Trigger(ctx context.Context, name string) (store.Run, error)
	// Runs returns the runs of job name, newest first.
	Runs(name string) ([]store.Run, error)
	// RecentRuns returns at most limit runs of every job, newest first.
	RecentRuns(limit int) ([]store.Run, error)
	// Run returns run id.
	Run(id uint64) (store.Run, error)
}

// AgentToken is an agent's token (docs/design.md, "Callers"): calls made with it are
// limited to checking, reading and cancelling their own requests and visibility,
// evaluated in Profile, with AgentID forced when not empty.
type AgentToken struct {
	Token   string
	Profile string
	AgentID string
}

// Limits of the HTTP server that Options leave at zero (docs/design.md, "Timeouts and
// limits").
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultBodyTimeout       = 10 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultMaxConns          = 1024
)

// Options configure a Server.
type Options struct {
	// Gate is required.
	Gate *gate.Manager
	// Store is required: audit reads and tool-call-id lookups.
	Store Store
	// Jobs nil means no scheduler: GET /api/jobs lists none and job or run lookups
	// answer 404.
	Jobs Jobs
	// Token is the admin token, required: at least MinTokenLen characters, compared
	// exactly.
	Token string
	// Generated says Token was generated rather than configured: Serve then refuses a
	// listener beyond loopback, New refuses AllowedHosts, and with no AgentTokens a call
	// without a token may use the agent routes as store.CallerLocal (docs/design.md,
	// "Authentication").
	Generated bool
	// AgentTokens are the agents' tokens; each as Token, different from the others and
	// from Token.
	AgentTokens []AgentToken
	// AllowedHosts are the Hosts the API answers to besides loopback IPs and localhost.
	AllowedHosts []AllowedHost
	// ReadHeaderTimeout (zero: 5 s) bounds a request's headers, BodyTimeout (10 s) its
	// body once the headers are in, IdleTimeout (60 s) a kept-alive connection's wait
	// for the next request. WriteTimeout (30 s) bounds an answer; a long-poll gets
	// MaxWaitSecs more, and the event stream and the backup give each write that long.
	ReadHeaderTimeout, BodyTimeout, IdleTimeout, WriteTimeout time.Duration
	// MaxConns caps the open connections (zero: 1,024); one beyond it is answered 503
	// and closed at once.
	MaxConns int
	// Metrics nil means New makes its own (NewMetrics).
	Metrics *Metrics
	// Logger nil means slog.Default(); the server adds component=api.
	Logger *slog.Logger
	// Now is the clock (time to resolution); nil means time.Now.
	Now func() time.Time
	// Channels names the chat channels that prompt approvers ("telegram", "slack").
	// With none, a pending check's answer says so (CheckResult.NoChannel), and the
	// Claude Code hook hands the call to the terminal at once.
	Channels []string
	// Web nil means no web inbox. Else it answers every path outside /api/ that no API
	// route serves, after the Host and Origin checks and without the API's token: it
	// authenticates its own routes (docs/design.md, "Web inbox").
	Web http.Handler
}

// Server is the HTTP API (docs/design.md, "HTTP API"). It is an http.Handler, safe for
// concurrent use; Serve runs it on a listener.
type Server struct {
	gate      *gate.Manager
	store     Store
	jobs      Jobs
	auth      auth
	generated bool
	hosts     []AllowedHost
	limits    limits
	metrics   *Metrics
	log       *slog.Logger
	now       func() time.Time
	mux       *http.ServeMux
	noChannel bool // Options.Channels is empty
	web       http.Handler
}

// limits are the Options' timeouts and cap, defaults filled in.
type limits struct {
	readHeader, body, idle, write time.Duration
	maxConns                      int
}

// New returns a Server for opt. Errors (wrapping ErrInvalid): no Gate or Store, no
// admin token, a token too short, with white space at an end or repeated, an empty
// AllowedHost, AllowedHosts with a Generated token. The Server registers its
// pending-requests gauge on opt.Metrics.
func New(opt Options) (*Server, error) {
	if opt.Gate == nil || opt.Store == nil {
		return nil, fmt.Errorf("api: new: %w: Gate and Store are required", ErrInvalid)
	}
	if opt.Generated && len(opt.AllowedHosts) > 0 {
		return nil, fmt.Errorf("api: new: %w: allowed hosts need a configured token",
			ErrInvalid)
	}
	a, err := newAuth(opt.Token, opt.AgentTokens, opt.Generated && len(opt.AgentTokens) == 0)
	if err != nil {
		return nil, fmt.Errorf("api: new: %w", err)
	}
	hosts := make([]AllowedHost, len(opt.AllowedHosts))
	for i, h := range opt.AllowedHosts {
		if h.Host == "" {
			return nil, fmt.Errorf("api: new: %w: allowed host %d has no host", ErrInvalid, i+1)
		}
		h.Host = strings.ToLower(h.Host)
		hosts[i] = h
	}
	def := func(d, v time.Duration) time.Duration {
		if d <= 0 {
			return v
		}
		return d
	}
	s := &Server{
		gate:      opt.Gate,
		store:     opt.Store,
		jobs:      opt.Jobs,
		auth:      a,
		generated: opt.Generated,
		hosts:     hosts,
		limits: limits{
			readHeader: def(opt.ReadHeaderTimeout, DefaultReadHeaderTimeout),
			body:       def(opt.BodyTimeout, DefaultBodyTimeout),
			idle:       def(opt.IdleTimeout, DefaultIdleTimeout),
			write:      def(opt.WriteTimeout, DefaultWriteTimeout),
			maxConns:   opt.MaxConns,
		},
		metrics: opt.Metrics,
		log:     opt.Logger,
		now:     opt.Now,
		mux:     http.NewServeMux(),

		noChannel: len(opt.Channels) == 0,
		web:       opt.Web,
	}
	if s.limits.maxConns <= 0 {
		s.limits.maxConns = DefaultMaxConns
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.log = s.log.With("component", "api")
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.metrics.watchPending(s.gate); err != nil {
		return nil, fmt.Errorf("api: new: %w", err)
	}
	s.routes()
	return s, nil
}

// ServeHTTP answers one call: the browser checks (Host, Origin, Content-Type) on every
// route, authentication for /api/*, the role check for agent tokens and the local
// caller, then the endpoint. Errors are JSON {"error": "..."}.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	s.deadlines(w, r, pattern)
	if ref := s.guard(r); ref != nil {
		s.log.Debug("refused", "method", r.Method, "path", r.URL.Path, "status", ref.status,
			"err", ref.msg)
		writeError(w, ref.status, ref.msg)
		return
	}
	if pattern == "" && s.web != nil && !strings.HasPrefix(r.URL.Path, "/api/") &&
		r.URL.Path != "/healthz" && r.URL.Path != "/metrics" {
		s.web.ServeHTTP(w, r)
		return
	}
	var p principal
	if strings.HasPrefix(r.URL.Path, "/api/") {
		var ok bool
		if p, ok = s.auth.authenticate(r, agentRoutes[pattern]); !ok {
			msg := "unauthorized: this call needs the admin token (Authorization: Bearer …)"
			if _, sent := r.Header["Authorization"]; sent {
				msg = "unauthorized: unknown token"
			}
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
	}
	if pattern == "" { // no route: the mux's own 404 or 405, rewritten as JSON
		h.ServeHTTP(&jsonStatusWriter{ResponseWriter: w, path: r.URL.Path}, r)
		return
	}
	if !p.admin() && !agentRoutes[pattern] {
		writeError(w, http.StatusForbidden, "forbidden: an agent may only check, read and "+
			"cancel its own requests and ask what is visible")
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
}

// deadlines sets the connection's deadlines for one call: the body must arrive within
// the body timeout, and the answer within the write timeout — plus the longest wait
// for a long-poll; the event stream and the backup set one per write themselves.
func (s *Server) deadlines(w http.ResponseWriter, r *http.Request, pattern string) {
	rc := http.NewResponseController(w)
	write := time.Now().Add(s.limits.write)
	switch pattern {
	case "POST /api/approval/check", "GET /api/approval/requests/{id}",
		"POST /api/clarifications", "GET /api/clarifications/{id}":
		write = write.Add(MaxWaitSecs * time.Second)
	case "GET /api/events", "GET /api/backup":
		write = time.Time{}
	}
	_ = rc.SetWriteDeadline(write)
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		_ = rc.SetReadDeadline(time.Now().Add(s.limits.body))
		r.Body = &bodyDeadline{ReadCloser: r.Body, rc: rc}
	}
}

// bodyDeadline lifts the body's read deadline once the body has been read to its end,
// so that a long-poll after it still notices the client leaving. After a read error
// the deadline stays, and the server drops the connection rather than wait.
type bodyDeadline struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *bodyDeadline) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// Serve answers API calls on ln until ctx ends, then stops taking new connections,
// ends long-polls and event streams, lets in-flight calls finish for up to
// ShutdownTimeout, and returns nil once everything it started has stopped. It also
// records the time to resolution of every request the gate resolves. It refuses (an
// error wrapping ErrInvalid, ln closed) to listen beyond loopback with a generated
// admin token. Other errors are the listener's.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.generated && !isLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("api: serve on %s: %w: listening beyond loopback needs api.token",
			ln.Addr(), ErrInvalid)
	}
	base, stop := context.WithCancel(context.Background())
	defer stop()
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.limits.readHeader,
		IdleTimeout:       s.limits.idle,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	ln = newLimitListener(ln, s.limits.maxConns)
	events, release := s.gate.Subscribe(EventBuffer)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.metrics.observeResolutions(base, s.gate, s.now, events, release)
	}()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("api listening", "addr", ln.Addr().String(), "local", s.auth.local,
		"agent_tokens", len(s.auth.agents), "allowed_hosts", len(s.hosts))

	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		stop() // ends long-polls and event streams, whose contexts derive from base
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		err = hs.Shutdown(sctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = hs.Close()
		}
		if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
	}
	stop()
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("api: serve: %w", err)
	}
	return nil
}

// isLoopback reports whether addr is a TCP address on a loopback IP.
func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
