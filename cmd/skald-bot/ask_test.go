package main

import (
	"context"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// answerNext answers the next clarification asked on s's gate with text, as jane.
func (s *testServer) answerNext(t *testing.T, text string) <-chan uint64 {
	t.Helper()
	return onNext(t, s, func(d gate.ClarificationRequested) (uint64, error) {
		_, err := s.gate.AnswerClarification(context.Background(), d.ID,
			gate.Reply{Text: text, By: "jane", Via: "telegram"})
		return d.ID, err
	})
}

func TestAskAndAnswerCommands(t *testing.T) {
	s := startServer(t, "/w")
	ids := s.answerNext(t, "dev")
	code, out, errOut := runClient(t, "ask", "which branch?",
		"--option", "main", "--option", "dev",
		"--wait", "1m", "--server", s.url)
	<-ids
	if code != 0 || out != "dev\n" || errOut != "" {
		t.Fatalf("ask answered: exit %d %q %q", code, out, errOut)
	}
	// Still pending: 3, the id on stderr.
	code, out, errOut = runClient(t, "ask", "go on?", "--wait", "0s", "--server", s.url)
	if code != 3 || out != "" || !strings.Contains(errOut, "still pending") {
		t.Fatalf("ask pending: exit %d %q %q", code, out, errOut)
	}
	pend, err := s.db.PendingClarifications()
	testkit.Must(t, err)
	if len(pend) != 1 {
		t.Fatalf("pending %d", len(pend))
	}
	id := testkit.ID(pend[0].ID)
	// pending lists the question, with the id answer takes.
	code, out, errOut = runClient(t, "pending", "--server", s.url)
	if code != 0 ||
		!strings.Contains(out, "no pending requests\n\nquestions (skald-bot answer ID TEXT):\n") ||
		!strings.Contains(out, "\n"+id+" ") || !strings.Contains(out, "go on?") {
		t.Fatalf("pending: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runClient(t, "answer", id, "yes, go on", "--server", s.url)
	if code != 0 || out != "clarification "+id+" answered: yes, go on\n" {
		t.Fatalf("answer: exit %d %q %q", code, out, errOut)
	}
	code, _, errOut = runClient(t, "answer", id, "no", "--server", s.url)
	if code != 1 || !strings.Contains(errOut, "already answered by cli via api") {
		t.Fatalf("answer again: exit %d %q", code, errOut)
	}
	// Cancelled: 1.
	cancelled := onNext(t, s, func(d gate.ClarificationRequested) (uint64, error) {
		_, err := s.gate.CancelClarification(d.ID, "", store.Actor{By: "a", Via: "api"}, "")
		return d.ID, err
	})
	code, _, errOut = runClient(t, "ask", "later?", "--wait", "1m", "--server", s.url)
	if code != 1 || !strings.Contains(errOut, "cancelled") {
		t.Fatalf("ask cancelled: exit %d %q", code, errOut)
	}
	<-cancelled
	// Bad input: exit 2, nothing stored.
	before, err := s.db.PendingClarifications()
	testkit.Must(t, err)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"ask", " ", "--wait", "0s"}, "question is required"},
		{
			[]string{"ask", "q", "--option", "a", "--option", "a", "--wait", "0s"},
			`option 2 repeats "a"`,
		},
		{[]string{"ask", "q", "--wait", "-1s"}, "--wait -1s: must not be negative"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, _, errOut := runClient(t, append(c.args, "--server", s.url)...)
			if code != 2 || !strings.Contains(errOut, c.msg) {
				t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, errOut, c.msg)
			}
		})
	}
	if after, err := s.db.PendingClarifications(); err != nil || len(after) != len(before) {
		t.Fatalf("pending %d → %d (err %v)", len(before), len(after), err)
	}
}
