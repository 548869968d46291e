package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// bare is a Server over a real store and gate, called in-process (no listener), so
// that a test in a synctest bubble can tell when a long-poll is blocked.
type bare struct {
	t   *testing.T
	db  *store.DB
	srv *api.Server
}

// newBare starts a bare server whose gate runs until the test ends; opts change the
// gate's options first.
func newBare(t *testing.T, opts ...func(*gate.Options)) *bare {
	t.Helper()
	dir := t.TempDir()
	db := teststore.OpenAt(t, filepath.Join(dir, "skald.db"), store.Options{})
	g := testgate.Over(t, db, dir, func(o *gate.Options) {
		for _, f := range opts {
			f(o)
		}
	})
	testgate.Run(t, g)
	// httptest's requests are for example.com.
	srv, err := api.New(api.Options{Gate: g, Store: db, Token: adminToken,
		Logger: testkit.Logger(), AllowedHosts: []api.AllowedHost{{Host: "example.com"}}})
	testkit.Must(t, err)
	return &bare{t: t, db: db, srv: srv}
}

// leave serves one request whose client goes away once the server waits, in a
// synctest bubble, and returns when the server's handler and what it woke have run.
func (b *bare) leave(method, path, body string) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		b.srv.ServeHTTP(httptest.NewRecorder(), req)
		close(done)
	}()
	synctest.Wait() // the server is blocked waiting
	cancel()
	<-done
	synctest.Wait() // the notifier ran
}

// call answers one request in-process and decodes the answer into out.
func (b *bare) call(method, path, body string, out any) int {
	b.t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	b.srv.ServeHTTP(rec, req)
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			b.t.Fatalf("%s %s: %v in %s", method, path, err, rec.Body)
		}
	}
	return rec.Code
}

const bashCall = `{"tool_name":"Bash","session_id":"s","arguments":{"command":"rm -rf build"}`

// The long-poll of GET /api/approval/requests/{id} is blocked until the resolution,
// and answers at that moment.
func TestRequestLongPollWakesOnResolution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBare(t)
		var res api.CheckResult
		b.call("POST", "/api/approval/check", bashCall+`}`, &res)
		start := time.Now()
		got := make(chan store.Request)
		go func() {
			var q store.Request
			b.call("GET", "/api/approval/requests/"+testkit.ID(res.RequestID)+"?wait_secs=120", "", &q)
			got <- q
		}()
		synctest.Wait() // the GET is blocked waiting
		select {
		case q := <-got:
			t.Fatalf("answered before the resolution: %+v", q)
		default:
		}
		if st := b.call("POST", "/api/inbox/approvals/"+testkit.ID(res.RequestID)+"/resolve",
			`{"action":"approve"}`, nil); st != http.StatusOK {
			t.Fatalf("resolve: %d", st)
		}
		q := <-got
		if q.Status != store.Approved || time.Since(start) != 0 {
			t.Fatalf("got %s after %s, want approved at once", q.Status, time.Since(start))
		}
	})
}

// The long-poll of a check is blocked until the resolution too.
func TestCheckLongPollWakesOnResolution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBare(t)
		got := make(chan api.CheckResult)
		go func() {
			var res api.CheckResult
			b.call("POST", "/api/approval/check", bashCall+`,"wait_secs":100}`, &res)
			got <- res
		}()
		synctest.Wait()
		var in api.Inbox
		b.call("GET", "/api/inbox", "", &in)
		if in.Total != 1 {
			t.Fatalf("inbox %+v", in)
		}
		b.call("POST", "/api/inbox/approvals/"+testkit.ID(in.Approvals[0].ID)+"/resolve",
			`{"action":"reject","note":"not now"}`, nil)
		res := <-got
		if res.Decision != gate.VerdictRejected || res.Note != "not now" {
			t.Fatalf("check = %+v", res)
		}
	})
}

// A wait runs out at wait_secs, capped at MaxWaitSecs, and answers pending.
func TestLongPollIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBare(t)
		start := time.Now()
		var res api.CheckResult
		b.call("POST", "/api/approval/check", bashCall+`,"wait_secs":5}`, &res)
		if res.Decision != gate.VerdictPending || time.Since(start) != 5*time.Second {
			t.Fatalf("check = %+v after %s, want pending after 5s", res, time.Since(start))
		}
		start = time.Now()
		var q store.Request
		b.call("GET", "/api/approval/requests/"+testkit.ID(res.RequestID)+"?wait_secs=100000", "", &q)
		if q.Status != store.Pending || time.Since(start) != api.MaxWaitSecs*time.Second {
			t.Fatalf("request %s after %s, want pending after %ds",
				q.Status, time.Since(start), api.MaxWaitSecs)
		}
	})
}

// updates is the gate's Notifier: it hands over every Update.
type updates chan store.Request

func (u updates) Show(context.Context, store.Request) error { return nil }
func (u updates) Update(_ context.Context, r store.Request) error {
	u <- r
	return nil
}

// A caller that goes away during its long poll (a check's, then a request's) leaves
// its request pending and resolvable; the request records when it stopped waiting and
// its prompts are updated to say so. A caller waiting on it again clears that.
func TestWaiterGoneDuringLongPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ups := make(updates, 10)
		b := newBare(t, func(o *gate.Options) { o.Notifier = ups })
		const call = `{"tool_name":"Bash","session_id":"s","tool_call_id":"t1",` +
			`"arguments":{"command":"rm -rf build"}`
		b.leave("POST", "/api/approval/check", call+`,"wait_secs":60}`)
		ps, err := b.db.Pending()
		testkit.Must(t, err)
		if len(ps) != 1 || ps[0].WaiterGoneAt.IsZero() {
			t.Fatalf("pending after the check's caller left: %+v", ps)
		}
		id := ps[0].ID
		if up := <-ups; up.ID != id || !up.WaiterGoneAt.Equal(ps[0].WaiterGoneAt) ||
			up.Status != store.Pending {
			t.Fatalf("update %+v", up)
		}

		// Waiting again clears the mark, and leaving sets it again.
		b.leave("GET", "/api/approval/requests/"+testkit.ID(id)+"?wait_secs=60", "")
		if up := <-ups; !up.WaiterGoneAt.IsZero() {
			t.Fatalf("update when the caller waits again: %+v", up)
		}
		if up := <-ups; up.WaiterGoneAt.IsZero() {
			t.Fatalf("update when the caller left again: %+v", up)
		}

		// Still resolvable, and a retried call gets the answer.
		if st := b.call("POST", "/api/inbox/approvals/"+testkit.ID(id)+"/resolve",
			`{"action":"approve"}`, nil); st != http.StatusOK {
			t.Fatalf("resolve: %d", st)
		}
		var res api.CheckResult
		b.call("POST", "/api/approval/check", call+`}`, &res)
		if res.Decision != gate.VerdictApproved {
			t.Fatalf("retried call: %+v", res)
		}
	})
}
