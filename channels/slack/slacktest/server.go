package slacktest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit/loopback"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// Identities of the fake workspace. They are the fake ids of the fixtures in testdata
// the payloads are built from, so recorded payloads read like them.
const (
	// DefaultBotToken is the bot token (xoxb-…) New accepts when Config.BotToken is empty.
	DefaultBotToken = "xoxb-0000000001-0000000002-FAKEbotTOKEN0001"
	// DefaultAppToken is the app-level token (xapp-…) New accepts when Config.AppToken
	// is empty.
	DefaultAppToken = "xapp-1-A0FAKEAPP01-0000000003-FAKEappTOKEN0001"
	// DefaultChannel is the one channel the bot is a member of when Config.Channels
	// is nil.
	DefaultChannel = "C0FAKECHAN1"
	// DefaultUser is the user who clicks and types commands when a BlockAction or
	// SlashCommand names none.
	DefaultUser = "U0FAKEUSR01"
	// TeamID is the workspace id in every payload and auth.test answer.
	TeamID = "T0FAKETEAM1"
	// AppID is the app id of apps.connections.open URLs, hello messages and payloads.
	AppID = "A0FAKEAPP01"
	// BotUserID is the bot's user id (auth.test user_id, message user).
	BotUserID = "U0FAKEBOTU1"
	// BotID is the bot id (auth.test bot_id, message bot_id).
	BotID = "B0FAKEBOT01"
	// VerificationToken is the legacy verification token carried in the "token" field
	// of interaction and slash command payloads (it is not a credential of this server).
	VerificationToken = "FAKEverificationTOKEN0001"
)

// defaultPingInterval is how often a Socket Mode connection is pinged when
// Config.PingInterval is zero; slack-go's socketmode reconnects after 30 s without one.
const defaultPingInterval = 10 * time.Second

// Config sets up a Server. The zero value is ready to use.
type Config struct {
	// BotToken is the only bot token auth.test and chat.* accept (sent as the "token"
	// form field, as slack-go does, or as "Authorization: Bearer"). It must start with
	// "xoxb-". Empty means DefaultBotToken.
	BotToken string
	// AppToken is the only app-level token apps.connections.open accepts, in the
	// Authorization header as Slack requires. It must start with "xapp-". Empty means
	// DefaultAppToken.
	AppToken string
	// Channels are the conversation ids the bot is a member of: chat.* work there.
	// nil means []string{DefaultChannel}; an empty non-nil slice means none.
	Channels []string
	// ForeignChannels exist but the bot is not a member: chat.postMessage and
	// chat.postEphemeral answer not_in_channel there. Any other id is channel_not_found.
	ForeignChannels []string
	// PingInterval is how often every Socket Mode connection is sent a WebSocket ping,
	// as Slack does; slack-go's socketmode reconnects when it sees none for 30 s (its
	// default). Zero means 10 s.
	PingInterval time.Duration
	// Now is the clock for message timestamps and action_ts. nil means time.Now.
	Now func() time.Time
	// Logger receives debug logs with component=slacktest; tokens are never logged.
	// nil means logs are discarded.
	Logger *slog.Logger
}

// validate fills the defaults of cfg and reports the first problem, wrapping
// ErrInvalidConfig.
func (cfg *Config) validate() error {
	if cfg.BotToken == "" {
		cfg.BotToken = DefaultBotToken
	}
	if cfg.AppToken == "" {
		cfg.AppToken = DefaultAppToken
	}
	if cfg.Channels == nil {
		cfg.Channels = []string{DefaultChannel}
	}
	if cfg.PingInterval == 0 {
		cfg.PingInterval = defaultPingInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case !strings.HasPrefix(cfg.BotToken, "xoxb-"):
		return fmt.Errorf("%w: bot token must start with xoxb-", ErrInvalidConfig)
	case !strings.HasPrefix(cfg.AppToken, "xapp-"):
		return fmt.Errorf("%w: app token must start with xapp-", ErrInvalidConfig)
	case cfg.PingInterval < 0:
		return fmt.Errorf("%w: negative ping interval %s", ErrInvalidConfig, cfg.PingInterval)
	}
	seen := map[string]bool{}
	for _, id := range append(append([]string(nil), cfg.Channels...), cfg.ForeignChannels...) {
		if id == "" {
			return fmt.Errorf("%w: empty channel id", ErrInvalidConfig)
		}
		if seen[id] {
			return fmt.Errorf("%w: channel %s listed twice", ErrInvalidConfig, id)
		}
		seen[id] = true
	}
	return nil
}

// Server is a Slack Web API and Socket Mode server on 127.0.0.1. All its methods are
// safe for concurrent use.
type Server struct {
	cfg Config
	log *slog.Logger
	// methods maps a Web API method name to its handler; fixed after New.
	methods map[string]methodHandler

	// sockets counts the Socket Mode handlers: their connections are hijacked, so
	// httptest.Server.Close does not wait for them; Close does.
	sockets sync.WaitGroup

	mu sync.Mutex // guards every field below and frame's state
	// frame is the HTTP server; frame.Notify follows every change of the records
	// below, waking the wait helpers. Once it is closed nothing is accepted or waited
	// for.
	frame loopback.Frame
	// member maps every known channel id to whether the bot is a member.
	member map[string]bool
	// posts holds each channel's chat.postMessage records in order.
	posts map[string][]Message
	// current holds each message as it now reads, by channel and ts.
	current map[msgKey]Message
	// updates holds each message's chat.update records in order.
	updates map[msgKey][]Message
	// ephemerals holds chat.postEphemeral records in order.
	ephemerals []Message
	// failures holds the injected one-shot failures per method, first in first out.
	failures map[string][]failure
	// lost counts per method the calls to serve whose reply is then lost
	// (LoseReplyNext).
	lost map[string]int
	// calls counts the requests per method, including failed ones.
	calls map[string]int
	// lastMicros is the last message ts handed out, in microseconds (ts are unique
	// and increasing, like Slack's).
	lastMicros int64
	// seq numbers trigger ids and response URLs.
	seq int
	// tickets are the unused Socket Mode tickets apps.connections.open handed out.
	tickets map[string]bool
	// conns are the open Socket Mode connections in accept order; pushes go to the
	// newest that is not retired.
	conns []*socketConn
	// connections counts every Socket Mode connection ever accepted.
	connections int
	// acks are the Socket Mode acknowledgements received, in order.
	acks []Ack
	// views are the views views.open opened, in order.
	views []OpenedView
}

// msgKey names a message: Slack identifies one by its channel and ts.
type msgKey struct{ channel, ts string }

// New starts a Server on 127.0.0.1 on a free port. It returns an error wrapping
// ErrInvalidConfig for a bad Config. The caller must Close it.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("slacktest: new: %w", err)
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger.With("component", "slacktest"),
		member:   map[string]bool{},
		posts:    map[string][]Message{},
		current:  map[msgKey]Message{},
		updates:  map[msgKey][]Message{},
		failures: map[string][]failure{},
		lost:     map[string]int{},
		calls:    map[string]int{},
		tickets:  map[string]bool{},
	}
	for _, id := range cfg.Channels {
		s.member[id] = true
	}
	for _, id := range cfg.ForeignChannels {
		s.member[id] = false
	}
	s.methods = map[string]methodHandler{
		"auth.test":             s.withBotToken(s.authTest),
		"apps.connections.open": s.appsConnectionsOpen,
		"chat.postMessage":      s.withBotToken(s.chatPostMessage),
		"chat.update":           s.withBotToken(s.chatUpdate),
		"chat.postEphemeral":    s.withBotToken(s.chatPostEphemeral),
		"views.open":            s.withBotToken(s.viewsOpen),
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/socket", s.serveSocket)
	s.frame.Start(&s.mu, mux)
	return s, nil
}

// URL returns the Web API base URL to pass to slack.OptionAPIURL:
// "http://127.0.0.1:PORT/api/". slack-go appends the method name directly, so the
// trailing slash is part of it.
func (s *Server) URL() string { return s.frame.URL() + "/api/" }

// Close stops the HTTP server, closes every open Socket Mode connection abruptly
// (retired ones too) and waits until all its goroutines have returned. Wait helpers
// blocked at that moment return ErrClosed. Calling Close again does nothing.
func (s *Server) Close() {
	var open []*socketConn
	if !s.frame.Close(func() { open, s.conns = s.conns, nil }) {
		return
	}
	for _, c := range open {
		_ = c.ws.Close()
	}
	s.sockets.Wait()
}

// SetOutage makes the server unreachable: every Web API call and Socket Mode
// handshake from now on fails as o says, outage.None ending it. A Web API call
// is still counted (Calls) before it fails, and changes nothing else. outage.Dropped
// also cuts the connections of the Web API calls in progress; open Socket Mode
// connections stay up until Drop.
func (s *Server) SetOutage(o outage.Kind) { s.frame.SetOutage(o) }

// notify wakes the wait helpers. The caller holds s.mu.
func (s *Server) notify() { s.frame.Notify() }

// wait blocks until ready, called with s.mu held, returns true, the context ends
// (the error wraps ctx.Err()) or the server closes (ErrClosed).
func (s *Server) wait(ctx context.Context, what string, ready func() bool) error {
	err := s.frame.Wait(ctx, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return ready()
	})
	if err != nil {
		return fmt.Errorf("slacktest: wait for %s: %w", what, err)
	}
	return nil
}

// nextTS returns a new message timestamp "seconds.micros" from the clock, strictly
// greater than the last one. The caller holds s.mu.
func (s *Server) nextTS() string {
	m := max(s.cfg.Now().UnixMicro(), s.lastMicros+1)
	s.lastMicros = m
	return fmt.Sprintf("%d.%06d", m/1e6, m%1e6)
}
