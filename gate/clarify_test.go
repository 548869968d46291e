package gate_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

func (r *recorder) ShowClarification(ctx context.Context, c store.Clarification) error {
	stored, err := r.db.Clarification(c.ID)
	readable := err == nil && stored.Status == store.ClarificationPending
	r.send(ctx, "ask "+strconv.FormatUint(c.ID, 10)+" "+
		map[bool]string{true: "readable", false: "unreadable"}[readable])
	return nil
}

func (r *recorder) UpdateClarification(ctx context.Context, c store.Clarification) error {
	r.send(ctx, "answer "+strconv.FormatUint(c.ID, 10)+" "+string(c.Status))
	return nil
}

var _ gate.ClarificationNotifier = (*recorder)(nil)

func ask(session, cid string) gate.Question {
	return gate.Question{SessionID: session, ClarificationID: cid, Question: "which branch?",
		Options: []string{"main", "dev"}, Caller: store.CallerLocal}
}

func TestAskAnswerWait(t *testing.T) {
	e := newGateEnv(t)
	e.run()
	events, unsubscribe := e.m.Subscribe(16)
	defer unsubscribe()
	c, created, err := e.m.Ask(ask("s1", "c1"))
	testkit.Must(t, err)
	if !created || c.Status != store.ClarificationPending {
		t.Fatalf("Ask = %v %+v", created, c)
	}
	if got := e.notes.next(t); got != "ask 1 readable" {
		t.Fatalf("notifier %q, want the question shown after it was stored", got)
	}
	if ev := <-events; ev.Name != gate.EventClarificationRequested {
		t.Fatalf("event %s", ev.Name)
	}
	// A replay shows nothing again.
	if _, created, err := e.m.Ask(ask("s1", "c1")); err != nil || created {
		t.Fatalf("replay: %v %v", created, err)
	}
	waited := make(chan store.Clarification, 1)
	go func() {
		got, err := e.m.WaitClarification(testkit.Context(t, time.Minute), c.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	_, err = e.m.AnswerClarification(context.Background(), c.ID, gate.Reply{Text: "x",
		By: "agent", Caller: store.CallerLocal})
	testkit.WantErr(t, err, gate.ErrForbidden, "an agent may not answer")
	one := 1
	got, err := e.m.AnswerClarification(context.Background(), c.ID,
		gate.Reply{Option: &one, By: "jane", Via: "telegram"})
	testkit.Must(t, err)
	if got.Answer.Text != "dev" || *got.Answer.Option != 1 {
		t.Fatalf("answer %+v", got.Answer)
	}
	if w := <-waited; w.Status != store.ClarificationAnswered {
		t.Fatalf("Wait returned %s", w.Status)
	}
	if ev := <-events; ev.Name != gate.EventClarificationResolved ||
		ev.Data.(gate.ClarificationResolved).Status != store.ClarificationAnswered {
		t.Fatalf("event %+v", ev)
	}
	if got := e.notes.next(t); got != "answer 1 answered" {
		t.Fatalf("notifier %q", got)
	}
	_, err = e.m.AnswerClarification(context.Background(), c.ID, gate.Reply{Text: "main",
		By: "bob", Via: "slack"})
	testkit.WantErr(t, err, gate.ErrAlreadyResolved, "already answered by jane via telegram")
	if strings.Contains(err.Error(), "request") {
		t.Errorf("a question's error speaks of a request: %v", err)
	}
}

func TestAnswerRace(t *testing.T) {
	e := newGateEnv(t)
	c, _, err := e.m.Ask(ask("s1", ""))
	testkit.Must(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, who := range []string{"jane", "bob"} {
		wg.Go(func() {
			_, errs[i] = e.m.AnswerClarification(context.Background(), c.ID,
				gate.Reply{Text: "main " + who, By: who, Via: "telegram"})
		})
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("errors %v, want one winner", errs)
	}
	for _, err := range errs {
		if err != nil {
			testkit.WantErr(t, err, gate.ErrAlreadyResolved, "already answered by")
		}
	}
}

func TestAskLimitsCountBothKinds(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) { o.Limits = gate.Limits{PendingPerCaller: 2} })
	e.require(gateCall("s1", "t1", store.CallerLocal))
	_, _, err := e.m.Ask(ask("s1", "c1"))
	testkit.Must(t, err)
	before := teststore.Snapshot(t, e.db)
	_, _, err = e.m.Ask(ask("s1", "c2"))
	testkit.WantErr(t, err, gate.ErrTooManyPending, "this caller already has 2")
	teststore.Unchanged(t, e.db, before)
	// A replay counts nothing; a new manager over the store counts the same.
	_, created, err := e.m.Ask(ask("s1", "c1"))
	if err != nil || created {
		t.Fatalf("replay at the limit: %v %v", created, err)
	}
	m2, err := gate.New(e.opt)
	testkit.Must(t, err)
	_, _, err = m2.Ask(ask("s1", "c3"))
	testkit.WantErr(t, err, gate.ErrTooManyPending)
}

func TestAskRefuses(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, tc := range []struct {
		name   string
		q      gate.Question
		target error
		want   string
	}{
		{"cron session",
			gate.Question{SessionID: "cron:x:1", Question: "q", Caller: store.CallerLocal},
			gate.ErrForbidden, "cron:"},
		{"no question", gate.Question{SessionID: "s"}, gate.ErrInvalid, "question is required"},
		{"bad option", gate.Question{SessionID: "s", Question: "q",
			Options: []string{strings.Repeat("o", 65)}}, gate.ErrInvalid, "longer than 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.m.Ask(tc.q)
			testkit.WantErr(t, err, tc.target, tc.want)
		})
	}
	teststore.Unchanged(t, e.db, before)
}

func TestClarificationCancelExpireRestart(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	e := newGateEnv(t, func(o *gate.Options) { o.Now = clock.Now; o.Notifier = nil })
	a, _, err := e.m.Ask(ask("s1", "c1"))
	testkit.Must(t, err)
	q := ask("s2", "c2")
	q.Timeout = time.Minute
	b, _, err := e.m.Ask(q)
	testkit.Must(t, err)
	// Restart: a new manager over the reopened store still has both pending.
	testkit.Must(t, e.db.Close())
	e.open()
	e.opt.Store = e.db
	e.m, err = gate.New(e.opt)
	testkit.Must(t, err)
	cs, err := e.m.Clarifications()
	testkit.Must(t, err)
	if len(cs) != 2 {
		t.Fatalf("after restart %d pending", len(cs))
	}
	_, err = e.m.CancelClarification(a.ID, "", store.Actor{By: "x", Via: "api"},
		"agent-000000000000")
	testkit.WantErr(t, err, gate.ErrForbidden, "another caller")
	if _, err := e.m.CancelSession("s1", admin); err != nil {
		t.Fatal(err)
	}
	got, err := e.m.Clarification(a.ID)
	testkit.Must(t, err)
	if got.Status != store.ClarificationCancelled {
		t.Fatalf("after the session's cancel: %s", got.Status)
	}
	clock.Add(2 * time.Minute)
	stop := e.run()
	got, err = e.m.WaitClarification(testkit.Context(t, time.Minute), b.ID)
	stop()
	testkit.Must(t, err)
	if got.Status != store.ClarificationExpired {
		t.Fatalf("after expiry: %s", got.Status)
	}
	_, err = e.m.AnswerClarification(context.Background(), b.ID,
		gate.Reply{Text: "x", By: "j", Via: "api"})
	testkit.WantErr(t, err, gate.ErrAlreadyResolved, "expired by system via gate")
}

// gateCall is a Bash call the seed rules send for approval.
func gateCall(session, toolCallID, caller string) gate.Call {
	return gate.Call{ToolName: "Bash", SessionID: session, ToolCallID: toolCallID,
		Arguments: map[string]any{"command": "rm -rf build"}, Caller: caller}
}
