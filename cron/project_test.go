package cron_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// TestJobInProjectWorkspace runs a job of a profile with its own workspace: its steps'
// paths are in that workspace and decided by the seeded rules there.
func TestJobInProjectWorkspace(t *testing.T) {
	j := cron.Job{Name: "proj", Schedule: "@daily", AgentID: "ops", Profile: "proj",
		Steps: []cron.Step{
			{Tool: "write_file", Args: map[string]any{"path": "data/out.txt", "content": "x"}},
			{Tool: "read_file", Args: map[string]any{"path": "secrets/key"}},
		}}
	e := newCronEnv(t, j)
	proj := filepath.Join(e.dir, "proj")
	for _, d := range []string{"data", "secrets"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.gateEdit = func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "proj", WorkspaceRoot: proj, WorkingDirectory: proj}}
	}
	e.start()
	r := e.trigger("proj")
	e.next(cron.EventRunFinished, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunDenied || len(r.Steps) != 2 || r.Steps[0].Status != "succeeded" ||
		!strings.HasPrefix(r.Error, "step 2 (read_file): deny: ") {
		t.Fatalf("run %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(proj, "data", "out.txt"))
	if err != nil || string(b) != "x" {
		t.Errorf("the project's data/out.txt: %q, %v", b, err)
	}
	if _, ok := e.file("data/out.txt"); ok {
		t.Error("the step wrote into the top-level workspace")
	}
}
