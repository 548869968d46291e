package slack_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/store"
)

// Slack's documented signing example verifies at its own time, and is refused as a
// replay six minutes later.
func ExampleVerify() {
	body := []byte("token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow" +
		"&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner" +
		"&command=%2Fwebhook-collect&text=" +
		"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554" +
		"%2F96rGlfmibIGlgcZRskXaIFfN" +
		"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c")
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", "1531420618")
	h.Set("X-Slack-Signature",
		"v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503")
	sent := time.Unix(1531420618, 0)
	const secret = "8f742231b10e8888abcd99yyyzzz85a5"
	fmt.Println(slack.Verify(secret, h, body, sent.Add(10*time.Second)))
	fmt.Println(slack.Verify(secret, h, body, sent.Add(6*time.Minute)))
	// Output:
	// <nil>
	// slack: verify request: request timestamp outside the 5-minute window: timestamp 1531420618 is 360 s from now
}

// The blocks of a pending prompt: header, fields, arguments, what ⏱ and 🔄 cover,
// and the four buttons.
func ExampleBlocks() {
	r := store.Request{ID: 42, SessionID: "s1", ToolName: "Bash", Category: "shell",
		Status: store.Pending, Arguments: json.RawMessage(`{"command":"make deploy"}`)}
	for _, b := range slack.Blocks(bot.NewPrompt(r, 15*time.Minute).Slack()) {
		fmt.Print(b.BlockType(), " ", b.ID())
		if a, ok := b.(*slackgo.ActionBlock); ok {
			for _, e := range a.Elements.ElementSet {
				btn := e.(*slackgo.ButtonBlockElement)
				fmt.Printf(" [%s %s]", btn.Text.Text, btn.Value)
			}
		}
		fmt.Println()
	}
	// Output:
	// header header
	// section fields
	// section arguments
	// section bypass
	// actions actions [✅ Approve a:42:ok] [❌ Reject a:42:no] [⏱ 15 min a:42:b15] [🔄 Session a:42:bs]
}
