package slack_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// signingVector is a signing example of the fixtures.
type signingVector struct {
	Secret      string `json:"signing_secret"`
	Timestamp   string `json:"timestamp"`
	Body        string `json:"body"`
	Expected    string `json:"expected_signature"`
	WrongSecret string `json:"wrong_signing_secret"`
}

// Verify accepts the signing examples of Slack's documentation and of slack-go at
// their own time, with the window of 5 minutes either way, and refuses everything
// else with ErrStaleRequest or ErrBadSignature.
func TestVerify(t *testing.T) {
	var docs, sg signingVector
	testkit.ReadJSON(t, "request_signing_docs_example.json", &docs)
	testkit.ReadJSON(t, "request_signing_slackgo_vector.json", &sg)
	header := func(ts, sig string) http.Header {
		h := http.Header{}
		if ts != "" {
			h.Set("X-Slack-Request-Timestamp", ts)
		}
		if sig != "" {
			h.Set("X-Slack-Signature", sig)
		}
		return h
	}
	at := func(v signingVector, d time.Duration) time.Time {
		sec, err := strconv.ParseInt(v.Timestamp, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return time.Unix(sec, 0).Add(d)
	}
	for _, c := range []struct {
		name   string
		secret string
		h      http.Header
		body   string
		now    time.Time
		want   error
		msg    string
	}{
		{"docs example", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, 0), nil, ""},
		{"docs example, 5 minutes later", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, 5*time.Minute), nil, ""},
		{"docs example, 5 minutes early", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, -5*time.Minute), nil, ""},
		{"slack-go vector", sg.Secret, header(sg.Timestamp, sg.Expected),
			sg.Body, at(sg, 90*time.Second), nil, ""},
		{"6 minutes old", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, 6*time.Minute), slack.ErrStaleRequest, "is 360 s from now"},
		{"5 minutes and 1 s old", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, 5*time.Minute+time.Second), slack.ErrStaleRequest, ""},
		{"6 minutes ahead", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, -6*time.Minute), slack.ErrStaleRequest, "is -360 s from now"},
		{"the wrong secret", sg.WrongSecret, header(sg.Timestamp, sg.Expected),
			sg.Body, at(sg, 0), slack.ErrBadSignature, ""},
		{"another body", docs.Secret, header(docs.Timestamp, docs.Expected),
			docs.Body + "&x=1", at(docs, 0), slack.ErrBadSignature, ""},
		{"another timestamp", docs.Secret, header("1531420619", docs.Expected),
			docs.Body, at(docs, 0), slack.ErrBadSignature, ""},
		{"upper-case hex", docs.Secret,
			header(docs.Timestamp, "v0="+strings.ToUpper(docs.Expected[3:])),
			docs.Body, at(docs, 0), slack.ErrBadSignature, ""},
		{"no signature", docs.Secret, header(docs.Timestamp, ""),
			docs.Body, at(docs, 0), slack.ErrBadSignature, "missing"},
		{"no timestamp", docs.Secret, header("", docs.Expected),
			docs.Body, at(docs, 0), slack.ErrBadSignature, "missing"},
		{"a timestamp that is no number", docs.Secret, header("yesterday", docs.Expected),
			docs.Body, at(docs, 0), slack.ErrBadSignature, "not Unix seconds"},
		{"a timestamp far away", docs.Secret, header("99999999999999999", docs.Expected),
			docs.Body, at(docs, 0), slack.ErrStaleRequest, ""},
		{"no secret configured", "", header(docs.Timestamp, docs.Expected),
			docs.Body, at(docs, 0), slack.ErrBadSignature, "no signing secret"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := slack.Verify(c.secret, c.h, []byte(c.body), c.now)
			if c.want == nil {
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
				return
			}
			if !strings.HasPrefix(err.Error(), "slack: verify request: ") ||
				!strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: message %q, want it to say %q", c.name, err, c.msg)
			}
			if strings.Contains(err.Error(), docs.Secret) ||
				strings.Contains(err.Error(), sg.Secret) {
				t.Errorf("%s: the error holds the secret: %v", c.name, err)
			}
		})
	}
}
