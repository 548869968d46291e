package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// The socket dropped by the server, or a disconnect message: the client reconnects
// through apps.connections.open and the next click and command work.
func TestSocketReconnect(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	ctx := testkit.Context(t, 30*time.Second)
	req, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
	if err := e.srv.Drop(); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	click := e.click(approver, ts, req.ID, bot.ActionApprove)
	if ack := e.srv.Acks(); len(ack) != 1 || ack[0].EnvelopeID != click.envelope.EnvelopeID ||
		ack[0].Connection != 2 {
		t.Errorf("acks %+v, want the click's on connection 2", ack)
	}
	if _, toast := e.nextEphemeral(); toast != "Approved" {
		t.Errorf("toast %q", toast)
	}
	e.waitFinal(req.ID)
	e.checkUpdates(ts)

	if err := e.srv.Disconnect("refresh_requested"); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.WaitConnections(ctx, 3); err != nil {
		t.Fatal(err)
	}
	e.command(approver, "whoami")
	if _, reply := e.nextEphemeral(); reply !=
		"jane.approver · id U0FAKEUSR01 · slack · approver" {
		t.Errorf("whoami after the reconnect: %q", reply)
	}
}

// When slack-go's client gives up — Slack refuses the app-level token on
// apps.connections.open — Run keeps going and restarts it with a doubling backoff;
// prompts still go out through the Web API.
func TestSocketRestart(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true,
		srv: slacktest.Config{AppToken: "xapp-1-A0FAKEAPP01-0000000003-OTHERappTOKEN01"}})
	e.wake = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.ch.Run(ctx) }()
	for i := range 3 {
		e.wake <- struct{}{} // returns once Run sleeps before restart i+1
		if got := e.srv.Calls("apps.connections.open"); got < i+1 {
			t.Fatalf("%d calls of apps.connections.open before restart %d", got, i+1)
		}
	}
	p := bot.NewPrompt(store.Request{ID: 1, ToolName: "Bash", Status: store.Pending}, 0)
	_, err := e.ch.Send(testkit.Context(t, 30*time.Second), slacktest.DefaultChannel, p)
	if err != nil {
		t.Errorf("Send while Socket Mode is down: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil after its context ended", err)
	}
	got := e.slept()
	if len(got) < 3 || got[0] != time.Second || got[1] != 2*time.Second ||
		got[2] != 4*time.Second {
		t.Errorf("backoff %v, want 1s 2s 4s …", got)
	}
	if e.srv.Connections() != 0 {
		t.Errorf("%d connections with a refused token", e.srv.Connections())
	}
}

// Every envelope is acknowledged, also those the channel has no use for (an Events
// API event, a shortcut), which change nothing.
func TestSocketOtherEnvelopes(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	before := teststore.Snapshot(t, e.db)
	for _, name := range []string{
		"socket_mode_events_api_app_mention.json", "socket_mode_interactive_shortcut.json",
	} {
		var f struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		testkit.ReadJSON(t, name, &f)
		env, err := e.srv.Push(slacktest.Envelope{Type: f.Type, Payload: f.Payload})
		if err != nil {
			t.Fatal(err)
		}
		e.waitAck(env.EnvelopeID, 1)
	}
	e.stop()
	teststore.Unchanged(t, e.db, before)
	if n := len(e.srv.Ephemerals()); n != 0 {
		t.Errorf("%d ephemerals", n)
	}
}

// The ack does not wait for the work: a command still running (a job being started)
// is already acknowledged — an empty ack in Socket Mode, an empty 200 over HTTP — and
// its reply follows when it is done.
func TestAckBeforeWork(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			e.jobs.hold = make(chan struct{})
			e.command(admin, "run nightly-backup") // returns once acknowledged
			if m == socketMode {
				if acks := e.srv.Acks(); len(acks) != 1 || acks[0].Payload != nil {
					t.Errorf("acks %+v, want one without a payload", acks)
				}
			}
			if n := len(e.srv.Ephemerals()); n != 0 {
				t.Fatalf("%d replies before the command finished", n)
			}
			e.jobs.hold <- struct{}{}
			if _, reply := e.nextEphemeral(); !strings.Contains(reply, "nightly-backup") {
				t.Errorf("reply %q", reply)
			}
		})
	}
}

// Run checks the bot token first: one Slack refuses ends Run with ErrUnauthorized.
func TestRunBadToken(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{manual: true,
				srv: slacktest.Config{BotToken: "xoxb-0000000001-0000000002-OTHERbotTOKEN01"}})
			err := e.ch.Run(testkit.Context(t, 30*time.Second))
			if !errors.Is(err, slack.ErrUnauthorized) ||
				!strings.Contains(err.Error(), "invalid_auth") {
				t.Fatalf("Run = %v, want ErrUnauthorized (invalid_auth)", err)
			}
			if strings.Contains(err.Error(), slacktest.DefaultBotToken) {
				t.Errorf("the error holds the token: %v", err)
			}
			_, err = e.ch.Addr(testkit.Context(t, 30*time.Second))
			if !errors.Is(err, slack.ErrNoListener) {
				t.Errorf("Addr after a failed Run: %v, want ErrNoListener", err)
			}
			if e.srv.Connections() != 0 {
				t.Errorf("%d Socket Mode connections", e.srv.Connections())
			}
		})
	}
}

// Run runs once; Addr says when there is nothing to listen on.
func TestRunTwiceAndAddr(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	if err := e.ch.Run(context.Background()); !errors.Is(err, slack.ErrRunning) {
		t.Errorf("second Run = %v, want ErrRunning", err)
	}
	if _, err := e.ch.Addr(context.Background()); !errors.Is(err, slack.ErrNoListener) {
		t.Errorf("Addr in Socket Mode = %v, want ErrNoListener", err)
	}
	h := newSlackEnv(t, httpMode, envOptions{manual: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.ch.Addr(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Addr before Run with a done context = %v, want context.Canceled", err)
	}
}

// New refuses options it cannot run with, saying what is missing, without a token.
func TestNewInvalid(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{manual: true})
	b, err := bot.New(bot.Options{Gate: e.g})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  slack.Options
		msg  string
	}{
		{"nothing", slack.Options{}, "missing a bot token, a Bot, a delivery log, " +
			"an app-level token (Socket Mode) or a signing secret (HTTP mode)"},
		{"no bot", slack.Options{BotToken: slacktest.DefaultBotToken,
			AppToken: slacktest.DefaultAppToken, Deliveries: e.db}, "missing a Bot"},
		{"no store", slack.Options{BotToken: slacktest.DefaultBotToken,
			AppToken: slacktest.DefaultAppToken, Bot: b}, "missing a delivery log"},
		{"no mode", slack.Options{BotToken: slacktest.DefaultBotToken, Bot: b, Deliveries: e.db},
			"missing an app-level token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch, err := slack.New(c.opt)
			if ch != nil || !errors.Is(err, slack.ErrInvalidOptions) ||
				!strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: New = %v, %v; want ErrInvalidOptions saying %q",
					c.name, ch, err, c.msg)
			}
		})
	}
	ch, err := slack.New(slack.Options{BotToken: slacktest.DefaultBotToken, SigningSecret: secret,
		Bot: b, Deliveries: e.db, Channels: []string{"C1", "C2"}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name() != "slack" || ch.SocketMode() || strings.Join(ch.Targets(), ",") != "C1,C2" {
		t.Errorf("Name %q, SocketMode %v, Targets %v", ch.Name(), ch.SocketMode(), ch.Targets())
	}
}

// A delivery log that cannot be written: the delivery is not run, and the user is
// told "Internal error".
func TestDeliveryLogFails(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{deliveries: failingLog{}})
			before := teststore.Snapshot(t, e.db)
			e.command(admin, "allow Read")
			if _, reply := e.nextEphemeral(); reply != "Internal error" {
				t.Errorf("reply %q", reply)
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
}

type failingLog struct{}

func (failingLog) SeenDelivery(string, time.Time, time.Duration) (bool, error) {
	return false, store.ErrInvalid
}

// A request that is not genuinely Slack's — a bad signature, a timestamp 6 minutes
// old or ahead, no signature, a tampered body — is answered 401 and changes nothing;
// neither does one too large (413), malformed (400), on another path (404) or with
// another method (405). The trigger_id of a refused request is not remembered: the
// genuine click with the same trigger_id then approves.
func TestHTTPRefused(t *testing.T) {
	e := newSlackEnv(t, httpMode, envOptions{})
	req, ts := e.require("s1", "Bash", map[string]any{"command": "ls"})
	click := slacktest.BlockAction{UserID: approver, MessageTS: ts,
		Value:     bot.Callback{RequestID: req.ID, Action: bot.ActionApprove}.String(),
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
		{"a timestamp 6 minutes old", func() *http.Request {
			return signed(slack.PathInteractions, secret, now.Add(-6*time.Minute), body)
		}, 401},
		{"a timestamp 6 minutes ahead", func() *http.Request {
			return signed(slack.PathInteractions, secret, now.Add(6*time.Minute), body)
		}, 401},
		{"a command 6 minutes old", func() *http.Request {
			return signed(slack.PathCommands, secret, now.Add(-6*time.Minute), cmdBody)
		}, 401},
		{"a command with a wrong secret", func() *http.Request {
			return signed(slack.PathCommands, "not-the-secret", now, cmdBody)
		}, 401},
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
			r2, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(),
				bytes.NewReader(forged))
			testkit.Must(t, err)
			r2.Header = r.Header
			return r2
		}, 401},
		{"a body over the limit", func() *http.Request {
			return signed(slack.PathInteractions, secret, now,
				bytes.Repeat([]byte("a"), slack.MaxBodyBytes+1))
		}, 413},
		{"a signed body that is no payload", func() *http.Request {
			return signed(slack.PathInteractions, secret, now, []byte("payload=%7Bnot+json"))
		}, 400},
		{"a signed command without a user", func() *http.Request {
			return signed(slack.PathCommands, secret, now, []byte("command=%2Fskald&text=pending"))
		}, 400},
		{"GET", func() *http.Request {
			r, err := http.NewRequestWithContext(ctx, http.MethodGet,
				e.base+slack.PathInteractions, nil)
			testkit.Must(t, err)
			return r
		}, 405},
		{"another path", func() *http.Request {
			return signed("/slack/events", secret, now, body)
		}, 404},
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
	e := newSlackEnv(t, httpMode, envOptions{})
	var f struct {
		Headers   map[string]string `json:"headers"`
		ClockUnix int64             `json:"clock_unix"`
	}
	testkit.ReadJSON(t, "block_actions_signed_request.json", &f)
	body := testkit.ReadFile(t, "block_actions_form_body.txt")
	send := func() int {
		r, err := http.NewRequestWithContext(testkit.Context(t, 30*time.Second), http.MethodPost,
			e.base+slack.PathInteractions, bytes.NewReader(body))
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
	e := newSlackEnv(t, httpMode, envOptions{manual: true})
	mounted := httptest.NewServer(e.ch.Handler())
	t.Cleanup(mounted.Close)
	cmd := delivery{path: slack.PathCommands,
		body: e.srv.SlashCommandBody(slacktest.SlashCommand{UserID: approver, Text: "whoami"})}
	post := func(want int) {
		t.Helper()
		req, err := slacktest.NewSignedRequest(testkit.Context(t, 30*time.Second),
			mounted.URL+cmd.path, secret, time.Now(), cmd.body)
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
