package slack

import "errors"

// Sentinel errors of package slack. Every error the package returns wraps one of these,
// bot.ErrPermanent, a *bot.RateLimitError or slack-go's own error, with the operation
// ("slack: verify request: bad signature"); test them with errors.Is and errors.As.
var (
	// ErrInvalidOptions: New was given Options it cannot run with (no bot token, no
	// Bot, no DeliveryLog, neither an app-level token nor a signing secret).
	ErrInvalidOptions = errors.New("invalid options")
	// ErrBadSignature: an HTTP-mode request without a well-formed
	// X-Slack-Signature / X-Slack-Request-Timestamp pair, or whose v0 signature does
	// not match its body. The request is answered 401 and nothing changes.
	ErrBadSignature = errors.New("bad request signature")
	// ErrStaleRequest: an HTTP-mode request whose X-Slack-Request-Timestamp is more
	// than MaxRequestAge away from now, old or in the future (a replay). The
	// request is answered 401 and nothing changes.
	ErrStaleRequest = errors.New("request timestamp outside the 5-minute window")
	// ErrNoListener: Addr was asked for the address of a Channel that does not listen
	// (Socket Mode, or HTTP mode without Options.HTTPListen), or whose Run ended
	// before it listened.
	ErrNoListener = errors.New("not listening")
	// ErrRunning: Run was called a second time.
	ErrRunning = errors.New("already running")
	// ErrUnauthorized: Slack refused the bot token at start-up (auth.test answered
	// invalid_auth, not_authed, account_inactive or token_revoked). Run returns it.
	ErrUnauthorized = errors.New("slack refused the bot token")
)
