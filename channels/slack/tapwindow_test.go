package slack_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// restartFanout is the Fanout of a process started again over the same store and
// channel: its Reconcile is the start-up's. It is not Run: retries are not needed.
func (e *env) restartFanout() *bot.Fanout {
	e.t.Helper()
	f := bot.NewFanout(bot.FanoutOptions{Store: e.box, Logger: testkit.Logger()})
	testkit.Must(e.t, f.Add(e.ch))
	return f
}

// gaveUp waits for the Fanout to give up on a send.
func (e *env) gaveUp() bot.Failure {
	e.t.Helper()
	select {
	case f := <-e.failed:
		return f
	case <-testkit.Context(e.t, 30*time.Second).Done():
		e.t.Fatal("the Fanout never gave up")
	}
	return bot.Failure{}
}

// hasButtons reports whether message ts shows an actions block now.
func (e *env) hasButtons(ts string) bool {
	e.t.Helper()
	cur, ok := e.srv.Current(slacktest.DefaultChannel, ts)
	return ok && strings.Contains(blockIDs(rawBlocks(e.t, cur)), slack.BlockActions)
}

// A prompt is posted without buttons and armed once its message is recorded: until
// then there is no button to click; the first click the armed prompt allows approves
// at once.
func TestClickBeforePromptRecorded(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{manual: true})
			var shownEarly atomic.Bool
			e.box.beforeAdd = func(id uint64, msg store.Message) error {
				shownEarly.Store(shownEarly.Load() || e.hasButtons(msg.Ref))
				return nil
			}
			e.start()
			req, ts := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
			if shownEarly.Load() {
				t.Fatal("the prompt showed buttons before its message was recorded")
			}
			e.click(approver, ts, req.ID, bot.ActionApprove)
			if _, toast := e.nextEphemeral(); toast != "Approved" {
				t.Fatalf("toast %q, want Approved", toast)
			}
			e.waitFinal(req.ID)
			if got := e.request(req.ID); got.Status != store.Approved {
				t.Fatalf("request %s, want approved", got.Status)
			}
			e.checkUpdates(ts)
		})
	}
}

// Recording a posted prompt fails (as a process killed before the commit): the
// message stays without buttons. The next reconciliation (a restart's) posts a
// recorded prompt, armed, and ends it without buttons.
func TestPromptNotRecordedHasNoButtons(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{manual: true})
			var broken atomic.Bool
			broken.Store(true)
			e.box.beforeAdd = func(uint64, store.Message) error {
				if broken.Load() {
					return errors.New("disk full")
				}
				return nil
			}
			e.start()
			ctx := testkit.Context(t, 30*time.Second)
			out, err := e.g.Check(ctx, gate.Call{ToolName: "Bash", SessionID: "s1",
				Arguments: map[string]any{"command": "make deploy"}})
			testkit.Must(t, err)
			e.gaveUp()
			posted := e.srv.Messages(slacktest.DefaultChannel)
			if len(posted) != 1 || e.hasButtons(posted[0].TS) {
				t.Fatalf("%d messages; want one without buttons", len(posted))
			}
			if r := e.request(out.Request.ID); len(r.Messages) != 0 {
				t.Fatalf("recorded %+v", r.Messages)
			}

			broken.Store(false)
			testkit.Must(t, e.restartFanout().Reconcile(ctx))
			r := e.request(out.Request.ID)
			if len(r.Messages) != 1 || r.Messages[0].Ref == posted[0].TS {
				t.Fatalf("recorded %+v, want the new prompt", r.Messages)
			}
			<-e.box.added
			if !e.hasButtons(r.Messages[0].Ref) || e.hasButtons(posted[0].TS) {
				t.Fatalf("the recorded prompt is not armed, or the unrecorded one is")
			}
			e.click(approver, r.Messages[0].Ref, r.ID, bot.ActionReject)
			if _, toast := e.nextEphemeral(); toast != "Rejected" {
				t.Fatalf("toast %q", toast)
			}
			e.waitFinal(r.ID)
			for _, msg := range e.srv.Messages(slacktest.DefaultChannel) {
				if e.hasButtons(msg.TS) {
					t.Errorf("message %s still shows buttons", msg.TS)
				}
			}
		})
	}
}

// The edit that arms a recorded prompt fails for good (as a process killed between
// the commit and the edit): the next reconciliation (a restart's) arms it, and a
// click on it approves.
func TestPromptRecordedNotArmedIsArmedAtStart(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			testkit.Must(t, e.srv.FailNext("chat.update", "cant_update_message"))
			ctx := testkit.Context(t, 30*time.Second)
			out, err := e.g.Check(ctx, gate.Call{ToolName: "Bash", SessionID: "s1",
				Arguments: map[string]any{"command": "make deploy"}})
			testkit.Must(t, err)
			msg := <-e.box.added
			if f := e.gaveUp(); !errors.Is(f.Err, bot.ErrPermanent) {
				t.Fatalf("gave up on %+v", f)
			}
			r := e.request(out.Request.ID)
			if len(r.Messages) != 1 || e.hasButtons(msg.Ref) {
				t.Fatalf("recorded %+v, buttons %v: want one message, not armed", r.Messages,
					e.hasButtons(msg.Ref))
			}

			testkit.Must(t, e.restartFanout().Reconcile(ctx))
			if !e.hasButtons(msg.Ref) {
				t.Fatal("the reconciliation did not arm the recorded prompt")
			}
			if n := len(e.srv.Messages(slacktest.DefaultChannel)); n != 1 {
				t.Fatalf("%d messages, want the recorded one alone", n)
			}
			e.click(approver, msg.Ref, r.ID, bot.ActionApprove)
			if _, toast := e.nextEphemeral(); toast != "Approved" {
				t.Fatalf("toast %q", toast)
			}
			e.waitFinal(r.ID)
			if e.hasButtons(msg.Ref) {
				t.Error("the prompt still shows buttons")
			}
		})
	}
}
