package bot

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// A prompt is posted without buttons and armed by an edit only once its message is
// recorded on the request.
func TestShowPostsThenRecordsThenArms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100", "-200")
		e := newEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg}})
		var unrecorded []string
		tg.onArm = func(target, ref string) {
			// The request is the only one: its id is 1.
			r := e.request(1)
			if !hasMessage(r.Messages, "telegram", target) {
				unrecorded = append(unrecorded, target+"/"+ref)
			}
		}
		defer e.run()()
		synctest.Wait()
		r := e.require("s1", "Bash", bash)
		synctest.Wait()
		if len(unrecorded) > 0 {
			t.Errorf("armed before recorded: %v", unrecorded)
		}
		sent := tg.sent()
		if len(sent) != 2 {
			t.Fatalf("sent %d, want 2", len(sent))
		}
		for _, s := range sent {
			if s.Posted.Buttons != nil || !s.Armed || s.Prompt.Buttons == nil {
				t.Errorf("message %s/%s posted with buttons %v, armed %v", s.Target, s.Ref,
					s.Posted.Buttons != nil, s.Armed)
			}
		}
		e.wantMessages(r.ID, false, tg)
		if n := len(tg.edited()); n != 0 {
			t.Errorf("%d edits beside the arms", n)
		}
	})
}

// A message recorded but never armed (the arm given up on, as a process stopped
// between the commit and the edit) is armed by the next start's reconciliation; a
// pending clarification's too.
func TestReconcileArmsRecordedMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		tg.failEdits, tg.failErr = 2, fmt.Errorf("chat not found: %w", ErrPermanent)
		e := newEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg}})
		stop := e.run()
		synctest.Wait()
		r := e.require("s1", "Bash", bash)
		c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "go on?",
			Options: []string{"yes", "no"}, Caller: store.CallerLocal})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		stop()
		if got := e.request(r.ID).Messages; len(got) != 1 {
			t.Fatalf("recorded %+v, want one message", got)
		}
		for _, s := range tg.sent() {
			if s.Armed {
				t.Fatalf("message %s armed although its edit failed", s.Ref)
			}
		}
		if err := e.db.Close(); err != nil {
			t.Fatal(err)
		}

		tg2 := newFake("telegram", "-100")
		e2 := newEnv(t, envOptions{fanout: true, channels: []*fakeChannel{tg2}, path: e.path})
		defer e2.run()()
		synctest.Wait()
		if n := len(tg2.sent()); n != 0 {
			t.Errorf("sent %d prompts again, want none", n)
		}
		ref := e2.request(r.ID).Messages[0].Ref
		cc, err := e2.db.Clarification(c.ID)
		if err != nil || len(cc.Messages) != 1 {
			t.Fatalf("clarification %+v, %v", cc.Messages, err)
		}
		armed := map[string]bool{}
		for _, s := range tg2.edited() {
			if s.Prompt.Buttons != nil {
				armed[s.Ref] = true
			}
		}
		if !armed[ref] || !armed[cc.Messages[0].Ref] {
			t.Errorf("armed %v, want the prompt %s and the question %s", armed, ref,
				cc.Messages[0].Ref)
		}
		if got := e2.request(r.ID); got.Status != store.Pending {
			t.Errorf("request %s", got.Status)
		}
	})
}
