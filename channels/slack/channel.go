package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// ChannelName is the name of the Slack channel: its Channel.Name, the key of its
// approvers and admins in bot.Access, the Channel of its stored prompt messages and
// the Via of the resolutions made from it.
const ChannelName = "slack"

// DeliveryTTL is how long a delivery's id (a Socket Mode envelope_id, an HTTP-mode
// trigger_id) is remembered, so that Slack's redeliveries run once: at least 10
// minutes (docs/design.md, "Chat prompts"); Slack retries within about 5.
const DeliveryTTL = 15 * time.Minute

// DeliveryLog is what a Channel needs of the store to de-duplicate deliveries.
// *store.DB implements it: SeenDelivery reports whether id was recorded less
// than ttl before now, and records it at now when it was not.
type DeliveryLog interface {
	SeenDelivery(id string, now time.Time, ttl time.Duration) (seen bool, err error)
}

// Options configure a Channel; they mirror the slack section of the configuration
// (config.Slack).
type Options struct {
	// BotToken (xoxb-…) posts, updates and sends ephemeral messages. Required.
	BotToken string
	// AppToken (xapp-…), when set, selects Socket Mode: Run opens the connection
	// through apps.connections.open. Empty selects HTTP mode.
	AppToken string
	// SigningSecret checks the v0 signature of every HTTP-mode request.
	// Required in HTTP mode, unused in Socket Mode.
	SigningSecret string
	// APIURL is the Web API base URL, for test servers (slack.api_url); "" means
	// https://slack.com/api/. A missing trailing slash is added (slack-go appends the
	// method name to it as it is).
	APIURL string
	// HTTPListen is the host:port Run serves POST /slack/interactions and
	// POST /slack/commands on in HTTP mode (slack.http_listen; port 0 picks a free
	// port, see Addr). Empty: Run listens nowhere and the routes are served only
	// where Handler is mounted.
	HTTPListen string
	// Channels are the conversation ids (C…, G…, D…) every prompt is posted to
	// (slack.channels): Targets. Channel names and user ids do not work here: a tap
	// is bound to the channel id its message was posted under.
	Channels []string
	// Bot resolves taps and runs the /skald commands. Required.
	Bot *bot.Bot
	// Deliveries remembers the ids of the deliveries handled. Required;
	// a *store.DB.
	Deliveries DeliveryLog
	// Now is the clock of the signature window and of the delivery log; nil means
	// time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning ctx.Err() then: the wait before
	// retrying an ephemeral message Slack answered 429 with Retry-After, and between
	// Socket Mode restarts. nil means bot.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// HTTPClient makes the Web API calls; nil means a client with a 30-second
	// timeout.
	HTTPClient *http.Client
	// Logger nil means slog.Default(); the Channel adds component=slack. Tokens and
	// the signing secret are never logged.
	Logger *slog.Logger
}

// Channel is skald-bot's Slack app: a bot.Channel that posts approval
// prompts as Block Kit messages and updates them to their outcome, and the receiver of
// button clicks and /skald commands — over Socket Mode when Options.AppToken is set,
// else over HTTP. Create it with New; Run receives. Safe for concurrent use.
type Channel struct {
	api      *slackgo.Client
	bot      *bot.Bot
	seen     DeliveryLog
	appToken string
	secret   string
	listen   string
	targets  []string
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	log      *slog.Logger
	work     bot.Workers

	mu      sync.Mutex // guards started, addr
	started bool
	addr    net.Addr
	// listening is closed once Run listens on HTTPListen (addr set) or gave up.
	listening chan struct{}
}

var _ bot.Channel = (*Channel)(nil)

// New returns a Channel for opt; nothing runs and nothing is sent until Run, Send or
// Edit. It returns an error wrapping ErrInvalidOptions when opt.BotToken, opt.Bot or
// opt.Deliveries is missing, or when neither opt.AppToken (Socket Mode) nor
// opt.SigningSecret (HTTP mode) is set. The error never holds a token.
func New(opt Options) (*Channel, error) {
	var missing []string
	if opt.BotToken == "" {
		missing = append(missing, "a bot token")
	}
	if opt.Bot == nil {
		missing = append(missing, "a Bot")
	}
	if opt.Deliveries == nil {
		missing = append(missing, "a delivery log")
	}
	if opt.AppToken == "" && opt.SigningSecret == "" {
		missing = append(missing,
			"an app-level token (Socket Mode) or a signing secret (HTTP mode)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("slack: new: %w: missing %s",
			ErrInvalidOptions, strings.Join(missing, ", "))
	}
	c := &Channel{
		bot:       opt.Bot,
		seen:      opt.Deliveries,
		appToken:  opt.AppToken,
		secret:    opt.SigningSecret,
		listen:    opt.HTTPListen,
		targets:   append([]string(nil), opt.Channels...),
		listening: make(chan struct{}),
	}
	c.now, c.sleep, c.log = bot.ChannelDefaults(opt.Now, opt.Sleep, opt.Logger, "slack")
	client := opt.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	apiOpts := []slackgo.Option{slackgo.OptionHTTPClient(client)}
	if opt.APIURL != "" {
		u := opt.APIURL
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		apiOpts = append(apiOpts, slackgo.OptionAPIURL(u))
	}
	if opt.AppToken != "" {
		apiOpts = append(apiOpts, slackgo.OptionAppLevelToken(opt.AppToken))
	}
	c.api = slackgo.New(opt.BotToken, apiOpts...)
	return c, nil
}

// Name returns ChannelName, "slack" (bot.Channel).
func (c *Channel) Name() string { return ChannelName }

// Targets returns the channel ids of Options.Channels (bot.Channel).
func (c *Channel) Targets() []string { return append([]string(nil), c.targets...) }

// SocketMode reports whether the Channel receives over Socket Mode (an app-level
// token is set) rather than over HTTP.
func (c *Channel) SocketMode() bool { return c.appToken != "" }

// Send posts prompt p to channel target with chat.postMessage, as the Block Kit
// message of Blocks (header, fields, arguments, and the actions block when p has
// buttons: the Fanout posts a prompt without them and adds them with Edit once the
// message is recorded), and returns the message's ts: its reference for Edit and for binding taps
// (bot.Channel). It blocks for one Web API call. A 429 is returned as a
// *bot.RateLimitError carrying Retry-After; an error retrying cannot fix (channel not
// found, bot not in the channel, bad token, blocks refused) wraps bot.ErrPermanent.
func (c *Channel) Send(ctx context.Context, target string, p bot.Prompt) (string, error) {
	m := p.Slack()
	_, ts, err := c.api.PostMessageContext(ctx, target,
		slackgo.MsgOptionText(m.Text, false),
		slackgo.MsgOptionBlocks(Blocks(m)...),
		slackgo.MsgOptionDisableLinkUnfurl(),
		slackgo.MsgOptionDisableMediaUnfurl())
	if err != nil {
		return "", fmt.Errorf("slack: post the prompt of request %d to %s: %w",
			p.RequestID, target, classify(err))
	}
	return ts, nil
}

// Edit replaces message ref of channel target with p using chat.update, always with
// p's blocks: a pending prompt gets its actions block, a finished prompt has its
// outcome and no actions block, and an update without blocks would leave the old
// buttons live (bot.Channel). It blocks for one Web API call. Errors as Send;
// message_not_found and cant_update_message wrap bot.ErrPermanent.
func (c *Channel) Edit(ctx context.Context, target, ref string, p bot.Prompt) error {
	m := p.Slack()
	_, _, _, err := c.api.UpdateMessageContext(ctx, target, ref,
		slackgo.MsgOptionText(m.Text, false),
		slackgo.MsgOptionBlocks(Blocks(m)...))
	if err != nil {
		return fmt.Errorf("slack: update message %s of request %d in %s: %w",
			ref, p.RequestID, target, classify(err))
	}
	return nil
}

// permanentErrors are the Web API error codes that retrying cannot fix.
var permanentErrors = map[string]bool{
	"channel_not_found": true, "not_in_channel": true, "is_archived": true,
	"message_not_found": true, "cant_update_message": true, "edit_window_closed": true,
	"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true,
	"no_permission": true, "missing_scope": true, "not_allowed_token_type": true,
	"invalid_blocks": true, "invalid_blocks_format": true, "msg_too_long": true,
	"no_text": true, "restricted_action": true, "user_not_in_channel": true,
	"invalid_arguments": true, "team_access_not_granted": true, "ekm_access_denied": true,
}

// classify maps slack-go's errors onto what bot.Fanout understands: a 429 becomes a
// *bot.RateLimitError, an error retrying cannot fix wraps bot.ErrPermanent, anything
// else (network errors, internal_error, HTTP 5xx, a 429 without Retry-After) is
// returned as it is, to retry.
func classify(err error) error {
	if rl, ok := errors.AsType[*slackgo.RateLimitedError](err); ok {
		return &bot.RateLimitError{RetryAfter: rl.RetryAfter, Err: err}
	}
	if se, ok := errors.AsType[slackgo.SlackErrorResponse](err); ok && permanentErrors[se.Err] {
		return fmt.Errorf("%w: %w", bot.ErrPermanent, err)
	}
	sc, ok := errors.AsType[slackgo.StatusCodeError](err)
	if ok && sc.Code < 500 && sc.Code != http.StatusTooManyRequests {
		return fmt.Errorf("%w: %w", bot.ErrPermanent, err)
	}
	return err
}
