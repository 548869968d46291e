package telegram

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/skald-circle/skald-bot/internal/netaddr"
)

// OptionError is an option New refuses. Option is its name as the configuration file
// spells it below telegram ("token", "chats[1]", "webhook.url"), Value what was given
// ("" for the token and the secret token, never shown), Problem what is wrong with it.
// It wraps ErrInvalidOptions.
type OptionError struct {
	Option, Value, Problem string
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return e.Option + ": " + e.Problem
	}
	return fmt.Sprintf("%s %q: %s", e.Option, e.Value, e.Problem)
}

func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

// Check returns nil when New accepts o's Token, APIURL, Chats and Webhook, else every
// problem joined, each an *OptionError. It ignores the other fields and does no I/O.
// New calls it; config calls it to check the telegram section before start-up.
func (o Options) Check() error {
	var errs []error
	bad := func(option, value, problem string) {
		errs = append(errs, &OptionError{Option: option, Value: value, Problem: problem})
	}
	idPart, _, _ := strings.Cut(o.Token, ":")
	if id, err := strconv.ParseInt(idPart, 10, 64); !tokenPattern.MatchString(o.Token) ||
		err != nil || id <= 0 {
		bad("token", "", `must be the "<bot id>:<secret>" BotFather gave`)
	}
	if o.APIURL != "" && !httpURL(o.APIURL) {
		bad("api_url", o.APIURL, "must be an http:// or https:// URL")
	}
	for i, id := range o.Chats {
		if id == 0 {
			bad(fmt.Sprintf("chats[%d]", i), "0", "must be a chat id")
		}
	}
	w := o.Webhook
	if w.URL == "" {
		if w.Listen != "" || w.SecretToken != "" || w.Listener != nil {
			bad("webhook", "", "listen and secret_token need webhook.url")
		}
		return errors.Join(errs...)
	}
	if !httpURL(w.URL) {
		bad("webhook.url", w.URL, "must be an http:// or https:// URL")
	} else if problem := webhookProblem(w.URL, o.APIURL); problem != "" {
		bad("webhook.url", w.URL, problem)
	}
	switch {
	case w.Listener != nil:
	case w.Listen == "":
		bad("webhook.listen", "", "required with webhook.url")
	default:
		if problem := netaddr.ListenProblem(w.Listen); problem != "" {
			bad("webhook.listen", w.Listen, problem)
		}
	}
	if !validSecretToken(w.SecretToken) {
		bad("webhook.secret_token", "", "required with webhook.url: 1 to 256 of A-Z a-z 0-9 _ -")
	}
	return errors.Join(errs...)
}

var tokenPattern = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{1,200}$`)

// httpURL reports whether s parses as an http or https URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// webhookPorts are the ports the Bot API delivers webhooks to
// (https://core.telegram.org/bots/api#setwebhook).
var webhookPorts = map[string]bool{"443": true, "80": true, "88": true, "8443": true}

// webhookProblem says why the Bot API would refuse the http(s) URL u as a webhook, ""
// when it would not: the cloud Bot API wants https on port 443, 80, 88 or 8443. A
// loopback host (tests, a reverse proxy on the machine) and a local Bot API server
// (apiURL naming another host than api.telegram.org) are exempt.
func webhookProblem(u, apiURL string) string {
	wu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if api, err := url.Parse(apiURL); apiURL != "" && err == nil &&
		api.Hostname() != "api.telegram.org" {
		return ""
	}
	if host := wu.Hostname(); host == "localhost" || net.ParseIP(host).IsLoopback() {
		return ""
	}
	if wu.Scheme != "https" {
		return "must be an https:// URL (Telegram delivers webhooks over HTTPS only)"
	}
	if port := wu.Port(); port != "" && !webhookPorts[port] {
		return "port " + port + ": Telegram delivers webhooks to ports 443, 80, 88 and 8443 only"
	}
	return ""
}

// validSecretToken reports whether s may be a webhook's secret_token: 1 to 256 of
// A-Z a-z 0-9 _ - (https://core.telegram.org/bots/api#setwebhook).
func validSecretToken(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for i := range len(s) {
		b := s[i]
		ok := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
			b == '_' || b == '-'
		if !ok {
			return false
		}
	}
	return true
}
