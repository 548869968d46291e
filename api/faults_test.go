package api_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// With the disk full, a call that needs a human gets 503 with a clear message and is
// never allowed, an approval gets 503 and leaves the request pending, and nothing is
// written; once the disk is back both work.
func TestCommitFailureNeverAllows(t *testing.T) {
	var full atomic.Bool
	e := newAPIEnvStore(t, store.Options{FailCommit: func() error {
		if full.Load() {
			return errors.New("no space left on device")
		}
		return nil
	}}, nil)
	agent := e.client(agentToken)
	id := e.pending(agent, "s1", "t1")
	before := teststore.Snapshot(t, e.db)
	full.Store(true)

	const msg = "the store could not record this (disk full or read-only?); nothing was changed"
	e.wantError("POST", "/api/approval/check", agentToken,
		`{"tool_name":"Bash","session_id":"s2","tool_call_id":"t9",`+
			`"arguments":{"command":"rm -rf /tmp/x"}}`,
		http.StatusServiceUnavailable, msg)
	e.wantError("POST", "/api/inbox/approvals/"+strconv.FormatUint(id, 10)+"/resolve", adminToken,
		`{"action":"approve"}`, http.StatusServiceUnavailable, msg)
	_, err := e.admin.Resolve(context.Background(), id, api.ResolveRequest{Action: "approve"})
	if !errors.Is(err, api.ErrUnavailable) {
		t.Fatalf("Resolve with the disk full: %v, want ErrUnavailable", err)
	}
	// The waiting agent asks again: still pending, never allowed.
	res, err := agent.Check(context.Background(), api.CheckRequest{Call: gate.Call{
		ToolName: "Bash", SessionID: "s1", ToolCallID: "t1",
		Arguments: map[string]any{"command": "rm -rf build"}}})
	if err != nil || res.Decision != gate.VerdictPending {
		t.Fatalf("replayed check with the disk full: %+v, %v; want pending", res, err)
	}
	teststore.Unchanged(t, e.db, before)

	full.Store(false)
	if r, err := e.admin.Resolve(context.Background(), id,
		api.ResolveRequest{Action: "approve"}); err != nil || r.Status != store.Approved {
		t.Fatalf("Resolve once the disk is back: %+v, %v", r, err)
	}
}
