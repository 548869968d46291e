package slacktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// startSocketMode runs a real socketmode client against srv until the end of the
// test, and returns once srv has accepted its connection; the test reads its Events.
func startSocketMode(t *testing.T, srv *slacktest.Server) *socketmode.Client {
	t.Helper()
	smc := socketmode.New(newAPI(srv, slacktest.DefaultBotToken), socketmode.OptionDebug(false))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- smc.RunContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("RunContext: %v, want context.Canceled", err)
		}
	})
	if err := srv.WaitConnections(testkit.Context(t, 20*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	return smc
}

// nextEvent returns the next event of type typ, skipping the client's other events
// (connecting, connected, hello).
func nextEvent(ctx context.Context, t *testing.T, smc *socketmode.Client,
	typ socketmode.EventType) socketmode.Event {
	t.Helper()
	for {
		select {
		case evt := <-smc.Events:
			if evt.Type == typ {
				return evt
			}
			if evt.Type == socketmode.EventTypeConnectionError ||
				evt.Type == socketmode.EventTypeErrorBadMessage {
				t.Fatalf("waiting for %s: got %s: %+v", typ, evt.Type, evt.Data)
			}
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", typ, ctx.Err())
		}
	}
}

func TestSocketModeBlockActionIsAcked(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	ch := slacktest.DefaultChannel
	_, ts, err := newAPI(srv, slacktest.DefaultBotToken).PostMessageContext(ctx, ch,
		slack.MsgOptionText("prompt", false),
		slack.MsgOptionBlocks(promptBlocks("a:42:ok", "a:42:no")...))
	if err != nil {
		t.Fatal(err)
	}
	smc := startSocketMode(t, srv)

	env, err := srv.PushBlockAction(slacktest.BlockAction{UserID: "U0APPROVER1", Channel: ch,
		MessageTS: ts, Value: "a:42:no"})
	if err != nil {
		t.Fatalf("PushBlockAction: %v", err)
	}
	evt := nextEvent(ctx, t, smc, socketmode.EventTypeInteractive)
	cb, ok := evt.Data.(slack.InteractionCallback)
	if !ok {
		t.Fatalf("event data %T", evt.Data)
	}
	if evt.Request.EnvelopeID != env.EnvelopeID || evt.Request.AcceptsResponsePayload ||
		evt.Request.RetryAttempt != 0 {
		t.Fatalf("request %+v, pushed %+v", evt.Request, env)
	}
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U0APPROVER1" ||
		cb.Team.ID != slacktest.TeamID || cb.Container.MessageTs != ts ||
		cb.Container.ChannelID != ch || cb.Channel.ID != ch {
		t.Fatalf("callback %+v", cb)
	}
	acts := cb.ActionCallback.BlockActions
	if len(acts) != 1 || acts[0].Value != "a:42:no" || acts[0].ActionID != "reject" ||
		acts[0].BlockID != "actions" || acts[0].Text.Text != "Reject" || acts[0].ActionTs == "" {
		t.Fatalf("actions %+v (want the message's Reject button)", acts)
	}
	if cb.Message.Text != "prompt" || len(cb.Message.Blocks.BlockSet) != 3 || cb.TriggerID == "" {
		t.Fatalf("callback message %+v", cb.Message)
	}
	if !strings.HasPrefix(cb.ResponseURL, "http://127.0.0.1:") {
		t.Fatalf("response_url %q leaves loopback", cb.ResponseURL)
	}

	smc.Ack(*evt.Request)
	ack, err := srv.WaitAck(ctx, env.EnvelopeID)
	if err != nil {
		t.Fatal(err)
	}
	if ack.EnvelopeID != env.EnvelopeID || ack.Payload != nil || ack.Connection != 1 {
		t.Fatalf("ack %+v", ack)
	}
}

func TestSocketModeSlashCommandIsAckedWithPayload(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	smc := startSocketMode(t, srv)
	env, err := srv.PushSlashCommand(
		slacktest.SlashCommand{UserID: "U0ADMIN0001", Text: "rules default"})
	if err != nil {
		t.Fatal(err)
	}
	evt := nextEvent(ctx, t, smc, socketmode.EventTypeSlashCommand)
	cmd, ok := evt.Data.(slack.SlashCommand)
	if !ok {
		t.Fatalf("event data %T", evt.Data)
	}
	if cmd.Command != "/skald" || cmd.Text != "rules default" || cmd.UserID != "U0ADMIN0001" ||
		cmd.ChannelID != slacktest.DefaultChannel || cmd.TeamID != slacktest.TeamID ||
		cmd.APIAppID != slacktest.AppID || cmd.TriggerID == "" {
		t.Fatalf("slash command %+v", cmd)
	}
	if !evt.Request.AcceptsResponsePayload || evt.Request.EnvelopeID != env.EnvelopeID {
		t.Fatalf("request %+v", evt.Request)
	}
	smc.Ack(*evt.Request,
		map[string]any{"response_type": "ephemeral", "text": "Rules in group default: 3"})
	ack, err := srv.WaitAck(ctx, env.EnvelopeID)
	if err != nil {
		t.Fatal(err)
	}
	if string(ack.Payload) != `{"response_type":"ephemeral","text":"Rules in group default: 3"}` {
		t.Fatalf("ack payload %s", ack.Payload)
	}
}

func TestSocketModeRedelivery(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	smc := startSocketMode(t, srv)
	env, err := srv.PushBlockAction(slacktest.BlockAction{Value: "a:7:ok"})
	if err != nil {
		t.Fatal(err)
	}
	first := nextEvent(ctx, t, smc, socketmode.EventTypeInteractive)
	again, err := srv.Push(env.Retry("timeout"))
	if err != nil {
		t.Fatal(err)
	}
	second := nextEvent(ctx, t, smc, socketmode.EventTypeInteractive)
	if again.EnvelopeID != env.EnvelopeID || second.Request.EnvelopeID != env.EnvelopeID ||
		second.Request.RetryAttempt != 1 || second.Request.RetryReason != "timeout" ||
		first.Request.RetryAttempt != 0 {
		t.Fatalf("redelivery %+v after %+v", second.Request, first.Request)
	}
	if !bytes.Equal(first.Request.Payload, second.Request.Payload) {
		t.Fatalf("redelivered payload differs:\n%s\n%s",
			first.Request.Payload, second.Request.Payload)
	}
	smc.Ack(*first.Request)
	smc.Ack(*second.Request)
	acks, err := srv.WaitAcks(ctx, env.EnvelopeID, 2)
	if err != nil || len(acks) != 2 {
		t.Fatalf("WaitAcks: %v, %v", acks, err)
	}
}

func TestSocketModeReconnects(t *testing.T) {
	for name, cut := range map[string]func(*slacktest.Server) error{
		"drop":       (*slacktest.Server).Drop,
		"disconnect": func(s *slacktest.Server) error { return s.Disconnect("warning") },
	} {
		t.Run(name, func(t *testing.T) {
			srv := newSlackServer(t, slacktest.Config{})
			ctx := testkit.Context(t, 20*time.Second)
			smc := startSocketMode(t, srv)
			if err := cut(srv); err != nil {
				t.Fatal(err)
			}
			if err := srv.WaitConnections(ctx, 2); err != nil {
				t.Fatal(err)
			}
			if n := srv.Calls("apps.connections.open"); n != 2 {
				t.Fatalf("apps.connections.open called %d times, want 2", n)
			}
			env, err := srv.PushBlockAction(slacktest.BlockAction{Value: "after"})
			if err != nil {
				t.Fatal(err)
			}
			evt := nextEvent(ctx, t, smc, socketmode.EventTypeInteractive)
			smc.Ack(*evt.Request)
			ack, err := srv.WaitAck(ctx, env.EnvelopeID)
			if err != nil {
				t.Fatal(err)
			}
			if ack.Connection != 2 || srv.Connections() != 2 {
				t.Fatalf("ack %+v on connection %d of %d, want the second",
					ack, ack.Connection, srv.Connections())
			}
		})
	}
}

func TestSocketModeBadAppToken(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := slack.New(slacktest.DefaultBotToken, slack.OptionAPIURL(srv.URL()),
		slack.OptionAppLevelToken("xapp-1-wrong"))
	err := socketmode.New(api, socketmode.OptionDebug(false)).RunContext(ctx)
	if got := slackError(t, err); got != "invalid_auth" {
		t.Fatalf("RunContext with a wrong app token: %v", err)
	}
	for token, want := range map[string]string{
		slacktest.DefaultBotToken: "not_allowed_token_type", "": "not_authed",
	} {
		api := slack.New(slacktest.DefaultBotToken, slack.OptionAPIURL(srv.URL()),
			slack.OptionAppLevelToken(token))
		_, _, err := api.StartSocketModeContext(ctx)
		if got := slackError(t, err); got != want {
			t.Errorf("apps.connections.open with %q: %q, want %q", token, got, want)
		}
	}
	if srv.Connections() != 0 {
		t.Fatalf("Connections = %d", srv.Connections())
	}
}

func TestSocketControlsNeedAConnection(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	_, err1 := srv.PushBlockAction(slacktest.BlockAction{})
	_, err2 := srv.PushSlashCommand(slacktest.SlashCommand{})
	for _, tc := range []struct {
		err error
		msg string
	}{
		{err1, "slacktest: push interactive: no Socket Mode connection"},
		{err2, "slacktest: push slash_commands: no Socket Mode connection"},
		{srv.Drop(), "slacktest: drop: no Socket Mode connection"},
		{srv.Disconnect("warning"), "slacktest: disconnect: no Socket Mode connection"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			if !errors.Is(tc.err, slacktest.ErrNotConnected) || tc.err.Error() != tc.msg {
				t.Errorf("%v, want %q", tc.err, tc.msg)
			}
		})
	}
}

// dial opens a raw Socket Mode connection through apps.connections.open.
func dial(ctx context.Context, t *testing.T, srv *slacktest.Server) (*websocket.Conn, string) {
	t.Helper()
	_, u, err := newAPI(srv, slacktest.DefaultBotToken).StartSocketModeContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "ws://127.0.0.1:") || !strings.Contains(u, "/socket?ticket=") {
		t.Fatalf("apps.connections.open url %q", u)
	}
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, u
}

// readRaw reads one frame, waiting 10 seconds at the most.
func readRaw(t *testing.T, ws *websocket.Conn) []byte {
	t.Helper()
	testkit.Must(t, ws.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, b, err := ws.ReadMessage()
	testkit.Must(t, err)
	return b
}

// readFrame reads one JSON frame as a map, keeping its raw fields.
func readFrame(t *testing.T, ws *websocket.Conn) map[string]json.RawMessage {
	t.Helper()
	return object(t, readRaw(t, ws))
}

// object decodes a JSON object, keeping its raw fields.
func object(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// keysOf returns the sorted keys of a JSON object.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	return slices.Sorted(maps.Keys(object(t, raw)))
}

func TestSocketWireMatchesFixtures(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	ws, u := dial(ctx, t, srv)

	helloRaw := readRaw(t, ws)
	hello := object(t, helloRaw)
	if got, want := keysOf(t, helloRaw),
		keysOf(t, testkit.ReadFile(t, "socket_mode_hello.json")); !slices.Equal(got, want) {
		t.Fatalf("hello keys %v, fixture %v", got, want)
	}
	if string(hello["type"]) != `"hello"` || string(hello["num_connections"]) != "1" ||
		string(hello["connection_info"]) != `{"app_id":"`+slacktest.AppID+`"}` {
		t.Fatalf("hello %s", helloRaw)
	}

	if _, err := srv.PushBlockAction(slacktest.BlockAction{}); err != nil {
		t.Fatal(err)
	}
	envRaw := readRaw(t, ws)
	env := object(t, envRaw)
	fixRaw := testkit.ReadFile(t, "socket_mode_interactive_block_actions_composed.json")
	fix := object(t, fixRaw)
	if got, want := keysOf(t, envRaw), keysOf(t, fixRaw); !slices.Equal(got, want) {
		t.Fatalf("interactive envelope keys %v, fixture %v", got, want)
	}
	if got, want := keysOf(t, env["payload"]),
		keysOf(t, fix["payload"]); !slices.Equal(got, want) {
		t.Fatalf("block_actions payload keys %v, fixture %v", got, want)
	}

	if _, err := srv.PushSlashCommand(slacktest.SlashCommand{}); err != nil {
		t.Fatal(err)
	}
	slashRaw := readRaw(t, ws)
	slash := object(t, slashRaw)
	fixRaw = testkit.ReadFile(t, "socket_mode_slash_commands.json")
	fix = object(t, fixRaw)
	if got, want := keysOf(t, slashRaw), keysOf(t, fixRaw); !slices.Equal(got, want) {
		t.Fatalf("slash_commands envelope keys %v, fixture %v", got, want)
	}
	if got, want := keysOf(t, slash["payload"]),
		keysOf(t, fix["payload"]); !slices.Equal(got, want) {
		t.Fatalf("slash command payload keys %v, fixture %v", got, want)
	}

	// An ack as the fixture spells it is recorded; a frame that is not an ack is not.
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"not an ack"}`)); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteMessage(websocket.TextMessage,
		testkit.ReadFile(t, "socket_mode_ack.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WaitAck(ctx, "57d6a792-4d35-4d0b-b6aa-3361493e1caf"); err != nil {
		t.Fatal(err)
	}
	if acks := srv.Acks(); len(acks) != 1 {
		t.Fatalf("Acks = %+v, want only the real ack", acks)
	}

	if err := srv.Disconnect("refresh_requested"); err != nil {
		t.Fatal(err)
	}
	discRaw := readRaw(t, ws)
	disc := object(t, discRaw)
	if got, want := keysOf(t, discRaw),
		keysOf(t, testkit.ReadFile(t, "socket_mode_disconnect.json")); !slices.Equal(got, want) ||
		string(disc["reason"]) != `"refresh_requested"` {
		t.Fatalf("disconnect %s", discRaw)
	}
	_, err := srv.PushSlashCommand(slacktest.SlashCommand{})
	if !errors.Is(err, slacktest.ErrNotConnected) {
		t.Fatalf("push after disconnect: %v, "+
			"want ErrNotConnected (the connection is being retired)", err)
	}

	// A ticket opens one connection only.
	_, res, err := websocket.DefaultDialer.DialContext(ctx, u, nil)
	if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("second dial with the same ticket: %v, %v; want 401", err, res)
	}
	if srv.Connections() != 1 {
		t.Fatalf("Connections = %d", srv.Connections())
	}
}

func TestPushRejectsBadEnvelopes(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	ws, _ := dial(ctx, t, srv)
	readFrame(t, ws) // hello
	for _, e := range []slacktest.Envelope{
		{Payload: json.RawMessage(`{}`)},
		{Type: "interactive", Payload: json.RawMessage(`[1]`)},
		{Type: "interactive", Payload: json.RawMessage(`null`)},
		{Type: "interactive"},
	} {
		_, err := srv.Push(e)
		if !errors.Is(err, slacktest.ErrInvalidEnvelope) ||
			!strings.Contains(err.Error(), "needs a type and a JSON object payload") {
			t.Errorf("Push(%+v): %v", e, err)
		}
	}
	// Nothing was sent: the next frame is the next valid push.
	if _, err := srv.Push(slacktest.Envelope{Type: "events_api", EnvelopeID: "e1",
		Payload: json.RawMessage(`{"type":"event_callback"}`)}); err != nil {
		t.Fatal(err)
	}
	if f := readFrame(t, ws); string(f["envelope_id"]) != `"e1"` {
		t.Fatalf("next frame %v", f)
	}
}

func TestPings(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{PingInterval: time.Millisecond})
	ctx := testkit.Context(t, 20*time.Second)
	ws, _ := dial(ctx, t, srv)
	pinged := make(chan struct{}, 1)
	ws.SetPingHandler(func(string) error {
		select {
		case pinged <- struct{}{}:
		default:
		}
		return nil
	})
	readDone := make(chan struct{})
	go func() { // control frames are handled while reading
		defer close(readDone)
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	select {
	case <-pinged:
	case <-ctx.Done():
		t.Fatal("no ping")
	}
	ws.Close()
	<-readDone
}

func TestCloseEndsEveryConnection(t *testing.T) {
	srv, err := slacktest.New(slacktest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testkit.Context(t, 20*time.Second)
	retired, _ := dial(ctx, t, srv)
	readFrame(t, retired) // hello
	if err := srv.Disconnect("warning"); err != nil {
		t.Fatal(err)
	}
	readFrame(t, retired) // disconnect; this client does not close
	live, _ := dial(ctx, t, srv)
	readFrame(t, live)

	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return with a retired connection still open")
	}
	for _, ws := range []*websocket.Conn{retired, live} {
		if _, _, err := ws.ReadMessage(); err == nil {
			t.Fatal("a connection is still open after Close")
		}
	}
}
