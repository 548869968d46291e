package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/internal/httpserve"
)

// MaxBodyBytes caps the body of an HTTP-mode request; a longer one is answered 413.
// A click carries the clicked message, blocks included: tens of kilobytes at most.
const MaxBodyBytes = 1 << 20

// The Request URLs of an HTTP-mode app, to enter in the app's settings:
// Interactivity & Shortcuts → Request URL, and the /skald slash command's Request URL.
const (
	PathInteractions = "/slack/interactions"
	PathCommands     = "/slack/commands"
)

// Handler returns the HTTP-mode endpoints, POST /slack/interactions (button clicks)
// and POST /slack/commands (/skald), which Run serves on Options.HTTPListen. A request
// over MaxBodyBytes gets 413, a bad signature (Verify) 401, a body that is no Slack
// payload 400, another method 405, another path 404; nothing changes then. A genuine
// one gets an empty 200 at once and its work runs after, owned by Run; while Run is
// not running the answer is 503, which Slack retries.
func (c *Channel) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathInteractions, c.serveInteractions)
	mux.HandleFunc("POST "+PathCommands, c.serveCommands)
	return mux
}

func (c *Channel) serveInteractions(w http.ResponseWriter, r *http.Request) {
	c.serve(w, r, "interaction payload", func(r *http.Request) (string, handler, error) {
		cb, err := slackgo.InteractionCallbackParse(r)
		work := func(ctx context.Context, key string) { c.handleInteraction(ctx, key, cb) }
		return cb.TriggerID, work, err
	})
}

func (c *Channel) serveCommands(w http.ResponseWriter, r *http.Request) {
	c.serve(w, r, "slash command", func(r *http.Request) (string, handler, error) {
		cmd, err := slackgo.SlashCommandParse(r)
		if err == nil && (cmd.UserID == "" || cmd.ChannelID == "") {
			err = errors.New("no user_id or channel_id")
		}
		work := func(ctx context.Context, key string) { c.handleCommand(ctx, key, cmd) }
		return cmd.TriggerID, work, err
	})
}

// handler is the work of one delivery; key identifies the delivery for the
// DeliveryLog ("" when it carries no id).
type handler func(ctx context.Context, key string)

// serve answers one HTTP-mode delivery: verified, then parsed by parse, which returns
// the delivery's trigger_id and its work. A body parse refuses is answered 400
// "malformed what"; else the work is acknowledged (ack), keyed by the trigger_id.
func (c *Channel) serve(w http.ResponseWriter, r *http.Request, what string,
	parse func(r *http.Request) (trigger string, work handler, err error)) {
	body, ok := c.verified(w, r)
	if !ok {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	trigger, work, err := parse(r)
	if err != nil {
		c.log.Warn("refused a delivery that is not a Slack "+what, "err", err)
		http.Error(w, "malformed "+what, http.StatusBadRequest)
		return
	}
	key := ""
	if trigger != "" {
		key = "slack:trigger:" + trigger
	}
	c.ack(w, func(ctx context.Context) { work(ctx, key) })
}

// ack hands work to Run's workers and answers 200 with an empty body, or 503 when
// Run is not taking work (Slack retries it).
func (c *Channel) ack(w http.ResponseWriter, work func(ctx context.Context)) {
	if !c.work.Go(work) {
		c.log.Warn("refused a delivery: not running")
		http.Error(w, "not running", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// verified reads r's body within MaxBodyBytes and checks its signature. On failure it
// answers r (413, 400 or 401) and returns false.
func (c *Channel) verified(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			c.log.Warn("refused a request over the body limit",
				"path", r.URL.Path, "limit", MaxBodyBytes)
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return nil, false
	}
	if err := Verify(c.secret, r.Header, body, c.now()); err != nil {
		c.log.Warn("refused a request that failed signature verification", "path", r.URL.Path,
			"remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// runHTTP serves Handler on c.listen until ctx is done, then shuts the server down
// (in-flight requests get ShutdownGrace).
func (c *Channel) runHTTP(ctx context.Context) error {
	if c.listen == "" {
		c.log.Info("HTTP mode without slack.http_listen: serving only where Handler is mounted")
		<-ctx.Done()
		return nil
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("slack: listen on %s: %w", c.listen, err)
	}
	c.doneListening(ln.Addr())
	c.log.Info("listening",
		"addr", ln.Addr().String(), "paths", []string{PathInteractions, PathCommands})
	srv := httpserve.NewServer(c.Handler(), c.log)
	srv.WriteTimeout = 30 * time.Second
	srv.MaxHeaderBytes = 64 << 10
	return httpserve.Serve(ctx, srv, ln, ShutdownGrace, c.log, "slack", nil)
}
