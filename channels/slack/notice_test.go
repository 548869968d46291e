package slack_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// Notify posts a plain message — mrkdwn's &, <, > escaped, no blocks — cut to
// SlackMaxText; Slack's errors are mapped as Send's, and an empty text is refused
// without a call.
func TestNotify(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true,
		srv: slacktest.Config{ForeignChannels: []string{"C0FOREIGN01"}}})
	ctx := testkit.Context(t, 30*time.Second)
	line := "🗓 nightly-backup run 12: failed — step 2 (execute_cmd): <exit> & 1"
	if err := e.ch.Notify(ctx, slacktest.DefaultChannel, line); err != nil {
		t.Fatal(err)
	}
	if err := e.ch.Notify(ctx, slacktest.DefaultChannel, strings.Repeat("x", 5000)); err != nil {
		t.Fatal(err)
	}
	posted := e.srv.Messages(slacktest.DefaultChannel)
	if len(posted) != 2 {
		t.Fatalf("%d messages, want 2", len(posted))
	}
	want := "🗓 nightly-backup run 12: failed — step 2 (execute_cmd): &lt;exit&gt; &amp; 1"
	if m := posted[0]; m.Text != want || m.HasBlocks() {
		t.Errorf("notice %q (blocks %s), want %q without blocks", m.Text, m.RawBlocks, want)
	}
	if m := posted[1]; len([]rune(m.Text)) > bot.SlackMaxText ||
		!strings.Contains(m.Text, "… (cut, ") {
		t.Errorf("long notice: %d characters", len([]rune(m.Text)))
	}

	if err := e.srv.RateLimitNext("chat.postMessage", 9); err != nil {
		t.Fatal(err)
	}
	err := e.ch.Notify(ctx, slacktest.DefaultChannel, "hello")
	if rl, ok := errors.AsType[*bot.RateLimitError](err); !ok || rl.RetryAfter != 9*time.Second {
		t.Errorf("after a 429: %v, want a *bot.RateLimitError of 9s", err)
	}
	if err := e.ch.Notify(ctx, "C0FOREIGN01", "hello"); !errors.Is(err, bot.ErrPermanent) ||
		!strings.Contains(err.Error(), "not_in_channel") {
		t.Errorf("a channel the bot is not in: %v, want bot.ErrPermanent", err)
	}
	if err := e.srv.FailNext("chat.postMessage", "internal_error"); err != nil {
		t.Fatal(err)
	}
	if err := e.ch.Notify(ctx, slacktest.DefaultChannel, "hello"); err == nil ||
		errors.Is(err, bot.ErrPermanent) {
		t.Errorf("internal_error: %v, want an error to retry", err)
	}
	calls := e.srv.Calls("chat.postMessage")
	err = e.ch.Notify(ctx, slacktest.DefaultChannel, "  ")
	if !errors.Is(err, bot.ErrPermanent) || !strings.Contains(err.Error(), "empty text") {
		t.Errorf("empty text: %v", err)
	}
	if n := e.srv.Calls("chat.postMessage"); n != calls {
		t.Errorf("an empty notice called chat.postMessage")
	}
	if n := len(e.srv.Messages(slacktest.DefaultChannel)); n != 2 {
		t.Errorf("%d messages after the failed notices, want 2", n)
	}
}
