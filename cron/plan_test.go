package cron_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// marker is a one-step job whose command needs approval (agent "night" has no allow
// rule) and writes what it says to data/marker.
func marker(say string) cron.Job {
	return cron.Job{Name: "mark", Schedule: "@daily", AgentID: "night",
		Steps: []cron.Step{{Tool: "execute_cmd",
			Args: map[string]any{"cmd": "echo " + say + " > data/marker"}}}}
}

// A step's command edited in the config while its approval waits: after a restart and
// the approval, the command the request showed runs, and the run and the log say that
// the config changed.
func TestResumedRunRunsTheStepsItStartedWith(t *testing.T) {
	e, r := started(t, marker("approved"), waiting)
	req, err := e.db.Request(r.RequestID)
	testkit.Must(t, err)
	if got := string(req.Arguments); got != `{"cmd":"echo approved \u003e data/marker"}` {
		t.Fatalf("the request shows %s", got)
	}
	if len(r.Plan) != 1 || r.Plan[0].Args["cmd"] != "echo approved > data/marker" ||
		r.ConfigChanged {
		t.Fatalf("stored plan %+v, config changed %v", r.Plan, r.ConfigChanged)
	}

	logs := &testkit.Logs{}
	e.jobs = []cron.Job{marker("edited")}
	e.edit = func(o *cron.Options) { o.Logger = logs.Logger() }
	e.restart()
	got, _ := e.decide(r, true, "")
	if got.Status != store.RunSucceeded || !got.ConfigChanged {
		t.Fatalf("run %s, config changed %v: %+v", got.Status, got.ConfigChanged, got)
	}
	e.wantFile("data/marker", "approved\n")
	if n := len(logs.Find("WARN", "steps changed in the config while the run waited",
		"run_id="+itoa(r.ID))); n != 1 {
		t.Errorf("the change was logged %d times:\n%s", n, logs.All())
	}

	// The next run starts with the config as it is now, and runs it.
	r2 := waiting(t, e, "mark")
	if r2.Plan[0].Args["cmd"] != "echo edited > data/marker" {
		t.Fatalf("new run's plan %+v", r2.Plan)
	}
	if got, _ := e.decide(r2, true, ""); got.Status != store.RunSucceeded || got.ConfigChanged {
		t.Fatalf("second run %+v", got)
	}
	e.wantFile("data/marker", "edited\n")
}

// A run stored before runs kept their steps (no plan) resumes with the job's steps as
// configured now, and the log says so.
func TestRunWithoutPlanRunsTheConfiguredSteps(t *testing.T) {
	e, r := started(t, marker("approved"), waiting)
	e.stop()
	r.Plan = nil
	testkit.Must(t, e.db.UpdateRun(r))

	logs := &testkit.Logs{}
	e.jobs = []cron.Job{marker("edited")}
	e.edit = func(o *cron.Options) { o.Logger = logs.Logger() }
	testkit.Must(t, e.db.Close())
	e.open()
	e.start()
	if got, _ := e.decide(r, true, ""); got.Status != store.RunSucceeded || got.ConfigChanged {
		t.Fatalf("run %+v", got)
	}
	e.wantFile("data/marker", "edited\n")
	if n := len(logs.Find("WARN", "run stored without its steps", "run_id="+itoa(r.ID))); n != 1 {
		t.Errorf("the fallback was logged %d times:\n%s", n, logs.All())
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// A step's numbers are kept as written (json.Number) in the stored plan and the
// request, and a resumed run reads them (a timeout in seconds) from the store.
func TestPlanKeepsNumbers(t *testing.T) {
	j := marker("n")
	j.Steps[0].Args["timeout"] = 30
	e, r := started(t, j, waiting)
	if got := r.Plan[0].Args["timeout"]; got != json.Number("30") {
		t.Fatalf("stored plan's timeout %#v, want the number 30 as written", got)
	}
	req, err := e.db.Request(r.RequestID)
	testkit.Must(t, err)
	if !strings.Contains(string(req.Arguments), `"timeout":30`) {
		t.Fatalf("the request shows %s", req.Arguments)
	}
	e.restart()
	if got, _ := e.decide(r, true, ""); got.Status != store.RunSucceeded {
		t.Fatalf("resumed run %+v", got)
	}
}
