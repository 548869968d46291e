package cron_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestInvalidScheduleRefusesStartUpNamingTheJob(t *testing.T) {
	e := newCronEnv(t)
	before, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	g := e.newGate(nil)
	good := backup("good", "")
	bad := backup("nightly", "")
	bad.Schedule = "61 * * * *"
	eng, err := cron.New(cron.Options{Store: e.db, Gate: g, Jobs: []cron.Job{good, bad},
		WorkspaceRoot: e.root, Logger: testkit.Logger()})
	if eng != nil {
		t.Error("New returned an engine with an error")
	}
	testkit.WantErr(t, err, cron.ErrInvalidJob)
	if want := `cron: job "nightly": schedule "61 * * * *": ` +
		`end of range (61) above maximum (59): 61`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// Validate says the same without a store or gate, for cmd to call first.
	if err2 := cron.Validate([]cron.Job{good, bad}, nil); err2 == nil ||
		err2.Error() != err.Error() {
		t.Errorf("Validate: %v", err2)
	}
	after, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a refused start-up changed the store")
	}
	if runs, err := e.db.Runs("good", 0); err != nil || len(runs) != 0 {
		t.Error("a refused start-up stored runs", err)
	}
}

func TestValidate(t *testing.T) {
	ok := func() cron.Job {
		return cron.Job{Name: "j", Schedule: "@daily", Steps: []cron.Step{
			{Tool: "execute_cmd",
				Args: map[string]any{"cmd": "true", "timeout": "1m", "cwd": "data"}},
			{Tool: "read_file", Args: map[string]any{"path": "data/x"}},
			{Tool: "write_file", Args: map[string]any{"path": "data/x", "content": ""}},
			{Tool: "list_files", Args: map[string]any{"path": "."}},
			{Tool: "http_request", Args: map[string]any{"method": "post",
				"url": "http://127.0.0.1:1/x", "headers": map[string]any{"X-A": "b"},
				"body": "{}", "timeout": 5}},
		}}
	}
	if err := cron.Validate([]cron.Job{ok()}, nil); err != nil {
		t.Fatalf("a good job: %v", err)
	}
	tests := []struct {
		name string
		edit func(*cron.Job)
		want string
	}{
		{"bad name", func(j *cron.Job) { j.Name = "Nightly Backup" },
			`cron: job "Nightly Backup": name must match [a-z0-9_-]+ and be at most 64 bytes`},
		{"long name", func(j *cron.Job) { j.Name = strings.Repeat("a", 65) }, "name must match"},
		{"empty schedule", func(j *cron.Job) { j.Schedule = "" },
			`cron: job "j": schedule "": empty spec string`},
		{"six fields", func(j *cron.Job) { j.Schedule = "*/5 * * * * *" },
			`schedule "*/5 * * * * *": expected exactly 5 fields, found 6`},
		{"bare zone", func(j *cron.Job) { j.Schedule = "CRON_TZ=UTC" },
			`schedule "CRON_TZ=UTC": a CRON_TZ= or TZ= zone must be followed`},
		{"unknown zone", func(j *cron.Job) { j.Schedule = "CRON_TZ=Nowhere/City 0 2 * * *" },
			"provided bad location Nowhere/City"},
		{"every zero", func(j *cron.Job) { j.Schedule = "@every 0s" },
			"the interval must be at least 1s"},
		{"overlap", func(j *cron.Job) { j.Overlap = "wait" },
			`overlap "wait" must be skip, queue or allow`},
		{"notify", func(j *cron.Job) { j.Notify = "sometimes" },
			`notify "sometimes" must be failure, always or never`},
		{"negative timeout", func(j *cron.Job) { j.ApprovalTimeout = -time.Second },
			"approval_timeout -1s is negative"},
		{"context label with a newline", func(j *cron.Job) { j.ContextLabel = "a\nb" },
			`context_label "a\nb" must not hold control characters`},
		{"ask_user option with a newline", func(j *cron.Job) {
			j.Steps = append(j.Steps, cron.Step{Tool: cron.AskUserTool,
				Args: map[string]any{"question": "q\nok?", "options": []any{"yes", "no\n\nyes"}}})
		}, `step 6 (ask_user): bad step arguments: ` +
			`option 2 "no\n\nyes" must not hold control characters`},
		{"no steps", func(j *cron.Job) { j.Steps = nil }, `cron: job "j": no steps`},
		{"unknown tool", func(j *cron.Job) { j.Steps[0].Tool = "rm_rf" },
			`step 1: unknown tool "rm_rf" (known: `},
		{"no cmd", func(j *cron.Job) { j.Steps[0].Args = map[string]any{} },
			"step 1 (execute_cmd): bad step arguments: cmd is required"},
		{"cmd not a string", func(j *cron.Job) { j.Steps[0].Args = map[string]any{"cmd": 3} },
			"cmd must be a string, not int"},
		{"bad timeout", func(j *cron.Job) { j.Steps[0].Args["timeout"] = "soon" },
			`timeout "soon" is not a duration`},
		{"zero timeout", func(j *cron.Job) { j.Steps[0].Args["timeout"] = 0 },
			"timeout 0 must be positive"},
		{"typo", func(j *cron.Job) { j.Steps[1].Args["pth"] = "x" },
			`step 2 (read_file): bad step arguments: unknown argument "pth" (want path)`},
		{"no content", func(j *cron.Job) { delete(j.Steps[2].Args, "content") },
			"step 3 (write_file): bad step arguments: content is required"},
		{"no path", func(j *cron.Job) { j.Steps[3].Args = nil },
			"step 4 (list_files): bad step arguments: path is required"},
		{"bad url", func(j *cron.Job) { j.Steps[4].Args["url"] = "ftp://x" },
			"url must be an http:// or https:// URL"},
		{"bad method", func(j *cron.Job) { j.Steps[4].Args["method"] = "GE T" },
			`method "GE T" is not an HTTP method`},
		{"bad headers", func(j *cron.Job) { j.Steps[4].Args["headers"] = map[string]any{"X": 1} },
			`header "X" must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := ok()
			tt.edit(&j)
			err := cron.Validate([]cron.Job{j}, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			testkit.WantErr(t, err, cron.ErrInvalidJob, tt.want)
		})
	}
	err := cron.Validate([]cron.Job{ok(), ok()}, nil)
	testkit.WantErr(t, err, cron.ErrInvalidJob, `cron: job "j": defined twice`)
	// Every problem is reported, one a line.
	a, b := ok(), ok()
	b.Name, a.Overlap, b.Schedule = "k", "x", "x"
	err = cron.Validate([]cron.Job{a, b}, nil)
	if n := len(strings.Split(err.Error(), "\n")); n != 2 {
		t.Errorf("%d problems reported, want 2: %v", n, err)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	e := newCronEnv(t)
	g := e.newGate(nil)
	j := backup("backup", "")
	j.Profile = "nobody"
	tests := []struct {
		opt  cron.Options
		want string
	}{
		{cron.Options{Gate: g, WorkspaceRoot: e.root},
			"cron: new: a store and a gate are required"},
		{cron.Options{Store: e.db, WorkspaceRoot: e.root},
			"cron: new: a store and a gate are required"},
		{cron.Options{Store: e.db, Gate: g, WorkspaceRoot: "ws"},
			`cron: new: workspace root "ws" is not an absolute path`},
		{cron.Options{Store: e.db, Gate: g, WorkspaceRoot: e.root, Jobs: []cron.Job{j}},
			`cron: job "backup": profile "nobody" is not configured`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			eng, err := cron.New(tt.opt)
			if err == nil || err.Error() != tt.want || eng != nil {
				t.Errorf("New: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEngineErrors(t *testing.T) {
	e := newCronEnv(t, backup("backup", ""))
	eng := e.newEngine(e.newGate(nil), nil)
	ctx := context.Background()
	_, err := eng.Trigger(ctx, "backup")
	testkit.WantErr(t, err, cron.ErrNotRunning,
		`cron: trigger "backup": the scheduler is not running`)
	_, err = eng.Trigger(ctx, "nope")
	testkit.WantErr(t, err, cron.ErrNotFound, `cron: trigger "nope": no such job`)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = eng.Trigger(cancelled, "backup")
	testkit.WantErr(t, err, context.Canceled)
	_, err = eng.Runs("nope", 10)
	testkit.WantErr(t, err, cron.ErrNotFound, `cron: runs of "nope": no such job`)
	_, err = eng.RunByID(99)
	testkit.WantErr(t, err, cron.ErrNotFound, "cron: store: run 99: not found")
	if !errors.Is(err, gate.ErrNotFound) {
		t.Error("ErrNotFound is not the gate's (the API answers 404 for it)")
	}
	if runs, err := e.db.Runs("backup", 0); err != nil || len(runs) != 0 {
		t.Errorf("refused triggers stored %d runs (err %v)", len(runs), err)
	}

	done := make(chan error, 1)
	runCtx, stop := context.WithCancel(ctx)
	go func() { done <- eng.Run(runCtx) }()
	<-eng.Ready()
	testkit.WantErr(t, eng.Run(ctx), cron.ErrRunning, "cron: run: already running")
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, err = eng.Trigger(ctx, "backup")
	testkit.WantErr(t, err, cron.ErrNotRunning)
}

func TestJobsListing(t *testing.T) {
	b := backup("backup", cron.OverlapQueue)
	b.Profile = "reader"
	b.ApprovalTimeout = time.Hour
	a := cron.Job{Name: "alpha", Schedule: "CRON_TZ=Europe/Rome 30 2 * * *",
		Steps: []cron.Step{{Tool: "list_files", Args: map[string]any{"path": "."}}}}
	e := newCronEnv(t, b, a)
	g := e.newGate(func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "reader", WorkingDirectory: "data"}}
	})
	now := at(t, "2026-03-28T12:00:00Z")
	eng := e.newEngine(g, func(o *cron.Options) {
		o.Location, o.Now = time.UTC, func() time.Time { return now }
	})
	if got := strings.Join(eng.List(), ","); got != "alpha,backup" {
		t.Errorf("List %s", got)
	}
	jobs := eng.Jobs()
	if len(jobs) != 2 {
		t.Fatalf("Jobs %+v", jobs)
	}
	want := []cron.JobInfo{
		{Name: "alpha", Schedule: a.Schedule, Profile: "default", Overlap: cron.OverlapSkip,
			Notify: cron.NotifyFailure, Steps: 1, Next: at(t, "2026-03-30T00:30:00Z")},
		{Name: "backup", Schedule: "0 2 * * *", AgentID: "ops", Profile: "reader",
			ContextLabel: "CronJob: backup", Overlap: cron.OverlapQueue,
			Notify: cron.NotifyFailure, ApprovalTimeout: time.Hour, Steps: 3,
			Next: at(t, "2026-03-29T02:00:00Z")},
	}
	for i := range want {
		if !jobs[i].Next.Equal(want[i].Next) {
			t.Errorf("%s next %s, want %s", jobs[i].Name, jobs[i].Next, want[i].Next)
		}
		jobs[i].Next = want[i].Next
		if jobs[i] != want[i] {
			t.Errorf("job %+v\nwant %+v", jobs[i], want[i])
		}
	}
}

func TestRunFailsWhenTheStoreCannotBeRead(t *testing.T) {
	e := newCronEnv(t, backup("backup", ""))
	eng := e.newEngine(e.newGate(nil), nil)
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	err := eng.Run(context.Background())
	testkit.WantErr(t, err, store.ErrClosed, "cron: run: store: runs by status")
	select {
	case <-eng.Ready():
		t.Error("Ready closed after a failed start")
	default:
	}
	_, err = eng.Trigger(context.Background(), "backup")
	testkit.WantErr(t, err, cron.ErrNotRunning)
}
