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

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

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
		dir := t.TempDir()
		db, err := store.Open(filepath.Join(dir, "skald.db"), store.Options{})
		testkit.Must(t, err)
		defer db.Close()
		ups := make(updates, 10)
		g, err := gate.New(gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: dir},
			Notifier: ups, Logger: testkit.Logger()})
		testkit.Must(t, err)
		gctx, stop := context.WithCancel(context.Background())
		gdone := make(chan error, 1)
		go func() { gdone <- g.Run(gctx) }()
		defer func() { stop(); testkit.Must(t, <-gdone) }()
		srv, err := api.New(api.Options{Gate: g, Store: db, Token: adminToken, Logger: testkit.Logger(),
			AllowedHosts: []api.AllowedHost{{Host: "example.com"}}})
		testkit.Must(t, err)

		// poll serves one request whose client goes away once the server waits.
		poll := func(method, path, body string) {
			t.Helper()
			ctx, cancel := context.WithCancel(context.Background())
			req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+adminToken)
			req.Header.Set("Content-Type", "application/json")
			done := make(chan struct{})
			go func() {
				srv.ServeHTTP(httptest.NewRecorder(), req)
				close(done)
			}()
			synctest.Wait() // the server is blocked waiting
			cancel()
			<-done
			synctest.Wait() // the notifier ran
		}
		const call = `{"tool_name":"Bash","session_id":"s","tool_call_id":"t1","arguments":{"command":"rm -rf build"}`
		poll("POST", "/api/approval/check", call+`,"wait_secs":60}`)
		ps, err := db.Pending()
		testkit.Must(t, err)
		if len(ps) != 1 || ps[0].WaiterGoneAt.IsZero() {
			t.Fatalf("pending after the check's caller left: %+v", ps)
		}
		id := ps[0].ID
		if up := <-ups; up.ID != id || !up.WaiterGoneAt.Equal(ps[0].WaiterGoneAt) || up.Status != store.Pending {
			t.Fatalf("update %+v", up)
		}

		// Waiting again clears the mark, and leaving sets it again.
		poll("GET", "/api/approval/requests/"+u(id)+"?wait_secs=60", "")
		if up := <-ups; !up.WaiterGoneAt.IsZero() {
			t.Fatalf("update when the caller waits again: %+v", up)
		}
		if up := <-ups; up.WaiterGoneAt.IsZero() {
			t.Fatalf("update when the caller left again: %+v", up)
		}

		// Still resolvable, and a retried call gets the answer.
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/api/inbox/approvals/"+u(id)+"/resolve", strings.NewReader(`{"action":"approve"}`))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("resolve: %d %s", rec.Code, rec.Body)
		}
		rec = httptest.NewRecorder()
		req = httptest.NewRequest("POST", "/api/approval/check", strings.NewReader(call+`}`))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(rec, req)
		var res api.CheckResult
		if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || res.Decision != gate.VerdictApproved {
			t.Fatalf("retried call: %s (%v)", rec.Body, err)
		}
	})
}
