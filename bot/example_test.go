package bot_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/store"
)

func ExampleParseCallback() {
	c, err := bot.ParseCallback("a:42:b15")
	fmt.Println(c.RequestID, c.Action, err)
	_, err = bot.ParseCallback("a:42:yes")
	fmt.Println(err)
	// Output:
	// 42 b15 <nil>
	// bot: callback data "a:42:yes": bad callback data: unknown action "yes", want ok, no, b15 or bs
}

func ExampleNewPrompt() {
	at := time.Date(2026, 11, 30, 14, 3, 0, 0, time.UTC)
	r := store.Request{ID: 42, SessionID: "s1", ToolName: "Bash", Category: "shell",
		Arguments: json.RawMessage(`{"command":"ls"}`), ExpiresAt: at.Add(time.Hour),
		Status: store.Pending}
	p := bot.NewPrompt(r, time.Hour)
	var buttons []string
	for _, row := range p.Buttons {
		for _, b := range row {
			buttons = append(buttons, b.Label+"="+b.Data)
		}
	}
	fmt.Println(strings.Join(buttons, " "))
	r.Status = store.Approved
	r.Resolution = &store.Resolution{By: "Jane Doe (100000001)", Via: "telegram", At: at,
		Bypass: &store.BypassGrant{Scope: "category:shell", Secs: 3600}}
	fmt.Println(bot.NewPrompt(r, time.Hour).Outcome)
	// Output:
	// ✅ Approve=a:42:ok ❌ Reject=a:42:no ⏱ 1 h=a:42:b15 🔄 Session=a:42:bs
	// ✅ Approved by Jane Doe (100000001) · telegram · 14:03 UTC · ⏱ 1 h bypass: every call of category shell (any command or arguments, not only this call) (category:shell)
}
