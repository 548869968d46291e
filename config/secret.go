package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// Secret is a token or signing secret read from the configuration (api.token,
// telegram.token, slack.bot_token, …). Every way of printing it — String, fmt verbs
// including %v, %+v, %#v and %q, slog, JSON, text and YAML marshalling — gives
// "[redacted]" (or "" when it is empty), so a Config can be logged whole.
// Reveal returns the real value, for the one place that sends it.
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret itself. Call it only where the value is sent to the
// service it belongs to, never to build a message or a log line.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]", or "" when the secret is empty (so a log still shows
// whether it is set).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// Format implements fmt.Formatter: every verb prints String, %q and %#v quoted.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		_, _ = io.WriteString(f, strconv.Quote(s.String()))
		return
	}
	_, _ = io.WriteString(f, s.String())
}

// LogValue implements slog.LogValuer: the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON returns the redacted form as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText returns the redacted form (used by YAML encoding and map keys).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
