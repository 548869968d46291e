package api_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// dialRaw opens a TCP connection to the env's server, closed at the end of the test.
func (e *env) dialRaw() net.Conn {
	e.t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// TestSlowBodies: 500 connections that send a check's headers and then trickle
// nothing more of the body do not hold up a normal check, which answers within 1 s;
// each of them is answered 408 and closed within the body timeout, and nothing of
// their bodies is stored.
func TestSlowBodies(t *testing.T) {
	const bodyTimeout = 5 * time.Second
	e := newAPIEnv(t, func(o *api.Options) { o.BodyTimeout = bodyTimeout })
	before := teststore.Snapshot(t, e.db)
	body := `{"tool_name":"Bash","session_id":"slow","arguments":{"command":"rm -rf /"}}`
	start := time.Now()
	conns := make([]net.Conn, 500)
	for i := range conns {
		conns[i] = e.dialRaw()
		_, err := fmt.Fprintf(conns[i], "POST /api/approval/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
			"Authorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\n\r\n%s",
			adminToken, len(body), body[:20])
		if err != nil {
			t.Fatal(err)
		}
	}
	// The check must end while every slow body is still held: before the body timeout,
	// counted from the first connection's start, can have answered any of them.
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(bodyTimeout))
	defer cancel()
	res, err := e.admin.Check(ctx, api.CheckRequest{
		Call: gate.Call{ToolName: "TodoWrite", SessionID: "s"}})
	if err != nil || res.Decision != gate.VerdictAllow {
		t.Fatalf("a normal check beside 500 slow bodies: %+v %v", res, err)
	}
	// Every slow connection is answered and closed before the body timeout (counted
	// from the last one's start) and a margin have passed. The margin is wide: 500
	// connections under -race on a loaded machine; without the timeout they never end.
	deadline := start.Add(bodyTimeout + 15*time.Second)
	for i, c := range conns {
		if err := c.SetReadDeadline(deadline); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusRequestTimeout ||
			!strings.Contains(string(b), "the body did not arrive within the body timeout") {
			t.Fatalf("slow connection %d: %d %s %v", i, resp.StatusCode, b, err)
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("slow connection %d is not closed: %v", i, err)
		}
	}
	teststore.Unchanged(t, e.db, before)
}

// TestConnectionCap: past MaxConns, a new connection is refused at once (503, then
// closed), not held, while the ones within the cap stay open.
func TestConnectionCap(t *testing.T) {
	const max = 8
	e := newAPIEnv(t, func(o *api.Options) { o.MaxConns, o.ReadHeaderTimeout = max, time.Minute })
	held := make([]net.Conn, max)
	for i := range held {
		held[i] = e.dialRaw()
	}
	// The server accepts in order, so the next connection comes after all of these.
	extra := e.dialRaw()
	// A held connection would wait for the header timeout, a minute: half of it tells
	// the two apart however loaded the machine is.
	if err := extra.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(extra)
	if err != nil || !strings.HasPrefix(string(b), "HTTP/1.1 503 Service Unavailable") ||
		!strings.Contains(string(b), "too many connections") {
		t.Fatalf("the connection past the cap: %q %v, want 503 and closed, not held", b, err)
	}
	// A held one still works.
	fmt.Fprintf(held[0], "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	if err := held[0].SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(held[0]), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a connection within the cap: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestLongPollOutlivesTheWriteTimeout: a check, a question and a read of either that
// wait for a human are not cut off by the write timeout (they have their own cap,
// MaxWaitSecs), while the write timeout still bounds an ordinary answer's connection.
func TestLongPollOutlivesTheWriteTimeout(t *testing.T) {
	e := newAPIEnv(t, func(o *api.Options) { o.WriteTimeout = 100 * time.Millisecond })
	ctx := context.Background()
	res, err := e.admin.Check(ctx, api.CheckRequest{WaitSecs: 1,
		Call: gate.Call{ToolName: "Bash", SessionID: "s",
			Arguments: map[string]any{"command": "rm -rf build"}}})
	if err != nil || res.Decision != gate.VerdictPending {
		t.Fatalf("a 1 s check with a 100 ms write timeout: %+v %v", res, err)
	}
	q, err := e.admin.Ask(ctx, api.AskRequest{SessionID: "s", Question: "go on?",
		WaitSecs: 1})
	if err != nil || q.Status != store.ClarificationPending {
		t.Fatalf("a 1 s question with a 100 ms write timeout: %+v %v", q, err)
	}
	tests := []struct {
		name string
		get  func() (string, error)
	}{
		{"request", func() (string, error) {
			r, err := e.admin.Request(ctx, res.RequestID, 1)
			return string(r.Status), err
		}},
		{"clarification", func() (string, error) {
			c, err := e.admin.Clarification(ctx, q.ID, 1)
			return string(c.Status), err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, err := tt.get()
			if err != nil || status != "pending" {
				t.Fatalf("a 1 s read with a 100 ms write timeout: %q %v", status, err)
			}
		})
	}
}
