package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// A job asks a question from its first step; the service is killed and started
// again while the run waits; Jane answers with an option button on Telegram; the
// next step runs with the answer in its environment (after its own approval), and
// the question's message shows the answer and who gave it.
func TestE2EJobAsksAndActsOnTheAnswer(t *testing.T) {
	t.Parallel()
	e := newE2EJob(t, "nightly-dump", `    steps:
      - tool: ask_user
        args:
          question: "The dump is ready to upload. Go on?"
          options: ["upload", "skip"]
      - tool: execute_cmd
        args:
          cmd: 'echo "$SKALD_ANSWER_1" > data/answer.txt'
`)
	e.svc.waitFor(t, `msg="run waiting for an answer"`, "run_id=1 ", "step=1 ")
	q := e.telegramArmed(1)
	if !strings.Contains(q.PlainText, "The dump is ready to upload. Go on?") ||
		strings.Join(q.CallbackData(), " ") != "q:1:0 q:1:1 q:1:w" {
		t.Fatalf("question %q with buttons %q", q.PlainText, q.CallbackData())
	}

	for _, ch := range []string{
		"channel=telegram", "channel=slack chat=" + slacktest.DefaultChannel,
	} {
		e.svc.waitFor(t, `msg="question sent"`, "clarification=1 ", ch)
	}
	e.svc.kill(t)
	e.start()
	if r, err := e.api.Run(e.ctx, 1); err != nil || r.Status != store.RunWaitingAnswer ||
		r.ClarificationID != 1 || len(r.Steps) != 1 || r.StepCount != 2 ||
		r.Steps[0].Status != string(store.RunWaitingAnswer) {
		t.Fatalf("run 1 after the restart: %+v, %v", r, err)
	}
	// jobs runs says what the run waits on, as text and as JSON.
	code, out, errOut := e.cli("jobs", "runs", "nightly-dump")
	if lines := strings.Split(out, "\n"); code != 0 || len(lines) < 2 ||
		!strings.HasPrefix(lines[1], "1   waiting_answer  1/2   question 1  ") {
		t.Fatalf("jobs runs while waiting on the question: exit %d %q %s", code, out, errOut)
	}
	code, out, _ = e.cli("jobs", "runs", "nightly-dump", "--json")
	if code != 0 || !strings.Contains(out, `"status": "waiting_answer"`) ||
		!strings.Contains(out, `"step_count": 2`) || strings.Contains(out, "waiting_approval") {
		t.Fatalf("jobs runs --json while waiting on the question: exit %d %s", code, out)
	}
	toast := e.tap(q, bot.ClarCallback{ID: 1, Option: 0}.String())
	if toast != "Answered: upload" {
		t.Fatalf("toast %q", toast)
	}
	if m := e.waitTelegramEdited(q); m.Keyboard != nil ||
		!strings.Contains(m.PlainText, "✍️ Answered by Jane (100000001) · telegram · ") ||
		!strings.HasSuffix(strings.TrimSpace(m.PlainText), "UTC: upload") {
		t.Errorf("the question after the answer: %q", m.PlainText)
	}
	prompt, id := e.telegramPrompt(2)
	e.promptsRecorded(id)
	if toast := e.tap(prompt, "a:"+testkit.ID(id)+":ok"); toast != "Approved" {
		t.Fatalf("toast %q", toast)
	}
	e.svc.waitFor(t, `msg="run finished"`, "run_id=1 ", "status=succeeded")
	b, err := os.ReadFile(filepath.Join(e.ws, "data/answer.txt"))
	if err != nil || string(b) != "upload\n" {
		t.Errorf("the step after the question wrote %q (%v), want the answer", b, err)
	}
}
