package api_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestRoutingErrorsAreJSON(t *testing.T) {
	e := newAPIEnv(t)
	e.wantError("GET", "/api/nope", adminToken, "", 404, "not found: /api/nope")
	e.wantError("GET", "/nope", "", "", 404, "not found: /nope")
	e.wantError("DELETE", "/api/approval/check", adminToken, "", 405, "method not allowed")
	if st, body := e.do("GET", "/healthz", "", nil); st != 200 || body != `{"status":"ok"}`+"\n" {
		t.Fatalf("healthz: %d %s", st, body)
	}
}

func TestMetrics(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	if _, err := e.admin.Check(ctx, api.CheckRequest{Call: callOf("TodoWrite")}); err != nil {
		t.Fatal(err)
	}
	id := e.pending(e.admin, "s", "")
	e.metrics.ChannelSendError("telegram")
	_, body := e.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`skald_checks_total{decision="allow"} 1`,
		`skald_checks_total{decision="pending"} 1`,
		`skald_pending_requests 1`,
		`skald_channel_send_errors_total{channel="telegram"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if _, err := e.admin.Resolve(ctx, id, api.ResolveRequest{Action: "approve"}); err != nil {
		t.Fatal(err)
	}
	e.stop() // the time to resolution is recorded before Serve returns
	rec := httptest.NewRecorder()
	e.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`skald_resolution_seconds_count 1`, `skald_pending_requests 0`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, rec.Body)
		}
	}
}

// addrListener is a listener that only claims an address: it never listens, so the
// test never opens a port beyond loopback.
type addrListener struct {
	addr   net.Addr
	closed bool
}

func (l *addrListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l *addrListener) Close() error              { l.closed = true; return nil }
func (l *addrListener) Addr() net.Addr            { return l.addr }

func TestServeRefusesBeyondLoopbackWithAGeneratedToken(t *testing.T) {
	e := newAPIEnv(t)
	open, err := api.New(api.Options{Gate: e.gate, Store: e.db, Token: adminToken,
		Generated: true, Logger: testkit.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	ln := &addrListener{addr: &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8377}}
	err = open.Serve(context.Background(), ln)
	if !errors.Is(err, api.ErrInvalid) ||
		!strings.Contains(err.Error(), "listening beyond loopback needs api.token") || !ln.closed {
		t.Fatalf("Serve = %v (listener closed %v)", err, ln.closed)
	}
}

// Serve ends event streams and long-polls when its context ends, and returns nil.
func TestServeStopsStreams(t *testing.T) {
	e := newAPIEnv(t)
	resp := e.events()
	id := e.pending(e.admin, "s", "")
	polled := make(chan error, 1)
	go func() {
		_, err := e.admin.Request(context.Background(), id, 100)
		polled <- err
	}()
	e.stop() // fails the test if Serve returns an error
	buf := make([]byte, 4096)
	for {
		if _, err := resp.Body.Read(buf); err != nil {
			break // the stream ended
		}
	}
	<-polled // the long-poll ended too (with the pending request, or a closed connection)
}

// An event stream's subscription ends when its client leaves.
func TestEventsEndWhenTheClientLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBare(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		rec := httptest.NewRecorder()
		go func() {
			defer close(done)
			req := httptest.NewRequestWithContext(ctx, "GET", "/api/events", nil)
			req.Header.Set("Authorization", "Bearer "+adminToken)
			b.srv.ServeHTTP(rec, req)
		}()
		synctest.Wait()
		cancel()
		<-done
		if !strings.HasPrefix(rec.Body.String(), ": skald-bot events") {
			t.Fatalf("body %q", rec.Body)
		}
	})
}
