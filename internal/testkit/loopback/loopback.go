// Package loopback is the frame the in-repo test servers (telegramtest, slacktest)
// share: an HTTP server on 127.0.0.1, whether it is closed, its outage, and a signal of
// every change that their wait helpers block on. It imports no testing code, so that
// `skald-bot dev` can link those servers.
package loopback

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// ErrClosed is returned by Wait once the server is closed: what it waits for can no
// longer happen. The test servers return it as their own ErrClosed.
var ErrClosed = errors.New("server closed")

// Frame is a test server's HTTP server and the state its wait helpers watch. It shares
// the server's lock (Start), so that a change of the server's records and its Notify
// happen under one lock. Closed, Outage, Changed and Notify are called with that lock
// held; Start, URL, Close, SetOutage and Wait without it.
type Frame struct {
	mu      *sync.Mutex
	http    *httptest.Server
	closed  bool
	outage  outage.Kind
	changed chan struct{}
}

// Start serves h on 127.0.0.1 on a free port, mu being the server's lock. The
// caller must Close f.
func (f *Frame) Start(mu *sync.Mutex, h http.Handler) {
	f.mu, f.changed = mu, make(chan struct{})
	f.http = httptest.NewServer(h) // httptest listens on 127.0.0.1:0
}

// URL is the server's base URL, "http://127.0.0.1:<port>".
func (f *Frame) URL() string { return f.http.URL }

// Closed reports whether Close was called.
func (f *Frame) Closed() bool { return f.closed }

// Outage is how every call fails now (SetOutage); outage.None while the server is up.
func (f *Frame) Outage() outage.Kind { return f.outage }

// Changed returns the channel the next Notify closes.
func (f *Frame) Changed() <-chan struct{} { return f.changed }

// Notify wakes everything waiting on Changed: the server's state changed.
func (f *Frame) Notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Close marks the server closed and calls Notify, then shut, both under the lock,
// then stops the HTTP server and waits for the calls in progress to finish. It reports
// false, and does nothing, when the server was closed already. shut may be nil.
func (f *Frame) Close(shut func()) bool {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return false
	}
	f.closed = true
	f.Notify()
	if shut != nil {
		shut()
	}
	f.mu.Unlock()
	f.http.Close()
	return true
}

// SetOutage makes every call from now on fail as o says (outage.Kind.Fail), outage.None
// ending it, and calls Notify. outage.Dropped also cuts the connections of the calls
// in progress.
func (f *Frame) SetOutage(o outage.Kind) {
	f.mu.Lock()
	f.outage = o
	f.Notify()
	f.mu.Unlock()
	if o == outage.Dropped {
		f.http.CloseClientConnections()
	}
}

// Wait blocks until ready returns true (nil), the server is closed (ErrClosed) or ctx
// ends (ctx.Err()). ready is called without the lock, first at once and then after
// every Notify, never on a timer.
func (f *Frame) Wait(ctx context.Context, ready func() bool) error {
	for {
		f.mu.Lock()
		changed, closed := f.changed, f.closed
		f.mu.Unlock()
		if ready() {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
