package slacktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Sign returns Slack's v0 request signature of body sent at timestamp (Unix seconds,
// as the X-Slack-Request-Timestamp header carries it): "v0=" and the hex HMAC-SHA256,
// keyed with the signing secret as UTF-8, of "v0:<timestamp>:<body>" (Slack,
// "Verifying requests from Slack"; fixtures request_signing_*.json).
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:", timestamp)
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// NewSignedRequest builds the POST Slack makes to an HTTP-mode app: body (a form:
// BlockActionBody or SlashCommandBody) sent to target with Content-Type
// application/x-www-form-urlencoded, X-Slack-Request-Timestamp = sentAt in Unix
// seconds, and X-Slack-Signature = Sign(secret, timestamp, body). Pass an old sentAt
// to test replay protection, a wrong secret to test a bad signature. It returns
// http.NewRequestWithContext's error for a bad target.
func NewSignedRequest(ctx context.Context, target, secret string, sentAt time.Time,
	body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("slacktest: signed request: %w", err)
	}
	ts := strconv.FormatInt(sentAt.Unix(), 10)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", Sign(secret, ts, body))
	return req, nil
}
