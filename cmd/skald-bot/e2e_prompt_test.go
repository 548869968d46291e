package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
)

// A call made to mislead the approver — an agent token's call with a Cyrillic "сron"
// as its source, a right-to-left override and a bell in its command, and `rm -rf /`
// after 4 KiB of padding — reaches Telegram and Slack showing which token asked, what
// ⏱ and 🔄 would cover, the look-alike flagged and escaped, the override escaped, and
// the hidden command after a cut that says how much it left out; markup stays inert.
func TestE2EPromptShowsWhatItDecides(t *testing.T) {
	t.Parallel()
	const admin, agentToken = "admin-token-for-the-e2e-prompt", "agent-token-for-the-e2e-prompt"
	apiYAML := `{listen: "127.0.0.1:0", token: "` + admin + `",
  agent_tokens: [{token: "` + agentToken + `", agent_id: reviewer}]}`
	e := newE2EAPI(t, apiYAML, admin, "")
	command := "echo '<b>x</b> & *y* <!here>'" + strings.Repeat(" ", 4096) +
		"; rm -rf / # \u202egnp.exe\a"
	agent := api.NewClient(e.svc.url, agentToken)
	call := gate.Call{ToolName: "Bash", Arguments: map[string]any{"command": command},
		SessionID: "s-mislead", ToolCallID: "t1", Source: "сron"}
	res, err := agent.Check(e.ctx, api.CheckRequest{Call: call})
	if err != nil || res.Decision != "pending" {
		t.Fatalf("check: %+v, %v", res, err)
	}
	name := api.TokenName(agentToken)
	hidden := `; rm -rf / # \u202Egnp.exe\u0007"`
	tg, id := e.telegramPrompt(1)
	for _, w := range []string{
		"Caller: agent token " + name + " (profile default, agent reviewer)",
		`Source: \u0441ron ⚠ non-ASCII`,
		`"command": "echo '<b>x</b> & *y* <!here>'`,
		" characters cut]…", hidden,
		"⏱ 15 min / 🔄 Session cover: every call of category shell " +
			"(any command or arguments, not only this call), for this caller in this session",
	} {
		if !strings.Contains(tg.PlainText, w) {
			t.Errorf("Telegram prompt of request %d lacks %q:\n%.1500s", id, w, tg.PlainText)
		}
	}
	if strings.ContainsAny(tg.PlainText, "\u202e\a") || strings.Contains(tg.PlainText, "сron") {
		t.Errorf("Telegram prompt shows the override, the bell or the look-alike as they are")
	}
	sl := slackText(t, e.slackPrompt(1).RawBlocks)
	for _, w := range []string{
		"*Caller:*\nagent token " + name + " (profile default, agent reviewer)\n",
		"*Source:*\n\\u0441ron ⚠ non-ASCII\n",
		`"command": "echo '&lt;b&gt;x&lt;/b&gt; &amp; *y* &lt;!here&gt;'`,
		" characters cut]…", hidden,
		"*⏱ 15 min / 🔄 Session cover:* every call of category shell " +
			"(any command or arguments, not only this call), for this caller in this session",
	} {
		if !strings.Contains(sl, w) {
			t.Errorf("Slack prompt lacks %q:\n%.1500s", w, sl)
		}
	}
	if strings.ContainsAny(sl, "\u202e\a") || strings.Contains(sl, "сron") {
		t.Errorf("Slack prompt shows the override, the bell or the look-alike as they are")
	}
	e.svc.stop(t)
}

// slackText is every text of a Slack message's blocks, one a line.
func slackText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var blocks []struct {
		Text   *struct{ Text string }  `json:"text"`
		Fields []struct{ Text string } `json:"fields"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("blocks %s: %v", raw, err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Text != nil {
			b.WriteString(bl.Text.Text + "\n")
		}
		for _, f := range bl.Fields {
			b.WriteString(f.Text + "\n")
		}
	}
	return b.String()
}
