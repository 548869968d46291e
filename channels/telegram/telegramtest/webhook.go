package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"
)

// SecretTokenHeader is the header in which Telegram sends a webhook's secret_token
// with every delivery (https://core.telegram.org/bots/api#setwebhook).
const SecretTokenHeader = "X-Telegram-Bot-Api-Secret-Token"

// defaultMaxConnections is setWebhook's max_connections when not given.
const defaultMaxConnections = 40

// Webhook is the webhook the bot set (or SetWebhook left over). A zero URL means none.
type Webhook struct {
	// URL is where Telegram would deliver updates; empty when no webhook is set.
	URL string
	// SecretToken is the secret_token Telegram would send in SecretTokenHeader; empty
	// for none.
	SecretToken string
	// MaxConnections is max_connections (1–100, default 40).
	MaxConnections int
	// AllowedUpdates is allowed_updates as given, nil when not given.
	AllowedUpdates []string
}

func (w Webhook) equal(o Webhook) bool {
	return w.URL == o.URL && w.SecretToken == o.SecretToken &&
		w.MaxConnections == o.MaxConnections && slices.Equal(w.AllowedUpdates, o.AllowedUpdates)
}

var secretTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

// setWebhook serves https://core.telegram.org/bots/api#setwebhook. The URL is
// checked as Telegram checks it (parsable, HTTPS, port 80, 88, 443 or 8443) but
// nothing is delivered to it: tests POST updates to the bot's handler with
// PostWebhook. Setting a webhook ends a waiting getUpdates with
// ErrTerminatedBySetWebhook; while it is set, getUpdates answers ErrWebhookActive.
// An empty url removes the webhook, as deleteWebhook.
func (s *Server) setWebhook(p params) reply {
	raw := strings.TrimSpace(p["url"])
	drop := p.boolParam("drop_pending_updates")
	if raw == "" {
		return s.removeWebhookLocked(drop)
	}
	bad := func(description string) reply {
		return fail(APIError{Code: 400, Description: "Bad Request: " + description})
	}
	secret := p["secret_token"]
	switch {
	case len(secret) > 256:
		return bad("secret token is too long")
	case !secretTokenPattern.MatchString(secret):
		return bad("secret token contains unallowed characters")
	}
	maxConn := p.intParam("max_connections", defaultMaxConnections, 1, 100)
	w := Webhook{URL: raw, SecretToken: secret, MaxConnections: maxConn}
	if a := p["allowed_updates"]; a != "" {
		if json.Unmarshal([]byte(a), &w.AllowedUpdates) != nil {
			return bad("can't parse allowed_updates JSON object")
		}
	}
	if w.equal(s.webhook) && !drop {
		return reply{result: true, description: "Webhook is already set"}
	}
	withScheme := raw
	if !strings.Contains(raw, "://") { // the Bot API parses a URL without scheme as HTTPS
		withScheme = "https://" + raw
	}
	u, err := url.Parse(withScheme)
	if err != nil || u.Hostname() == "" {
		return bad("invalid webhook URL specified")
	}
	if u.Scheme != "https" {
		return bad("bad webhook: HTTPS url must be provided for webhook")
	}
	ports := []string{"443", "80", "88", "8443"}
	if port := u.Port(); port != "" && !slices.Contains(ports, port) {
		return bad("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
	}
	if drop {
		s.queue = nil
	}
	s.abortPollLocked(ErrTerminatedBySetWebhook)
	s.webhook = w
	return reply{result: true, description: "Webhook was set"}
}

// deleteWebhook serves https://core.telegram.org/bots/api#deletewebhook.
func (s *Server) deleteWebhook(p params) reply {
	return s.removeWebhookLocked(p.boolParam("drop_pending_updates"))
}

func (s *Server) removeWebhookLocked(drop bool) reply {
	if drop {
		s.queue = nil
	}
	if s.webhook.URL == "" {
		return reply{result: true, description: "Webhook is already deleted"}
	}
	s.webhook = Webhook{}
	return reply{result: true, description: "Webhook was deleted"}
}

// getWebhookInfo serves https://core.telegram.org/bots/api#getwebhookinfo.
func (s *Server) getWebhookInfo(params) reply {
	info := models.WebhookInfo{URL: s.webhook.URL, PendingUpdateCount: len(s.queue)}
	if s.webhook.URL != "" {
		info.MaxConnections = s.webhook.MaxConnections
		info.AllowedUpdates = slices.Clone(s.webhook.AllowedUpdates)
	}
	return reply{result: info}
}

// SetWebhook sets a webhook as if an earlier setup had left it there: getUpdates
// answers ErrWebhookActive until the bot calls deleteWebhook (or setWebhook with an
// empty url). The URL is not checked; a waiting getUpdates is ended with
// ErrTerminatedBySetWebhook. An empty webhookURL removes the webhook.
func (s *Server) SetWebhook(webhookURL, secretToken string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if webhookURL == "" {
		s.webhook = Webhook{}
	} else {
		s.abortPollLocked(ErrTerminatedBySetWebhook)
		s.webhook = Webhook{URL: webhookURL, SecretToken: secretToken,
			MaxConnections: defaultMaxConnections}
	}
	s.notifyLocked()
}

// Webhook returns the webhook currently set (a zero URL for none).
func (s *Server) Webhook() Webhook {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.webhook
	w.AllowedUpdates = slices.Clone(w.AllowedUpdates)
	return w
}

// PostWebhook delivers an update to a bot's webhook handler the way Telegram does: a
// POST of the update's JSON with Content-Type application/json and, when secretToken
// is not empty, the SecretTokenHeader (fixture webhook_request.http.txt). It returns
// the HTTP status the handler answered (Telegram retries a non-2xx delivery). The URL
// must be on the loopback interface ("127.0.0.1", "::1" or "localhost"); another
// returns an error wrapping ErrNotLoopback and sends nothing. It blocks until the
// handler answers or ctx ends.
func PostWebhook(ctx context.Context, webhookURL, secretToken string, update []byte) (int, error) {
	u, err := url.Parse(webhookURL)
	if err != nil {
		return 0, fmt.Errorf("telegramtest: post webhook: %w", err)
	}
	if h := u.Hostname(); h != "localhost" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return 0, fmt.Errorf("telegramtest: post webhook to %q: %w", h, ErrNotLoopback)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, webhookURL,
		bytes.NewReader(update))
	if err != nil {
		return 0, fmt.Errorf("telegramtest: post webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if secretToken != "" {
		req.Header.Set(SecretTokenHeader, secretToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("telegramtest: post webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
