package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// MaxRequestAge is how far an HTTP-mode request's X-Slack-Request-Timestamp may be
// from now, either way, before it is refused as a replay.
const MaxRequestAge = 5 * time.Minute

// The headers of Slack's request signing.
const (
	headerSignature = "X-Slack-Signature"
	headerTimestamp = "X-Slack-Request-Timestamp"
)

// Verify checks the v0 signature of a request Slack sent to an HTTP-mode app: the
// hex HMAC-SHA256, keyed with secret, of "v0:<timestamp>:<body>", compared in
// constant time, with a timestamp within MaxRequestAge of now. It returns nil for a
// genuine request, an error wrapping ErrStaleRequest for a timestamp outside the
// window, and one wrapping ErrBadSignature for a missing or malformed header, an
// empty secret, or a signature that does not match. now is the caller's clock, so
// fixed test vectors work (slack-go's verifier reads the wall clock).
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	ts, sig := h.Get(headerTimestamp), h.Get(headerSignature)
	if secret == "" {
		return fmt.Errorf("slack: verify request: %w: no signing secret configured",
			ErrBadSignature)
	}
	if ts == "" || sig == "" {
		return fmt.Errorf("slack: verify request: %w: missing %s or %s",
			ErrBadSignature, headerTimestamp, headerSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec <= 0 {
		return fmt.Errorf("slack: verify request: %w: timestamp %.20q is not Unix seconds",
			ErrBadSignature, ts)
	}
	// Compare in seconds: a time.Duration overflows for timestamps centuries away.
	maxAge := int64(MaxRequestAge / time.Second)
	if age := now.Unix() - sec; age > maxAge || -age > maxAge {
		return fmt.Errorf("slack: verify request: %w: timestamp %d is %d s from now",
			ErrStaleRequest, sec, age)
	}
	if !hmac.Equal([]byte(sign(secret, ts, body)), []byte(sig)) {
		return fmt.Errorf("slack: verify request: %w", ErrBadSignature)
	}
	return nil
}

// sign returns the v0 signature of body sent at timestamp (Unix seconds, as the
// X-Slack-Request-Timestamp header carries it): "v0=" and the hex HMAC-SHA256 of
// "v0:<timestamp>:<body>" keyed with secret.
func sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + timestamp + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}
