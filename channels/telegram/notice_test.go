package telegram

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// Notify posts plain text — markup characters shown as written, no parse mode, no
// keyboard — cut to Telegram's limit; the server, which counts characters as
// Telegram does, accepts it.
func TestNotify(t *testing.T) {
	e := newEnv(t, envOptions{})
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
		t.Errorf("notice %q (parse mode %q, keyboard %v), want %q as plain text", m.PlainText, m.ParseMode, m.Keyboard, line)
	}
	if m := msgs[1]; utf8.RuneCountInString(m.PlainText) > telegramtest.MaxTextLength || !strings.Contains(m.PlainText, "… (cut, ") {
		t.Errorf("long notice: %d characters, ends %q", utf8.RuneCountInString(m.PlainText), m.PlainText[len(m.PlainText)-40:])
	}
}

// Notify maps the Bot API's errors as Send does, and refuses a bad target or an
// empty text without calling anything.
func TestNotifyErrors(t *testing.T) {
	e := newEnv(t, envOptions{})
	chat := strconv.FormatInt(janeChat.ID, 10)
	if err := e.srv.FailNext("sendMessage", telegramtest.TooManyRequests(7)); err != nil {
		t.Fatal(err)
	}
	err := e.ch.Notify(e.ctx, chat, "hello")
	if rl, ok := errors.AsType[*bot.RateLimitError](err); !ok || rl.RetryAfter != 7*time.Second {
		t.Errorf("after a 429: %v, want a *bot.RateLimitError of 7s", err)
	}
	if err := e.srv.FailNext("sendMessage", telegramtest.ErrBotBlocked); err != nil {
		t.Fatal(err)
	}
	if err := e.ch.Notify(e.ctx, chat, "hello"); !errors.Is(err, bot.ErrPermanent) || !strings.Contains(err.Error(), "bot was blocked by the user") {
		t.Errorf("blocked: %v, want bot.ErrPermanent", err)
	}
	calls := e.srv.CallCount("")
	if err := e.ch.Notify(e.ctx, "@channel", "hello"); !errors.Is(err, ErrBadTarget) || !errors.Is(err, bot.ErrPermanent) {
		t.Errorf("bad target: %v", err)
	}
	if err := e.ch.Notify(e.ctx, chat, " \n"); !errors.Is(err, bot.ErrPermanent) || !strings.Contains(err.Error(), "empty text") {
		t.Errorf("empty text: %v", err)
	}
	if n := e.srv.CallCount(""); n != calls {
		t.Errorf("%d Bot API calls for refused notices", n-calls)
	}
	if n := len(e.srv.Messages(janeChat.ID)); n != 0 {
		t.Errorf("%d messages sent by failed notices", n)
	}
}
