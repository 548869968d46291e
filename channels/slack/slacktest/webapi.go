package slacktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// methodHandler serves one Web API method once its arguments are parsed.
type methodHandler func(w http.ResponseWriter, r *http.Request, args url.Values)

// apiError is a Web API error answer: HTTP 200 with {"ok":false,"error":code}, plus
// response_metadata.messages when Slack gives details (invalid_blocks).
type apiError struct {
	code     string
	messages []string
}

// serveAPI routes /api/<method>. An unknown method gets HTTP 404 with
// {"ok":false,"error":"unknown_method","req_method":…}; slack-go turns any non-200,
// non-429 answer into slack.StatusCodeError without reading the body.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	h, ok := s.methods[method]
	if !ok {
		writeJSON(w, http.StatusNotFound, errorBody{Error: "unknown_method", ReqMethod: method})
		return
	}
	s.mu.Lock()
	s.calls[method]++
	if o := s.frame.Outage(); o != outage.None {
		s.notify()
		s.mu.Unlock()
		s.log.Debug("call failed: outage", "method", method)
		o.Fail(w)
		return
	}
	var f *failure
	if q := s.failures[method]; len(q) > 0 {
		f = &q[0]
		s.failures[method] = q[1:]
	}
	lose := s.lost[method] > 0
	if lose {
		s.lost[method]--
	}
	s.notify()
	s.mu.Unlock()
	if lose {
		// Served into a writer that keeps nothing, then the connection is cut.
		conn := w
		defer func() {
			s.log.Debug("call served, reply lost", "method", method)
			outage.Dropped.Fail(conn)
		}()
		w = &lostReply{header: http.Header{}}
	}
	if f != nil {
		s.log.Debug("injected failure", "method", method, "status", f.status, "error", f.code)
		f.write(w)
		return
	}
	args, aerr := parseArgs(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	h(w, r, args)
}

// parseArgs reads the arguments of a Web API call the ways Slack accepts them: a
// form body (what slack-go sends for chat.* and auth.test), query parameters, or a
// JSON object body (what slack-go sends, empty, for apps.connections.open). JSON
// string values are kept as they are; any other JSON value (blocks as an array) is
// kept as its JSON text, which is how a form body carries it.
func parseArgs(r *http.Request) (url.Values, *apiError) {
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ctype != "application/json" {
		if err := r.ParseForm(); err != nil {
			return nil, &apiError{code: "invalid_form_data"}
		}
		return r.Form, nil
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&obj); err != nil && !errors.Is(err, io.EOF) {
		return nil, &apiError{code: "invalid_json"}
	}
	args := r.URL.Query()
	for k, raw := range obj {
		var str string
		if json.Unmarshal(raw, &str) == nil {
			args.Set(k, str)
		} else {
			args.Set(k, string(raw))
		}
	}
	return args, nil
}

// token returns the credential of a call: the Authorization bearer token, else the
// "token" argument.
func token(r *http.Request, args url.Values) string {
	if t := bearer(r); t != "" {
		return t
	}
	return args.Get("token")
}

// bearer returns the token of an "Authorization: Bearer <token>" header, or "".
func bearer(r *http.Request) string {
	t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer")
	return strings.TrimSpace(t)
}

// withBotToken returns h behind the bot token check: a call checkBotToken refuses gets
// its error and h is not run.
func (s *Server) withBotToken(h methodHandler) methodHandler {
	return func(w http.ResponseWriter, r *http.Request, args url.Values) {
		if e := s.checkBotToken(token(r, args)); e != nil {
			writeError(w, e)
			return
		}
		h(w, r, args)
	}
}

// checkBotToken returns the error Slack gives a call that needs the bot token:
// not_authed without a token, not_allowed_token_type for the app-level token,
// invalid_auth for any other token; nil for the bot token.
func (s *Server) checkBotToken(tok string) *apiError {
	switch tok {
	case s.cfg.BotToken:
		return nil
	case "":
		return &apiError{code: "not_authed"}
	case s.cfg.AppToken:
		return &apiError{code: "not_allowed_token_type"}
	default:
		return &apiError{code: "invalid_auth"}
	}
}

// authTest serves auth.test: who the bot token belongs to.
func (s *Server) authTest(w http.ResponseWriter, _ *http.Request, _ url.Values) {
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "url": "https://example-workspace.slack.com/", "team": "Example Workspace",
		"user": "fake_approval_bot", "team_id": TeamID, "user_id": BotUserID, "bot_id": BotID,
		"is_enterprise_install": false,
	})
}

// appsConnectionsOpen serves apps.connections.open: the app-level token, in the
// Authorization header only (the documented rule), gets a one-time ws:// URL of this
// server's Socket Mode endpoint.
func (s *Server) appsConnectionsOpen(w http.ResponseWriter, r *http.Request, _ url.Values) {
	switch tok := bearer(r); tok {
	case s.cfg.AppToken:
	case "":
		writeError(w, &apiError{code: "not_authed"})
		return
	case s.cfg.BotToken:
		writeError(w, &apiError{code: "not_allowed_token_type"})
		return
	default:
		writeError(w, &apiError{code: "invalid_auth"})
		return
	}
	ticket := randomHex(16)
	s.mu.Lock()
	s.tickets[ticket] = true
	s.mu.Unlock()
	u := "ws" + strings.TrimPrefix(s.frame.URL(), "http") +
		"/socket?ticket=" + ticket + "&app_id=" + AppID
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": u})
}

// content is the message part of a chat.* call.
type content struct {
	text      string
	hasText   bool
	rawBlocks json.RawMessage // nil when the call had no blocks argument
}

// readContent reads text and blocks, checks the blocks as Slack does and that the
// message is not empty (no_text).
func readContent(args url.Values) (content, *apiError) {
	c := content{text: args.Get("text")}
	_, c.hasText = args["text"]
	if _, ok := args["blocks"]; ok {
		raw, e := checkBlocks(args.Get("blocks"))
		if e != nil {
			return content{}, e
		}
		c.rawBlocks = raw
	}
	if c.text == "" && blockCount(c.rawBlocks) == 0 && args.Get("attachments") == "" {
		return content{}, &apiError{code: "no_text"}
	}
	return c, nil
}

// postChannel checks a channel a message is posted to: channel_not_found for an
// unknown id, not_in_channel where the bot is not a member. The caller holds s.mu.
func (s *Server) postChannel(id string) *apiError {
	member, known := s.member[id]
	switch {
	case !known:
		return &apiError{code: "channel_not_found"}
	case !member:
		return &apiError{code: "not_in_channel"}
	}
	return nil
}

// chatPostMessage serves chat.postMessage: records the message and answers its
// channel and ts.
func (s *Server) chatPostMessage(w http.ResponseWriter, r *http.Request, args url.Values) {
	channel := args.Get("channel")
	c, e := readContent(args)
	s.mu.Lock()
	if ce := s.postChannel(channel); ce != nil {
		e = ce
	}
	if e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	m := newMessage("chat.postMessage", channel, s.nextTS(), "", c.text, c.rawBlocks)
	s.posts[channel] = append(s.posts[channel], m)
	s.current[msgKey{channel, m.TS}] = m
	s.notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "channel": channel, "ts": m.TS, "message": s.messageJSON(m),
	})
}

// chatUpdate serves chat.update: replaces the text of the message (channel, ts) and,
// only when the call carries blocks, its blocks — as Slack does, an update without
// blocks keeps the old ones (and their buttons). Unknown message: message_not_found.
func (s *Server) chatUpdate(w http.ResponseWriter, r *http.Request, args url.Values) {
	channel, ts := args.Get("channel"), args.Get("ts")
	c, e := readContent(args)
	s.mu.Lock()
	k := msgKey{channel, ts}
	cur, found := s.current[k]
	if _, known := s.member[channel]; !known {
		e = &apiError{code: "channel_not_found"}
	} else if !found {
		e = &apiError{code: "message_not_found"}
	}
	if e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	upd := newMessage("chat.update", channel, ts, "", c.text, c.rawBlocks)
	s.updates[k] = append(s.updates[k], upd)
	cur.Method = upd.Method
	if c.hasText {
		cur.Text = upd.Text
	}
	if upd.HasBlocks() {
		cur.RawBlocks, cur.Blocks = upd.RawBlocks, upd.Blocks
	}
	s.current[k] = cur
	s.notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"ok": true, "channel": channel, "ts": ts, "text": cur.Text, "message": s.messageJSON(cur),
	})
}

// chatPostEphemeral serves chat.postEphemeral: records the message shown to one user
// and answers its message_ts. No user: user_not_in_channel.
func (s *Server) chatPostEphemeral(w http.ResponseWriter, r *http.Request, args url.Values) {
	channel, user := args.Get("channel"), args.Get("user")
	c, e := readContent(args)
	s.mu.Lock()
	if ce := s.postChannel(channel); ce != nil {
		e = ce
	} else if e == nil && user == "" {
		e = &apiError{code: "user_not_in_channel"}
	}
	if e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	m := newMessage("chat.postEphemeral", channel, s.nextTS(), user, c.text, c.rawBlocks)
	s.ephemerals = append(s.ephemerals, m)
	s.notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "message_ts": m.TS})
}

// messageJSON is the "message" object of a chat.postMessage / chat.update answer,
// shaped like the fixture chat_postMessage_response.json.
func (s *Server) messageJSON(m Message) map[string]any {
	obj := map[string]any{
		"type": "message", "text": m.Text, "user": BotUserID, "bot_id": BotID,
		"app_id": AppID, "team": TeamID, "ts": m.TS,
	}
	if m.RawBlocks != nil {
		obj["blocks"] = m.RawBlocks
	}
	return obj
}

// failure is an injected one-shot answer for the next call of a method.
type failure struct {
	status     int
	retryAfter int // seconds; 429 only
	code       string
}

// write sends f the way Slack does: a 429 with Retry-After and
// {"ok":false,"error":"ratelimited"} (fixture rate_limited_429.http.txt), or HTTP 200
// with {"ok":false,"error":code}.
func (f failure) write(w http.ResponseWriter) {
	if f.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
	}
	writeJSON(w, f.status, errorBody{Error: f.code})
}

// FailNext makes the next call of the Web API method (for example
// "chat.postMessage") answer HTTP 200 {"ok":false,"error":code}, before any other
// check; slack-go returns it as slack.SlackErrorResponse{Err: code}. Injected
// failures queue up per method, one per call. It returns an error wrapping
// ErrUnknownMethod for a method this server does not serve, or ErrInvalidFailure for
// an empty code; nothing is queued then.
func (s *Server) FailNext(method, code string) error {
	if code == "" {
		return fmt.Errorf("slacktest: fail next %s: %w: empty error code",
			method, ErrInvalidFailure)
	}
	return s.inject(method, failure{status: http.StatusOK, code: code})
}

// RateLimitNext makes the next call of the Web API method answer HTTP 429 Too Many
// Requests with "Retry-After: <retryAfter>" (seconds) and
// {"ok":false,"error":"ratelimited"}; slack-go returns it as
// *slack.RateLimitedError{RetryAfter: retryAfter s}. It queues like FailNext and
// returns an error wrapping ErrUnknownMethod for a method this server does not serve,
// or ErrInvalidFailure for a negative retryAfter; nothing is queued then.
func (s *Server) RateLimitNext(method string, retryAfter int) error {
	if retryAfter < 0 {
		return fmt.Errorf("slacktest: rate limit next %s: %w: negative Retry-After %d",
			method, ErrInvalidFailure, retryAfter)
	}
	return s.inject(method,
		failure{status: http.StatusTooManyRequests, retryAfter: retryAfter, code: "ratelimited"})
}

// LoseReplyNext makes the next call of the Web API method be served as usual — a
// chat.postMessage posts its message — and then lose its reply: the connection is
// closed without an answer, as when the network drops after Slack acted, so slack-go
// gets an EOF for a call that took effect. Lost replies queue up per method. It
// returns an error wrapping ErrUnknownMethod for a method this server does not serve.
func (s *Server) LoseReplyNext(method string) error {
	if _, ok := s.methods[method]; !ok {
		return fmt.Errorf("slacktest: lose reply next: %w: %q", ErrUnknownMethod, method)
	}
	s.mu.Lock()
	s.lost[method]++
	s.mu.Unlock()
	return nil
}

// lostReply is the http.ResponseWriter of a call whose reply is lost: it keeps
// nothing.
type lostReply struct{ header http.Header }

func (l *lostReply) Header() http.Header         { return l.header }
func (l *lostReply) Write(b []byte) (int, error) { return len(b), nil }
func (l *lostReply) WriteHeader(int)             {}

// inject queues f for method.
func (s *Server) inject(method string, f failure) error {
	if _, ok := s.methods[method]; !ok {
		return fmt.Errorf("slacktest: inject failure: %w: %q", ErrUnknownMethod, method)
	}
	s.mu.Lock()
	s.failures[method] = append(s.failures[method], f)
	s.mu.Unlock()
	return nil
}

// errorBody is a Web API error answer, fields in Slack's order.
type errorBody struct {
	OK               bool          `json:"ok"`
	Error            string        `json:"error"`
	ReqMethod        string        `json:"req_method,omitempty"`
	ResponseMetadata *metadataBody `json:"response_metadata,omitempty"`
}

// metadataBody is the response_metadata of an error answer.
type metadataBody struct {
	Messages []string `json:"messages"`
}

// writeError sends a Web API error answer with HTTP 200.
func writeError(w http.ResponseWriter, e *apiError) {
	body := errorBody{Error: e.code}
	if len(e.messages) > 0 {
		body.ResponseMetadata = &metadataBody{Messages: e.messages}
	}
	writeJSON(w, http.StatusOK, body)
}

// writeJSON sends v as a JSON answer with the given HTTP status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own answers are marshalled: this is a bug
		panic(fmt.Sprintf("slacktest: marshal answer: %v", err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
