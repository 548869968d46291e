package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/internal/testkit/loopback"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// Identities of the fake bot. They are the fake ids of the fixtures in testdata, so
// recorded messages read like them.
const (
	// DefaultToken is the bot token New accepts when Config.Token is empty. Its bot id
	// is BotID.
	DefaultToken = "7000000001:AAFakeTokenForTelegramTestServer_01"
	// BotID is the id of the bot user of DefaultToken.
	BotID int64 = 7000000001
	// DefaultBotUsername is the bot's username when Config.BotUsername is empty, as in
	// the fixtures ("/rules@fake_approval_bot").
	DefaultBotUsername = "fake_approval_bot"
	// DefaultBotName is the bot's first_name when Config.BotName is empty.
	DefaultBotName = "Fake Approval Bot"
)

// Limits of the Bot API this server enforces (https://core.telegram.org/bots/api).
const (
	// MaxTextLength is the most characters a message text may have after entities
	// parsing (sendMessage, editMessageText: "1-4096 characters after entities
	// parsing"). Characters are Unicode code points, as tdlib counts them
	// (utf8_length in MessageContent.cpp) — not UTF-16 units, which are the unit of
	// entity offsets only. "😀" counts 1 here and 2 in an entity's length.
	MaxTextLength = 4096
	// MaxCallbackDataBytes is the most bytes (UTF-8, not characters) an inline
	// button's callback_data may have ("1-64 bytes").
	MaxCallbackDataBytes = 64
	// MaxAnswerTextLength is the most characters of answerCallbackQuery's text ("0-200
	// characters").
	MaxAnswerTextLength = 200
	// MaxPollTimeout is the longest getUpdates wait in seconds; a larger timeout is cut
	// to it, as the Bot API server does (LONG_POLL_MAX_TIMEOUT in Client.h).
	MaxPollTimeout = 50
)

var tokenPattern = regexp.MustCompile(`^([0-9]+):[A-Za-z0-9_-]+$`)

// Config sets up a Server. The zero value is ready to use.
type Config struct {
	// Token is the only bot token the server accepts in /bot<token>/<method>; any
	// other gets 401 Unauthorized. Its digits before the colon are the bot's user id.
	// Empty means DefaultToken.
	Token string
	// BotUsername is the bot's username (getMe, the "from" of its messages). Empty
	// means DefaultBotUsername.
	BotUsername string
	// BotName is the bot's first_name. Empty means DefaultBotName.
	BotName string
	// Chats are the chats the bot can write to from the start. A chat with an empty
	// Type gets one from its id: > 0 private, ≤ -1000000000000 supergroup, else group.
	// More chats become known through AddChat and through every injected update that
	// carries one (a user writing to the bot). Sending to any other chat answers
	// ErrChatNotFound.
	Chats []models.Chat
	// Now is the clock for message dates and edit dates. nil means time.Now.
	Now func() time.Time
	// Logger receives debug logs with component=telegramtest; the token is never
	// logged. nil means logs are discarded.
	Logger *slog.Logger
	// PostOnly refuses with 404 Not Found every call but a POST without a query
	// string (go-telegram/bot sends nothing else), so a client that can only fetch a
	// URL cannot make a call. false serves GET and query parameters too.
	PostOnly bool
}

// Server is a Telegram Bot API server on 127.0.0.1 for tests, to be used through the
// real go-telegram/bot client (bot.WithServerURL(srv.URL())). All its methods are safe
// for concurrent use. See the package documentation for what it serves.
type Server struct {
	token    string
	postOnly bool
	me       models.User
	now      func() time.Time
	log      *slog.Logger

	// mu guards every field below and frame's state; frame.Notify follows each change
	// of them, which wakes the wait helpers and waiting getUpdates calls.
	mu    sync.Mutex
	frame loopback.Frame

	calls    []Call
	failures map[string][]APIError // method → one-shot failures, oldest first
	lost     map[string]int        // method → calls whose reply is lost (LoseReplyNext)

	chats map[int64]*chatState

	queue        []queuedUpdate            // unconfirmed updates, ascending ids
	injected     map[int64]json.RawMessage // every update ever injected, for Redeliver
	nextUpdateID int64
	poll         *longPoll // the getUpdates call waiting for updates, if any

	callbacks      map[string]bool // callback query id → still answerable
	answers        []CallbackAnswer
	nextCallbackID int64

	webhook Webhook
}

// New starts a Server on 127.0.0.1 on a free port. It returns an error wrapping
// ErrInvalidConfig for a bad Config. The caller must Close it (t.Cleanup(srv.Close)).
func New(cfg Config) (*Server, error) {
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	m := tokenPattern.FindStringSubmatch(cfg.Token)
	if m == nil {
		return nil, fmt.Errorf("telegramtest: new: token is not <bot id>:<secret>: %w",
			ErrInvalidConfig)
	}
	botID, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("telegramtest: new: bot id: %w", ErrInvalidConfig)
	}
	if cfg.BotUsername == "" {
		cfg.BotUsername = DefaultBotUsername
	}
	if cfg.BotName == "" {
		cfg.BotName = DefaultBotName
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		token:    cfg.Token,
		postOnly: cfg.PostOnly,
		me: models.User{
			ID: botID, IsBot: true, FirstName: cfg.BotName, Username: cfg.BotUsername,
			CanJoinGroups: true,
		},
		now:          cfg.Now,
		log:          cfg.Logger.With("component", "telegramtest"),
		failures:     make(map[string][]APIError),
		lost:         make(map[string]int),
		chats:        make(map[int64]*chatState),
		injected:     make(map[int64]json.RawMessage),
		nextUpdateID: 1,
		callbacks:    make(map[string]bool),
	}
	for _, c := range cfg.Chats {
		if c.ID == 0 {
			return nil, fmt.Errorf("telegramtest: new: chat without id: %w", ErrInvalidConfig)
		}
		s.addChatLocked(c)
	}
	s.frame.Start(&s.mu, http.HandlerFunc(s.serveHTTP))
	return s, nil
}

// URL returns the server's base URL, "http://127.0.0.1:<port>", to pass to
// bot.WithServerURL (the client appends /bot<token>/<method>).
func (s *Server) URL() string { return s.frame.URL() }

// Token returns the one bot token the server accepts.
func (s *Server) Token() string { return s.token }

// Me returns the bot user getMe answers with.
func (s *Server) Me() models.User { return s.me }

// Close answers every waiting getUpdates with the updates it has (none, usually),
// stops the HTTP server and waits for the calls in progress to finish. The wait
// helpers then return ErrClosed. Calling Close again does nothing.
func (s *Server) Close() { s.frame.Close(nil) }

// SetOutage makes the server unreachable: every call from now on fails as o says,
// outage.None ending it. Each call is still recorded (Calls) before it fails and
// changes nothing else; updates injected meanwhile wait in the queue. outage.Dropped
// also cuts the connections of the calls in progress, a waiting getUpdates included,
// so a client loses its long poll as it would on a network drop.
func (s *Server) SetOutage(o outage.Kind) { s.frame.SetOutage(o) }

// notifyLocked wakes everything waiting for a change. s.mu must be held.
func (s *Server) notifyLocked() { s.frame.Notify() }

// Wait blocks until cond returns true, the context ends (its error is returned,
// wrapped) or the server is closed (ErrClosed). cond is called without the server's
// lock held, so it may call any method of the Server; it is called again after every
// change of the server's state (a call, an injected update, …), never on a timer.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	if err := s.frame.Wait(ctx, cond); err != nil {
		return fmt.Errorf("telegramtest: wait: %w", err)
	}
	return nil
}

// reply is what a method handler decided: a result (marshalled as "result"), an
// error, or, for getUpdates only, a long poll to wait on once s.mu is released.
type reply struct {
	result      any
	description string
	err         *APIError
	poll        *longPoll
	outage      outage.Kind // how to fail instead (a long poll the outage ended)
}

func fail(e APIError) reply { return reply{err: &e} }

// handler serves one Bot API method. It is called with s.mu held and must not block.
type handler func(s *Server, p params) reply

// methods maps the lower-case method name (the Bot API's names are case-insensitive)
// to its documented spelling and its handler.
var methods = map[string]struct {
	name string
	h    handler
}{
	"getme":                  {"getMe", (*Server).getMe},
	"getupdates":             {"getUpdates", (*Server).getUpdates},
	"sendmessage":            {"sendMessage", (*Server).sendMessage},
	"editmessagetext":        {"editMessageText", (*Server).editMessageText},
	"editmessagereplymarkup": {"editMessageReplyMarkup", (*Server).editMessageReplyMarkup},
	"answercallbackquery":    {"answerCallbackQuery", (*Server).answerCallbackQuery},
	"setwebhook":             {"setWebhook", (*Server).setWebhook},
	"deletewebhook":          {"deleteWebhook", (*Server).deleteWebhook},
	"getwebhookinfo":         {"getWebhookInfo", (*Server).getWebhookInfo},
}

// serveHTTP routes /bot<token>/<method> (GET or POST; POST without a query when
// postOnly), records the call and writes the envelope.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	get := r.Method == http.MethodGet && !s.postOnly
	post := r.Method == http.MethodPost && (!s.postOnly || r.URL.RawQuery == "")
	if !ok || !get && !post {
		writeReply(w, fail(ErrNotFound))
		return
	}
	token, method, _ := strings.Cut(rest, "/")
	if token != s.token {
		writeReply(w, fail(ErrUnauthorized))
		return
	}
	p, perr := parseParams(r)

	s.mu.Lock()
	m, known := methods[strings.ToLower(method)]
	name := method
	if known {
		name = m.name
	}
	s.calls = append(s.calls, Call{Method: name, Params: p})
	if o := s.frame.Outage(); o != outage.None {
		s.notifyLocked()
		s.mu.Unlock()
		s.log.Debug("call failed: outage", "method", name)
		o.Fail(w)
		return
	}
	var rep reply
	switch {
	case !known:
		rep = fail(ErrNotFound)
	case len(s.failures[name]) > 0:
		rep = fail(s.failures[name][0])
		s.failures[name] = s.failures[name][1:]
	case perr != nil:
		rep = fail(*perr)
	default:
		rep = m.h(s, p)
	}
	lose := known && rep.poll == nil && s.lost[name] > 0
	if lose {
		s.lost[name]--
	}
	s.notifyLocked()
	s.mu.Unlock()
	if lose {
		s.log.Debug("call served, reply lost", "method", name)
		outage.Dropped.Fail(w)
		return
	}

	if rep.poll != nil {
		var gone bool
		rep, gone = s.waitPoll(r.Context(), rep.poll)
		if gone || rep.outage.Fail(w) {
			return
		}
	}
	status := http.StatusOK
	if rep.err != nil {
		status = rep.err.Code
	}
	s.log.Debug("call", "method", name, "status", status)
	writeReply(w, rep)
}

// envelope is the Bot API's answer object, fields in the order Telegram writes them.
type envelope struct {
	OK          bool        `json:"ok"`
	Result      any         `json:"result,omitempty"`
	ErrorCode   int         `json:"error_code,omitempty"`
	Description string      `json:"description,omitempty"`
	Parameters  *parameters `json:"parameters,omitempty"`
}

type parameters struct {
	MigrateToChatID int64 `json:"migrate_to_chat_id,omitempty"`
	RetryAfter      int   `json:"retry_after,omitempty"`
}

func writeReply(w http.ResponseWriter, rep reply) {
	env := envelope{OK: true, Result: rep.result, Description: rep.description}
	status := http.StatusOK
	if e := rep.err; e != nil {
		status = e.Code
		env = envelope{ErrorCode: e.Code, Description: e.Description}
		if e.RetryAfter > 0 || e.MigrateToChatID != 0 {
			env.Parameters = &parameters{MigrateToChatID: e.MigrateToChatID,
				RetryAfter: e.RetryAfter}
		}
	}
	body, err := json.Marshal(env)
	if err != nil { // only a result this package built could fail, which is a bug here
		body = []byte(`{"ok":false,"error_code":500,"description":"Internal Server Error"}`)
		status = 500
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// params are a call's parameters as strings, whatever way they came: URL query,
// application/x-www-form-urlencoded, multipart/form-data (what go-telegram/bot sends)
// or a JSON object (a string value is unquoted, any other value kept as JSON text,
// as the Bot API server does).
type params map[string]string

// maxBody is the largest request body read (the Bot API's own limit for non-file
// parameters is far above anything a test sends).
const maxBody = 10 << 20

func parseParams(r *http.Request) (params, *APIError) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return p, &APIError{Code: 400, Description: "Bad Request: can't read request body"}
	}
	if len(body) == 0 {
		return p, nil
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"):
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return p, &APIError{Code: 400,
				Description: "Bad Request: can't parse JSON encoded request"}
		}
		for k, raw := range obj {
			var str string
			switch {
			case string(raw) == "null":
			case json.Unmarshal(raw, &str) == nil:
				p[k] = str
			default:
				p[k] = string(raw)
			}
		}
	case strings.HasPrefix(ct, "multipart/form-data"),
		strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(strings.NewReader(string(body)))
		r2.URL.RawQuery = ""
		if err := r2.ParseMultipartForm(maxBody); err != nil && err != http.ErrNotMultipart {
			return p, &APIError{Code: 400, Description: "Bad Request: can't parse request body"}
		}
		for k, v := range r2.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil
}

// int64Param parses p[key] as an integer; ok is false when absent or not a number.
func (p params) int64Param(key string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(p[key]), 10, 64)
	return n, err == nil
}

// intParam parses p[key] like the Bot API's get_integer_arg: absent or not a number
// gives def, and the value is clamped to [lo, hi].
func (p params) intParam(key string, def, lo, hi int) int {
	n, err := strconv.Atoi(strings.TrimSpace(p[key]))
	if err != nil {
		n = def
	}
	return min(max(n, lo), hi)
}

// boolParam is the Bot API's to_bool: "true", "yes" or "1", case-insensitive.
func (p params) boolParam(key string) bool {
	switch strings.ToLower(strings.TrimSpace(p[key])) {
	case "true", "yes", "1":
		return true
	}
	return false
}

func (s *Server) getMe(params) reply { return reply{result: s.me} }
