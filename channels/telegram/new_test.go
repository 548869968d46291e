package telegram

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// New refuses options it cannot work with, naming the option, and calls nothing.
func TestNewInvalidOptions(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	good := func() Options {
		return Options{Token: telegramtest.DefaultToken, Chats: []int64{1}, Handler: e.bot,
			Store: e.db}
	}
	// hooked sets a good webhook, then changes it.
	hooked := func(change func(*Webhook)) func(*Options) {
		return func(o *Options) {
			o.Webhook = Webhook{URL: hookURL, SecretToken: secretToken, Listen: "127.0.0.1:0"}
			change(&o.Webhook)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no token", func(o *Options) { o.Token = "" }, "token"},
		{"no colon", func(o *Options) { o.Token = "7000000001" }, "token"},
		{"no secret", func(o *Options) { o.Token = "7000000001:" }, "token"},
		{"bad id", func(o *Options) { o.Token = "abc:def" }, "token"},
		{"zero id", func(o *Options) { o.Token = "0:def" }, "token"},
		{"id overflow", func(o *Options) { o.Token = "99999999999999999999:def" }, "token"},
		{"spaces", func(o *Options) { o.Token = "7000000001:AA BB" }, "token"},
		{"no handler", func(o *Options) { o.Handler = nil }, "no Handler"},
		{"no store", func(o *Options) { o.Store = nil }, "no Store"},
		{"api url", func(o *Options) { o.APIURL = "ftp://x" }, `api_url "ftp://x"`},
		{"api url no host", func(o *Options) { o.APIURL = "http://" }, "api_url"},
		{"chat 0", func(o *Options) { o.Chats = []int64{5, 0} },
			`chats[1] "0": must be a chat id`},
		{"webhook url", hooked(func(w *Webhook) { w.URL = "bot.example.com/hook" }),
			"webhook.url"},
		{"webhook no secret", hooked(func(w *Webhook) { w.SecretToken = "" }),
			"webhook.secret_token"},
		{"webhook bad secret", hooked(func(w *Webhook) { w.SecretToken = "has space" }),
			"webhook.secret_token"},
		{"webhook long secret",
			hooked(func(w *Webhook) { w.SecretToken = strings.Repeat("a", 257) }),
			"webhook.secret_token"},
		{"webhook no listen", hooked(func(w *Webhook) { w.Listen = "" }), "webhook.listen"},
		{"listen without url", func(o *Options) { o.Webhook = Webhook{Listen: ":8443"} },
			"need webhook.url"},
		{"secret without url", func(o *Options) { o.Webhook = Webhook{SecretToken: "x"} },
			"need webhook.url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := good()
			tc.change(&opt)
			ch, err := New(opt)
			if ch != nil || !errors.Is(err, ErrInvalidOptions) ||
				!strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want ErrInvalidOptions naming %q", tc.name, err, tc.want)
			}
			if err != nil && opt.Token != "" && strings.Contains(err.Error(), opt.Token) {
				t.Errorf("%s: the token is in the error: %v", tc.name, err)
			}
		})
	}
	if n := e.srv.CallCount(""); n != 0 {
		t.Errorf("%d Bot API calls", n)
	}
	if ch, err := New(good()); err != nil || ch.Name() != "telegram" ||
		strings.Join(ch.Targets(), ",") != "1" {
		t.Errorf("good options: %v", err)
	}
}

// failingStore fails every call.
type failingStore struct{}

var errDisk = errors.New("disk on fire")

func (failingStore) GetMeta(string) ([]byte, error) { return nil, errDisk }
func (failingStore) PutMeta(string, []byte) error   { return errDisk }
func (failingStore) SeenDelivery(string, time.Time, time.Duration) (bool, error) {
	return false, errDisk
}

// A store that cannot be read fails New.
func TestNewStoreError(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	_, err := New(Options{Token: telegramtest.DefaultToken, Handler: e.bot, Store: failingStore{}})
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "read the stored offset") {
		t.Errorf("New: %v", err)
	}
}
