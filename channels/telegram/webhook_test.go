package telegram

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// In webhook mode Run sets the webhook with its secret token and serves deliveries;
// it never polls.
func TestWebhookMode(t *testing.T) {
	e := newTelegramEnv(t, envOptions{webhook: true}).start()
	if _, err := e.srv.WaitCalls(e.ctx, "setWebhook", 1); err != nil {
		t.Fatal(err)
	}
	w := e.srv.Webhook()
	if w.URL != hookURL || w.SecretToken != secretToken ||
		strings.Join(w.AllowedUpdates, ",") != "message,callback_query" {
		t.Errorf("webhook %+v", w)
	}
	reply := e.deliver(janeChat.ID, func() {
		e.post(e.srv.MessageUpdate(jane, janeChat, "/whoami"))
	})
	if !strings.Contains(reply, "approver") {
		t.Errorf("whoami: %q", reply)
	}
	if n := e.srv.CallCount("getUpdates"); n != 0 {
		t.Errorf("%d getUpdates calls in webhook mode", n)
	}
	// The line follows setWebhook's reply, which the server's record of the call
	// precedes.
	if _, err := e.logs.Wait(e.ctx, []string{"receiving updates by webhook",
		"host=bot.example.com"}); err != nil ||
		len(e.logs.Find("receiving updates by webhook")) != 1 ||
		strings.Contains(e.logs.All(), "/telegram/hook") {
		t.Errorf("start not logged, or the URL's path logged:\n%s", e.logs.All())
	}
}

// A delivery with a wrong or missing secret token gets 401 and changes nothing —
// the same update delivered with the right one then acts. Other bad requests get
// their status, and nothing changes either.
func TestWebhookRefusals(t *testing.T) {
	e := newTelegramEnv(t, envOptions{webhook: true}).start()
	if _, err := e.srv.WaitCalls(e.ctx, "setWebhook", 1); err != nil {
		t.Fatal(err)
	}
	u := e.srv.MessageUpdate(alice, janeChat, "/allow Bash note=webhook")
	id, err := e.srv.Inject(u)
	if err != nil {
		t.Fatal(err)
	}
	u.ID = id
	before := e.snapshot()
	for _, secret := range []string{"", "wrong", secretToken + "x", strings.ToUpper(secretToken)} {
		if code := e.postRaw(u, secret); code != http.StatusUnauthorized {
			t.Errorf("secret %q: %d, want 401", secret, code)
		}
	}
	// Without the secret, another path and another method get 401 too; with it, each
	// bad request its own status.
	body := []byte(testkit.JSON(u))
	for _, tc := range []struct {
		name, method, path, secret string
		body                       []byte
		want                       int
	}{
		{"POST /other without the secret", "POST", "/other", "", nil, http.StatusUnauthorized},
		{"GET without the secret", "GET", "/telegram/hook", "", nil, http.StatusUnauthorized},
		{"other path", "POST", "/other", secretToken, body, http.StatusNotFound},
		{"GET", "GET", "/telegram/hook", secretToken, nil, http.StatusMethodNotAllowed},
		{"not JSON", "POST", "/telegram/hook", secretToken, []byte("{not json"),
			http.StatusBadRequest},
		{"no update_id", "POST", "/telegram/hook", secretToken,
			[]byte(`{"message":{"text":"/allow Bash"}}`), http.StatusBadRequest},
		{"too large", "POST", "/telegram/hook", secretToken,
			bytes.Repeat([]byte(" "), maxUpdateBytes+1), http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(e.ctx, tc.method,
				strings.TrimSuffix(e.hook, "/telegram/hook")+tc.path, bytes.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.secret != "" {
				req.Header.Set(SecretTokenHeader, tc.secret)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
			}
		})
	}
	if after := e.snapshot(); after != before {
		t.Errorf("refused deliveries changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if n := len(e.replies(janeChat.ID)); n != 0 {
		t.Errorf("%d replies to refused deliveries", n)
	}
	if n := len(e.logs.Find("without the right secret token refused")); n != 6 {
		t.Errorf("%d refusals logged, want 6", n)
	}

	reply := e.deliver(janeChat.ID, func() {
		if code := e.postRaw(u, secretToken); code != http.StatusOK {
			t.Errorf("right secret: %d", code)
		}
	})
	if !strings.Contains(reply, "Created rule #") || e.rulesNoted("webhook") != 1 {
		t.Errorf("the update was not handled once the secret was right: %q", reply)
	}
}

// The same update delivered twice (Telegram retries a delivery it got no 200 for)
// acts once; both deliveries get 200.
func TestWebhookDeliveredTwice(t *testing.T) {
	e := newTelegramEnv(t, envOptions{webhook: true}).start()
	u := e.srv.MessageUpdate(alice, janeChat, "/allow Bash note=twice")
	id, err := e.srv.Inject(u)
	if err != nil {
		t.Fatal(err)
	}
	u.ID = id
	for i := range 2 {
		if code := e.postRaw(u, secretToken); code != http.StatusOK {
			t.Errorf("delivery %d: %d", i+1, code)
		}
	}
	if n := e.rulesNoted("twice"); n != 1 {
		t.Errorf("%d rules, want 1", n)
	}
	if n := len(e.replies(janeChat.ID)); n != 1 {
		t.Errorf("%d replies, want 1", n)
	}
}

// Run ends with an error when the Bot API refuses the webhook or the address
// cannot be bound.
func TestWebhookStartupErrors(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	refused := telegramtest.APIError{Code: 400,
		Description: "Bad Request: bad webhook: HTTPS url must be provided for webhook"}
	if err := e.srv.FailNext("setWebhook", refused); err != nil {
		t.Fatal(err)
	}
	ch := e.newChannel(func(o *Options) {
		o.Webhook = Webhook{URL: hookURL, SecretToken: secretToken, Listen: "127.0.0.1:0"}
	})
	if err := ch.Run(e.ctx); !errors.Is(err, ErrWebhookRefused) ||
		!strings.Contains(err.Error(), "HTTPS url must be provided") {
		t.Errorf("Run with a refused webhook: %v", err)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ch = e.newChannel(func(o *Options) {
		o.Webhook = Webhook{URL: hookURL, SecretToken: secretToken, Listen: taken.Addr().String()}
	})
	calls := e.srv.CallCount("setWebhook")
	if err := ch.Run(e.ctx); err == nil ||
		!strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Run on a taken address: %v", err)
	}
	if n := e.srv.CallCount("setWebhook"); n != calls {
		t.Error("setWebhook called though nothing listens")
	}
}

// Run stops the webhook server when ctx is done, and a delivery then is not taken.
func TestWebhookStops(t *testing.T) {
	e := newTelegramEnv(t, envOptions{webhook: true}).start()
	if _, err := e.srv.WaitCalls(e.ctx, "setWebhook", 1); err != nil {
		t.Fatal(err)
	}
	e.stop()
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	if _, err := telegramtest.PostWebhook(ctx, e.hook, secretToken,
		[]byte(`{"update_id":1}`)); err == nil {
		t.Error("delivered after Run returned")
	}
	if w := e.srv.Webhook(); w.URL != hookURL {
		t.Errorf("webhook removed at shutdown: %+v", w)
	}
}
