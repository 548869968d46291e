package slack_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// A request that is not genuinely Slack's — a bad signature, a timestamp 6 minutes
// old or ahead, no signature, a tampered body — is answered 401 and changes nothing;
// neither does one too large (413), malformed (400), on another path (404) or with
// another method (405). The trigger_id of a refused request is not remembered: the
// genuine click with the same trigger_id then approves.
func TestHTTPRefused(t *testing.T) {
	e := newEnv(t, httpMode, envOptions{})
	req, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
	click := slacktest.BlockAction{UserID: approver, MessageTS: ts, Value: bot.Callback{RequestID: req.ID, Action: bot.ActionApprove}.String(),
		TriggerID: "1000000000009.2000000000002.feedfacefeedfacefeedfacefeedface"}
	body := e.srv.BlockActionBody(click)
	cmdBody := e.srv.SlashCommandBody(slacktest.SlashCommand{UserID: admin, Text: "allow Read"})
	now := e.clock.Now()
	ctx := testkit.Context(t, 30*time.Second)
	signed := func(path, secret string, at time.Time, body []byte) *http.Request {
		r, err := slacktest.NewSignedRequest(ctx, e.base+path, secret, at, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name string
		req  func() *http.Request
		want int
	}{
		{"a wrong signing secret", func() *http.Request {
			return signed(slack.PathInteractions, "e6b19c573432dcc6b075501d51b51boo", now, body)
		}, 401},
		{"a timestamp 6 minutes old", func() *http.Request { return signed(slack.PathInteractions, secret, now.Add(-6*time.Minute), body) }, 401},
		{"a timestamp 6 minutes ahead", func() *http.Request { return signed(slack.PathInteractions, secret, now.Add(6*time.Minute), body) }, 401},
		{"a command 6 minutes old", func() *http.Request { return signed(slack.PathCommands, secret, now.Add(-6*time.Minute), cmdBody) }, 401},
		{"a command with a wrong secret", func() *http.Request { return signed(slack.PathCommands, "not-the-secret", now, cmdBody) }, 401},
		{"no signature", func() *http.Request {
			r := signed(slack.PathInteractions, secret, now, body)
			r.Header.Del("X-Slack-Signature")
			return r
		}, 401},
		{"a malformed signature", func() *http.Request {
			r := signed(slack.PathInteractions, secret, now, body)
			r.Header.Set("X-Slack-Signature", "v0=zz")
			return r
		}, 401},
		{"a tampered body", func() *http.Request {
			r := signed(slack.PathInteractions, secret, now, body)
			forged := bytes.Replace(body, []byte(approver), []byte(stranger), 1)
			r2, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), bytes.NewReader(forged))
			testkit.Must(t, err)
			r2.Header = r.Header
			return r2
		}, 401},
		{"a body over the limit", func() *http.Request {
			return signed(slack.PathInteractions, secret, now, bytes.Repeat([]byte("a"), slack.MaxBodyBytes+1))
		}, 413},
		{"a signed body that is no payload", func() *http.Request {
			return signed(slack.PathInteractions, secret, now, []byte("payload=%7Bnot+json"))
		}, 400},
		{"a signed command without a user", func() *http.Request {
			return signed(slack.PathCommands, secret, now, []byte("command=%2Fskald&text=pending"))
		}, 400},
		{"GET", func() *http.Request {
			r, err := http.NewRequestWithContext(ctx, http.MethodGet, e.base+slack.PathInteractions, nil)
			testkit.Must(t, err)
			return r
		}, 405},
		{"another path", func() *http.Request { return signed("/slack/events", secret, now, body) }, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			if got := e.do(c.req()); got != c.want {
				t.Errorf("%s: status %d, want %d", c.name, got, c.want)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	if got := e.request(req.ID); got.Status != store.Pending {
		t.Fatalf("request %s after refused requests", got.Status)
	}

	// The genuine click, same trigger_id: approved.
	e.clickAction(click)
	if _, toast := e.nextEphemeral(); toast != "Approved" {
		t.Errorf("toast %q", toast)
	}
	e.waitFinal(req.ID)
	e.stop()
	if n := len(e.srv.Ephemerals()); n != 1 {
		t.Errorf("%d ephemerals, want only the toast of the genuine click", n)
	}
	rs, err := e.db.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.ToolPattern == "Read" && r.PathPattern == "" {
			t.Errorf("a refused command created rule %+v", r)
		}
	}
}

// The fixture's signed click (Slack's example signing secret, a timestamp of 2025) is
// accepted when the injected clock reads 2 s after it.
func TestHTTPFixtureRequest(t *testing.T) {
	e := newEnv(t, httpMode, envOptions{})
	var f struct {
		Headers   map[string]string `json:"headers"`
		ClockUnix int64             `json:"clock_unix"`
	}
	readJSON(t, "block_actions_signed_request.json", &f)
	body := testkit.ReadFile(t, "block_actions_form_body.txt")
	send := func() int {
		r, err := http.NewRequestWithContext(testkit.Context(t, 30*time.Second), http.MethodPost, e.base+slack.PathInteractions, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range f.Headers {
			r.Header.Set(k, v)
		}
		return e.do(r)
	}
	if got := send(); got != http.StatusUnauthorized {
		t.Errorf("the fixture now (a 2025 timestamp): status %d, want 401", got)
	}
	e.clock.Set(time.Unix(f.ClockUnix, 0))
	if got := send(); got != http.StatusOK {
		t.Fatalf("the fixture at its clock: status %d, want 200", got)
	}
	// Its button is not one of ours.
	eph, toast := e.nextEphemeral()
	if toast != "Invalid button" || eph.User != slacktest.DefaultUser {
		t.Errorf("toast %q to %s", toast, eph.User)
	}
}

// Handler can be mounted on another server; it takes work only while Run runs, and
// answers 503 otherwise, which Slack retries.
func TestHandlerMounted(t *testing.T) {
	e := newEnv(t, httpMode, envOptions{manual: true})
	mounted := httptest.NewServer(e.ch.Handler())
	t.Cleanup(mounted.Close)
	cmd := delivery{path: slack.PathCommands, body: e.srv.SlashCommandBody(slacktest.SlashCommand{UserID: approver, Text: "whoami"})}
	post := func(want int) {
		t.Helper()
		req, err := slacktest.NewSignedRequest(testkit.Context(t, 30*time.Second), mounted.URL+cmd.path, secret, time.Now(), cmd.body)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.do(req); got != want {
			t.Fatalf("status %d, want %d", got, want)
		}
	}
	post(http.StatusServiceUnavailable)
	e.start()
	post(http.StatusOK)
	if _, reply := e.nextEphemeral(); !strings.Contains(reply, approver) {
		t.Errorf("whoami reply %q", reply)
	}
	e.stop()
	post(http.StatusServiceUnavailable)
	if n := len(e.srv.Ephemerals()); n != 1 {
		t.Errorf("%d ephemerals, want 1", n)
	}
}
