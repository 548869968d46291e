package cron_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// asking is a job that asks which branch, then writes the answer with execute_cmd.
func asking(name string) cron.Job {
	return cron.Job{
		Name: name, Schedule: "0 2 * * *", AgentID: "ops", ContextLabel: "CronJob: " + name,
		Steps: []cron.Step{
			{Tool: cron.AskUserTool, Args: map[string]any{"question": "which branch?",
				"options": []any{"main", "dev"}}},
			{Tool: "execute_cmd", Args: map[string]any{
				"cmd": `printf '%s %s\n' "$SKALD_ANSWER_1" "$SKALD_ANSWER" >> data/answer.log`}},
		},
	}
}

func TestAskUserHandsTheAnswerOn(t *testing.T) {
	e, r := started(t, asking("deploy"), waitingForAnswer)
	c, err := e.gate.Clarification(r.ClarificationID)
	testkit.Must(t, err)
	if c.Caller != store.CallerCron || c.SessionID != r.SessionID ||
		c.ClarificationID != "step-1" || c.Source != "cron" ||
		strings.Join(c.Options, ",") != "main,dev" {
		t.Fatalf("clarification %+v", c)
	}
	one := 1
	_, err = e.gate.AnswerClarification(context.Background(), c.ID,
		gate.Reply{Option: &one, By: "alice", Via: "telegram"})
	testkit.Must(t, err)
	e.next(cron.EventRunFinished, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunSucceeded || len(r.Steps) != 2 || r.Steps[0].Output != "dev" ||
		r.Steps[0].Status != "succeeded" || r.Steps[0].ClarificationID != c.ID {
		t.Fatalf("run %+v", r)
	}
	e.wantFile("data/answer.log", "dev dev\n")
}

func TestAskUserRestartWhileWaiting(t *testing.T) {
	e, r := started(t, asking("deploy"), waitingForAnswer)
	e.restart()
	if got := e.run(r.ID); got.Status != store.RunWaitingApproval {
		t.Fatalf("after a restart %s", got.Status)
	}
	_, err := e.gate.AnswerClarification(context.Background(), r.ClarificationID,
		gate.Reply{Text: "main", By: "alice", Via: "slack"})
	testkit.Must(t, err)
	e.next(cron.EventRunFinished, r.ID)
	e.wantFile("data/answer.log", "main main\n")
}

func TestAskUserAnsweredWhileDown(t *testing.T) {
	e, r := started(t, asking("deploy"), waitingForAnswer)
	e.stop()
	_, err := e.db.AnswerClarification(r.ClarificationID, store.ClarificationAnswer{Text: "main",
		By: "alice", Via: "cli"})
	testkit.Must(t, err)
	e.start()
	e.next(cron.EventRunFinished, r.ID)
	if got := e.run(r.ID); got.Status != store.RunSucceeded {
		t.Fatalf("run %+v", got)
	}
}

func TestAskUserExpiredOrCancelledEndsTheRun(t *testing.T) {
	t.Run("expired", func(t *testing.T) {
		j := asking("deploy")
		j.ApprovalTimeout = time.Second
		e, r := started(t, j, waitingForAnswer)
		ev := e.next(cron.EventRunFinished, r.ID)
		if ev.Status != store.RunExpired {
			t.Fatalf("run ended %s", ev.Status)
		}
		if _, ok := e.file("data/answer.log"); ok {
			t.Error("the step after the expired question ran")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		e, r := started(t, asking("deploy"), waitingForAnswer)
		_, err := e.gate.CancelSession(r.SessionID, admin)
		testkit.Must(t, err)
		ev := e.next(cron.EventRunFinished, r.ID)
		if got := e.run(r.ID); ev.Status != store.RunCancelled ||
			!strings.Contains(got.Error, "cancelled by alice") {
			t.Fatalf("run %+v", got)
		}
	})
}

func TestAskUserArgumentsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no question", map[string]any{}, "question"},
		{"bad options", map[string]any{"question": "q", "options": "main"},
			"options must be a list"},
		{"bad option", map[string]any{"question": "q", "options": []any{1}},
			"option 1 must be a string"},
		{"eleven options", map[string]any{"question": "q", "options": []any{"1", "2", "3", "4",
			"5", "6", "7", "8", "9", "10", "11"}}, "11 options, at most 10"},
		{"unknown key", map[string]any{"question": "q", "cmd": "x"}, "cmd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cron.Validate([]cron.Job{{Name: "j", Schedule: "@daily",
				Steps: []cron.Step{{Tool: cron.AskUserTool, Args: tc.args}}}}, nil)
			testkit.WantErr(t, err, cron.ErrInvalidJob, tc.want)
		})
	}
}
