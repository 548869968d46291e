package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	bolt "go.etcd.io/bbolt"
)

// newRequest is a valid request of session s with tool call id tc.
func newRequest(s, tc string) Request {
	return Request{SessionID: s, ToolCallID: tc, ToolName: "Bash",
		Arguments: json.RawMessage(`{"command":"ls"}`), AgentID: "claude-code",
		Source: "claude-code", Category: "shell", GroupID: "default",
		ExpiresAt: testkit.T0.Add(time.Hour)}
}

// hookRequest is the request a Claude Code PreToolUse hook call makes
// (testdata/pretooluse_write.json).
func hookRequest(t *testing.T) Request {
	t.Helper()
	data, err := os.ReadFile("testdata/pretooluse_write.json")
	testkit.Must(t, err)
	var h struct {
		SessionID string          `json:"session_id"`
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
		ToolUseID string          `json:"tool_use_id"`
	}
	testkit.Must(t, json.Unmarshal(data, &h))
	return Request{SessionID: h.SessionID, ToolCallID: h.ToolUseID, ToolName: h.ToolName,
		Arguments: h.ToolInput, Source: "claude-code", Category: "filesystem",
		GroupID: "default", ExpiresAt: testkit.T0.Add(24 * time.Hour)}
}

func TestCreateRequest(t *testing.T) {
	d, _ := openTest(t)
	in := hookRequest(t)
	in.ID, in.Status = 77, Approved // ignored
	in.Resolution = &Resolution{By: "mallory"}
	in.Messages = []Message{{Channel: "telegram", ChatID: "1", Ref: "2"}}
	r, created, err := d.CreateRequest(in)
	testkit.Must(t, err)
	if !created || r.ID != 1 || r.Status != Pending || r.Resolution != nil || r.Messages != nil ||
		!r.CreatedAt.Equal(testkit.T0) {
		t.Fatalf("created=%v %+v", created, r)
	}
	want := `{"content":"export const retries = 3;\n",` +
		`"file_path":"/home/user/my-project/src/config.ts"}`
	if string(r.Arguments) != want {
		t.Fatalf("arguments %s\nwant      %s", r.Arguments, want)
	}
	got, err := d.Request(r.ID)
	testkit.Must(t, err)
	if string(got.Arguments) != want || got.ToolCallID != "toolu_01WRITE0000000000000001" ||
		got.SessionID != "abc123" || got.Status != Pending || !got.ExpiresAt.Equal(in.ExpiresAt) {
		t.Fatalf("stored %+v", got)
	}
	byTC, err := d.RequestByToolCall("abc123", "toolu_01WRITE0000000000000001")
	testkit.Must(t, err)
	if byTC.ID != r.ID {
		t.Fatalf("RequestByToolCall = %d", byTC.ID)
	}
	r2, created, err := d.CreateRequest(newRequest("abc123", "")) // no tool call id: always new
	testkit.Must(t, err)
	r3, _, err := d.CreateRequest(newRequest("abc123", ""))
	testkit.Must(t, err)
	if !created || r2.ID != 2 || r3.ID != 3 {
		t.Fatalf("ids %d %d", r2.ID, r3.ID)
	}
	_, err = d.RequestByToolCall("abc123", "")
	testkit.WantErr(t, err, ErrNotFound,
		`store: request of tool call "" in session "abc123": not found`)
}

// TestCreateRequestIdempotent: the same (session, tool call id) with the same call —
// whatever its key order or spacing — returns the stored request, pending or resolved;
// with another call it is ErrToolCallReused (docs/design.md, "Idempotency").
func TestCreateRequestIdempotent(t *testing.T) {
	d, _ := openTest(t)
	in := newRequest("s1", "tc1")
	in.Arguments = json.RawMessage(
		`{"command":"echo <a> & b","opts":{"z":1,"a":[1,2.50,12345678901234567890]}}`)
	first, created, err := d.CreateRequest(in)
	testkit.Must(t, err)
	if !created {
		t.Fatal("not created")
	}
	again := in
	again.Arguments = json.RawMessage(" {\n \"opts\": {\"a\": [1, 2.50, 12345678901234567890]," +
		" \"z\": 1},\n \"command\": \"echo \\u003ca> & b\"}\n")
	again.ExpiresAt = testkit.T0.Add(2 * time.Hour) // other fields do not count
	before := testkit.FileBytes(t, d.Path())
	r, created, err := d.CreateRequest(again)
	testkit.Must(t, err)
	if created || r.ID != first.ID || string(r.Arguments) != string(first.Arguments) {
		t.Fatalf("created=%v %+v", created, r)
	}
	testkit.FileUnchanged(t, d.Path(), before)

	// Resolved, it still answers with the request and its outcome.
	_, err = d.Resolve(first.ID, Rejected, Resolution{By: "bob", Via: "slack"})
	testkit.Must(t, err)
	r, created, err = d.CreateRequest(again)
	testkit.Must(t, err)
	if created || r.Status != Rejected || r.Resolution.By != "bob" {
		t.Fatalf("after resolve: created=%v %+v", created, r)
	}

	// The same tool call id in another session is another request.
	other, created, err := d.CreateRequest(newRequest("s2", "tc1"))
	testkit.Must(t, err)
	if !created || other.ID == first.ID {
		t.Fatalf("other session: created=%v id %d", created, other.ID)
	}
	all, err := d.RequestsByToolCallID("tc1")
	testkit.Must(t, err)
	if len(all) != 2 || all[0].ID != first.ID || all[1].ID != other.ID {
		t.Fatalf("RequestsByToolCallID = %+v", all)
	}
	if none, err := d.RequestsByToolCallID("tc"); err != nil || len(none) != 0 {
		t.Fatalf("prefix tool call id found %v, %v", none, err)
	}

	// Reused for another call: any field of the call that differs makes it another
	// call, and the error names the field.
	before = testkit.FileBytes(t, d.Path())
	for _, c := range []struct {
		change func(*Request)
		what   string
	}{
		{func(r *Request) { r.ToolName = "execute_cmd" }, "tool_name"},
		{func(r *Request) { r.Arguments = json.RawMessage(`{"command":"echo <a> & b"}`) },
			"arguments"},
		{func(r *Request) { r.Cwd = "/home/dev/project" }, "cwd"},
		{func(r *Request) { r.GroupID = "ci" }, "group"},
		{func(r *Request) { r.Profile = "ci" }, "profile"},
		{func(r *Request) { r.AgentID = "reviewer" }, "agent_id"},
		{func(r *Request) { r.Source = "slack" }, "source"},
		{func(r *Request) { r.ContextLabel = "other task" }, "context_label"},
		{func(r *Request) { r.ClaimedCategory = "shell" }, "category"},
	} {
		t.Run(c.what, func(t *testing.T) {
			bad := in
			c.change(&bad)
			r, created, err := d.CreateRequest(bad)
			testkit.WantErr(t, err, ErrToolCallReused,
				`store: create request: tool call "tc1" of session "s1" (request 1): `+
					`tool_call_id reused for a different call: not the same `+c.what)
			if created || r.ID != first.ID {
				t.Fatalf("reused (%s): created=%v id %d", c.what, created, r.ID)
			}
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

// TestCreateRequestCwd: the cwd is stored as sent, and a repeat from the same cwd is
// the same call while one from another cwd is refused.
func TestCreateRequestCwd(t *testing.T) {
	d, _ := openTest(t)
	in := newRequest("s1", "tc1")
	in.ToolName, in.Cwd = "Write", "/ws/docs"
	in.Arguments = json.RawMessage(`{"file_path":"notes.txt"}`)
	first, created, err := d.CreateRequest(in)
	testkit.Must(t, err)
	stored, err := d.Request(first.ID)
	testkit.Must(t, err)
	if !created || stored.Cwd != "/ws/docs" {
		t.Fatalf("created=%v stored cwd %q", created, stored.Cwd)
	}
	_, err = d.Resolve(first.ID, Approved, Resolution{By: "alice", Via: "telegram"})
	testkit.Must(t, err)
	if r, created, err := d.CreateRequest(in); err != nil || created || r.Status != Approved {
		t.Fatalf("the same call again: created=%v %+v %v", created, r, err)
	}
	before := testkit.FileBytes(t, d.Path())
	for _, cwd := range []string{"/ws", ""} {
		other := in
		other.Cwd = cwd
		r, created, err := d.CreateRequest(other)
		testkit.WantErr(t, err, ErrToolCallReused,
			"tool_call_id reused for a different call: not the same cwd")
		if created || r.Status != Approved || r.ID != first.ID {
			t.Fatalf("cwd %q: created=%v %+v", cwd, created, r)
		}
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

// TestCreateRequestOtherCaller: another caller repeating a call learns nothing of the
// request — not its outcome, not its id.
func TestCreateRequestOtherCaller(t *testing.T) {
	d, _ := openTest(t)
	in := newRequest("a", "a1")
	in.Caller = "agent-aaaaaaaaaaaa"
	first, _, err := d.CreateRequest(in)
	testkit.Must(t, err)
	_, err = d.Resolve(first.ID, Approved, Resolution{By: "alice", Via: "telegram"})
	testkit.Must(t, err)
	before := testkit.FileBytes(t, d.Path())
	for _, caller := range []string{"agent-bbbbbbbbbbbb", "", CallerLocal, CallerCron} {
		other := in
		other.Caller = caller
		other.AgentID = "someone" // another field differs too: still nothing is named
		r, created, err := d.CreateRequest(other)
		testkit.WantErr(t, err, ErrToolCallReused,
			`store: create request: tool call "a1" of session "a": `+
				`tool_call_id reused for a different call: made by another caller`)
		if strings.Contains(err.Error(), "request 1") ||
			strings.Contains(err.Error(), "agent_id") {
			t.Errorf("the error tells of the other caller's request: %v", err)
		}
		if created || r.ID != 0 || r.Status != "" || r.Resolution != nil {
			t.Fatalf("caller %q: created=%v, got the other caller's request %+v",
				caller, created, r)
		}
	}
	testkit.FileUnchanged(t, d.Path(), before)
	if r, created, err := d.CreateRequest(in); err != nil || created || r.ID != first.ID ||
		r.Status != Approved {
		t.Fatalf("the same caller again: created=%v %+v %v", created, r, err)
	}
}

// TestRequestOldForm: a request stored before callers were recorded names its agent
// token under "token"; it decodes with that name as its caller, and one without a
// token as the admin's. A replay by that caller finds it.
func TestRequestOldForm(t *testing.T) {
	d, _ := openTest(t)
	in := newRequest("s1", "tc1")
	in.Caller = "agent-aaaaaaaaaaaa"
	agents, _, err := d.CreateRequest(in)
	testkit.Must(t, err)
	admins, _, err := d.CreateRequest(newRequest("s1", "tc2"))
	testkit.Must(t, err)
	// Rewrite both as the older version stored them: "token", no "caller".
	err = d.bolt.Update(func(tx *bolt.Tx) error {
		for id, token := range map[uint64]string{agents.ID: "agent-aaaaaaaaaaaa", admins.ID: ""} {
			b := tx.Bucket(bucketRequests)
			var m map[string]any
			if err := json.Unmarshal(b.Get(u64(id)), &m); err != nil {
				return err
			}
			delete(m, "caller")
			if token != "" {
				m["token"] = token
			}
			v, err := json.Marshal(m)
			if err != nil {
				return err
			}
			if strings.Contains(string(v), `"caller"`) {
				return fmt.Errorf("still has a caller: %s", v)
			}
			if err := b.Put(u64(id), v); err != nil {
				return err
			}
		}
		return nil
	})
	testkit.Must(t, err)
	for id, want := range map[uint64]string{
		agents.ID: "agent-aaaaaaaaaaaa", admins.ID: CallerAdmin,
	} {
		r, err := d.Request(id)
		testkit.Must(t, err)
		if r.Caller != want {
			t.Errorf("request %d: caller %q, want %q", id, r.Caller, want)
		}
	}
	r, created, err := d.CreateRequest(in)
	if err != nil || created || r.ID != agents.ID {
		t.Fatalf("replay of the old request: created=%v id %d, %v", created, r.ID, err)
	}
	other := in
	other.Caller = "agent-bbbbbbbbbbbb"
	if _, _, err := d.CreateRequest(other); !errors.Is(err, ErrToolCallReused) {
		t.Fatalf("another token replaying the old request: %v", err)
	}
}

// TestCreateRequestConcurrentSameToolCall: callers racing with the same key get one
// request.
func TestCreateRequestConcurrentSameToolCall(t *testing.T) {
	d, _ := openTest(t)
	const n = 20
	ids := make([]uint64, n)
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, c, err := d.CreateRequest(newRequest("s", "same"))
			if err != nil {
				t.Error(err)
			}
			ids[i], created[i] = r.ID, c
		})
	}
	wg.Wait()
	if slices.Compact(slices.Sorted(slices.Values(ids)))[0] != ids[0] ||
		len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 1 {
		t.Fatalf("ids %v", ids)
	}
	if c := len(slices.DeleteFunc(created, func(b bool) bool { return !b })); c != 1 {
		t.Fatalf("%d callers created it", c)
	}
	if p, err := d.Pending(); err != nil || len(p) != 1 {
		t.Fatalf("%d pending (err %v)", len(p), err)
	}
}

func TestCreateRequestInvalid(t *testing.T) {
	d, _ := openTest(t)
	ok := newRequest("s", "tc")
	big := `{"x":"` + strings.Repeat("a", MaxArgumentsSize) + `"}`
	cases := []struct {
		name   string
		change func(*Request)
		says   string
	}{
		{"no tool", func(r *Request) { r.ToolName = "" }, "tool_name is required"},
		{"no expiry", func(r *Request) { r.ExpiresAt = time.Time{} }, "expires_at is required"},
		{"expiry before creation", func(r *Request) { r.ExpiresAt = testkit.T0.Add(-time.Second) },
			"expires_at 2026-03-01T11:59:59Z is not after created_at 2026-03-01T12:00:00Z"},
		{"malformed JSON", func(r *Request) { r.Arguments = json.RawMessage(`{"a":`) },
			"arguments are not valid JSON"},
		{"array", func(r *Request) { r.Arguments = json.RawMessage(`[1,2]`) },
			"arguments must be a JSON object"},
		{"string", func(r *Request) { r.Arguments = json.RawMessage(`"rm -rf /"`) },
			"arguments must be a JSON object"},
		{"trailing data", func(r *Request) { r.Arguments = json.RawMessage(`{} {}`) },
			"arguments hold data after the JSON object"},
		{"over 1 MiB", func(r *Request) { r.Arguments = json.RawMessage(big) },
			"arguments are 1048584 bytes, more than 1048576"},
		{"long session", func(r *Request) { r.SessionID = strings.Repeat("s", MaxIDLen+1) },
			"session_id is longer than 1024 bytes"},
		{"long tool call id", func(r *Request) { r.ToolCallID = strings.Repeat("t", MaxIDLen+1) },
			"tool_call_id is longer"},
		{"long cwd", func(r *Request) { r.Cwd = "/" + strings.Repeat("d", MaxCwdLen) },
			"cwd is longer than 4096 bytes"},
	}
	before := testkit.FileBytes(t, d.Path())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.change(&r)
			_, created, err := d.CreateRequest(r)
			testkit.WantErr(t, err, ErrInvalid, "store: create request: invalid input: "+tc.says)
			if created {
				t.Fatal("created")
			}
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
	if p, err := d.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("pending: %+v (err %v)", p, err)
	}
}

func TestCreateRequestEmptyArguments(t *testing.T) {
	d, _ := openTest(t)
	for _, raw := range []string{"", "null", "  "} {
		r := newRequest("s", "")
		r.Arguments = json.RawMessage(raw)
		got, _, err := d.CreateRequest(r)
		testkit.Must(t, err)
		if string(got.Arguments) != "{}" {
			t.Errorf("%q stored as %s", raw, got.Arguments)
		}
	}
}

func TestRequestNotFound(t *testing.T) {
	d, _ := openTest(t)
	_, err := d.Request(9)
	testkit.WantErr(t, err, ErrNotFound, "store: request 9: not found")
	_, err = d.RequestByToolCall("s", "tc")
	testkit.WantErr(t, err, ErrNotFound,
		`store: request of tool call "tc" in session "s": not found`)
}

func TestResolve(t *testing.T) {
	d, c := openTest(t)
	r, _, err := d.CreateRequest(newRequest("s", "tc"))
	testkit.Must(t, err)
	c.Set(testkit.T0.Add(time.Minute))
	res := Resolution{By: "alice (42)", Via: "telegram", Note: "fine",
		Bypass: &BypassGrant{Scope: "category:shell", Secs: 900}}
	got, err := d.Resolve(r.ID, Approved, res)
	testkit.Must(t, err)
	res.At = testkit.T0.Add(time.Minute)
	if got.Status != Approved || *got.Resolution.Bypass != *res.Bypass ||
		got.Resolution.By != res.By || !got.Resolution.At.Equal(res.At) {
		t.Fatalf("Resolve = %+v %+v", got, got.Resolution)
	}
	stored, err := d.Request(r.ID)
	testkit.Must(t, err)
	if stored.Status != Approved || stored.Resolution.Note != "fine" {
		t.Fatalf("stored %+v", stored)
	}
	if p, err := d.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("still pending: %+v (err %v)", p, err)
	}
	es, err := d.Audit(1)
	testkit.Must(t, err)
	want := AuditEntry{ID: es[0].ID, At: testkit.T0.Add(time.Minute), By: "alice (42)",
		Via: "telegram", Action: "request.approved",
		RequestID: r.ID, Detail: `Bash session=s note="fine" bypass=category:shell for 900s`}
	if es[0] != want {
		t.Fatalf("audit %+v\nwant  %+v", es[0], want)
	}

	// A second resolution changes nothing and says who won.
	before := testkit.FileBytes(t, d.Path())
	late, err := d.Resolve(r.ID, Rejected, Resolution{By: "bob", Via: "slack"})
	testkit.WantErr(t, err, ErrAlreadyResolved,
		"store: resolve 1: request already resolved (approved by alice (42) via telegram)")
	if late.Status != Approved || late.Resolution.By != "alice (42)" {
		t.Fatalf("late resolver got %+v", late)
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestResolveRejectAndCancel(t *testing.T) {
	d, _ := openTest(t)
	for _, st := range []Status{Rejected, Cancelled} {
		r, _, err := d.CreateRequest(newRequest("s", string(st)))
		testkit.Must(t, err)
		got, err := d.Resolve(r.ID, st, Resolution{By: "api", Via: "api", Note: "terminal"})
		testkit.Must(t, err)
		if got.Status != st {
			t.Fatalf("status %s", got.Status)
		}
		es, err := d.Audit(1)
		testkit.Must(t, err)
		if es[0].Action != "request."+string(st) ||
			es[0].Detail != `Bash session=s note="terminal"` {
			t.Fatalf("audit %+v", es[0])
		}
	}
}

func TestResolveErrors(t *testing.T) {
	d, _ := openTest(t)
	r, _, err := d.CreateRequest(newRequest("s", "tc"))
	testkit.Must(t, err)
	before := testkit.FileBytes(t, d.Path())
	ok := Resolution{By: "alice", Via: "telegram"}
	cases := []struct {
		name   string
		id     uint64
		status Status
		res    Resolution
		target error
		says   string
	}{
		{"not found", 99, Approved, ok, ErrNotFound, "store: resolve 99: not found"},
		{"bad status", r.ID, Expired, ok, ErrInvalid, `cannot resolve to status "expired"`},
		{"pending status", r.ID, Pending, ok, ErrInvalid, `cannot resolve to status "pending"`},
		{"no actor", r.ID, Approved, Resolution{Via: "api"}, ErrInvalid,
			"the resolution needs who (by)"},
		{"bypass on reject", r.ID, Rejected,
			Resolution{By: "a", Bypass: &BypassGrant{Scope: "all"}}, ErrInvalid,
			"only an approval grants a bypass"},
		{"bad scope", r.ID, Approved,
			Resolution{By: "a", Bypass: &BypassGrant{Scope: "everything"}}, ErrInvalid,
			`bypass scope "everything"`},
		{"empty scope name", r.ID, Approved,
			Resolution{By: "a", Bypass: &BypassGrant{Scope: "mcp:"}}, ErrInvalid,
			`bypass scope "mcp:"`},
		{"negative secs", r.ID, Approved,
			Resolution{By: "a", Bypass: &BypassGrant{Scope: "all", Secs: -1}}, ErrInvalid,
			"bypass length -1 s is negative"},
		{"after expiry", r.ID, Approved,
			Resolution{By: "a", At: testkit.T0.Add(time.Hour + time.Nanosecond)}, ErrExpired,
			"store: resolve 1: request expired at 2026-03-01T13:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Resolve(tc.id, tc.status, tc.res)
			testkit.WantErr(t, err, tc.target, tc.says)
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
	if got, err := d.Request(r.ID); err != nil || got.Status != Pending {
		t.Fatalf("status %s (err %v)", got.Status, err)
	}
	// At its expiry exactly, it can still be resolved.
	_, err = d.Resolve(r.ID, Approved, Resolution{By: "a", At: testkit.T0.Add(time.Hour)})
	testkit.Must(t, err)
}

// TestResolveRace: 50 goroutines resolve one request; exactly one wins, the others get
// ErrAlreadyResolved with the winner's resolution, and the audit log holds exactly one
// resolution.
func TestResolveRace(t *testing.T) {
	d, _ := openTest(t)
	r, _, err := d.CreateRequest(newRequest("s", "tc"))
	testkit.Must(t, err)
	const n = 50
	type result struct {
		req Request
		err error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			status := Approved
			if i%2 == 1 {
				status = Rejected
			}
			by := "user" + string(rune('A'+i%26)) + string(rune('0'+i/26))
			req, err := d.Resolve(r.ID, status, Resolution{By: by, Via: "telegram"})
			results[i] = result{req, err}
		})
	}
	close(start)
	wg.Wait()

	var winner *Request
	for i, res := range results {
		if res.err == nil {
			if winner != nil {
				t.Fatalf("two winners: %+v and %+v", winner.Resolution, res.req.Resolution)
			}
			winner = &results[i].req
		}
	}
	if winner == nil {
		t.Fatal("nobody won")
	}
	for _, res := range results {
		if res.err == nil {
			continue
		}
		if !errors.Is(res.err, ErrAlreadyResolved) {
			t.Fatalf("loser error %v", res.err)
		}
		if res.req.Status != winner.Status || *res.req.Resolution != *winner.Resolution {
			t.Fatalf("loser told %+v, winner is %+v", res.req.Resolution, winner.Resolution)
		}
		if !strings.Contains(res.err.Error(), string(winner.Status)+" by "+winner.Resolution.By) {
			t.Fatalf("loser message %q does not name the winner", res.err)
		}
	}
	es, err := d.Audit(0)
	testkit.Must(t, err)
	count := 0
	for _, e := range es {
		if e.RequestID == r.ID {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("%d audit entries for the request", count)
	}
}

func TestExpireDue(t *testing.T) {
	d, _ := openTest(t)
	var ids []uint64
	for i, after := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour} {
		r := newRequest("s", string(rune('a'+i)))
		r.ExpiresAt = testkit.T0.Add(after)
		got, _, err := d.CreateRequest(r)
		testkit.Must(t, err)
		ids = append(ids, got.ID)
	}
	// Nothing due: no write at all (an idle sweeper must not fsync every second).
	before := testkit.FileBytes(t, d.Path())
	due, err := d.ExpireDue(testkit.T0.Add(time.Hour - time.Nanosecond))
	testkit.Must(t, err)
	if len(due) != 0 {
		t.Fatalf("due %+v", due)
	}
	testkit.FileUnchanged(t, d.Path(), before)

	now := testkit.T0.Add(2 * time.Hour)
	due, err = d.ExpireDue(now)
	testkit.Must(t, err)
	if len(due) != 2 || due[0].ID != ids[1] || due[1].ID != ids[2] {
		t.Fatalf("expired %+v", due)
	}
	for _, r := range due {
		if r.Status != Expired || r.Resolution.By != "system" || r.Resolution.Via != "gate" ||
			!r.Resolution.At.Equal(now) {
			t.Fatalf("expired %+v %+v", r, r.Resolution)
		}
		stored, err := d.Request(r.ID)
		testkit.Must(t, err)
		if stored.Status != Expired {
			t.Fatalf("stored %s", stored.Status)
		}
	}
	if es, err := d.Audit(2); err != nil || len(es) != 2 ||
		es[0].Action != AuditRequestExpired || es[1].Action != AuditRequestExpired {
		t.Fatalf("newest audit entries %+v (%v), want two %s", es, err, AuditRequestExpired)
	}
	p, err := d.Pending()
	testkit.Must(t, err)
	if len(p) != 1 || p[0].ID != ids[0] {
		t.Fatalf("pending %+v", p)
	}
	// An expired request cannot be resolved any more.
	_, err = d.Resolve(ids[1], Approved, Resolution{By: "late"})
	testkit.WantErr(t, err, ErrAlreadyResolved, "(expired by system via gate)")
}

func TestPendingOrder(t *testing.T) {
	d, _ := openTest(t)
	for i, after := range []time.Duration{3 * time.Hour, time.Hour, 2 * time.Hour} {
		r := newRequest("s", string(rune('a'+i)))
		r.ExpiresAt = testkit.T0.Add(after)
		_, _, err := d.CreateRequest(r)
		testkit.Must(t, err)
	}
	p, err := d.Pending()
	testkit.Must(t, err)
	if len(p) != 3 || p[0].ID != 1 || p[1].ID != 2 || p[2].ID != 3 {
		t.Fatalf("pending %+v", p)
	}
}

func TestCancelSession(t *testing.T) {
	d, _ := openTest(t)
	create := func(s, tc string) Request {
		t.Helper()
		r, _, err := d.CreateRequest(newRequest(s, tc))
		testkit.Must(t, err)
		return r
	}
	a1, b1, a2, a3 := create("a", "1"), create("b", "1"), create("a", "2"), create("a", "3")
	_, err := d.Resolve(a3.ID, Approved, Resolution{By: "x"})
	testkit.Must(t, err)

	got, err := d.CancelSession("a", Resolution{By: "api", Via: "api", Note: "session ended"})
	testkit.Must(t, err)
	if len(got) != 2 || got[0].ID != a1.ID || got[1].ID != a2.ID || got[0].Status != Cancelled ||
		got[0].Resolution.Note != "session ended" || !got[0].Resolution.At.Equal(testkit.T0) {
		t.Fatalf("cancelled %+v", got)
	}
	p, err := d.Pending()
	testkit.Must(t, err)
	if len(p) != 1 || p[0].ID != b1.ID {
		t.Fatalf("pending %+v", p)
	}
	if s, err := d.Request(a3.ID); err != nil || s.Status != Approved {
		t.Fatalf("resolved request touched: %s (err %v)", s.Status, err)
	}
	if es, err := d.Audit(2); err != nil || len(es) != 2 ||
		es[0].Action != auditResolved(Cancelled) || es[1].Action != auditResolved(Cancelled) {
		t.Fatalf("newest audit entries %+v (%v), want two %s", es, err, auditResolved(Cancelled))
	}

	before := testkit.FileBytes(t, d.Path())
	got, err = d.CancelSession("a", Resolution{By: "api"})
	testkit.Must(t, err)
	if len(got) != 0 {
		t.Fatalf("cancelled again %+v", got)
	}
	_, err = d.CancelSession("b", Resolution{})
	testkit.WantErr(t, err, ErrInvalid,
		`store: cancel session "b": invalid input: the resolution needs who (by)`)
	_, err = d.CancelSession("b", Resolution{By: "x", Bypass: &BypassGrant{Scope: "all"}})
	testkit.WantErr(t, err, ErrInvalid, "only an approval grants a bypass")
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestMessages(t *testing.T) {
	d, c := openTest(t)
	r, _, err := d.CreateRequest(newRequest("s", "tc"))
	testkit.Must(t, err)
	tg := Message{Channel: "telegram", ChatID: "-100123", Ref: "55"}
	testkit.Must(t, d.AddMessage(r.ID, tg))
	c.Set(testkit.T0.Add(time.Second))
	sl := Message{Channel: "slack", ChatID: "C0123", Ref: "1712345678.000100"}
	testkit.Must(t, d.AddMessage(r.ID, sl))

	before := testkit.FileBytes(t, d.Path())
	dup := tg
	dup.ShownAt = testkit.T0.Add(time.Hour)
	testkit.Must(t, d.AddMessage(r.ID, dup)) // already recorded: nothing written
	testkit.WantErr(t, d.AddMessage(99, tg), ErrNotFound,
		"store: add message to request 99: not found")
	testkit.WantErr(t, d.AddMessage(r.ID, Message{Channel: "slack", ChatID: "C1"}), ErrInvalid,
		"channel, chat_id and ref are required")
	testkit.WantErr(t, d.MarkMessagesFinal(99), ErrNotFound,
		"store: mark messages of request 99 final: not found")
	testkit.FileUnchanged(t, d.Path(), before)

	got, err := d.Request(r.ID)
	testkit.Must(t, err)
	if len(got.Messages) != 2 || !got.Messages[0].ShownAt.Equal(testkit.T0) ||
		!got.Messages[1].ShownAt.Equal(testkit.T0.Add(time.Second)) ||
		got.Messages[1].Ref != sl.Ref || got.Messages[0].Final {
		t.Fatalf("messages %+v", got.Messages)
	}
	testkit.Must(t, d.MarkMessagesFinal(r.ID))
	got, err = d.Request(r.ID)
	testkit.Must(t, err)
	for _, m := range got.Messages {
		if !m.Final {
			t.Fatalf("not final: %+v", m)
		}
	}
	before = testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.MarkMessagesFinal(r.ID))
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestUnfinalized(t *testing.T) {
	d, _ := openTest(t)
	ids := func() []uint64 {
		t.Helper()
		rs, err := d.Unfinalized()
		testkit.Must(t, err)
		var out []uint64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	shown, _, err := d.CreateRequest(newRequest("s", "shown"))
	testkit.Must(t, err)
	quiet, _, err := d.CreateRequest(newRequest("s", "quiet"))
	testkit.Must(t, err)
	done, _, err := d.CreateRequest(newRequest("s", "done"))
	testkit.Must(t, err)
	for _, id := range []uint64{shown.ID, done.ID} {
		testkit.Must(t, d.AddMessage(id, Message{Channel: "telegram", ChatID: "1", Ref: "7"}))
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("pending requests listed as unfinalized: %v", got)
	}
	for _, id := range []uint64{shown.ID, quiet.ID, done.ID} {
		_, err := d.Resolve(id, Approved, Resolution{By: "alice", Via: "api", At: testkit.T0})
		testkit.Must(t, err)
	}
	if got := ids(); !slices.Equal(got, []uint64{shown.ID, done.ID}) {
		t.Fatalf("unfinalized %v, want [%d %d]", got, shown.ID, done.ID)
	}
	testkit.Must(t, d.MarkMessagesFinal(done.ID))
	if got := ids(); !slices.Equal(got, []uint64{shown.ID}) {
		t.Fatalf("after final: %v, want [%d]", got, shown.ID)
	}
	// A message added after the outcome was shown elsewhere is not final yet.
	testkit.Must(t, d.AddMessage(done.ID, Message{Channel: "slack", ChatID: "C1", Ref: "1.2"}))
	if got := ids(); !slices.Equal(got, []uint64{shown.ID, done.ID}) {
		t.Fatalf("after a late message: %v", got)
	}
}
