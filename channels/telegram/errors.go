package telegram

import "errors"

// Sentinel errors of package telegram. Every error the package returns wraps one of
// these, a sentinel of package bot (bot.ErrPermanent), or a *bot.RateLimitError, with
// the operation, so callers test them with errors.Is and errors.As. The bot token is
// never part of an error.
var (
	// ErrInvalidOptions: New was given options it cannot work with — no or a
	// malformed token, a chat id of 0, an API or webhook URL that does not parse, a
	// webhook URL the Bot API would refuse, a webhook without a secret token or a
	// listen address, no Handler or Store. The message names the option.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrRunning: Run was called a second time on the same Channel.
	ErrRunning = errors.New("already running")
	// ErrUnauthorized: the Bot API refused the token (401 Unauthorized) at start-up:
	// the token is wrong or was revoked with BotFather. Run returns it at once.
	ErrUnauthorized = errors.New("the Bot API refused the bot token")
	// ErrWebhookRefused: setWebhook answered 400 Bad Request at start-up, for
	// instance for a URL that is not HTTPS or uses another port than 80, 88, 443 or
	// 8443. Run returns it at once.
	ErrWebhookRefused = errors.New("the Bot API refused the webhook")
	// ErrBadTarget: Send or Edit was given a chat that is not a chat id in decimal,
	// or Edit a message reference that is not a message id. It is also wrapped with
	// bot.ErrPermanent, so the Fanout does not retry.
	ErrBadTarget = errors.New("not a Telegram chat id or message id")
)
