package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// The prompt is a Block Kit message: a header, the fields, the arguments in a code
// block, and one actions block with the four buttons carrying the request id; its ts
// is recorded on the request.
func TestPromptBlocks(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{bypassShort: time.Hour})
			req, ts := e.require("s1", "Bash",
				map[string]any{"command": "rm -rf build && echo <done>"})
			posted := e.srv.Messages(slacktest.DefaultChannel)
			if len(posted) != 1 || posted[0].TS != ts {
				t.Fatalf("posted %+v, want one message with ts %s", posted, ts)
			}
			wantMsgs := []store.Message{
				{Channel: "slack", ChatID: slacktest.DefaultChannel, Ref: ts},
			}
			if len(req.Messages) != 1 || req.Messages[0].Channel != wantMsgs[0].Channel ||
				req.Messages[0].ChatID != wantMsgs[0].ChatID || req.Messages[0].Ref != ts {
				t.Fatalf("messages recorded on the request: %+v, want %+v", req.Messages, wantMsgs)
			}
			// As armed: the first update, once the message was recorded.
			msg := e.srv.Updates(slacktest.DefaultChannel, ts)[0]
			if want := "🔐 Approval needed: Bash (request #1)"; msg.Text != want {
				t.Errorf("text %q, want %q", msg.Text, want)
			}
			bs := rawBlocks(t, msg)
			wantIDs := "header,fields,arguments,bypass,actions"
			if len(req.Commands) > 0 {
				// The gate split the script: its commands come after the fields.
				wantIDs = "header,fields,commands,arguments,bypass,actions"
			}
			if got := blockIDs(bs); got != wantIDs {
				t.Fatalf("blocks %s, want %s:\n%s", got, wantIDs, msg.RawBlocks)
			}
			if len(req.Commands) > 0 {
				bs = append(bs[:2:2], bs[3:]...)
			}
			header := bs[0]
			if header["type"] != "header" || text(header) != "🔐 Approval needed: Bash" ||
				textType(header) != "plain_text" {
				t.Errorf("header block %v", header)
			}
			wantFields := []string{
				"*Tool:*\n`Bash`",
				"*Caller:*\nadmin",
				"*Session:*\n`s1`",
				"*Category:*\nshell",
				"*Request:*\n#1",
				"*Expires:*\n" + req.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC"),
			}
			if len(req.Commands) > 0 {
				// The one command that decided is named second.
				wantFields = slices.Insert(wantFields, 1, "*Script:*\n"+
					"1 command needs you (of 1): rm -rf build &amp;&amp; echo &lt;done&gt;")
				// It does not parse (a > without a word): the gate says why it asks.
				wantFields = slices.Insert(wantFields, 3, "*Why:*\n`command \"rm -rf build "+
					"&amp;&amp; echo &lt;done&gt;\": shell: script does not parse: 1:27: "+
					"\\u0060&gt;\\u0060 must be followed by a word`")
			}
			fields, _ := bs[1]["fields"].([]any)
			var gotFields []string
			for _, f := range fields {
				fm := f.(map[string]any)
				if fm["type"] != "mrkdwn" {
					t.Errorf("field %v is not mrkdwn", fm)
				}
				gotFields = append(gotFields, fm["text"].(string))
			}
			if strings.Join(gotFields, "|") != strings.Join(wantFields, "|") {
				t.Errorf("fields\n%q\nwant\n%q", gotFields, wantFields)
			}
			if got, want := text(bs[2]), "```\n{\n  \"command\": "+
				"\"rm -rf build &amp;&amp; echo &lt;done&gt;\"\n}\n```"; got != want ||
				textType(bs[2]) != "mrkdwn" {
				t.Errorf("arguments %q (%s), want %q", got, textType(bs[2]), want)
			}
			type button struct{ Text, Style, Value, ActionID string }
			var buttons []button
			cover := "*⏱ 1 h / 🔄 Session cover:* every call of category shell " +
				"(any command or arguments, not only this call), for this caller in this session"
			if got := text(bs[3]); got != cover {
				t.Errorf("bypass %q, want %q", got, cover)
			}
			for _, el := range bs[4]["elements"].([]any) {
				b := el.(map[string]any)
				style, _ := b["style"].(string)
				buttons = append(buttons,
					button{text(b), style, b["value"].(string), b["action_id"].(string)})
			}
			want := []button{
				{"✅ Approve", "primary", "a:1:ok", "approve"},
				{"❌ Reject", "danger", "a:1:no", "reject"},
				{"⏱ 1 h", "", "a:1:b15", "bypass_short"},
				{"🔄 Session", "", "a:1:bs", "bypass_session"},
			}
			if testkit.JSON(buttons) != testkit.JSON(want) {
				t.Errorf("buttons\n%+v\nwant\n%+v", buttons, want)
			}
		})
	}
}

// Arguments longer than a section allows are cut in the middle to 3000 characters,
// and Slack (the test server checks Block Kit's limits) accepts the message.
func TestPromptLongArguments(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	_, ts := e.require("s1", "Write",
		map[string]any{"file_path": "/tmp/x", "content": strings.Repeat("<&>", 4000)})
	msg, ok := e.srv.Current(slacktest.DefaultChannel, ts)
	if !ok {
		t.Fatal("no such message")
	}
	args := text(rawBlocks(t, msg)[2])
	if n := utf8.RuneCountInString(args); n > 3000 {
		t.Errorf("arguments are %d characters, more than 3000", n)
	}
	if !strings.HasPrefix(args, "```\n") || !strings.Contains(args, " characters cut]…") ||
		!strings.HasSuffix(args, "\"file_path\": \"/tmp/x\"\n}\n```") {
		t.Errorf("arguments are not a head and a tail around a cut marker: …%s",
			args[len(args)-80:])
	}
}

// Edit sends the finished prompt's blocks — outcome, no actions block — even when
// called directly; Send and Edit map Slack's errors for the Fanout.
func TestSendEditErrors(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true,
		srv: slacktest.Config{ForeignChannels: []string{"C0FOREIGN01"}}})
	ctx := testkit.Context(t, 30*time.Second)
	r := store.Request{ID: 7, SessionID: "s1", ToolName: "Bash", Status: store.Pending,
		Arguments: json.RawMessage(`{"command":"ls"}`),
		ExpiresAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	ts, err := e.ch.Send(ctx, slacktest.DefaultChannel, bot.NewPrompt(r, 0))
	if err != nil || ts == "" {
		t.Fatalf("Send = %q, %v", ts, err)
	}
	r.Status = store.Approved
	r.Resolution = &store.Resolution{By: "Jane Doe (100000001)", Via: "telegram",
		At: time.Date(2026, 11, 30, 14, 3, 0, 0, time.UTC)}
	if err := e.ch.Edit(ctx, slacktest.DefaultChannel, ts, bot.NewPrompt(r, 0)); err != nil {
		t.Fatal(err)
	}
	ups := e.srv.Updates(slacktest.DefaultChannel, ts)
	if len(ups) != 1 || strings.Contains(blockIDs(rawBlocks(t, ups[0])), slack.BlockActions) {
		t.Fatalf("%d updates; the first keeps the buttons", len(ups))
	}
	up := ups[0]
	bs := rawBlocks(t, up)
	if got, want := blockIDs(bs), "header,fields,arguments,outcome"; got != want {
		t.Errorf("updated blocks %s, want %s", got, want)
	}
	if got, want := text(bs[3]),
		"*✅ Approved by Jane Doe (100000001) · telegram · 14:03 UTC*"; got != want {
		t.Errorf("outcome %q, want %q", got, want)
	}
	if !strings.HasSuffix(up.Text, "— ✅ Approved by Jane Doe (100000001) · telegram · 14:03 UTC") {
		t.Errorf("fallback text %q lacks the outcome", up.Text)
	}
	// An edit that changes nothing is a success.
	if err := e.ch.Edit(ctx, slacktest.DefaultChannel, ts, bot.NewPrompt(r, 0)); err != nil {
		t.Errorf("repeated Edit: %v", err)
	}

	for _, c := range []struct {
		name string
		call func() error
	}{
		{"send to a channel the bot is not in", func() error {
			_, err := e.ch.Send(ctx, "C0FOREIGN01", bot.NewPrompt(r, 0))
			return err
		}},
		{"send to an unknown channel", func() error {
			_, err := e.ch.Send(ctx, "C0NOSUCH001", bot.NewPrompt(r, 0))
			return err
		}},
		{"edit a message that does not exist", func() error {
			return e.ch.Edit(ctx, slacktest.DefaultChannel, "1.000001", bot.NewPrompt(r, 0))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if !errors.Is(err, bot.ErrPermanent) {
				t.Errorf("%s: %v, want bot.ErrPermanent", c.name, err)
			}
		})
	}
	if err := e.srv.FailNext("chat.update", "internal_error"); err != nil {
		t.Fatal(err)
	}
	err = e.ch.Edit(ctx, slacktest.DefaultChannel, ts, bot.NewPrompt(r, 0))
	if err == nil || errors.Is(err, bot.ErrPermanent) {
		t.Errorf("internal_error: %v, want an error to retry", err)
	}
	if got := len(e.srv.Messages(slacktest.DefaultChannel)); got != 1 {
		t.Errorf("%d messages posted, want 1", got)
	}
}

// A chat.update happens wherever the outcome came from — the Telegram channel, the
// API, a cancellation at the terminal — and always carries the new blocks.
func TestResolvedElsewhere(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			ctx := testkit.Context(t, 30*time.Second)
			for _, c := range []struct {
				name    string
				resolve func(id uint64) error
				outcome string
			}{
				{"telegram", func(id uint64) error {
					_, err := e.g.Resolve(ctx, id, gate.Answer{Approve: false,
						By: "Jane Doe (100000001)", Via: "telegram", Note: "not now"})
					return err
				}, "*❌ Rejected by Jane Doe (100000001) · telegram · "},
				{"api", func(id uint64) error {
					_, err := e.g.Resolve(ctx, id,
						gate.Answer{Approve: true, By: "api", Via: "api"})
					return err
				}, "*✅ Approved by api · api · "},
				{"terminal", func(id uint64) error {
					_, err := e.g.CancelRequest(id, bot.TerminalReason,
						store.Actor{By: "hook", Via: "api"}, "")
					return err
				}, "*🚫 Cancelled (handled at the terminal)*"},
			} {
				t.Run(c.name, func(t *testing.T) {
					req, ts := e.require("s-"+c.name, "Bash", map[string]any{"command": "ls"})
					if err := c.resolve(req.ID); err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					e.waitFinal(req.ID)
					e.checkUpdates(ts)
					cur, ok := e.srv.Current(slacktest.DefaultChannel, ts)
					if !ok {
						t.Fatal("no such message")
					}
					bs := rawBlocks(t, cur)
					if got := text(bs[len(bs)-1]); !strings.HasPrefix(got, c.outcome) {
						t.Errorf("%s: outcome %q, want it to start with %q",
							c.name, got, c.outcome)
					}
				})
			}
			if len(e.srv.Ephemerals()) != 0 {
				t.Errorf("ephemerals sent: %+v", e.srv.Ephemerals())
			}
		})
	}
}

// The Fanout posts the prompt after a 429: the Channel returns a *bot.RateLimitError
// with Retry-After, which the Fanout waits out (0 s here) instead of dropping it.
func TestRateLimitedSend(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true})
	ctx := testkit.Context(t, 30*time.Second)
	r := store.Request{ID: 3, SessionID: "s1", ToolName: "Bash", Status: store.Pending}
	if err := e.srv.RateLimitNext("chat.postMessage", 30); err != nil {
		t.Fatal(err)
	}
	_, err := e.ch.Send(ctx, slacktest.DefaultChannel, bot.NewPrompt(r, 0))
	rl, ok := errors.AsType[*bot.RateLimitError](err)
	if !ok || rl.RetryAfter != 30*time.Second {
		t.Fatalf("Send after a 429: %v, want a *bot.RateLimitError of 30s", err)
	}
	if n := len(e.srv.Messages(slacktest.DefaultChannel)); n != 0 {
		t.Fatalf("%d messages posted by a rate-limited call", n)
	}
	if err := e.srv.RateLimitNext("chat.update", 12); err != nil {
		t.Fatal(err)
	}
	err = e.ch.Edit(ctx, slacktest.DefaultChannel, "1.000001", bot.NewPrompt(r, 0))
	if rl, ok := errors.AsType[*bot.RateLimitError](err); !ok || rl.RetryAfter != 12*time.Second {
		t.Fatalf("Edit after a 429: %v, want a *bot.RateLimitError of 12s", err)
	}

	e.start()
	if err := e.srv.RateLimitNext("chat.postMessage", 0); err != nil {
		t.Fatal(err)
	}
	before := e.srv.Calls("chat.postMessage")
	_, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
	if ts == "" || e.srv.Calls("chat.postMessage")-before != 2 {
		t.Errorf("prompt %q after %d calls, want it posted on the second",
			ts, e.srv.Calls("chat.postMessage")-before)
	}
}

// slack.api_url works without its trailing slash.
func TestAPIURLWithoutSlash(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true})
	b, err := bot.New(bot.Options{Gate: e.g})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := slack.New(slack.Options{BotToken: slacktest.DefaultBotToken,
		AppToken: slacktest.DefaultAppToken, APIURL: strings.TrimSuffix(e.srv.URL(), "/"),
		Bot: b, Deliveries: e.db, Logger: testkit.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	p := bot.NewPrompt(store.Request{ID: 1, ToolName: "Bash", Status: store.Pending}, 0)
	if _, err := ch.Send(context.Background(), slacktest.DefaultChannel, p); err != nil {
		t.Fatal(err)
	}
}

// text returns the text of a block's or element's text object.
func text(m map[string]any) string {
	t, _ := m["text"].(map[string]any)
	s, _ := t["text"].(string)
	return s
}

func textType(m map[string]any) string {
	t, _ := m["text"].(map[string]any)
	s, _ := t["type"].(string)
	return s
}
