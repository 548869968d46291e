package telegramtest

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestWaitingPollEndsWhenTheClientGoesAway checks the server side of a cancelled
// long poll: the waiting getUpdates is dropped, so it neither lingers nor is reported
// as terminated by the next poller.
func TestWaitingPollEndsWhenTheClientGoesAway(t *testing.T) {
	ctx, cancelTest := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancelTest()
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	pollCtx, cancelPoll := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		req, err := http.NewRequestWithContext(pollCtx, http.MethodGet,
			srv.URL()+"/bot"+srv.Token()+"/getUpdates?timeout=50", nil)
		if err == nil {
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		done <- err
	}()
	if _, err := srv.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	waiting := func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return srv.poll != nil
	}
	if !waiting() {
		t.Fatal("the getUpdates call is not waiting")
	}
	cancelPoll()
	if err := <-done; err == nil {
		t.Fatal("the cancelled request succeeded")
	}
	if err := srv.Wait(ctx, func() bool { return !waiting() }); err != nil {
		t.Fatalf("the server still holds the abandoned poll: %v", err)
	}
}
