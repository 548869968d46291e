package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Channel is one chat service the prompts go to: a Telegram bot or a Slack app. The
// adapters in channels/telegram and channels/slack implement it and check so at
// compile time with
//
//	var _ bot.Channel = (*Channel)(nil)
//
// A Fanout calls it from several goroutines at once, so implementations must be safe
// for concurrent use. Every method returns when ctx is done.
type Channel interface {
	// Name is the channel's name, "telegram" or "slack": the key of Access, the
	// Channel of each stored message, and the Via of a resolution made there.
	Name() string
	// Targets returns the configured chats (Telegram chat ids in decimal) or Slack
	// channel ids that every prompt goes to (telegram.chats, slack.channels).
	Targets() []string
	// Send posts prompt p (p.Telegram() or p.Slack(), with its buttons if any) to
	// target and returns the new message's reference: a Telegram message_id in decimal, a Slack
	// ts. An error wrapping ErrPermanent stops the retries; a *RateLimitError sets
	// the wait before the next one.
	Send(ctx context.Context, target string, p Prompt) (ref string, err error)
	// Edit replaces message ref of target with p, its buttons included: the Fanout
	// posts a prompt without buttons and adds them with Edit once the message is
	// recorded. For a finished request p has its outcome and no buttons, so the old
	// buttons must go (an empty inline keyboard; Slack blocks without the actions
	// block). An edit that changes nothing ("message is not
	// modified") is a success. Errors as for Send.
	Edit(ctx context.Context, target, ref string, p Prompt) error
	// Notify posts text to target as a plain message without buttons — a notice,
	// such as a finished scheduled run's (Notices): not markup, so
	// the channel escapes or sends it as plain text, cut to its limit. Errors as for
	// Send; an empty text wraps ErrPermanent.
	Notify(ctx context.Context, target, text string) error
}

// RateLimitError is what a Channel returns when the chat service asked it to slow
// down (Telegram 429 with parameters.retry_after, Slack 429 with Retry-After): the
// Fanout waits RetryAfter before trying again, MaxRateLimitWaits times at most, and
// the attempt does not count against Retry.Attempts.
type RateLimitError struct {
	RetryAfter time.Duration
	Err        error
}

// Error says how long to wait and why.
func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited, retry after %s: %v", e.RetryAfter, e.Err)
}

// Unwrap returns the channel's own error.
func (e *RateLimitError) Unwrap() error { return e.Err }

// ChannelDefaults returns a Channel's clock, sleep and logger from its options, with
// time.Now for a nil now, Sleep for a nil sleep and slog.Default for a nil log; the
// logger carries the attribute component=name.
func ChannelDefaults(now func() time.Time, sleep func(context.Context, time.Duration) error,
	log *slog.Logger, name string) (func() time.Time,
	func(context.Context, time.Duration) error, *slog.Logger) {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = Sleep
	}
	if log == nil {
		log = slog.Default()
	}
	return now, sleep, log.With("component", name)
}
