package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestCheckAllowAndDeny(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	res, err := e.admin.Check(ctx, api.CheckRequest{
		Call: gate.Call{ToolName: "TodoWrite", SessionID: "s"}})
	if err != nil || res.Decision != gate.VerdictAllow || res.RuleID == 0 || res.RequestID != 0 ||
		res.Reason != "rule "+testkit.ID(res.RuleID)+" (allow TodoWrite)" {
		t.Fatalf("TodoWrite: %v %+v, want allow by a rule, named", err, res)
	}
	res, err = e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Read",
		SessionID: "s", Arguments: map[string]any{"file_path": "secrets/prod.env"}}})
	if err != nil || res.Decision != gate.VerdictDeny || res.RuleID == 0 ||
		res.Reason != "rule "+testkit.ID(res.RuleID)+" (deny @fs_any secrets/*)" {
		t.Fatalf("Read secrets/: %v %+v, want deny by the seeded rule, named", err, res)
	}
	// The reason names the rule that decided, with its filters; the note stays apart.
	r, err := e.admin.CreateRule(ctx, rules.Rule{ToolPattern: "mcp__gmail__*", AgentID: "bot-1",
		Source: "web", Action: rules.Deny, Note: "no mail", Priority: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err = e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "mcp__gmail__send",
		SessionID: "s", AgentID: "bot-1", Source: "web"}})
	if err != nil || res.Decision != gate.VerdictDeny || res.RuleID != r.ID ||
		res.Note != "no mail" ||
		res.Reason != "rule "+testkit.ID(r.ID)+" (deny mcp__gmail__* agent=bot-1 source=web)" {
		t.Fatalf("gmail: %v %+v", err, res)
	}
	if ps, err := e.db.Pending(); err != nil || len(ps) != 0 {
		t.Fatalf("%d pending requests after allow and deny (err %v)", len(ps), err)
	}
}

func TestCheckErrors(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"tool_name":"Bash",`, 400, "malformed JSON"},
		{`[1,2]`, 400, "malformed JSON"},
		{`{"tool_name":"Bash"}{}`, 400, "more than one value"},
		{`{"tool_name":"Bash","bogus":1}`, 400, `unknown field "bogus"`},
		{``, 400, "a JSON body is required"},
		{`{"session_id":"s"}`, 400, "tool_name is required"},
		{`{"tool_name":"Bash","session_id":"s","group":"nope"}`, 422, "unknown group"},
		{`{"tool_name":"Bash","session_id":"s","profile":"nope"}`, 422, "unknown profile"},
	} {
		t.Run(c.body, func(t *testing.T) {
			e.in(t).wantError("POST", "/api/approval/check", adminToken, c.body, c.status, c.msg)
		})
	}
	// Over 1 MiB: 413 with a clear message.
	big := `{"tool_name":"Bash","session_id":"s","arguments":{"cmd":"` +
		strings.Repeat("x", api.MaxBodyBytes) + `"}}`
	e.wantError("POST", "/api/approval/check", adminToken, big,
		http.StatusRequestEntityTooLarge, "over 1048576 bytes (1 MiB)")
	teststore.Unchanged(t, e.db, before)

	// The same tool_call_id for another call: 409, the first request untouched.
	e.pending(e.admin, "s", "t1")
	before = teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/approval/check", adminToken,
		`{"tool_name":"Bash","session_id":"s","tool_call_id":"t1","arguments":{"command":"ls"}}`,
		http.StatusConflict, "tool_call_id reused for a different call")
	teststore.Unchanged(t, e.db, before)
}

func TestCheckIsIdempotent(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "t1")
	if again := e.pending(e.admin, "s", "t1"); again != id {
		t.Fatalf("second check: request %d, want %d", again, id)
	}
	if _, err := e.admin.Resolve(context.Background(), id,
		api.ResolveRequest{Action: "approve", Note: "ok"}); err != nil {
		t.Fatal(err)
	}
	res, err := e.admin.Check(context.Background(), api.CheckRequest{Call: gate.Call{
		ToolName: "Bash", SessionID: "s", ToolCallID: "t1",
		Arguments: map[string]any{"command": "rm -rf build"}}})
	if err != nil || res.Decision != gate.VerdictApproved || res.RequestID != id ||
		res.Note != "ok" || res.ResolvedBy != "api" {
		t.Fatalf("check after approval: %v %+v", err, res)
	}
	if ps, err := e.db.Pending(); err != nil || len(ps) != 0 {
		t.Fatalf("%d pending (err %v)", len(ps), err)
	}
}

// resolveLater resolves the request id returns (it may block until it knows it) from
// another goroutine, and returns a channel that gets the outcome.
func (e *env) resolveLater(id func() uint64, action string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := e.admin.Resolve(context.Background(), id(),
			api.ResolveRequest{Action: action, Note: "from the test"})
		done <- err
	}()
	return done
}

func TestCheckWaitsForTheResolution(t *testing.T) {
	e := newAPIEnv(t)
	events, release := e.gate.Subscribe(8)
	defer release()
	ids := make(chan uint64, 1)
	go func() {
		for ev := range events {
			if d, ok := ev.Data.(gate.ApprovalRequested); ok {
				ids <- d.RequestID
				return
			}
		}
	}()
	done := e.resolveLater(func() uint64 { return <-ids }, "reject")
	start := time.Now()
	res, err := e.admin.Check(context.Background(), api.CheckRequest{WaitSecs: 1000,
		Call: gate.Call{ToolName: "Bash", SessionID: "s",
			Arguments: map[string]any{"command": "rm -rf build"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("resolve: %v", err)
	}
	if res.Decision != gate.VerdictRejected || res.Note != "from the test" ||
		res.ResolvedBy != "api" ||
		!strings.Contains(res.Reason, "rejected by api via the API (request ") {
		t.Fatalf("check = %+v", res)
	}
	// It came back on the resolution, not at the end of the (capped) wait.
	if d := time.Since(start); d >= api.MaxWaitSecs*time.Second {
		t.Fatalf("check took %s", d)
	}
}

func TestRequestLongPoll(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "")
	done := e.resolveLater(func() uint64 { return id }, "approve")
	q, err := e.admin.Request(context.Background(), id, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if q.Status != store.Approved || q.Resolution == nil || q.Resolution.Note != "from the test" {
		t.Fatalf("request = %+v", q)
	}
	// Await returns the resolved request at once.
	if q, err := e.admin.Await(context.Background(), id); err != nil ||
		q.Status != store.Approved {
		t.Fatalf("Await: %v %+v", err, q)
	}
	e.wantError("GET", "/api/approval/requests/99999", adminToken, "", 404, "request 99999")
	e.wantError("GET", "/api/approval/requests/x", adminToken, "", 400,
		`id "x" is not a positive integer`)
	e.wantError("GET", "/api/approval/requests/1?wait_secs=x", adminToken, "", 400,
		`wait_secs "x" is not a non-negative integer`)
}

// TestNegativeWait checks a negative wait_secs is the same 400 in a check's body and
// in a request's query, and that the refused check registers nothing.
func TestNegativeWait(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "t0")
	before := teststore.Snapshot(t, e.db)
	const msg = "bad request: wait_secs -3 is not a non-negative integer"
	e.wantError("GET", "/api/approval/requests/"+strconv.FormatUint(id, 10)+"?wait_secs=-3",
		adminToken, "", 400, msg)
	e.wantError("POST", "/api/approval/check", adminToken,
		`{"tool_name":"Bash","session_id":"s","tool_call_id":"t1",`+
			`"arguments":{"command":"ls"},"wait_secs":-3}`, 400, msg)
	teststore.Unchanged(t, e.db, before)
}

func TestAwaitStopsAtTheDeadline(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	q, err := e.admin.Await(ctx, id)
	if err != nil || q.ID != id || q.Status != store.Pending {
		t.Fatalf("Await = %v %+v, want the pending request", err, q)
	}
}

func TestResolve(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	id := e.pending(e.admin, "s", "")
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		body, msg string
		status    int
	}{
		{`{"action":"maybe"}`, `unknown action "maybe"`, 400},
		{`{"action":`, "malformed JSON", 400},
		{`{"action":"reject","bypass_secs":0}`, "a bypass goes only with approve", 400},
		{`{"action":"approve","bypass_secs":-5}`, "bypass_secs must be 0", 422},
		{`{"action":"approve","bypass_secs":9223372036854775807}`,
			"invalid bypass: 9223372036854775807 seconds is more than 31622400 (366 days)", 422},
		{`{"action":"approve","bypass_secs":0,"bypass_scope":"everything"}`,
			"invalid bypass scope", 422},
	} {
		t.Run(c.body, func(t *testing.T) {
			e.in(t).wantError("POST", "/api/inbox/approvals/"+testkit.ID(id)+"/resolve",
				adminToken, c.body, c.status, c.msg)
		})
	}
	e.wantError("POST", "/api/inbox/approvals/424242/resolve", adminToken,
		`{"action":"approve"}`, 404, "not found")
	teststore.Unchanged(t, e.db, before)

	alice := e.client(adminToken)
	alice.Actor = "alice"
	q, err := alice.Resolve(ctx, id,
		api.ResolveRequest{Action: "approve", BypassSecs: new(int64(900))})
	if err != nil || q.Status != store.Approved || q.Resolution.By != "alice" ||
		q.Resolution.Via != "api" || q.Resolution.Bypass == nil ||
		q.Resolution.Bypass.Scope != "category:shell" || q.Resolution.Bypass.Secs != 900 {
		t.Fatalf("approve: %v %+v", err, q)
	}
	// The bypass lets the next Bash call of the session through.
	res, err := e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash",
		SessionID: "s", Arguments: map[string]any{"command": "make"}}})
	if err != nil || res.Decision != gate.VerdictAllow {
		t.Fatalf("check under bypass: %v %+v", err, res)
	}

	// A second resolution: 409 saying who won, nothing changed.
	before = teststore.Snapshot(t, e.db)
	stored, err := e.db.Request(id)
	testkit.Must(t, err)
	e.wantError("POST", "/api/inbox/approvals/"+testkit.ID(id)+"/resolve", adminToken,
		`{"action":"reject"}`, http.StatusConflict, "already approved by alice via api")
	teststore.Unchanged(t, e.db, before)
	if again, err := e.db.Request(id); err != nil || again.Status != store.Approved ||
		!again.Resolution.At.Equal(stored.Resolution.At) {
		t.Fatalf("request changed: %+v (err %v)", again, err)
	}
}

func TestResolveByToolCallID(t *testing.T) {
	e := newAPIEnv(t)
	a := e.pending(e.admin, "s1", "call-1")
	b := e.pending(e.admin, "s2", "call-1")
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/tools/call-1/resolve", adminToken, `{"action":"approve"}`, 409,
		"used by 2 requests")
	e.wantError("POST", "/api/tools/nope/resolve", adminToken, `{"action":"approve"}`, 404,
		`no request for tool call "nope"`)
	e.wantError("POST", "/api/tools/call-1/resolve?session_id=s9", adminToken,
		`{"action":"approve"}`, 404, "no request")
	teststore.Unchanged(t, e.db, before)
	if st, body := e.do("POST", "/api/tools/call-1/resolve?session_id=s2", adminToken,
		strings.NewReader(`{"action":"reject","note":"no"}`)); st != 200 {
		t.Fatalf("resolve by tool call id: %d %s", st, body)
	}
	qa, err := e.db.Request(a)
	testkit.Must(t, err)
	qb, err := e.db.Request(b)
	testkit.Must(t, err)
	if qa.Status != store.Pending || qb.Status != store.Rejected || qb.Resolution.Note != "no" {
		t.Fatalf("statuses %s %s", qa.Status, qb.Status)
	}
}

func TestCancelRequest(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "")
	// No body: cancelled without a reason.
	st, body := e.do("POST", "/api/approval/requests/"+testkit.ID(id)+"/cancel", adminToken, nil)
	var q store.Request
	if json.Unmarshal([]byte(body), &q); st != 200 || q.Status != store.Cancelled {
		t.Fatalf("cancel: %d %s", st, body)
	}
	res := api.ResultOf(q)
	if res.Decision != gate.VerdictCancelled {
		t.Fatalf("ResultOf = %+v", res)
	}
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/approval/requests/"+testkit.ID(id)+"/cancel", adminToken,
		`{"reason":"x"}`, 409, "already cancelled by api via api")
	e.wantError("POST", "/api/approval/requests/777/cancel", adminToken, ``, 404, "not found")
	teststore.Unchanged(t, e.db, before)
}

func TestInbox(t *testing.T) {
	e := newAPIEnv(t)
	in, err := e.admin.Inbox(context.Background())
	if err != nil || in.Total != 0 || in.Approvals == nil || in.Clarifications == nil {
		t.Fatalf("empty inbox: %v %+v", err, in)
	}
	id := e.pending(e.admin, "s", "")
	in, err = e.admin.Inbox(context.Background())
	if err != nil || in.Total != 1 || in.Approvals[0].ID != id ||
		in.Approvals[0].ToolName != "Bash" {
		t.Fatalf("inbox: %v %+v", err, in)
	}
	_, body := e.do("GET", "/api/inbox", adminToken, nil)
	if !strings.Contains(body, `"clarifications":[]`) {
		t.Fatalf("inbox body %s", body)
	}
}

func TestErrorMessagesAreShort(t *testing.T) {
	e := newAPIEnv(t)
	_, body := e.do("POST", "/api/inbox/approvals/99/resolve", adminToken,
		strings.NewReader(`{"action":"approve"}`))
	if body != `{"error":"resolve 99: not found"}`+"\n" {
		t.Fatalf("body %s", body)
	}
}

// TestCheckPendingSaysWhy: a pending answer keeps "waiting for approval (request N)" and
// adds why the gate asked a human when it was more than a rule's or the default require
// — on the check and on a polled request alike.
func TestCheckPendingSaysWhy(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	res, err := e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Grep",
		SessionID: "s", Arguments: map[string]any{"pattern": "token", "path": "."}}})
	want := "waiting for approval (request " + testkit.ID(res.RequestID) + "): " +
		rules.ReasonContains + ": secrets"
	if err != nil || res.Decision != gate.VerdictPending || res.Reason != want {
		t.Fatalf("Grep .: %v %+v, want pending, reason %q", err, res, want)
	}
	q, err := e.db.Request(res.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if got := api.ResultOf(q).Reason; got != want {
		t.Errorf("ResultOf the stored request: %q, want %q", got, want)
	}
	res, err = e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash",
		SessionID: "s", Arguments: map[string]any{"command": "ls docs"}}})
	if want := "waiting for approval (request " + testkit.ID(res.RequestID) + ")"; err != nil ||
		res.Reason != want {
		t.Errorf("Bash: %v %+v, want reason %q", err, res, want)
	}
}
