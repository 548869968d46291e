package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
	"github.com/skald-circle/skald-bot/web"
)

// fakeJobs is a scheduler with one job, "nightly", whose runs are made up.
type fakeJobs struct {
	mu   sync.Mutex // guards runs
	runs []store.Run
}

var _ api.Jobs = (*fakeJobs)(nil)

func (f *fakeJobs) List() ([]api.Job, error) {
	return []api.Job{{Name: "nightly", Schedule: "0 3 * * *", Steps: 1}}, nil
}

func (f *fakeJobs) Trigger(_ context.Context, name string) (store.Run, error) {
	if name != "nightly" {
		return store.Run{}, fmt.Errorf("no job %q: %w", name, store.ErrNotFound)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := store.Run{ID: uint64(len(f.runs) + 1), Job: name, Status: "succeeded", Trigger: "manual",
		StartedAt: time.Now(), Steps: []store.StepResult{{Tool: "execute_cmd", Decision: "allow",
			Status: "ok", Output: "<b>done</b>\n"}}}
	f.runs = append(f.runs, r)
	return r, nil
}

func (f *fakeJobs) Runs(string) ([]store.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]store.Run(nil), f.runs...), nil
}

// RecentRuns is not used by the pages.
func (f *fakeJobs) RecentRuns(int) ([]store.Run, error) { return nil, nil }

func (f *fakeJobs) Run(id uint64) (store.Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id == 0 || id > uint64(len(f.runs)) {
		return store.Run{}, fmt.Errorf("no run %d: %w", id, store.ErrNotFound)
	}
	return f.runs[id-1], nil
}

// Run now starts a run and shows its steps and output, escaped; an unknown job or
// run is 404.
func TestJobs(t *testing.T) {
	jobs := &fakeJobs{}
	e := newWebEnv(t, func(w *web.Options, _ *api.Options) { w.Jobs = jobs })
	b := e.signedIn()
	resp, body := b.post("/jobs/nightly/run", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/1" {
		t.Fatalf("run now: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = b.do("GET", "/runs/1", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "&lt;b&gt;done&lt;/b&gt;") ||
		!strings.Contains(body, "Run 1 of nightly started.") {
		t.Fatalf("run page: %d\n%s", resp.StatusCode, body)
	}
	if _, body := b.do("GET", "/jobs", nil); !strings.Contains(body, `href="/runs/1"`) {
		t.Errorf("jobs page lacks the run:\n%s", body)
	}
	for _, tc := range []struct{ method, path string }{
		{"POST", "/jobs/nope/run"}, {"GET", "/runs/7"}, {"GET", "/runs/x"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var resp *http.Response
			if tc.method == "POST" {
				resp, _ = b.post(tc.path, nil)
			} else {
				resp, _ = b.do(tc.method, tc.path, nil)
			}
			if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%d", resp.StatusCode)
			}
		})
	}
}

// The audit page filters by action, actor and text; a bad limit is refused.
func TestAuditFilter(t *testing.T) {
	e := newWebEnv(t)
	b := e.signedIn()
	resp, _ := b.post("/groups", url.Values{"id": {"audited"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create group: %d", resp.StatusCode)
	}
	_, body := b.do("GET", "/audit?by=web&q=audited", nil)
	if !strings.Contains(body, "admin · web") || !strings.Contains(body, "audited") {
		t.Errorf("filtered audit lacks the change:\n%s", body)
	}
	_, body = b.do("GET", "/audit?by=nobody-at-all", nil)
	if !strings.Contains(body, "No entry matches.") {
		t.Errorf("audit filter by an unknown actor:\n%s", body)
	}
	resp, body = b.do("GET", "/audit?limit=-1", nil)
	if resp.StatusCode != http.StatusBadRequest ||
		!shows(body, `limit "-1" is not a positive integer`) {
		t.Errorf("bad limit: %d\n%s", resp.StatusCode, body)
	}
}
