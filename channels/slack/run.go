package slack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	slackgo "github.com/slack-go/slack"
)

// ShutdownGrace is how long Run, once its context is done, lets the work in flight
// (taps and commands already acknowledged, HTTP requests being answered) finish
// before it cancels them.
const ShutdownGrace = 5 * time.Second

// authTimeout bounds the auth.test call Run starts with.
const authTimeout = 15 * time.Second

// fatalAuth are the auth.test errors that mean the bot token will never work.
var fatalAuth = map[string]bool{
	"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true,
}

// Run receives clicks and /skald commands, over Socket Mode when Options.AppToken is
// set, else by serving Handler on Options.HTTPListen, until ctx is done; then it gives
// the work in flight ShutdownGrace to finish and returns nil once all it started has
// stopped. It blocks. Errors: ErrUnauthorized at once when auth.test refuses the bot
// token (a Slack it cannot reach is logged, and Run carries on), ErrRunning when
// called twice, the listener's error in HTTP mode.
func (c *Channel) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("slack: run: %w", ErrRunning)
	}
	c.started = true
	c.mu.Unlock()
	defer c.doneListening(nil)

	if err := c.checkAuth(ctx); err != nil {
		return err
	}
	c.work.Open(context.WithoutCancel(ctx)) // the work outlives ctx by ShutdownGrace
	var err error
	if c.SocketMode() {
		err = c.runSocket(ctx)
	} else {
		err = c.runHTTP(ctx)
	}
	c.work.Close(ShutdownGrace)
	c.log.Info("stopped")
	return err
}

// checkAuth calls auth.test: nil unless Slack refused the bot token.
func (c *Channel) checkAuth(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, authTimeout)
	defer cancel()
	res, err := c.api.AuthTestContext(actx)
	if err == nil {
		mode := "http"
		if c.SocketMode() {
			mode = "socket"
		}
		c.log.Info("connected to Slack",
			"team_id", res.TeamID, "bot_user_id", res.UserID,
			"mode", mode, "channels", len(c.targets))
		return nil
	}
	if se, ok := errors.AsType[slackgo.SlackErrorResponse](err); ok && fatalAuth[se.Err] {
		return fmt.Errorf("slack: run: %w: auth.test: %s", ErrUnauthorized, se.Err)
	}
	if ctx.Err() == nil {
		c.log.Warn("auth.test failed; carrying on", "err", err)
	}
	return nil
}

// doneListening records the address Run listens on (nil: it will not listen) and
// wakes Addr; only the first call counts.
func (c *Channel) doneListening(a net.Addr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.listening:
		return
	default:
	}
	c.addr = a
	close(c.listening)
}

// Addr blocks until Run listens on Options.HTTPListen and returns the address, with
// the port chosen when HTTPListen's port is 0. It returns an error wrapping
// ErrNoListener in Socket Mode, without HTTPListen, or when Run ended before it
// listened, and one wrapping ctx.Err() when ctx ends first.
func (c *Channel) Addr(ctx context.Context) (net.Addr, error) {
	if c.SocketMode() || c.listen == "" {
		return nil, fmt.Errorf("slack: addr: %w", ErrNoListener)
	}
	select {
	case <-c.listening:
	case <-ctx.Done():
		return nil, fmt.Errorf("slack: addr: %w", ctx.Err())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addr == nil {
		return nil, fmt.Errorf("slack: addr: %w", ErrNoListener)
	}
	return c.addr, nil
}
