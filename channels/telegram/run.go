package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	tgbot "github.com/go-telegram/bot"
)

// startBackoff is the wait after the first failed start-up call, doubled after each
// next failure up to startMaxBackoff.
const (
	startBackoff    = time.Second
	startMaxBackoff = time.Minute
)

// Run takes updates, by long polling or by webhook (see the package doc), until ctx is
// done. Start-up calls that fail for a passing reason (network, 5xx, 429) are retried
// with backoff (1 s doubling to 1 min). Run blocks; it returns nil once ctx is done and
// every goroutine it started has stopped. Errors: ErrRunning when called twice;
// ErrUnauthorized when the Bot API refuses the token; ErrWebhookRefused when it
// refuses the webhook; the listener's error when Webhook.Listen cannot be bound; the
// webhook server's error should it stop on its own.
func (c *Channel) Run(ctx context.Context) error {
	if !c.running.CompareAndSwap(false, true) {
		return fmt.Errorf("telegram: run: %w", ErrRunning)
	}
	c.work.Open(ctx)
	defer c.work.Close(0) // the work runs under its update's context, which ctx ends
	err := c.startup(ctx, "getMe", func(ctx context.Context) error {
		me, err := c.tg.GetMe(ctx)
		if err == nil {
			c.setUsername(me.Username)
		}
		return err
	})
	switch {
	case err == nil && c.webhook.URL != "":
		err = c.runWebhook(ctx)
	case err == nil:
		err = c.runPolling(ctx)
	case c.webhook.Listener != nil:
		_ = c.webhook.Listener.Close() // Run owns it, and will not serve it
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, ctx.Err())) {
		return nil
	}
	return err
}

// runPolling removes a leftover webhook, then long-polls until ctx is done.
func (c *Channel) runPolling(ctx context.Context) error {
	err := c.startup(ctx, "deleteWebhook", func(ctx context.Context) error {
		info, err := c.tg.GetWebhookInfo(ctx)
		if err != nil || info.URL == "" {
			return err
		}
		// The URL may hold a secret in its path: only its host is logged.
		c.log.Warn(
			"deleting a webhook left over from an earlier setup, so that long polling works",
			"host", hookHost(info.URL), "pending_updates", info.PendingUpdateCount)
		_, err = c.tg.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{})
		return err
	})
	if err != nil {
		return err
	}
	c.log.Info("receiving updates by long polling",
		"username", c.botUsername(), "offset", c.offset)
	// Start returns once its poller and its worker have stopped.
	c.tg.Start(ctx)
	return nil
}

// startup runs call until it succeeds, waiting between attempts (the 429's
// retry_after, else a backoff). It gives up at once on ErrUnauthorized (a 401) and
// on errors call marks with ErrWebhookRefused, and returns ctx's error when ctx ends.
func (c *Channel) startup(ctx context.Context, op string,
	call func(ctx context.Context) error) error {
	backoff := startBackoff
	for {
		err := c.withRetryAfter(ctx, op, call)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, tgbot.ErrorUnauthorized):
			return fmt.Errorf("telegram: %s: %w: %w", op, ErrUnauthorized, err)
		case errors.Is(err, ErrWebhookRefused):
			return fmt.Errorf("telegram: %s: %w", op, err)
		}
		c.log.Warn("Bot API call failed at start-up; retrying",
			"op", op, "in", backoff, "err", err)
		if err := c.sleep(ctx, backoff); err != nil {
			return err
		}
		backoff = min(2*backoff, startMaxBackoff)
	}
}
