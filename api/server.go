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

// ActorHeader names who an API call acts for (SPEC §12.22): resolutions and changes
// are recorded with its value as `by`, "api" when it is absent. The CLI sends "cli".
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

// Jobs is what the API needs of the scheduler (SPEC §7, §8); cmd adapts cron to it.
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
	// Run returns run id.
	Run(id uint64) (store.Run, error)
}

// AgentToken is an agent's token (SPEC §12.2): calls made with it are limited to
// checking, reading and cancelling their own requests and visibility, evaluated in
// Profile, with AgentID forced when not empty.
type AgentToken struct {
	Token   string
	Profile string
	AgentID string
}

// Options configure a Server.
type Options struct {
	// Gate is required.
	Gate *gate.Manager
	// Store is required: audit reads and tool-call-id lookups.
	Store Store
	// Jobs nil means no scheduler: GET /api/jobs lists none and job or run lookups
	// answer 404.
	Jobs Jobs
	// Token is the admin token (SPEC §8, §12.2); empty means no authentication at all,
	// which Serve allows on a loopback address only.
	Token string
	// AgentTokens need Token set; each must be non-empty and differ from the others and
	// from Token.
	AgentTokens []AgentToken
	// Metrics nil means New makes its own (NewMetrics).
	Metrics *Metrics
	// Logger nil means slog.Default(); the server adds component=api.
	Logger *slog.Logger
	// Now is the clock (time to resolution); nil means time.Now.
	Now func() time.Time
}

// Server is the HTTP API of SPEC §8. It is an http.Handler, safe for concurrent use;
// Serve runs it on a listener.
type Server struct {
	gate    *gate.Manager
	store   Store
	jobs    Jobs
	auth    auth
	metrics *Metrics
	log     *slog.Logger
	now     func() time.Time
	mux     *http.ServeMux
}

// New returns a Server for opt. Errors (wrapping ErrInvalid): no Gate or Store, agent
// tokens without an admin token, an empty or repeated token. The Server registers its
// pending-requests gauge on opt.Metrics.
func New(opt Options) (*Server, error) {
	if opt.Gate == nil || opt.Store == nil {
		return nil, fmt.Errorf("api: new: %w: Gate and Store are required", ErrInvalid)
	}
	a, err := newAuth(opt.Token, opt.AgentTokens)
	if err != nil {
		return nil, fmt.Errorf("api: new: %w", err)
	}
	s := &Server{
		gate:    opt.Gate,
		store:   opt.Store,
		jobs:    opt.Jobs,
		auth:    a,
		metrics: opt.Metrics,
		log:     opt.Logger,
		now:     opt.Now,
		mux:     http.NewServeMux(),
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

// ServeHTTP answers one API call: authentication for /api/*, the agent-token role
// check, then the endpoint. Errors are JSON {"error": "..."}.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var p principal
	if strings.HasPrefix(r.URL.Path, "/api/") {
		var ok bool
		if p, ok = s.auth.authenticate(r); !ok {
			writeError(w, http.StatusUnauthorized, "unauthorized")
			return
		}
	}
	h, pattern := s.mux.Handler(r)
	if pattern == "" { // no route: the mux's own 404 or 405, rewritten as JSON
		h.ServeHTTP(&jsonStatusWriter{ResponseWriter: w, path: r.URL.Path}, r)
		return
	}
	if p.agent != nil && !agentRoutes[pattern] {
		writeError(w, http.StatusForbidden, "forbidden: an agent token may only check, read and cancel its own requests and ask what is visible")
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), p)))
}

// Serve answers API calls on ln until ctx ends, then stops taking new connections,
// ends long-polls and event streams, lets in-flight calls finish for up to
// ShutdownTimeout, and returns nil once everything it started has stopped. It also
// records the time to resolution of every request the gate resolves. It refuses (an
// error wrapping ErrInvalid, ln closed) to listen beyond loopback without an admin token
// (SPEC §8). Other errors are the listener's.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.auth.open() && !isLoopback(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("api: serve on %s: %w: listening beyond loopback needs api.token", ln.Addr(), ErrInvalid)
	}
	base, stop := context.WithCancel(context.Background())
	defer stop()
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	events, release := s.gate.Subscribe(EventBuffer)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.metrics.observeResolutions(base, s.gate, s.now, events, release)
	}()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("api listening", "addr", ln.Addr().String(), "auth", !s.auth.open())

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
