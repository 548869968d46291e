package httpserve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// NewServer returns a server for h with the limits of a webhook endpoint: headers
// within 10 s, the whole request within 30 s, idle connections kept 2 min; the
// server's own errors go to log at warn level. Callers may tighten it further.
func NewServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// Serve serves srv on ln and runs ready (when not nil) once serving has begun. It
// returns when ctx is done (nil), when ready fails (ready's error), or when the server
// fails first ("name: serve on ADDR: …"). Before it returns it shuts srv down, giving
// the requests in flight grace to finish and closing them after that, and waits until
// srv.Serve has returned.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration,
	log *slog.Logger, name string, ready func(ctx context.Context) error) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("server did not stop in time; closing it", "err", err)
			_ = srv.Close()
		}
		<-served
	}
	if ready != nil {
		if err := ready(ctx); err != nil {
			stop()
			return err
		}
	}
	select {
	case <-ctx.Done():
		stop()
		return nil
	case err := <-served:
		return fmt.Errorf("%s: serve on %s: %w", name, ln.Addr(), err)
	}
}
