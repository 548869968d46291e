package api_test

import (
	"bufio"
	"context"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestEvents(t *testing.T) {
	e := newAPIEnv(t)
	resp := e.events()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, ct)
	}
	r := bufio.NewReader(resp.Body)
	// The opening comment is sent once the subscription exists.
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("first line %q %v", line, err)
	}
	id := e.pending(e.admin, "s", "call-9")
	name, data := testkit.ReadEvent(t, r)
	if name != "approval_requested" ||
		data != `{"request_id":`+testkit.ID(id)+`,"tool_call_id":"call-9","tool_name":"Bash"}` {
		t.Fatalf("event %s %s", name, data)
	}
	if _, err := e.admin.Resolve(context.Background(), id,
		api.ResolveRequest{Action: "approve"}); err != nil {
		t.Fatal(err)
	}
	name, data = testkit.ReadEvent(t, r)
	if name != "approval_resolved" ||
		data != `{"request_id":`+testkit.ID(id)+`,"tool_call_id":"call-9","status":"approved"}` {
		t.Fatalf("event %s %s", name, data)
	}
}
