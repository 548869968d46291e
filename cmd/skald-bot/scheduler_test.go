package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// sse reads the service's Server-Sent Events (GET /api/events) until the test ends.
type sse struct {
	events chan [2]string // name, data
}

func subscribe(t *testing.T, url, token string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/events: %s", resp.Status)
	}
	s := &sse{events: make(chan [2]string, 100)}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				s.events <- [2]string{name, v}
			}
		}
	}()
	return s
}

// next returns the data of the next run event named name.
func (s *sse) next(t *testing.T, name string) cron.RunEvent {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-s.events:
			if ev[0] != name {
				continue
			}
			var d cron.RunEvent
			if err := json.Unmarshal([]byte(ev[1]), &d); err != nil {
				t.Fatalf("%s data %s: %v", name, ev[1], err)
			}
			return d
		case <-timeout:
			t.Fatalf("no %s event in 30s", name)
		}
	}
}

// jobService is `skald-bot serve` on a configuration of its own, with its jobs, and
// a subscription to its API's events.
type jobService struct {
	*service
	cfg    string // the configuration file
	ws     string // workspace_root, holding an empty data/ at the start
	events *sse
}

// startJobService writes testConfigAPI's configuration, the API on a free loopback
// port and its admin token generated, plus jobsYAML; starts serve on it and
// subscribes to its events.
func startJobService(t *testing.T, jobsYAML string) *jobService {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	testkit.Must(t, os.MkdirAll(filepath.Join(ws, "data"), 0o755))
	cfg := testConfigAPI(t, dir, `{listen: "127.0.0.1:0"}`, jobsYAML)
	svc := startService(t, cfg)
	return &jobService{service: svc, cfg: cfg, ws: ws, events: subscribe(t, svc.url, svc.token)}
}

// run runs the binary with args against s (--server, --config) and returns its exit
// code and output.
func (s *jobService) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cli(t, append(args, "--server", s.url, "--config", s.cfg)...)
}

// A job run through the real binary: the CLI starts it, its second step waits for
// approval (the first step's file exists, the second's does not), a second trigger is
// skipped (exit 3, one line naming the waiting run), the CLI approves, and the run
// finishes with both files written.
func TestProcessJobWaitsForApproval(t *testing.T) {
	s := startJobService(t, `jobs:
  - name: nightly
    schedule: "CRON_TZ=Europe/Rome 30 2 * * *"
    agent_id: ops
    steps:
      - {tool: write_file, args: {path: data/first.txt, content: one}}
      - {tool: write_file, args: {path: out/second.txt, content: two}}
`)
	code, out, errOut := s.run(t, "jobs", "run", "nightly")
	if code != 0 || !strings.HasSuffix(out, " of nightly: running\n") {
		t.Fatalf("jobs run: exit %d %q %s", code, out, errOut)
	}
	w := s.events.next(t, cron.EventRunWaiting)
	if w.Job != "nightly" || w.RequestID == 0 {
		t.Fatalf("run_waiting %+v", w)
	}
	if b, err := os.ReadFile(filepath.Join(s.ws, "data/first.txt")); err != nil ||
		string(b) != "one" {
		t.Errorf("the first step's file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(s.ws, "out/second.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second step ran before approval: %v", err)
	}
	code, out, errOut = s.run(t, "jobs", "run", "nightly")
	want := "nightly: trigger skipped: run " + testkit.ID(w.RunID) +
		" is still waiting for approval (request " + testkit.ID(w.RequestID) + ")\n"
	if code != 3 || out != want || errOut != "" {
		t.Errorf("a second trigger: exit %d %q %q, want 3 and %q", code, out, errOut, want)
	}

	if code, _, errOut := s.run(t, "approve", testkit.ID(w.RequestID)); code != 0 {
		t.Fatalf("approve: exit %d %s", code, errOut)
	}
	f := s.events.next(t, cron.EventRunFinished)
	if f.RunID != w.RunID || f.Status != "succeeded" || f.Notify {
		t.Fatalf("run_finished %+v", f)
	}
	if b, err := os.ReadFile(filepath.Join(s.ws, "out/second.txt")); err != nil ||
		string(b) != "two" {
		t.Errorf("the second step's file: %q %v", b, err)
	}
	code, out, _ = s.run(t, "jobs", "runs", "nightly", "--json")
	var runs []struct {
		Status          string
		SkippedTriggers int `json:"skipped_triggers"`
	}
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 ||
		runs[0].Status != "succeeded" || runs[0].SkippedTriggers != 1 {
		t.Errorf("jobs runs: exit %d %s", code, out)
	}
	code, out, _ = s.run(t, "jobs", "list")
	if code != 0 || !strings.Contains(out, "nightly") ||
		!strings.Contains(out, "CRON_TZ=Europe/Rome 30 2 * * *") {
		t.Errorf("jobs list: exit %d %s", code, out)
	}
	s.stop(t)
}

// `jobs runs` without a name lists the latest runs of every job, newest first, with
// the job's name; --limit cuts both forms, --json prints the server's runs.
func TestProcessRecentRuns(t *testing.T) {
	s := startJobService(t, `jobs:
  - name: alpha
    schedule: "30 2 * * *"
    steps: [{tool: write_file, args: {path: data/a.txt, content: a}}]
  - name: beta
    schedule: "30 3 * * *"
    steps: [{tool: write_file, args: {path: data/b.txt, content: b}}]
`)
	if code, out, _ := s.run(t, "jobs", "runs"); code != 0 || out != "no runs\n" {
		t.Fatalf("jobs runs before any run: exit %d %q", code, out)
	}
	for _, job := range []string{"alpha", "beta", "alpha"} {
		if code, out, errOut := s.run(t, "jobs", "run", job); code != 0 {
			t.Fatalf("jobs run %s: exit %d %s %s", job, code, out, errOut)
		}
		if f := s.events.next(t, cron.EventRunFinished); f.Status != "succeeded" {
			t.Fatalf("run_finished %+v", f)
		}
	}
	code, out, errOut := s.run(t, "jobs", "runs")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "JOB    ID  STATUS") {
		t.Fatalf("jobs runs: exit %d %q %s", code, out, errOut)
	}
	for i, want := range []string{"alpha 3 succeeded", "beta 2 succeeded", "alpha 1 succeeded"} {
		if got := strings.Fields(lines[i+1]); strings.Join(got[:3], " ") != want {
			t.Errorf("row %d = %q, want it to start with %q", i+1, lines[i+1], want)
		}
	}
	code, out, _ = s.run(t, "jobs", "runs", "--limit", "2", "--json")
	var runs []struct {
		ID  uint64
		Job string
	}
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 2 ||
		runs[0].ID != 3 || runs[0].Job != "alpha" || runs[1].ID != 2 || runs[1].Job != "beta" {
		t.Errorf("jobs runs --limit 2 --json: exit %d %v %s", code, err, out)
	}
	code, out, _ = s.run(t, "jobs", "runs", "alpha", "--limit", "1")
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); code != 0 ||
		len(lines) != 2 || !strings.HasPrefix(lines[0], "ID  STATUS") ||
		!strings.HasPrefix(lines[1], "3   succeeded") {
		t.Errorf("jobs runs alpha --limit 1: exit %d %q", code, out)
	}
	code, out, errOut = s.run(t, "jobs", "runs", "--limit", "-1")
	if code != 2 || out != "" || !strings.Contains(errOut, "--limit -1: want 1 to 10000") {
		t.Errorf("jobs runs --limit -1: exit %d %q %q", code, out, errOut)
	}
	s.stop(t)
}

// TestExampleJobsAreValid: the example configuration's jobs pass the scheduler's
// checks, so `serve --config config.example.yaml` starts.
func TestExampleJobsAreValid(t *testing.T) {
	data, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(data, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Jobs) == 0 {
		t.Fatal("the example has no job")
	}
	if err := cron.Validate(cronJobs(c), nil); err != nil {
		t.Error(err)
	}
}

// TestJobsRunNotStarted: a manual trigger while a run waits for approval prints one
// line naming that run and exits 3 — skipped (overlap skip) or queued (overlap queue),
// in text and as JSON — and the API's 409 carries the same line.
func TestJobsRunNotStarted(t *testing.T) {
	root := t.TempDir()
	// requires approval
	step := cron.Step{Tool: "write_file",
		Args: map[string]any{"path": "out/x.txt", "content": "x"}}
	s := startServer(t, root,
		cron.Job{Name: "skipper", Schedule: "@yearly", Steps: []cron.Step{step}},
		cron.Job{Name: "queuer", Schedule: "@yearly", Overlap: cron.OverlapQueue,
			Steps: []cron.Step{step}})
	events, release := s.gate.Subscribe(16)
	defer release()
	// The two runs park in either order: keep every job's event until it is asked for.
	seen := map[string]cron.RunEvent{}
	waiting := func(job string) cron.RunEvent {
		t.Helper()
		for {
			if d, ok := seen[job]; ok {
				return d
			}
			ev, ok := <-events
			if !ok {
				t.Fatalf("no run_waiting for %s", job)
			}
			if d, ok := ev.Data.(cron.RunEvent); ok && ev.Name == cron.EventRunWaiting {
				seen[d.Job] = d
			}
		}
	}
	for _, job := range []string{"skipper", "queuer"} {
		if code, out, errOut := runClient(t, "jobs", "run", job, "--server", s.url); code != 0 ||
			!strings.HasSuffix(out, " of "+job+": running\n") {
			t.Fatalf("jobs run %s: exit %d %q %q", job, code, out, errOut)
		}
	}
	sk, qu := waiting("skipper"), waiting("queuer")
	if sk.RunID == 0 || qu.RunID == 0 {
		t.Fatalf("run_waiting %+v %+v", sk, qu)
	}

	want := "skipper: trigger skipped: run " + testkit.ID(sk.RunID) +
		" is still waiting for approval (request " + testkit.ID(sk.RequestID) + ")"
	code, out, errOut := runClient(t, "jobs", "run", "skipper", "--server", s.url)
	if code != 3 || out != want+"\n" || errOut != "" {
		t.Errorf("skipped: exit %d, stdout %q, stderr %q; want 3 and %q", code, out, errOut, want)
	}
	wantQ := "queuer: trigger queued: run " + testkit.ID(qu.RunID) +
		" is still waiting for approval (request " + testkit.ID(qu.RequestID) +
		"); this one starts when it ends"
	code, out, errOut = runClient(t, "jobs", "run", "queuer", "--server", s.url, "--json")
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); code != 3 || err != nil || errOut != "" ||
		got["job"] != "queuer" || got["trigger"] != "queued" || got["message"] != wantQ {
		t.Errorf("queued --json: exit %d, stdout %q, stderr %q; want 3 and %q",
			code, out, errOut, wantQ)
	}

	// The API answers 409 with the same line.
	_, err := api.NewClient(s.url, adminToken).RunJob(context.Background(), "skipper")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict || ae.Message != want {
		t.Errorf("API: %v, want 409 %q", err, want)
	}
}

// TestChatRunNotStarted: the chat's `run <job>` answers a trigger the overlap policy
// skipped or queued with the API's line (chatJobs), through bot.Command and the real
// run engine, and the reply's error still wraps cron's.
func TestChatRunNotStarted(t *testing.T) {
	// requires approval
	step := cron.Step{Tool: "write_file",
		Args: map[string]any{"path": "out/x.txt", "content": "x"}}
	s := startServer(t, t.TempDir(),
		cron.Job{Name: "skipper", Schedule: "@yearly", Steps: []cron.Step{step}},
		cron.Job{Name: "queuer", Schedule: "@yearly", Overlap: cron.OverlapQueue,
			Steps: []cron.Step{step}})
	admin := bot.Who{ID: "1", Name: "alice", Channel: "telegram"}
	b, err := bot.New(bot.Options{Gate: s.gate,
		Access: bot.Access{"telegram": bot.Roles{Admins: []string{"1"}}},
		Jobs:   chatJobs{s.sched}, Logger: testkit.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	events, release := s.gate.Subscribe(16)
	defer release()
	ctx := context.Background()
	for _, c := range []struct {
		job, how string
		sentinel error
		tail     string
	}{
		{"skipper", "skipped", cron.ErrSkipped, ""},
		{"queuer", "queued", cron.ErrQueued, "; this one starts when it ends"},
	} {
		t.Run(c.job, func(t *testing.T) {
			if r := b.Command(ctx, admin, "run "+c.job); r.Err != nil ||
				!strings.HasPrefix(r.Text, "Started run ") {
				t.Fatalf("run %s: %+v", c.job, r)
			}
			var w cron.RunEvent
			for ev := range events {
				if d, ok := ev.Data.(cron.RunEvent); ok && ev.Name == cron.EventRunWaiting &&
					d.Job == c.job {
					w = d
					break
				}
			}
			want := "run: " + c.job + ": trigger " + c.how + ": run " + testkit.ID(w.RunID) +
				" is still waiting for approval (request " + testkit.ID(w.RequestID) + ")" + c.tail
			if r := b.Command(ctx, admin, "run "+c.job); r.Text != want ||
				!errors.Is(r.Err, c.sentinel) {
				t.Errorf("run %s again: %q (%v), want %q wrapping %v",
					c.job, r.Text, r.Err, want, c.sentinel)
			}
		})
	}
}

// TestJobsRunBeforeSchedulerRuns: a trigger that reaches the API before the run
// engine runs (serve answers before its scheduler is ready) is a 503 that says so, and
// starts no run.
func TestJobsRunBeforeSchedulerRuns(t *testing.T) {
	db := teststore.Open(t, store.Options{})
	g := testgate.Over(t, db, t.TempDir(), nil)
	step := cron.Step{Tool: "write_file", Args: map[string]any{"path": "x", "content": "x"}}
	sched, err := cron.New(cron.Options{Store: db, Gate: g, WorkspaceRoot: t.TempDir(),
		Jobs: []cron.Job{{Name: "j", Schedule: "@yearly", Steps: []cron.Step{step}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := teststore.Snapshot(t, db)
	_, err = apiJobs{sched}.Trigger(context.Background(), "j")
	want := "j: the scheduler is starting or stopping; try again in a moment"
	if !errors.Is(err, api.ErrUnavailable) || !errors.Is(err, cron.ErrNotRunning) ||
		err.Error() != want {
		t.Fatalf("Trigger before Run: %v, want ErrUnavailable %q", err, want)
	}
	teststore.Unchanged(t, db, before)
}
