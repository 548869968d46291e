package telegram

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tgbot "github.com/go-telegram/bot"

	"github.com/skald-circle/skald-bot/bot"
)

// Name is the channel's name: the Channel of its stored messages, the Via of the
// resolutions made here, the key of its roles in bot.Access.
const Name = "telegram"

// DefaultTapWait is how long a tap waits for its resolution before its callback
// query is answered anyway (Options.TapWait).
const DefaultTapWait = time.Second

// pollTimeout is what go-telegram/bot derives getUpdates' timeout from (minus one
// second): 50 seconds, the longest the Bot API waits (LONG_POLL_MAX_TIMEOUT).
const pollTimeout = 51 * time.Second

// Handler is what the Channel hands taps and commands to: the chat logic of package
// bot. *bot.Bot implements it. Both methods must be safe for concurrent use.
type Handler interface {
	// HandleTap resolves the request a tapped button names and returns the toast.
	HandleTap(ctx context.Context, t bot.Tap) (bot.TapResult, error)
	// Command runs one admin command line and returns the plain-text reply.
	Command(ctx context.Context, who bot.Who, line string) bot.Reply
}

// Store is what the Channel keeps across restarts so a replay acts once: the last handled
// update_id, under a meta key, and the update_ids already handled. *store.DB
// implements it. Errors are the store's.
type Store interface {
	// GetMeta returns the value stored under key, nil when there is none.
	GetMeta(key string) ([]byte, error)
	// PutMeta stores v under key.
	PutMeta(key string, v []byte) error
	// SeenDelivery reports whether id was recorded less than ttl before now, and
	// records it at now when it was not.
	SeenDelivery(id string, now time.Time, ttl time.Duration) (bool, error)
}

// Webhook configures delivery by webhook (config telegram.webhook). A zero URL
// means long polling.
type Webhook struct {
	// URL is the public https URL Telegram posts updates to (setWebhook's url). The
	// Channel serves its path on Listen; other paths get 404.
	URL string
	// Listen is the local host:port the webhook server binds ("0.0.0.0:8443",
	// "127.0.0.1:8081" behind a reverse proxy). Ignored when Listener is set.
	Listen string
	// SecretToken is setWebhook's secret_token: Telegram sends it in the
	// X-Telegram-Bot-Api-Secret-Token header of every delivery, and a delivery
	// without it gets 401. Required with URL: 1 to 256 of A-Z a-z 0-9 _ -.
	SecretToken string
	// Listener, when set, is used instead of listening on Listen (tests pass one on
	// 127.0.0.1:0). Run closes it.
	Listener net.Listener
}

// Options configure a Channel.
type Options struct {
	// Token is the bot token BotFather gave, "<bot id>:<secret>". Required. It is
	// only ever sent to the Bot API, never logged.
	Token string
	// APIURL is the Bot API server; empty means https://api.telegram.org. Set it for
	// a local Bot API server or a test server (telegram.api_url).
	APIURL string
	// Chats are the chats every prompt goes to (telegram.chats): user ids for
	// private chats, negative ids for groups (-100… for supergroups).
	Chats []int64
	// Webhook switches from long polling to webhook delivery when its URL is set.
	Webhook Webhook
	// Handler gets the taps and the commands: the *bot.Bot. Required.
	Handler Handler
	// Store keeps the offset and the handled update ids: the *store.DB. Required.
	Store Store
	// HTTPClient makes the Bot API calls; nil means a client with a 70 s timeout.
	// Its Timeout must be 0 or over 50 s, the long poll's wait.
	HTTPClient *http.Client
	// TapWait is how long a tap waits for the gate's resolution (a fsynced write, a
	// few milliseconds) so that its answer can say "Approved"; past it the callback
	// query is answered "⏳ Working on it…" and the resolution goes on. Zero means
	// DefaultTapWait.
	TapWait time.Duration
	// Now is the clock of the stored offset and the handled update ids; nil means
	// time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done (then it returns ctx's error): the wait of a
	// 429's retry_after, and between start-up attempts. nil means bot.Sleep.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger nil means slog.Default(); the Channel adds component=telegram.
	Logger *slog.Logger
}

// Channel is the Telegram adapter: it implements bot.Channel for the
// Fanout — Send shows a prompt, Edit shows an outcome — and, while Run runs, takes
// updates by long polling or webhook and hands taps and commands to the Handler.
// Send and Edit are safe for concurrent use and work before Run is called.
type Channel struct {
	tg       *tgbot.Bot
	botID    int64
	chats    []int64
	webhook  Webhook
	hookPath string
	handler  Handler
	store    Store
	tapWait  time.Duration
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	log      *slog.Logger
	// offset is the last handled update_id read from the store when New ran; it is
	// the initial getUpdates offset (go-telegram/bot asks for offset+1).
	offset int64

	running atomic.Bool
	// username is the bot's username from getMe, for "/cmd@BotName"; set by Run
	// before any update is handled.
	mu       sync.Mutex // guards username
	username string
	work     bot.Workers // the taps and webhook deliveries Run waits for
}

var _ bot.Channel = (*Channel)(nil)

// New returns a Channel for opt. It makes no Bot API call (Run does); it reads the
// last handled update_id from opt.Store. Errors: ErrInvalidOptions naming the bad
// option (an *OptionError for those Options.Check checks), or the store's error
// reading the offset.
func New(opt Options) (*Channel, error) {
	bad := func(format string, args ...any) (*Channel, error) {
		return nil, fmt.Errorf("telegram: new: %w: %s",
			ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	if err := opt.Check(); err != nil {
		return nil, fmt.Errorf("telegram: new: %w", err)
	}
	if opt.Handler == nil {
		return bad("no Handler")
	}
	if opt.Store == nil {
		return bad("no Store")
	}
	idPart, _, _ := strings.Cut(opt.Token, ":")
	botID, _ := strconv.ParseInt(idPart, 10, 64) // Check parsed it
	c := &Channel{
		botID:   botID,
		chats:   append([]int64(nil), opt.Chats...),
		webhook: opt.Webhook,
		handler: opt.Handler,
		store:   opt.Store,
		tapWait: opt.TapWait,
	}
	if w := opt.Webhook; w.URL != "" {
		u, _ := url.Parse(w.URL) // Check parsed it
		c.hookPath = u.EscapedPath()
		if c.hookPath == "" {
			c.hookPath = "/"
		}
	}
	if c.tapWait <= 0 {
		c.tapWait = DefaultTapWait
	}
	c.now, c.sleep, c.log = bot.ChannelDefaults(opt.Now, opt.Sleep, opt.Logger, "telegram")
	offset, err := c.loadOffset()
	if err != nil {
		return nil, fmt.Errorf("telegram: new: %w", err)
	}
	c.offset = offset

	client := opt.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 70 * time.Second}
	}
	tgOpts := []tgbot.Option{
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(pollTimeout, client),
		// One worker that runs each update to its end before taking the next (the
		// library's default is a goroutine per update, untracked): updates are handled
		// in order, so the offset stored after each one is exact. The unbuffered
		// channel keeps the library from confirming a batch before it is handled.
		tgbot.WithNotAsyncHandlers(),
		tgbot.WithWorkers(1),
		tgbot.WithUpdatesChannelCap(0),
		tgbot.WithInitialOffset(offset),
		tgbot.WithAllowedUpdates(allowedUpdates),
		tgbot.WithDefaultHandler(c.onPolledUpdate),
		tgbot.WithErrorsHandler(c.onLibraryError),
	}
	if opt.APIURL != "" {
		tgOpts = append(tgOpts, tgbot.WithServerURL(opt.APIURL))
	}
	c.tg, err = tgbot.New(opt.Token, tgOpts...)
	if err != nil {
		return bad("token: %v", err)
	}
	return c, nil
}

// allowedUpdates are the update types the Channel asks for: new messages (commands)
// and callback queries (taps). Edited messages are not asked for — an edit never
// runs a command again — and are ignored should they come.
var allowedUpdates = []string{"message", "callback_query"}

// Name returns "telegram" (bot.Channel).
func (c *Channel) Name() string { return Name }

// Targets returns the configured chats as decimal chat ids (bot.Channel).
func (c *Channel) Targets() []string {
	out := make([]string, len(c.chats))
	for i, id := range c.chats {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}

func (c *Channel) setUsername(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.username = s
}

func (c *Channel) botUsername() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.username
}
