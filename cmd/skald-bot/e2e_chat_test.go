package main

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// A Claude Code Bash call needs approval: the hook waits, the prompt shows in
// Telegram and in Slack, an approver clicks ✅ Approve in Slack, the hook prints
// allow, and the Telegram prompt is edited to say who approved it, where, with its
// buttons gone; the Slack prompt too. The prompt that Slack refused (a channel the
// bot is not in) counts in /metrics as a channel send error.
func TestE2EHookApprovedInSlack(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "")
	answer := e.hookAsync(fixture(t, "pretooluse_bash.json"), "--wait", "1m")

	tgPrompt, id := e.telegramPrompt(1)
	if !strings.Contains(tgPrompt.PlainText, `"command": "npm test"`) ||
		!strings.Contains(tgPrompt.PlainText, "Session: abc123") {
		t.Errorf("Telegram prompt:\n%s", tgPrompt.PlainText)
	}
	slPrompt := e.slackPrompt(1)
	if !strings.Contains(slPrompt.Text, "Bash (request #"+testkit.ID(id)+")") ||
		!slPrompt.HasActions() ||
		!strings.Contains(string(slPrompt.RawBlocks), `"value":"a:`+testkit.ID(id)+`:ok"`) {
		t.Fatalf("Slack prompt %q:\n%s", slPrompt.Text, slPrompt.RawBlocks)
	}
	e.promptsRecorded(id)

	click, err := e.sl.PushBlockAction(slacktest.BlockAction{UserID: slackApprover,
		MessageTS: slPrompt.TS, ActionID: "approve"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.sl.WaitAck(e.ctx, click.EnvelopeID); err != nil {
		t.Fatalf("the click was not acknowledged: %v", err)
	}
	if eph, err := e.sl.WaitEphemerals(e.ctx, 1); err != nil ||
		!strings.Contains(replyOf(eph[0]), "Approved") {
		t.Fatalf("the click was not taken: %v %+v", err, eph)
	}
	d := e.await(answer)
	by := "jane.approver (" + slackApprover + ")"
	want := decision("allow", "Approved by "+by+" via Slack (request "+testkit.ID(id)+")")
	if d != want {
		t.Fatalf("hook printed %+v, want %+v", d, want)
	}

	m := e.waitTelegramEdited(tgPrompt)
	if m.Keyboard != nil || !strings.Contains(m.PlainText, "✅ Approved by "+by+" · slack · ") {
		t.Errorf("Telegram prompt after the click (keyboard %v):\n%s", m.Keyboard, m.PlainText)
	}
	ups, err := e.sl.WaitUpdates(e.ctx, slacktest.DefaultChannel, slPrompt.TS, 2)
	if err != nil || ups[1].HasActions() || !strings.Contains(ups[1].Text, "✅ Approved by "+by) {
		t.Errorf("Slack prompt after the click (%v): %q\n%s",
			err, ups[len(ups)-1].Text, ups[len(ups)-1].RawBlocks)
	}
	if q, err := e.api.Request(e.ctx, id, 0); err != nil || q.Resolution == nil ||
		q.Resolution.Via != "slack" || q.Resolution.By != by {
		t.Errorf("request %d: %+v, %v", id, q.Resolution, err)
	}
	e.waitMetric(`skald_channel_send_errors_total{channel="slack"} 1`)
	e.svc.stop(t)
}

// replyOf is the text of a Slack ephemeral reply: its fallback text, or its blocks.
func replyOf(m slacktest.Message) string { return m.Text + string(m.RawBlocks) }

// waitMetric polls GET /metrics until a line reads want: the counter is bumped right
// after the send is given up on, which nothing else reports.
func (e *e2e) waitMetric(want string) {
	e.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(e.ctx, http.MethodGet, e.svc.url+"/metrics", nil)
		if err != nil {
			e.t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			e.t.Fatalf("GET /metrics: %v", err)
		}
		sc := bufio.NewScanner(resp.Body)
		found := false
		for sc.Scan() {
			found = found || sc.Text() == want
		}
		resp.Body.Close()
		if found {
			return
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("GET /metrics never showed %q", want)
		case <-tick.C:
		}
	}
}

// An admin adds a deny rule with a Telegram command; the next such call is denied
// at once, with no prompt on either channel. An approver who is no admin is told
// "not authorized" and changes nothing.
func TestE2EDenyRuleFromTelegram(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "")
	before, err := e.api.Rules(e.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.tg.Inject(e.tg.MessageUpdate(jane, chatOf(jane),
		"/deny Bash priority=5")); err != nil {
		t.Fatal(err)
	}
	if msgs, err := e.tg.WaitMessages(e.ctx, jane.ID, 1); err != nil ||
		!strings.Contains(msgs[0].Text, "not authorized") {
		t.Fatalf("reply to an approver's /deny: %v %+v", err, msgs)
	}
	if after, err := e.api.Rules(e.ctx, ""); err != nil || len(after) != len(before) {
		t.Fatalf("an approver's /deny changed the rules: %d → %d (err %v)",
			len(before), len(after), err)
	}

	cmd := `/deny Bash priority=5 note="no shell for agents"`
	if _, err := e.tg.Inject(e.tg.MessageUpdate(alice, chatOf(alice), cmd)); err != nil {
		t.Fatal(err)
	}
	replies, err := e.tg.WaitMessages(e.ctx, alice.ID, 1)
	if err != nil {
		t.Fatalf("no reply to the admin's /deny: %v", err)
	}
	var rule rules.Rule
	after, err := e.api.Rules(e.ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range after {
		if r.ToolPattern == "Bash" && r.Action == rules.Deny {
			rule = r
		}
	}
	if rule.ID == 0 || rule.Priority != 5 || rule.Note != "no shell for agents" ||
		!strings.Contains(replies[0].Text, "#"+testkit.ID(rule.ID)) {
		t.Fatalf("rule %+v; reply %q", rule, replies[0].Text)
	}
	audit, err := e.api.Audit(e.ctx, 10)
	if err != nil || len(audit) == 0 || audit[0].By != "Alice Admin (100000002)" ||
		audit[0].Via != "telegram" || audit[0].RuleID != rule.ID {
		t.Errorf("audit of the new rule: %+v, %v", audit, err)
	}

	sends, posts := e.tg.CallCount("sendMessage"), e.sl.Calls("chat.postMessage")
	d := e.hook(fixture(t, "pretooluse_bash.json"), "--wait", "1m")
	want := decision("deny", `Denied by skald-bot: command "npm test" denied by rule `+
		testkit.ID(rule.ID)+" (deny Bash): no shell for agents")
	if d != want {
		t.Fatalf("hook printed %+v, want %+v", d, want)
	}
	// A deny registers no request, so no prompt can follow.
	if in, err := e.api.Inbox(e.ctx); err != nil || in.Total != 0 {
		t.Errorf("inbox after the deny: %+v, %v", in, err)
	}
	if n, m := e.tg.CallCount("sendMessage"), e.sl.Calls("chat.postMessage"); n != sends ||
		m != posts {
		t.Errorf("prompted anyway: %d Telegram sendMessage, %d Slack chat.postMessage",
			n-sends, m-posts)
	}
	e.svc.stop(t)
}

// The ⏱ button (bypass_short): the call is approved and the next shell call of that
// session is allowed at once, with no prompt; once the window has passed, the same
// kind of call prompts again. The two halves run with windows of their own: a long
// one for the call in it, however slow the machine is to make it, and a short one to
// see it end.
func TestE2EBypassWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		window time.Duration
		inside bool // the next call is made in the window, else once it has ended
	}{
		{"in the window", 10 * time.Minute, true},
		{"after the window", 2 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, q := bypassApproved(t, tc.window)
			sends := e.tg.CallCount("sendMessage")
			if tc.inside {
				// --wait 0s would answer ask for a pending call.
				d := e.hook(bashCall(t, "toolu_e2e_second", "npm run lint"), "--wait", "0s")
				if d.PermissionDecision != "allow" {
					t.Fatalf("the next shell call in the window: %+v", d)
				}
				if n := e.tg.CallCount("sendMessage"); n != sends {
					t.Errorf("%d sendMessage calls for the call in the window, want 0", n-sends)
				}
				e.svc.stop(t)
				return
			}
			res := bypassEnded(t, e)
			if at := time.Now(); at.Before(q.Resolution.At.Add(tc.window)) {
				t.Fatalf("pending at %s, before the window approved at %s ended",
					at.Format(time.StampMilli), q.Resolution.At.Format(time.StampMilli))
			}
			again, againID := e.telegramPrompt(2)
			if againID != res.RequestID || !strings.Contains(again.PlainText, "npm run build") {
				t.Errorf("prompt after the window: request %d, want %d:\n%s",
					againID, res.RequestID, again.PlainText)
			}
			if n := e.tg.CallCount("sendMessage"); n != sends+1 {
				t.Errorf("%d sendMessage calls since the bypass, want only the last prompt",
					n-sends)
			}
			e.svc.stop(t)
		})
	}
}

// bypassApproved starts a service whose bypass_short is window, approves a hook's
// shell call with ⏱ in Telegram and returns the service and the approved request.
func bypassApproved(t *testing.T, window time.Duration) (*e2e, api.Request) {
	t.Helper()
	e := newE2E(t, "bypass_short: "+window.String()+"\n")
	answer := e.hookAsync(fixture(t, "pretooluse_bash.json"), "--wait", "1m")
	prompt, id := e.telegramPrompt(1)
	label := bot.DurationLabel(window)
	if got := prompt.Keyboard.InlineKeyboard[1][0].Text; got != "⏱ "+label {
		t.Errorf("⏱ button %q, want the window of bypass_short", got)
	}
	e.promptsRecorded(id)
	toast := e.tap(prompt, "a:"+testkit.ID(id)+":b15")
	if toast != "Approved · ⏱ "+label+" bypass" {
		t.Errorf("toast %q", toast)
	}
	if d := e.await(answer); d.PermissionDecision != "allow" {
		t.Fatalf("the approved call: %+v", d)
	}
	q, err := e.api.Request(e.ctx, id, 0)
	if err != nil || q.Resolution == nil || q.Resolution.Bypass == nil ||
		q.Resolution.Bypass.Secs != int64(window/time.Second) {
		t.Fatalf("request %d resolution %+v, %v", id, q.Resolution, err)
	}
	return e, q
}

// bypassEnded polls check (no wait), as the hook's caller and agent to which the
// bypass is bound, until a shell call of the session is no longer allowed, and
// returns that answer; e's deadline bounds the loop.
func bypassEnded(t *testing.T, e *e2e) api.CheckResult {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	local := api.NewClient(e.svc.url, "")
	for i := 1; ; i++ {
		res, err := local.Check(e.ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash",
			SessionID: "abc123", ToolCallID: "toolu_e2e_poll_" + strconv.Itoa(i),
			Arguments: map[string]any{"command": "npm run build"}, Source: "claude-code",
			AgentID: "claude-code"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision != gate.VerdictAllow {
			if res.Decision != gate.VerdictPending {
				t.Fatalf("after the window: %+v", res)
			}
			return res
		}
		select {
		case <-e.ctx.Done():
			t.Fatal("the bypass never ended")
		case <-tick.C:
		}
	}
}
