package slack_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// buttons are the texts of the buttons of blocks.
func buttons(bs []map[string]any) []string {
	var out []string
	for _, b := range bs {
		if b["type"] != "actions" {
			continue
		}
		for _, el := range b["elements"].([]any) {
			out = append(out, el.(map[string]any)["text"].(map[string]any)["text"].(string))
		}
	}
	return out
}

// Clarifications on Slack: option buttons with their text as written, and "✍️
// Answer" opening a modal whose submission answers, in both modes.
func TestClarificationModal(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			options := []string{"*bold* <!here>", "`b` & c"}
			long := "HEAD-OF-QUESTION " + strings.Repeat("pad ", 1000) + " TAIL-OF-QUESTION?"
			c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: long, Options: options,
				Caller: store.CallerLocal})
			testkit.Must(t, err)
			var ts string
			select {
			case msg := <-e.box.added:
				ts = msg.Ref
			case <-testkit.Context(t, 30*time.Second).Done():
				t.Fatal("the question was never recorded")
			}
			e.waitArmed(ts)
			cur, ok := e.srv.Current(slacktest.DefaultChannel, ts)
			if !ok {
				t.Fatal("no such message")
			}
			bs := rawBlocks(t, cur)
			if got, want := strings.Join(buttons(bs), "|"),
				strings.Join(append(options, bot.AnswerButton), "|"); got != want {
				t.Errorf("buttons %q, want %q", got, want)
			}
			all := string(cur.RawBlocks)
			for _, s := range []string{
				"HEAD-OF-QUESTION", "TAIL-OF-QUESTION?", "characters cut]",
			} {
				if !strings.Contains(all, s) {
					t.Errorf("the question does not show %q", s)
				}
			}
			write := bot.ClarCallback{ID: c.ID, Option: -1}.String()
			before := teststore.Snapshot(t, e.db)
			e.clickAction(slacktest.BlockAction{UserID: stranger, MessageTS: ts, Value: write})
			if _, toast := e.nextEphemeral(); toast != "Not authorized" {
				t.Errorf("a stranger's click: %q", toast)
			}
			e.clickAction(slacktest.BlockAction{UserID: approver, MessageTS: ts, Value: write})
			views, err := e.srv.WaitViews(testkit.Context(t, 30*time.Second), 1)
			testkit.Must(t, err)
			v := views[0]
			var meta map[string]string
			testkit.Must(t, json.Unmarshal([]byte(v.PrivateMetadata()), &meta))
			if v.CallbackID() != slack.AnswerCallbackID || meta["ts"] != ts ||
				meta["data"] != write {
				t.Fatalf("view %s", v.View)
			}
			e.submit(stranger, v, "rm -rf /")
			if _, toast := e.nextEphemeral(); toast != "Not authorized" {
				t.Errorf("a stranger's submission: %q", toast)
			}
			teststore.Unchanged(t, e.db, before)

			e.submit(approver, v, "go on <b>")
			if _, toast := e.nextEphemeral(); toast != "Answered: go on <b>" {
				t.Fatalf("submission: %q", toast)
			}
			e.waitFinal(c.ID)
			got, err := e.db.Clarification(c.ID)
			testkit.Must(t, err)
			if got.Answer == nil || got.Answer.Text != "go on <b>" || got.Answer.Via != "slack" ||
				got.Answer.By != approverName+" ("+approver+")" {
				t.Fatalf("answer %+v", got.Answer)
			}
			cur, _ = e.srv.Current(slacktest.DefaultChannel, ts)
			if bs := rawBlocks(t, cur); len(buttons(bs)) != 0 ||
				!strings.Contains(string(cur.RawBlocks), "Answered by jane.approver") ||
				!strings.Contains(string(cur.RawBlocks), `go on \u0026lt;b\u0026gt;`) {
				t.Errorf("the question after the answer: %s", cur.RawBlocks)
			}
			e.clickAction(slacktest.BlockAction{UserID: admin, MessageTS: ts,
				Value: bot.ClarCallback{ID: c.ID, Option: 0}.String()})
			want := fmt.Sprintf("Already answered by %s (%s): go on <b>", approverName, approver)
			if _, toast := e.nextEphemeral(); toast != want {
				t.Errorf("a late click: %q", toast)
			}
		})
	}
}

// A submission Slack delivers twice answers once and toasts once.
func TestAnswerModalRedelivered(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "which?"})
			testkit.Must(t, err)
			ts := (<-e.box.added).Ref
			e.clickAction(slacktest.BlockAction{UserID: approver, MessageTS: ts,
				Value: bot.ClarCallback{ID: c.ID, Option: -1}.String()})
			views, err := e.srv.WaitViews(testkit.Context(t, 30*time.Second), 1)
			testkit.Must(t, err)
			d := e.submit(approver, views[0], "the first")
			e.redeliver(d, 2)
			e.stop()
			if got := e.srv.Ephemerals(); len(got) != 1 ||
				replyText(t, got[0]) != "Answered: the first" {
				t.Errorf("ephemerals %d, want the one toast", len(got))
			}
			audit, err := e.db.Audit(0)
			testkit.Must(t, err)
			n := 0
			for _, a := range audit {
				if a.Action == store.AuditClarificationAnswered {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d answers audited, want 1", n)
			}
		})
	}
}
