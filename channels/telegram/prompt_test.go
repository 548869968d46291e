package telegram

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// Arguments holding HTML and 10 KB of text are escaped and cut in the middle, and the
// test server —
// which parses HTML and counts characters as Telegram does — accepts the prompt and
// its outcome.
func TestPromptEscapedAndCut(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	big := strings.Repeat("0123456789", 1024)
	// Keys are shown sorted: the command first, then the 10 KB that must be cut.
	r := e.require("sess-<1>", "Bash",
		map[string]any{"command": "echo '<b>&</b>' && cat x", "stdin": big})
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, r.ID)
		if !strings.Contains(m.PlainText, `"command": "echo '<b>&</b>' && cat x"`) ||
			!strings.Contains(m.PlainText, "Session: sess-<1>") {
			t.Errorf("chat %d: the arguments are not shown as written:\n%.600s",
				chat, m.PlainText)
		}
		if !strings.Contains(m.Text, "&lt;b&gt;&amp;&lt;/b&gt;") {
			t.Errorf("chat %d: the HTML is not escaped: %.600s", chat, m.Text)
		}
		if n := utf8.RuneCountInString(m.PlainText); n > telegramtest.MaxTextLength ||
			n < telegramtest.MaxTextLength-200 {
			t.Errorf("chat %d: %d characters, want close to %d",
				chat, n, telegramtest.MaxTextLength)
		}
		if !strings.Contains(m.PlainText, " characters cut]…") {
			t.Errorf("chat %d: no cut marker", chat)
		}
	}
	if a := e.answer(e.tap(alice, janeChat.ID, r.ID, bot.ActionReject)); a.Text != "Rejected" {
		t.Errorf("toast %q", a.Text)
	}
	e.waitUpdated(r.ID)
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		// Posted, armed, then the outcome.
		if m := e.prompt(chat, r.ID); len(m.History) != 3 ||
			!strings.Contains(m.PlainText, "❌ Rejected by Alice Admin (100000002)") {
			t.Errorf("chat %d: the outcome was not accepted (%d versions):\n…%s",
				chat, len(m.History), m.PlainText[len(m.PlainText)-200:])
		}
	}
}

// Notify posts plain text — markup characters shown as written, no parse mode, no
// keyboard — cut to Telegram's limit; the server, which counts characters as
// Telegram does, accepts it.
func TestNotify(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	chat := strconv.FormatInt(groupChat.ID, 10)
	line := "🗓 nightly-backup run 12: failed — step 2 (execute_cmd): <b>exit</b> & 1"
	if err := e.ch.Notify(e.ctx, chat, line); err != nil {
		t.Fatal(err)
	}
	if err := e.ch.Notify(e.ctx, chat, strings.Repeat("x", 5000)); err != nil {
		t.Fatal(err)
	}
	msgs := e.srv.Messages(groupChat.ID)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(msgs))
	}
	if m := msgs[0]; m.PlainText != line || m.ParseMode != "" || m.Keyboard != nil {
		t.Errorf("notice %q (parse mode %q, keyboard %v), want %q as plain text",
			m.PlainText, m.ParseMode, m.Keyboard, line)
	}
	if m := msgs[1]; utf8.RuneCountInString(m.PlainText) > telegramtest.MaxTextLength ||
		!strings.Contains(m.PlainText, "… (cut, ") {
		t.Errorf("long notice: %d characters, ends %q",
			utf8.RuneCountInString(m.PlainText), m.PlainText[len(m.PlainText)-40:])
	}
}

func testPrompt(id uint64, status store.Status) bot.Prompt {
	r := store.Request{ID: id, SessionID: "s", ToolName: "Bash", Status: status,
		Arguments: json.RawMessage(`{"command":"ls"}`),
		ExpiresAt: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)}
	if status != store.Pending {
		r.Resolution = &store.Resolution{By: "api", Via: "api",
			At: time.Date(2026, 1, 1, 14, 3, 0, 0, time.UTC)}
	}
	return bot.NewPrompt(r, 0)
}

// Send, Edit and Notify map the Bot API's errors onto what the Fanout acts on: 429 →
// a *bot.RateLimitError with retry_after; what retrying cannot fix → bot.ErrPermanent;
// a passing failure → neither. A failed call sends or changes nothing.
func TestSendEditAndNotifyErrors(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	ctx := e.ctx
	chat := strconv.FormatInt(groupChat.ID, 10)
	var migrated telegramtest.APIError
	var raw struct {
		Code   int    `json:"error_code"`
		Desc   string `json:"description"`
		Params struct {
			To int64 `json:"migrate_to_chat_id"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(testkit.ReadFile(t, "error_group_migrated.json"), &raw); err != nil {
		t.Fatal(err)
	}
	migrated = telegramtest.APIError{Code: raw.Code, Description: raw.Desc,
		MigrateToChatID: raw.Params.To}

	calls := []struct {
		name, method string
		call         func(ref string) error
	}{
		{"Send", "sendMessage", func(string) error {
			_, err := e.ch.Send(ctx, chat, testPrompt(1, store.Pending))
			return err
		}},
		{"Edit", "editMessageText", func(ref string) error {
			return e.ch.Edit(ctx, chat, ref, testPrompt(1, store.Approved))
		}},
		{"Notify", "sendMessage", func(string) error { return e.ch.Notify(ctx, chat, "hello") }},
	}
	for _, tc := range []struct {
		name      string
		fail      telegramtest.APIError
		permanent bool
		retry     time.Duration
		text      string
	}{
		{"429", telegramtest.TooManyRequests(35), false, 35 * time.Second, "retry after 35"},
		{"blocked", telegramtest.ErrBotBlocked, true, 0, "bot was blocked by the user"},
		{"chat not found", telegramtest.ErrChatNotFound, true, 0, "chat not found"},
		{"too long", telegramtest.ErrMessageTooLong, true, 0, "message is too long"},
		{"migrated", migrated, true, 0,
			"now supergroup -1001000000002; put that id in telegram.chats"},
		{"502", telegramtest.ServerError(502), false, 0, "502 Bad Gateway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range calls {
				ref, err := e.ch.Send(ctx, chat, testPrompt(1, store.Pending))
				if err != nil {
					t.Fatal(err)
				}
				before := e.srv.Messages(groupChat.ID)
				if err := e.srv.FailNext(c.method, tc.fail); err != nil {
					t.Fatal(err)
				}
				err = c.call(ref)
				if err == nil || !strings.Contains(err.Error(), tc.text) ||
					errors.Is(err, bot.ErrPermanent) != tc.permanent {
					t.Errorf("%s: %v; want permanent=%v and %q",
						c.name, err, tc.permanent, tc.text)
				}
				var rl *bot.RateLimitError
				if errors.As(err, &rl) != (tc.retry > 0) ||
					(rl != nil && rl.RetryAfter != tc.retry) {
					t.Errorf("%s: rate limit %+v, want retry after %v", c.name, rl, tc.retry)
				}
				if strings.Contains(err.Error(), e.srv.Token()) {
					t.Errorf("the token is in the error: %v", err)
				}
				if after := e.srv.Messages(groupChat.ID); testkit.JSON(after) !=
					testkit.JSON(before) {
					t.Errorf("%s: the chat changed", c.name)
				}
			}
		})
	}
}

// An edit that changes nothing ("message is not modified") and one of a message
// deleted meanwhile succeed, for a prompt and for a follow-up; a target that is no
// chat id, or a ref that is no message id, is a permanent ErrBadTarget and calls
// nothing, as is a notice of an empty text.
func TestEditEdgeCases(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	ctx := e.ctx
	chat := strconv.FormatInt(janeChat.ID, 10)
	ref, err := e.ch.Send(ctx, chat, testPrompt(1, store.Pending))
	if err != nil {
		t.Fatal(err)
	}
	done := testPrompt(1, store.Approved)
	for i := range 2 {
		if err := e.ch.Edit(ctx, chat, ref, done); err != nil {
			t.Errorf("edit %d: %v", i+1, err)
		}
	}
	if m, ok := e.srv.Message(janeChat.ID, mustAtoi(t, ref)); !ok || len(m.History) != 2 ||
		m.Keyboard != nil {
		t.Errorf("%d versions, keyboard %v (found %v)", len(m.History), m.Keyboard, ok)
	}
	if err := e.ch.Edit(ctx, chat, "999", done); err != nil {
		t.Errorf("edit of a deleted message: %v", err)
	}
	if err := e.ch.EditReply(ctx, chat, "999", bot.FollowUp{Text: "closed"}); err != nil {
		t.Errorf("edit of a deleted follow-up: %v", err)
	}
	if len(e.logs.Find("prompt message to edit is gone", "message_id=999")) != 1 {
		t.Errorf("not logged:\n%s", e.logs.All())
	}
	calls := e.srv.CallCount("")
	for _, bad := range []struct{ target, ref string }{
		{"@channel", ref}, {"0", ref}, {chat, "x"}, {chat, "0"}, {chat, "-1"},
	} {
		t.Run(bad.target+" "+bad.ref, func(t *testing.T) {
			err := e.ch.Edit(ctx, bad.target, bad.ref, done)
			if !errors.Is(err, ErrBadTarget) || !errors.Is(err, bot.ErrPermanent) {
				t.Errorf("Edit(%q, %q): %v", bad.target, bad.ref, err)
			}
			err = e.ch.EditReply(ctx, bad.target, bad.ref, bot.FollowUp{Text: "closed"})
			if !errors.Is(err, ErrBadTarget) || !errors.Is(err, bot.ErrPermanent) ||
				!strings.HasPrefix(err.Error(), "telegram: edit reply ") {
				t.Errorf("EditReply(%q, %q): %v", bad.target, bad.ref, err)
			}
		})
	}
	if _, err := e.ch.Send(ctx, "twelve", done); !errors.Is(err, ErrBadTarget) ||
		!errors.Is(err, bot.ErrPermanent) {
		t.Errorf("Send to a bad target: %v", err)
	}
	if err := e.ch.Notify(ctx, "@channel", "hello"); !errors.Is(err, ErrBadTarget) ||
		!errors.Is(err, bot.ErrPermanent) {
		t.Errorf("Notify to a bad target: %v", err)
	}
	if err := e.ch.Notify(ctx, chat, " \n"); !errors.Is(err, bot.ErrPermanent) ||
		!strings.Contains(err.Error(), "empty text") {
		t.Errorf("Notify of an empty text: %v", err)
	}
	if n := e.srv.CallCount(""); n != calls {
		t.Errorf("%d Bot API calls for bad targets and texts", n-calls)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A prompt rate-limited with a 429 is not dropped: the Fanout waits its
// retry_after (here the shortest Telegram gives, one second) and sends it.
func TestPromptRateLimitedIsSentLater(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	if err := e.srv.FailNext("sendMessage", telegramtest.TooManyRequests(1)); err != nil {
		t.Fatal(err)
	}
	out, err := e.g.Check(e.ctx, gate.Call{ToolName: "Bash",
		Arguments: map[string]any{"command": "make"}, SessionID: "sess-1"})
	if err != nil {
		t.Fatal(err)
	}
	id := out.Request.ID
	if err := e.srv.Wait(e.ctx, func() bool {
		return len(e.srv.Messages(janeChat.ID)) == 1 && len(e.srv.Messages(groupChat.ID)) == 1
	}); err != nil {
		t.Fatal(err)
	}
	if n := e.srv.CallCount("sendMessage"); n != 3 {
		t.Errorf("%d sendMessage calls, want 3 (one refused)", n)
	}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		e.prompt(chat, id)
	}
}
