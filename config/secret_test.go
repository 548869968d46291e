package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// secretConfig is a Config with a distinct value in every secret.
func secretConfig(t *testing.T) (*Config, []string) {
	t.Helper()
	secrets := map[string]string{
		"ADMIN": "admin-tok-1-0123456", "AGENT": "agent-tok-2-0123456", "TG": "123456:tg-tok-3",
		"HOOK": "hook-tok-4", "XOXB": "xoxb-tok-5", "XAPP": "xapp-tok-6", "SIGN": "sign-tok-7",
	}
	c, err := Parse([]byte(`
api:
  token: ${ADMIN}
  agent_tokens: [{token: "${AGENT}", profile: default}]
telegram:
  token: ${TG}
  webhook: {url: "https://x.example/h", listen: "127.0.0.1:0", secret_token: "${HOOK}"}
slack: {bot_token: "${XOXB}", app_token: "${XAPP}", signing_secret: "${SIGN}"}
`), func(k string) string { return secrets[k] })
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, v := range secrets {
		vals = append(vals, v)
	}
	return c, vals
}

func assertNoSecret(t *testing.T, how, out string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("%s reveals %q: %s", how, s, out)
		}
	}
	if !strings.Contains(out, "[redacted]") {
		t.Errorf("%s shows no [redacted] marker: %s", how, out)
	}
}

// TestSecretNeverPrinted prints a Config every way a program might and checks no
// token appears.
func TestSecretNeverPrinted(t *testing.T) {
	c, secrets := secretConfig(t)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		assertNoSecret(t, "fmt "+verb+" of *Config", fmt.Sprintf(verb, c), secrets)
		assertNoSecret(t, "fmt "+verb+" of Config", fmt.Sprintf(verb, *c), secrets)
		assertNoSecret(t, "fmt "+verb+" of a Secret", fmt.Sprintf(verb, c.API.Token),
			[]string{"admin-tok-1"})
	}
	assertNoSecret(t, "fmt Sprint", fmt.Sprint(c.Slack.BotToken, c.API.AgentTokens), secrets)

	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "json.Marshal", string(j), secrets)

	y, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "yaml.Marshal", string(y), secrets)

	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		log := slog.New(h(&buf))
		log.Info("loaded", "config", c, "token", c.Telegram.Token, slog.Any("slack", c.Slack))
		assertNoSecret(t, "slog", buf.String(), secrets)
	}
}

// TestSecretReveal checks the value is still there for whoever needs it, and that an
// empty secret prints empty (so a log shows it is unset).
func TestSecretReveal(t *testing.T) {
	c, _ := secretConfig(t)
	if c.Slack.AppToken.Reveal() != "xapp-tok-6" {
		t.Errorf("Reveal = %q", c.Slack.AppToken.Reveal())
	}
	var empty Secret
	if s := fmt.Sprintf("%v|%s|%q", empty, empty, empty); s != `||""` {
		t.Errorf("empty secret prints %s", s)
	}
	if b := testkit.Marshal(t, empty); string(b) != `""` {
		t.Errorf("empty secret JSON %s", b)
	}
}
