package loopback_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit/loopback"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// server is the least a test server is: a frame and a record, behind one lock.
type server struct {
	mu    sync.Mutex
	frame loopback.Frame
	calls int
}

func start(t *testing.T) *server {
	s := &server{}
	s.frame.Start(&s.mu, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		s.calls++
		o := s.frame.Outage()
		s.frame.Notify()
		s.mu.Unlock()
		if !o.Fail(w) {
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(func() { s.frame.Close(nil) })
	return s
}

func (s *server) get(t *testing.T) (int, error) {
	t.Helper()
	res, err := http.Get(s.frame.URL())
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	return res.StatusCode, nil
}

// TestWaitWakesOnNotify: Wait returns once a call's Notify makes ready true.
func TestWaitWakesOnNotify(t *testing.T) {
	s := start(t)
	called := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.calls > 0
	}
	done := make(chan error, 1)
	go func() { done <- s.frame.Wait(context.Background(), called) }()
	if code, err := s.get(t); err != nil || code != http.StatusNoContent {
		t.Fatalf("GET: %d %v, want 204", code, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// TestWaitEnds: Wait returns ErrClosed once the server is closed and ctx's error once
// ctx ends, ready never true.
func TestWaitEnds(t *testing.T) {
	never := func() bool { return false }
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.frame.Wait(ctx, never); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait, ctx cancelled: %v, want context.Canceled", err)
	}
	shut := 0
	if !s.frame.Close(func() { shut++ }) || s.frame.Close(func() { shut++ }) || shut != 1 {
		t.Errorf("Close twice: shut %d times, want true then false and once", shut)
	}
	if err := s.frame.Wait(context.Background(), never); !errors.Is(err, loopback.ErrClosed) {
		t.Errorf("Wait, closed: %v, want ErrClosed", err)
	}
	if _, err := s.get(t); err == nil {
		t.Error("GET after Close: no error, want the server gone")
	}
}

// TestSetOutage: every call fails as the outage says until outage.None, and is still
// served to the handler.
func TestSetOutage(t *testing.T) {
	s := start(t)
	for _, c := range []struct {
		name string
		o    outage.Kind
		code int // 0: the connection drops
	}{
		{"bad gateway", outage.BadGateway, http.StatusBadGateway},
		{"dropped", outage.Dropped, 0},
		{"none", outage.None, http.StatusNoContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.frame.SetOutage(c.o)
			code, err := s.get(t)
			if c.code == 0 && err == nil || c.code != 0 && (err != nil || code != c.code) {
				t.Errorf("GET: %d %v, want %d", code, err, c.code)
			}
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls != 3 {
		t.Errorf("%d calls served, want 3", s.calls)
	}
}
