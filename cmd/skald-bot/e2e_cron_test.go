package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// A scheduled job's run suspends on a step that needs approval; the service is
// killed with SIGKILL and started again on the same data dir; Jane approves from
// Telegram, on the prompt sent before the kill; the run resumes at that step and
// finishes: the step's effect is on disk, the run reads succeeded, and the job's
// notify policy (always) announces it on both channels. Nothing was prompted twice.
func TestE2ECronRunSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	e := newE2EJob(t, "nightly-backup", `    context_label: "CronJob: Nightly backup"
    notify: always
    steps:
      - {tool: write_file, args: {path: data/first.txt, content: one}}
      - {tool: execute_cmd, args: {cmd: "echo done > data/backup.txt"}}
`)
	// The run is stored as waiting, and its prompt recorded on both channels, before
	// the kill.
	e.svc.waitFor(t, `msg="run waiting for approval"`, "run_id=1 ", "step=2 ")
	prompt, id := e.telegramPrompt(1)
	if !strings.Contains(prompt.PlainText, "echo done > data/backup.txt") ||
		!strings.Contains(prompt.PlainText, "CronJob: Nightly backup") {
		t.Errorf("prompt:\n%s", prompt.PlainText)
	}
	e.promptsRecorded(id)
	if b, err := os.ReadFile(filepath.Join(e.ws, "data/first.txt")); err != nil ||
		string(b) != "one" {
		t.Errorf("the first step's file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "data/backup.txt")); !os.IsNotExist(err) {
		t.Fatalf("the step waiting for approval ran: %v", err)
	}

	e.svc.kill(t)
	e.start()
	if r, err := e.api.Run(e.ctx, 1); err != nil || r.Status != store.RunWaitingApproval ||
		r.RequestID != id {
		t.Fatalf("run 1 after the restart: %+v, %v", r, err)
	}

	if toast := e.tap(prompt, "a:"+testkit.ID(id)+":ok"); toast != "Approved" {
		t.Errorf("toast %q", toast)
	}
	e.svc.waitFor(t, `msg="run finished"`, "run_id=1 ", "status=succeeded")
	notice := "🗓 nightly-backup run 1: succeeded"
	if msgs, err := e.tg.WaitMessages(e.ctx, jane.ID, 2); err != nil ||
		msgs[1].Text != notice || msgs[1].Keyboard != nil {
		t.Fatalf("Telegram notice: %v %+v", err, msgs)
	}
	if m := e.slackPrompt(2); m.Text != notice || m.HasBlocks() {
		t.Errorf("Slack notice %q", m.Text)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "data/backup.txt")); err != nil ||
		string(b) != "done\n" {
		t.Errorf("the approved step's file: %q %v", b, err)
	}
	code, out, _ := e.cli("jobs", "runs", "nightly-backup", "--json")
	var runs []api.Run
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 {
		t.Fatalf("jobs runs: exit %d %s", code, out)
	}
	r := runs[0]
	if r.Status != store.RunSucceeded || len(r.Steps) != 2 || r.Steps[0].Decision != "allow" ||
		r.Steps[1].Decision != "approved" || r.Steps[1].RequestID != id ||
		r.Steps[1].ExitCode == nil || *r.Steps[1].ExitCode != 0 || r.Step != 2 {
		t.Errorf("run %+v", r)
	}
	if m := e.waitTelegramEdited(prompt); m.Keyboard != nil ||
		!strings.Contains(m.PlainText, "✅ Approved by Jane (100000001) · telegram · ") {
		t.Errorf("Telegram prompt after the tap (keyboard %v):\n%s", m.Keyboard, m.PlainText)
	}
	// Armed before or after the kill, armed again by the restart: its last update
	// is the outcome.
	m := e.slackFinished(e.sl.Messages(slacktest.DefaultChannel)[0].TS)
	if !strings.Contains(m.Text, "Approved") {
		t.Errorf("Slack prompt after the tap: %q", m.Text)
	}
	// One prompt before the kill, none after it: the restart found them recorded.
	if n := len(e.tg.Messages(jane.ID)); n != 2 {
		t.Errorf("%d messages in Jane's chat, want the prompt and the notice", n)
	}
	e.svc.stop(t)
}
