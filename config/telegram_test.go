package config

import (
	"errors"
	"slices"
	"testing"

	"github.com/skald-circle/skald-bot/channels/telegram"
)

// The configuration refuses a telegram section exactly when telegram.New refuses the
// options it gives, so `config check` catches what would stop the service at start-up.
func TestTelegramConfigAndNewRefuseTheSameOptions(t *testing.T) {
	const token = "7000000001:AAbbCC"
	hook := Webhook{URL: "https://bot.example.com/hook", Listen: "127.0.0.1:8443",
		SecretToken: "s3cret"}
	with := func(f func(*Telegram)) Telegram {
		tg := Telegram{Token: token, Chats: []int64{-100123}, Webhook: hook}
		f(&tg)
		return tg
	}
	for _, tc := range []struct {
		name string
		tg   Telegram
		want []string // the refused options, sorted
	}{
		{"good", with(func(*Telegram) {}), nil},
		{"long polling", with(func(tg *Telegram) { tg.Webhook = Webhook{} }), nil},
		{"token without id", with(func(tg *Telegram) { tg.Token = "t" }), []string{"token"}},
		{"token id 0", with(func(tg *Telegram) { tg.Token = "0:abc" }), []string{"token"}},
		{"api_url ftp", with(func(tg *Telegram) { tg.APIURL = "ftp://x" }), []string{"api_url"}},
		{"chat 0", with(func(tg *Telegram) { tg.Chats = []int64{5, 0} }), []string{"chats[1]"}},
		{"http webhook, cloud API", with(func(tg *Telegram) {
			tg.Webhook.URL = "http://bot.example.com/hook"
		}), []string{"webhook.url"}},
		{"http webhook, local API", with(func(tg *Telegram) {
			tg.APIURL, tg.Webhook.URL = "http://10.0.0.5:8081", "http://10.0.0.6:3000/h"
		}), nil},
		{"webhook port", with(func(tg *Telegram) {
			tg.Webhook.URL = "https://bot.example.com:8080/hook"
		}), []string{"webhook.url"}},
		{"webhook not a url", with(func(tg *Telegram) { tg.Webhook.URL = "bot.example.com/h" }),
			[]string{"webhook.url"}},
		{"listen not host:port", with(func(tg *Telegram) { tg.Webhook.Listen = "x" }),
			[]string{"webhook.listen"}},
		{"no listen", with(func(tg *Telegram) { tg.Webhook.Listen = "" }),
			[]string{"webhook.listen"}},
		{"bad secret", with(func(tg *Telegram) { tg.Webhook.SecretToken = "a b" }),
			[]string{"webhook.secret_token"}},
		{"listen without url", with(func(tg *Telegram) { tg.Webhook.URL = "" }),
			[]string{"webhook"}},
		{"several", with(func(tg *Telegram) { tg.Token, tg.Chats = "x", []int64{0} }),
			[]string{"chats[0]", "token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p problems
			(&Config{Telegram: tc.tg}).validateTelegram(&p)
			var fromConfig []string
			for _, err := range p {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("config: %v, want a *FieldError", err)
				}
				fromConfig = append(fromConfig, fe.Key[len("telegram."):])
			}
			// New checks the options before its Handler and Store, so nil ones are
			// enough to see which options it refuses.
			_, err := telegram.New(tc.tg.Options())
			if err == nil {
				t.Fatal("New with no Handler and no Store succeeded")
			}
			var fromNew []string
			for _, e := range unjoin(err) {
				var oe *telegram.OptionError
				if errors.As(e, &oe) {
					fromNew = append(fromNew, oe.Option)
				}
			}
			slices.Sort(fromConfig)
			slices.Sort(fromNew)
			if !slices.Equal(fromConfig, tc.want) || !slices.Equal(fromNew, tc.want) {
				t.Errorf("config refuses %q, New refuses %q, want %q",
					fromConfig, fromNew, tc.want)
			}
		})
	}
}

// unjoin returns the errors err joins, or err alone.
func unjoin(err error) []error {
	for {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			return j.Unwrap()
		}
		u := errors.Unwrap(err)
		if u == nil {
			return []error{err}
		}
		err = u
	}
}
