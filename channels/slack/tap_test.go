package slack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// An approver's click approves: the clicker gets an ephemeral toast, and the prompt
// is updated to the outcome with its buttons gone.
func TestApproverClickApproves(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{bypassShort: 30 * time.Minute})
			req, ts := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
			e.click(approver, ts, req.ID, bot.ActionBypassShort)
			eph, toast := e.nextEphemeral()
			if toast != "Approved · ⏱ 30 min bypass" || eph.User != approver ||
				eph.Channel != slacktest.DefaultChannel {
				t.Errorf("toast %q to %s in %s, want the approval to %s",
					toast, eph.User, eph.Channel, approver)
			}
			e.waitFinal(req.ID)
			got := e.request(req.ID)
			if got.Status != store.Approved || got.Resolution == nil ||
				got.Resolution.Via != "slack" ||
				got.Resolution.By != approverName+" ("+approver+")" ||
				got.Resolution.Bypass == nil || got.Resolution.Bypass.Secs != 1800 {
				t.Fatalf("request after the click: %+v %+v", got, got.Resolution)
			}
			e.checkUpdates(ts)
			cur, ok := e.srv.Current(slacktest.DefaultChannel, ts)
			if !ok {
				t.Fatal("no such message")
			}
			bs := rawBlocks(t, cur)
			if outcome := text(bs[len(bs)-1]); !strings.HasPrefix(outcome,
				"*✅ Approved by jane.approver (U0FAKEUSR01) · slack · ") ||
				!strings.HasSuffix(outcome, " · ⏱ 30 min bypass: every call of category shell "+
					"(any command or arguments, not only this call) (category:shell)*") {
				t.Errorf("outcome %q", outcome)
			}

			// A second click, on the finished message, changes nothing and says so.
			before := teststore.Snapshot(t, e.db)
			e.click(admin, ts, req.ID, bot.ActionReject)
			if _, toast := e.nextEphemeral(); toast !=
				"Already approved by jane.approver (U0FAKEUSR01)" {
				t.Errorf("late toast %q", toast)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
}

// A click by someone who is not an approver changes nothing and gets an ephemeral
// "Not authorized"; so does a click on a message that is not the request's prompt
// (taps are bound to their message) and a button that is not ours.
func TestClickRefused(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			req, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
			for _, c := range []struct {
				name  string
				click slacktest.BlockAction
				toast string
			}{
				{"a stranger", slacktest.BlockAction{UserID: stranger, UserName: "mallory",
					MessageTS: ts, Value: "a:1:ok"}, "Not authorized"},
				{"another message", slacktest.BlockAction{UserID: approver,
					MessageTS: "1700000000.000100", Value: "a:1:ok"}, "Unknown request"},
				{"a forged value", slacktest.BlockAction{UserID: approver, MessageTS: ts,
					ActionID: "approve", Value: "a:1:yes"}, "Invalid button"},
				{"an unknown request", slacktest.BlockAction{UserID: approver, MessageTS: ts,
					Value: "a:99:ok"}, "Unknown request"},
			} {
				t.Run(c.name, func(t *testing.T) {
					before := teststore.Snapshot(t, e.db)
					e.clickAction(c.click)
					eph, toast := e.nextEphemeral()
					if toast != c.toast || eph.User != c.click.UserID {
						t.Errorf("%s: toast %q to %s, want %q to %s",
							c.name, toast, eph.User, c.toast, c.click.UserID)
					}
					teststore.Unchanged(t, e.db, before)
				})
			}
			if got := e.request(req.ID); got.Status != store.Pending {
				t.Errorf("request %s after refused clicks", got.Status)
			}
			if n := len(e.srv.Updates(slacktest.DefaultChannel, ts)); n != 1 {
				t.Errorf("the prompt was updated %d times, want once (armed)", n)
			}
		})
	}
}

// The same delivery twice — Slack redelivers when an ack is late — runs once: one
// resolution, one toast; a replayed command runs once too.
func TestDuplicateDelivery(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			req, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
			click := e.click(approver, ts, req.ID, bot.ActionApprove)
			e.redeliver(click, 2)
			cmd := e.command(admin, "allow Read path=docs/*")
			e.redeliver(cmd, 2)
			e.stop() // every acknowledged delivery has now been handled

			if got := e.request(req.ID); got.Status != store.Approved {
				t.Errorf("request %s", got.Status)
			}
			var toasts []string
			for _, eph := range e.srv.Ephemerals() {
				toasts = append(toasts, replyText(t, eph))
			}
			if len(toasts) != 2 || toasts[0] != "Approved" && toasts[1] != "Approved" {
				t.Errorf("ephemerals %q, want one toast and one reply", toasts)
			}
			audit, err := e.db.Audit(0)
			if err != nil {
				t.Fatal(err)
			}
			actions := map[string]int{}
			for _, a := range audit {
				actions[a.Action]++
			}
			rs, err := e.db.Rules()
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range rs {
				if r.ToolPattern == "Read" && r.PathPattern == "docs/*" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d rules created by a replayed command, want 1 (audit %v)", n, actions)
			}
			if actions["request.approved"] != 1 {
				t.Errorf("%d resolutions audited, want 1", actions["request.approved"])
			}
		})
	}
}
