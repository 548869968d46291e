package slack

import (
	"context"
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// Notify posts text to channel target with chat.postMessage as a plain message: the
// text escaped for mrkdwn (bot.EscapeMrkdwn: &, <, > shown as written) and cut to
// bot.SlackMaxText characters, no blocks, no buttons, no unfurls (bot.Channel: the
// notice of a finished scheduled run). It blocks for one Web API
// call. Errors as Send's: a *bot.RateLimitError for a 429, bot.ErrPermanent wrapped
// for what retrying cannot fix — and for an empty text, which is not sent.
func (c *Channel) Notify(ctx context.Context, target, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("slack: post a notice to %s: empty text: %w", target, bot.ErrPermanent)
	}
	_, _, err := c.api.PostMessageContext(ctx, target,
		slackgo.MsgOptionText(bot.EscapeMrkdwn(bot.Cut(text, bot.SlackMaxText)), false),
		slackgo.MsgOptionDisableLinkUnfurl(),
		slackgo.MsgOptionDisableMediaUnfurl())
	if err != nil {
		return fmt.Errorf("slack: post a notice to %s: %w", target, classify(err))
	}
	return nil
}
