package api_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

func TestSessionBypassAndCancel(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	b, err := e.admin.SetBypass(ctx, "s", "category:shell", "", 0)
	if err != nil || b.SessionID != "s" || b.Scope != "category:shell" || !b.ExpiresAt.IsZero() {
		t.Fatalf("bypass: %v %+v", err, b)
	}
	res, err := e.admin.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash",
		SessionID: "s", Arguments: map[string]any{"command": "ls docs"}}})
	if err != nil || res.Decision != gate.VerdictAllow {
		t.Fatalf("check under bypass: %v %+v", err, res)
	}
	_, body := e.do("GET", "/api/sessions/s/bypass", adminToken, nil)
	if !strings.Contains(body, `"scope":"category:shell"`) {
		t.Fatalf("bypasses: %s", body)
	}
	if err := e.admin.ClearBypass(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, body := e.do("GET", "/api/sessions/s/bypass", adminToken, nil); body != "[]\n" {
		t.Fatalf("bypasses after clear: %s", body)
	}

	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/sessions/s/bypass", adminToken, `{"secs":60,"scope":"planet:mars"}`,
		422, "invalid bypass scope")
	e.wantError("POST", "/api/sessions/s/bypass", adminToken, `{"scope":"all"}`, 400,
		"secs is required")
	e.wantError("POST", "/api/sessions/s/bypass", adminToken, `{"secs":-1}`, 422, "secs must be 0")
	e.wantError("POST", "/api/sessions/s/bypass", adminToken,
		`{"secs":9223372036854775807,"scope":"all"}`, 422,
		"invalid bypass: 9223372036854775807 seconds is more than 31622400 (366 days); "+
			"use 0 for the whole session")
	e.wantError("POST", "/api/sessions/s/bypass", adminToken, `{"secs":`, 400, "malformed JSON")
	teststore.Unchanged(t, e.db, before)
	if bs := e.gate.Bypasses("s"); len(bs) != 0 {
		t.Fatalf("bypasses after refused calls: %+v", bs)
	}

	// Cancel: pending requests of the session only, and its bypasses.
	id := e.pending(e.admin, "s", "")
	other := e.pending(e.admin, "s2", "")
	if _, err := e.admin.SetBypass(ctx, "s", "", "", 60); err != nil {
		t.Fatal(err)
	}
	got, err := e.admin.CancelSession(ctx, "s")
	if err != nil || len(got) != 1 || got[0].ID != id || got[0].Status != store.Cancelled {
		t.Fatalf("cancel: %v %+v", err, got)
	}
	if q, err := e.db.Request(other); err != nil || q.Status != store.Pending {
		t.Fatal("another session's request was cancelled", err)
	}
	if bs := e.gate.Bypasses("s"); len(bs) != 0 {
		t.Fatalf("bypasses after cancel: %+v", bs)
	}
	if got, err := e.admin.CancelSession(ctx, "nobody"); err != nil || len(got) != 0 ||
		got == nil {
		t.Fatalf("cancel an empty session: %v %#v", err, got)
	}
}

func TestAudit(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	id := e.pending(e.admin, "s", "")
	cli := e.client(adminToken)
	cli.Actor = "cli"
	if _, err := cli.Resolve(ctx, id, api.ResolveRequest{Action: "reject"}); err != nil {
		t.Fatal(err)
	}
	es, err := e.admin.Audit(ctx, 1)
	if err != nil || len(es) != 1 || es[0].RequestID != id || es[0].By != "cli" ||
		es[0].Via != "api" {
		t.Fatalf("audit: %v %+v", err, es)
	}
	all, err := e.admin.Audit(ctx, 0)
	if err != nil || len(all) < 2 {
		t.Fatalf("audit: %v %d entries", err, len(all))
	}
	e.wantError("GET", "/api/audit?limit=x", adminToken, "", 400, `limit "x"`)
	e.wantError("GET", "/api/audit?limit=0", adminToken, "", 400, "limit")
}

// fakeJobs is a hand-written Jobs with one job, "nightly".
type fakeJobs struct{ runs []store.Run }

func (f *fakeJobs) List() ([]api.Job, error) {
	return []api.Job{{Name: "nightly", Schedule: "0 2 * * *", Steps: 2}}, nil
}

func (f *fakeJobs) Trigger(_ context.Context, name string) (store.Run, error) {
	if name != "nightly" {
		return store.Run{}, errNoJob
	}
	r := store.Run{ID: uint64(len(f.runs) + 1), Job: name, Status: store.RunRunning,
		Trigger: "manual"}
	f.runs = append(f.runs, r)
	return r, nil
}

func (f *fakeJobs) Runs(name string) ([]store.Run, error) {
	if name != "nightly" {
		return nil, errNoJob
	}
	return f.runs, nil
}

func (f *fakeJobs) RecentRuns(limit int) ([]store.Run, error) {
	out := slices.Clone(f.runs)
	slices.Reverse(out)
	return out[:min(limit, len(out))], nil
}

func (f *fakeJobs) Run(id uint64) (store.Run, error) {
	for _, r := range f.runs {
		if r.ID == id {
			return r, nil
		}
	}
	return store.Run{}, store.ErrNotFound
}

var errNoJob = errors.Join(store.ErrNotFound, errors.New("no such job"))

func TestJobs(t *testing.T) {
	ctx := context.Background()
	e := newAPIEnv(t, func(o *api.Options) { o.Jobs = &fakeJobs{} })
	js, err := e.admin.Jobs(ctx)
	if err != nil || len(js) != 1 || js[0].Name != "nightly" {
		t.Fatalf("jobs: %v %+v", err, js)
	}
	r, err := e.admin.RunJob(ctx, "nightly")
	if err != nil || r.ID != 1 || r.Job != "nightly" {
		t.Fatalf("run: %v %+v", err, r)
	}
	if rs, err := e.admin.Runs(ctx, "nightly"); err != nil || len(rs) != 1 {
		t.Fatalf("runs: %v %+v", err, rs)
	}
	if _, err := e.admin.RunJob(ctx, "nightly"); err != nil {
		t.Fatalf("second run: %v", err)
	}
	for _, tc := range []struct {
		limit int
		want  []uint64
	}{{0, []uint64{2, 1}}, {1, []uint64{2}}, {5, []uint64{2, 1}}} {
		t.Run("limit="+strconv.Itoa(tc.limit), func(t *testing.T) {
			rs, err := e.admin.RecentRuns(ctx, tc.limit)
			var got []uint64
			for _, r := range rs {
				got = append(got, r.ID)
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("recent runs, limit %d: %v %v, want %v", tc.limit, err, got, tc.want)
			}
		})
	}
	e.wantError("GET", "/api/runs?limit=x", adminToken, "", 400, `limit "x"`)
	e.wantError("GET", "/api/runs?limit=-1", adminToken, "", 400, "limit")
	if got, err := e.admin.Run(ctx, 1); err != nil || got.ID != 1 {
		t.Fatalf("run 1: %v %+v", err, got)
	}
	e.wantError("POST", "/api/jobs/nope/run", adminToken, "", 404, "no such job")
	e.wantError("GET", "/api/jobs/nope/runs", adminToken, "", 404, "no such job")
	e.wantError("GET", "/api/runs/9", adminToken, "", 404, "not found")

	// Without a scheduler: no jobs, and 404s.
	n := newAPIEnv(t)
	if js, err := n.admin.Jobs(ctx); err != nil || js == nil || len(js) != 0 {
		t.Fatalf("no scheduler: %v %#v", err, js)
	}
	n.wantError("POST", "/api/jobs/nightly/run", adminToken, "", 404, "no jobs are configured")
	n.wantError("GET", "/api/jobs/nightly/runs", adminToken, "", 404, "no jobs are configured")
	n.wantError("GET", "/api/runs/1", adminToken, "", 404, "no jobs are configured")
	if rs, err := n.admin.RecentRuns(ctx, 0); err != nil || rs == nil || len(rs) != 0 {
		t.Fatalf("no scheduler: recent runs %v %#v", err, rs)
	}
}
