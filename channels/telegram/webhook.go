package telegram

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/internal/httpserve"
)

// Webhook mode. go-telegram/bot's own WebhookHandler answers 200 to
// a delivery with a wrong secret token (it only logs), so the Channel serves its own
// handler and decodes updates itself; the library is used for the Bot API calls.

// SecretTokenHeader is the header in which Telegram sends the webhook's
// secret_token with every delivery (https://core.telegram.org/bots/api#setwebhook).
const SecretTokenHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxUpdateBytes bounds a webhook delivery's body: an update is a few kilobytes.
const maxUpdateBytes = 1 << 20

// shutdownTimeout bounds the wait for webhook deliveries in progress at shutdown;
// their context is already cancelled, so they end quickly.
const shutdownTimeout = 10 * time.Second

// webhookHandler serves Telegram's deliveries: 401 when the secret token header is
// missing or wrong (compared in constant time) — first, so that such a request
// learns nothing and nothing of it is read or acted on —, 404 for another path than
// the webhook URL's, 405 for another method than POST, 413 for a body over 1 MiB, 400
// for one that is not an update; else the update is handled (ctx is Run's) and the
// answer is 200 once it is. A delivery that arrives while Run stops gets 503, and
// Telegram delivers it again later.
func (c *Channel) webhookHandler(ctx context.Context) http.Handler {
	secret := []byte(c.webhook.SecretToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(SecretTokenHeader)), secret) != 1 {
			c.log.Warn("webhook delivery without the right secret token refused",
				"remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.EscapedPath() != c.hookPath {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				http.Error(w, "update too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		var u models.Update
		if err := json.Unmarshal(body, &u); err != nil || u.ID <= 0 {
			c.log.Warn("webhook delivery that is not an update refused", "remote", r.RemoteAddr)
			http.Error(w, "not a Telegram update", http.StatusBadRequest)
			return
		}
		if _, ok := c.work.Enter(); !ok {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		defer c.work.Leave()
		c.handle(ctx, &u)
	})
}

// runWebhook listens, sets the webhook, and serves deliveries until ctx is done. It
// listens before setWebhook, so Telegram's first delivery finds the server up. It
// does not delete the webhook when it stops: Telegram keeps the updates that come
// meanwhile for the next start.
func (c *Channel) runWebhook(ctx context.Context) error {
	ln := c.webhook.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", c.webhook.Listen); err != nil {
			return fmt.Errorf("telegram: webhook: %w", err)
		}
	}
	srv := httpserve.NewServer(c.webhookHandler(ctx), c.log)
	return httpserve.Serve(ctx, srv, ln, shutdownTimeout, c.log, "telegram: webhook",
		func(ctx context.Context) error {
			err := c.startup(ctx, "setWebhook", func(ctx context.Context) error {
				_, err := c.tg.SetWebhook(ctx, &tgbot.SetWebhookParams{
					URL:            c.webhook.URL,
					SecretToken:    c.webhook.SecretToken,
					AllowedUpdates: allowedUpdates,
				})
				if errors.Is(err, tgbot.ErrorBadRequest) {
					return fmt.Errorf("%w: %w", ErrWebhookRefused, err)
				}
				return err
			})
			if err == nil {
				// The URL's path may hold a secret of its own: only its host is logged.
				c.log.Info("receiving updates by webhook",
					"host", hookHost(c.webhook.URL), "listen", ln.Addr().String())
			}
			return err
		})
}

func hookHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
