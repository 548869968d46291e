package slack_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// An admin's approval posts the "➕ Always" follow-up; an approver's click on it is
// refused and adds nothing; the admin's adds the rule and updates the follow-up
// without its button; a second click adds nothing.
func TestAlwaysAllowFollowUp(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			req, ts, posted, f := approvedFollowUp(t, e, "mcp__notes__list", map[string]any{})
			// Posted without its button, then armed by its first update.
			if got := blockIDs(rawBlocks(t, posted)); got != slack.BlockFollowUp {
				t.Errorf("follow-up posted with blocks %s", got)
			}
			bs := rawBlocks(t, f)
			if got := blockIDs(bs); got != slack.BlockFollowUp+","+slack.BlockActions {
				t.Errorf("follow-up blocks %s", got)
			}
			data := fmt.Sprintf("r:%d", req.ID)
			if !strings.Contains(string(f.RawBlocks), `"value":"`+data+`"`) ||
				!strings.Contains(string(f.RawBlocks), "➕ Always: mcp__notes__list") {
				t.Errorf("follow-up %s", f.RawBlocks)
			}
			rules0 := ruleCount(t, e)
			e.clickAction(slacktest.BlockAction{UserID: approver, MessageTS: f.TS, Value: data})
			if _, toast := e.nextEphemeral(); !strings.Contains(toast, "Not authorized") {
				t.Errorf("approver's toast %q", toast)
			}
			if n := ruleCount(t, e); n != rules0 {
				t.Errorf("an approver's click added a rule")
			}
			e.clickAction(slacktest.BlockAction{UserID: admin, MessageTS: ts, Value: data})
			if _, toast := e.nextEphemeral(); toast != "Unknown request" {
				t.Errorf("click on the prompt instead of the follow-up: %q", toast)
			}
			e.clickAction(slacktest.BlockAction{UserID: admin, MessageTS: f.TS, Value: data})
			if _, toast := e.nextEphemeral(); !strings.HasPrefix(toast, "Added rule ") ||
				!strings.HasSuffix(toast, ": allow mcp__notes__list") {
				t.Errorf("admin's toast %q", toast)
			}
			last := lastRule(t, e, rules0+1)
			if last.ToolPattern != "mcp__notes__list" || last.Action != rules.Allow {
				t.Errorf("added %+v", last)
			}
			up, err := e.srv.WaitUpdates(testkit.Context(t, 30*time.Second),
				slacktest.DefaultChannel, f.TS, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := blockIDs(rawBlocks(t, up[1])); got != slack.BlockFollowUp ||
				!strings.Contains(string(up[1].RawBlocks), "Added rule") {
				t.Errorf("closed follow-up %s", up[1].RawBlocks)
			}
			e.clickAction(slacktest.BlockAction{UserID: admin, MessageTS: f.TS, Value: data})
			if _, toast := e.nextEphemeral(); strings.HasPrefix(toast, "Added") {
				t.Errorf("second click: %q", toast)
			}
			if n := ruleCount(t, e); n != rules0+1 {
				t.Errorf("a second click added a rule")
			}
		})
	}
}

// An approved web call's follow-up has a button for its host and one for its site's
// subdomains; a click on the first adds the rule for the host alone.
func TestAlwaysWebHost(t *testing.T) {
	e := newSlackEnv(t, modes[0], envOptions{})
	req, _, _, f := approvedFollowUp(t, e, "WebFetch",
		map[string]any{"url": "https://docs.example.com/x"})
	for _, want := range []string{fmt.Sprintf(`"value":"r:%d"`, req.ID),
		fmt.Sprintf(`"value":"r:%d:2"`, req.ID), "➕ Always: docs.example.com",
		"➕ Always: *.example.com"} {
		if !strings.Contains(string(f.RawBlocks), want) {
			t.Errorf("follow-up lacks %s: %s", want, f.RawBlocks)
		}
	}
	rules0 := ruleCount(t, e)
	e.clickAction(slacktest.BlockAction{UserID: admin, MessageTS: f.TS,
		Value: fmt.Sprintf("r:%d", req.ID)})
	if _, toast := e.nextEphemeral(); !strings.HasPrefix(toast, "Added rule ") ||
		!strings.HasSuffix(toast, ": allow WebFetch host docs.example.com") {
		t.Errorf("admin's toast %q", toast)
	}
	last := lastRule(t, e, rules0+1)
	if last.ToolPattern != "WebFetch" || last.HostPattern != "docs.example.com" ||
		last.Action != rules.Allow {
		t.Errorf("added %+v", last)
	}
}

// approvedFollowUp makes a call of tool that requires approval, has the admin approve
// it, and returns the request, its prompt's ts, and its follow-up as posted and as
// armed by its first update.
func approvedFollowUp(t *testing.T, e *env, tool string, args map[string]any) (
	req store.Request, ts string, posted, armed slacktest.Message) {
	t.Helper()
	req, ts = e.require("s1", tool, args)
	e.click(admin, ts, req.ID, bot.ActionApprove)
	if _, toast := e.nextEphemeral(); toast != "Approved" {
		t.Fatalf("toast %q", toast)
	}
	msgs, err := e.srv.WaitMessages(testkit.Context(t, 30*time.Second),
		slacktest.DefaultChannel, 2)
	if err != nil {
		t.Fatal(err)
	}
	up, err := e.srv.WaitUpdates(testkit.Context(t, 30*time.Second), slacktest.DefaultChannel,
		msgs[1].TS, 1)
	if err != nil {
		t.Fatal(err)
	}
	return req, ts, msgs[1], up[0]
}

// lastRule returns the newest rule, once the store holds n rules.
func lastRule(t *testing.T, e *env, n int) rules.Rule {
	t.Helper()
	rs, err := e.db.Rules()
	if err != nil || len(rs) != n {
		t.Fatalf("rules %v, %v, want %d", rs, err, n)
	}
	last := rs[0]
	for _, r := range rs {
		if r.ID > last.ID {
			last = r
		}
	}
	return last
}

// ruleCount returns how many rules e's store holds, failing the test on an error.
func ruleCount(t *testing.T, e *env) int {
	t.Helper()
	rs, err := e.db.Rules()
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}
