package slacktest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

func TestURLHasTrailingSlash(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	u := srv.URL()
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/api/") {
		t.Fatalf("URL() = %q, want http://127.0.0.1:PORT/api/", u)
	}
}

func TestAuthTest(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)

	res, err := newAPI(srv, slacktest.DefaultBotToken).AuthTestContext(ctx)
	if err != nil {
		t.Fatalf("AuthTest: %v", err)
	}
	if res.UserID != slacktest.BotUserID || res.TeamID != slacktest.TeamID ||
		res.BotID != slacktest.BotID {
		t.Fatalf("AuthTest = %+v", res)
	}

	for token, want := range map[string]string{
		"xoxb-wrong":              "invalid_auth",
		slacktest.DefaultAppToken: "not_allowed_token_type",
		"":                        "not_authed",
	} {
		_, err := newAPI(srv, token).AuthTestContext(ctx)
		if got := slackError(t, err); got != want {
			t.Errorf("AuthTest with %q: error %q, want %q", token, got, want)
		}
	}
}

func TestPostUpdateEphemeralRoundTrip(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	ch := slacktest.DefaultChannel

	blocks := promptBlocks("a:42:ok", "a:42:no")
	gotCh, ts, err := api.PostMessageContext(ctx, ch,
		slack.MsgOptionText("Approval needed: Bash", false), slack.MsgOptionBlocks(blocks...))
	if err != nil {
		t.Fatalf("PostMessage: %v", err)
	}
	if gotCh != ch || ts == "" {
		t.Fatalf("PostMessage = %q, %q", gotCh, ts)
	}
	msgs, err := srv.WaitMessages(ctx, ch, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[0]
	wantRaw := testkit.Marshal(t, blocks)
	if m.Method != "chat.postMessage" || m.TS != ts || m.Text != "Approval needed: Bash" ||
		!bytes.Equal(m.RawBlocks, wantRaw) {
		t.Fatalf("recorded %+v, raw blocks %s, want %s", m, m.RawBlocks, wantRaw)
	}
	if len(m.Blocks.BlockSet) != 3 || m.Blocks.BlockSet[2].BlockType() != slack.MBTAction {
		t.Fatalf("decoded blocks %+v", m.Blocks.BlockSet)
	}
	buttons := m.Blocks.BlockSet[2].(*slack.ActionBlock).Elements.ElementSet
	if len(buttons) != 2 || buttons[0].(*slack.ButtonBlockElement).Value != "a:42:ok" {
		t.Fatalf("decoded buttons %+v", buttons)
	}

	// An update with blocks replaces them.
	resolved := []slack.Block{slack.NewSectionBlock(
		slack.NewTextBlockObject(slack.MarkdownType, "Approved by jane", false, false), nil, nil)}
	if _, _, _, err := api.UpdateMessageContext(ctx, ch, ts,
		slack.MsgOptionText("Approved", false), slack.MsgOptionBlocks(resolved...)); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	ups, err := srv.WaitUpdates(ctx, ch, ts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !ups[0].HasBlocks() || ups[0].Text != "Approved" || len(ups[0].Blocks.BlockSet) != 1 {
		t.Fatalf("update record %+v", ups[0])
	}
	cur, ok := srv.Current(ch, ts)
	if !ok || cur.Text != "Approved" || len(cur.Blocks.BlockSet) != 1 ||
		cur.Method != "chat.update" {
		t.Fatalf("Current = %+v, %v", cur, ok)
	}

	// An update without blocks is recorded as such and leaves the old blocks in place.
	if _, _, _, err := api.UpdateMessageContext(ctx, ch, ts,
		slack.MsgOptionText("text only", false)); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	ups, err = srv.WaitUpdates(ctx, ch, ts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ups[1].HasBlocks() || ups[1].RawBlocks != nil || len(ups[1].Blocks.BlockSet) != 0 {
		t.Fatalf("update without blocks recorded with blocks: %+v", ups[1])
	}
	cur, ok = srv.Current(ch, ts)
	if !ok {
		t.Fatal("no such message")
	}
	if cur.Text != "text only" || len(cur.Blocks.BlockSet) != 1 {
		t.Fatalf("Current after text-only update = %+v, want the previous blocks kept", cur)
	}
	if got := srv.Messages(ch); len(got) != 1 || got[0].Text != "Approval needed: Bash" {
		t.Fatalf("Messages changed by updates: %+v", got)
	}

	ets, err := api.PostEphemeralContext(ctx, ch, "U0NOTALLOWED",
		slack.MsgOptionText("not authorized", false))
	if err != nil {
		t.Fatalf("PostEphemeral: %v", err)
	}
	eph, err := srv.WaitEphemerals(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if eph[0].TS != ets || eph[0].User != "U0NOTALLOWED" || eph[0].Channel != ch ||
		eph[0].Text != "not authorized" || eph[0].HasBlocks() {
		t.Fatalf("ephemeral %+v, ts %q", eph[0], ets)
	}
}

func TestTimestampsAreUniqueAndFromTheClock(t *testing.T) {
	now := time.Unix(1753425527, 891899000)
	srv := newSlackServer(t, slacktest.Config{Now: func() time.Time { return now }})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	_, ts1, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("one", false))
	if err != nil {
		t.Fatal(err)
	}
	_, ts2, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("two", false))
	if err != nil {
		t.Fatal(err)
	}
	if ts1 != "1753425527.891899" || ts2 != "1753425527.891900" {
		t.Fatalf("ts = %q, %q; want the clock's time, then one microsecond later", ts1, ts2)
	}
}

func TestChatErrorsChangeNothing(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{ForeignChannels: []string{"C0FOREIGN01"}})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	ch := slacktest.DefaultChannel
	_, ts, err := api.PostMessageContext(ctx, ch, slack.MsgOptionText("prompt", false),
		slack.MsgOptionBlocks(promptBlocks("ok", "no")...))
	if err != nil {
		t.Fatal(err)
	}

	text := func(n int) slack.MsgOption {
		return slack.MsgOptionBlocks(slack.NewSectionBlock(
			slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("x", n), false, false),
			nil, nil))
	}
	button := func(value string) slack.MsgOption {
		return slack.MsgOptionBlocks(slack.NewActionBlock("a",
			slack.NewButtonBlockElement("b", value,
				slack.NewTextBlockObject(slack.PlainTextType, "B", false, false))))
	}
	header := func(n int) slack.MsgOption {
		return slack.MsgOptionBlocks(slack.NewHeaderBlock(
			slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("h", n), false, false)))
	}
	many := make([]slack.Block, 51)
	for i := range many {
		many[i] = slack.NewDividerBlock()
	}
	fields := make([]*slack.TextBlockObject, 11)
	for i := range fields {
		fields[i] = slack.NewTextBlockObject(slack.MarkdownType, "f", false, false)
	}

	for _, tc := range []struct {
		name    string
		call    func() error
		code    string
		message string // in response_metadata.messages
	}{
		{"unknown channel", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0UNKNOWN01",
				slack.MsgOptionText("x", false))
			return err
		}, "channel_not_found", ""},
		{"not a member", func() error {
			_, _, err := api.PostMessageContext(ctx, "C0FOREIGN01",
				slack.MsgOptionText("x", false))
			return err
		}, "not_in_channel", ""},
		{"no text", func() error {
			_, _, err := api.PostMessageContext(ctx, ch)
			return err
		}, "no_text", ""},
		{"section text 3001", func() error {
			_, _, err := api.PostMessageContext(ctx, ch, text(3001))
			return err
		}, "invalid_blocks",
			"[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"},
		{"51 blocks", func() error {
			_, _, err := api.PostMessageContext(ctx, ch, slack.MsgOptionBlocks(many...))
			return err
		}, "invalid_blocks",
			"[ERROR] no more than 50 items allowed [json-pointer:/blocks]"},
		{"11 fields", func() error {
			_, _, err := api.PostMessageContext(ctx, ch,
				slack.MsgOptionBlocks(slack.NewSectionBlock(nil, fields, nil)))
			return err
		}, "invalid_blocks",
			"[ERROR] no more than 10 items allowed [json-pointer:/blocks/0/fields]"},
		{"button value 2001", func() error {
			_, _, err := api.PostMessageContext(ctx, ch, button(strings.Repeat("v", 2001)))
			return err
		}, "invalid_blocks",
			"[ERROR] must be less than 2001 characters " +
				"[json-pointer:/blocks/0/elements/0/value]"},
		{"header 151", func() error {
			_, _, err := api.PostMessageContext(ctx, ch, header(151))
			return err
		}, "invalid_blocks",
			"[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]"},
		{"update unknown ts", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, ch, "1.000001",
				slack.MsgOptionText("x", false))
			return err
		}, "message_not_found", ""},
		{"update unknown channel", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, "C0UNKNOWN01", ts,
				slack.MsgOptionText("x", false))
			return err
		}, "channel_not_found", ""},
		{"update invalid blocks", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, ch, ts, text(3001))
			return err
		}, "invalid_blocks",
			"[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"},
		{"update with app token", func() error {
			app := newAPI(srv, slacktest.DefaultAppToken)
			_, _, _, err := app.UpdateMessageContext(ctx, ch, ts, slack.MsgOptionText("x", false))
			return err
		}, "not_allowed_token_type", ""},
		{"ephemeral without user", func() error {
			_, err := api.PostEphemeralContext(ctx, ch, "", slack.MsgOptionText("x", false))
			return err
		}, "user_not_in_channel", ""},
		{"ephemeral not a member", func() error {
			_, err := api.PostEphemeralContext(ctx, "C0FOREIGN01", "U1",
				slack.MsgOptionText("x", false))
			return err
		}, "not_in_channel", ""},
		{"post wrong token", func() error {
			_, _, err := newAPI(srv, "xoxb-wrong").PostMessageContext(ctx, ch,
				slack.MsgOptionText("x", false))
			return err
		}, "invalid_auth", ""},
		{"ephemeral wrong token", func() error {
			_, err := newAPI(srv, "xoxb-wrong").PostEphemeralContext(ctx, ch, "U1",
				slack.MsgOptionText("x", false))
			return err
		}, "invalid_auth", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if got := slackError(t, err); got != tc.code {
				t.Fatalf("error %q, want %q", got, tc.code)
			}
			if tc.message != "" {
				var e slack.SlackErrorResponse
				errors.As(err, &e)
				if len(e.ResponseMetadata.Messages) != 1 ||
					e.ResponseMetadata.Messages[0] != tc.message {
					t.Fatalf("messages %q, want [%q]", e.ResponseMetadata.Messages, tc.message)
				}
			}
		})
	}

	if got := srv.Messages(ch); len(got) != 1 {
		t.Errorf("Messages(%s) = %d records, want only the first post", ch, len(got))
	}
	if got := srv.Messages("C0FOREIGN01"); len(got) != 0 {
		t.Errorf("Messages(foreign) = %+v", got)
	}
	if got := srv.Updates(ch, ts); len(got) != 0 {
		t.Errorf("Updates = %+v, want none", got)
	}
	if cur, ok := srv.Current(ch, ts); !ok || cur.Text != "prompt" ||
		len(cur.Blocks.BlockSet) != 3 {
		t.Errorf("Current changed: %+v (found %v)", cur, ok)
	}
	if got := srv.Ephemerals(); len(got) != 0 {
		t.Errorf("Ephemerals = %+v, want none", got)
	}
}

func TestBlockLimitsAreInclusive(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	blocks := []slack.Block{
		slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType,
			strings.Repeat("h", 150), false, false)),
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType,
			strings.Repeat("é", 3000), false, false), nil, nil),
		slack.NewActionBlock("a", slack.NewButtonBlockElement("b", strings.Repeat("v", 2000),
			slack.NewTextBlockObject(slack.PlainTextType, "B", false, false))),
	}
	for len(blocks) < 50 {
		blocks = append(blocks, slack.NewDividerBlock())
	}
	if _, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionBlocks(blocks...)); err != nil {
		t.Fatalf("PostMessage at the limits (characters, not bytes): %v", err)
	}
}

// postRaw sends a raw Web API request and returns the status, headers and body.
func postRaw(t *testing.T,
	target, contentType, authorization, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Context(t, 20*time.Second), http.MethodPost,
		target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

func TestNotInChannelMatchesFixture(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{ForeignChannels: []string{"C0FOREIGN01"}})
	form := url.Values{"token": {slacktest.DefaultBotToken}, "channel": {"C0FOREIGN01"},
		"text": {"x"}}
	status, _, body := postRaw(t, srv.URL()+"chat.postMessage",
		"application/x-www-form-urlencoded", "", form.Encode())
	want := testkit.ReadFile(t, "chat_postMessage_error_not_in_channel.json")
	if status != http.StatusOK || !bytes.Equal(body, want) {
		t.Fatalf("answer %d %s, want 200 %s", status, body, want)
	}
}

func TestRequestBodies(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	bearer := "Bearer " + slacktest.DefaultBotToken
	body := `{"channel":"C0FAKECHAN1","text":"hi",` +
		`"blocks":[{"type":"section","text":{"type":"mrkdwn","text":"hi"}}]}`
	status, _, res := postRaw(t, srv.URL()+"chat.postMessage", "application/json; charset=utf-8",
		bearer, body)
	var ok struct {
		OK bool   `json:"ok"`
		TS string `json:"ts"`
	}
	if err := json.Unmarshal(res, &ok); err != nil || status != http.StatusOK || !ok.OK {
		t.Fatalf("JSON post: %d %s", status, res)
	}
	m, found := srv.Current(slacktest.DefaultChannel, ok.TS)
	if !found || m.Text != "hi" || len(m.Blocks.BlockSet) != 1 {
		t.Fatalf("JSON post recorded as %+v, %v", m, found)
	}

	for _, tc := range []struct{ body, want string }{
		{`{"channel":`, `{"ok":false,"error":"invalid_json"}`},
		{`{"channel":"C0FAKECHAN1","blocks":"not json"}`,
			`{"ok":false,"error":"invalid_blocks_format"}`},
		{`{"channel":"C0FAKECHAN1","blocks":null}`,
			`{"ok":false,"error":"invalid_blocks_format"}`},
		{`{"channel":"C0FAKECHAN1","blocks":[{"text":"no type"}]}`,
			`{"ok":false,"error":"invalid_blocks","response_metadata":{"messages":` +
				`["[ERROR] missing required field: type [json-pointer:/blocks/0]"]}}`},
	} {
		t.Run(tc.body, func(t *testing.T) {
			_, _, res := postRaw(t, srv.URL()+"chat.postMessage", "application/json", bearer,
				tc.body)
			if string(res) != tc.want {
				t.Errorf("post %s: %s, want %s", tc.body, res, tc.want)
			}
		})
	}
	form := "token=" + slacktest.DefaultBotToken + "&channel=C0FAKECHAN1&text=%zz"
	if _, _, res := postRaw(t, srv.URL()+"chat.postMessage", "application/x-www-form-urlencoded",
		"", form); string(res) != `{"ok":false,"error":"invalid_form_data"}` {
		t.Errorf("bad form: %s", res)
	}
	if got := srv.Messages(slacktest.DefaultChannel); len(got) != 1 {
		t.Errorf("bad bodies recorded messages: %+v", got)
	}
}

func TestUnknownMethod(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	_, err := newAPI(srv, slacktest.DefaultBotToken).GetConversationInfoContext(
		testkit.Context(t, 20*time.Second),
		&slack.GetConversationInfoInput{ChannelID: slacktest.DefaultChannel})
	var sce slack.StatusCodeError
	if !errors.As(err, &sce) || sce.Code != http.StatusNotFound {
		t.Fatalf("conversations.info: %v, want slack.StatusCodeError 404", err)
	}
	status, _, body := postRaw(t, srv.URL()+"chat.delete", "application/x-www-form-urlencoded",
		"", "")
	if status != http.StatusNotFound ||
		string(body) != `{"ok":false,"error":"unknown_method","req_method":"chat.delete"}` {
		t.Fatalf("chat.delete: %d %s", status, body)
	}
}

func TestRateLimitNext(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	if err := srv.RateLimitNext("chat.postMessage", 30); err != nil {
		t.Fatal(err)
	}
	_, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("x", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 30*time.Second {
		t.Fatalf("PostMessage: %v, want *slack.RateLimitedError after 30s", err)
	}
	if got := srv.Messages(slacktest.DefaultChannel); len(got) != 0 {
		t.Fatalf("rate-limited call recorded: %+v", got)
	}
	if _, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("x", false)); err != nil {
		t.Fatalf("the failure is one-shot, but the retry failed: %v", err)
	}
	if n := srv.Calls("chat.postMessage"); n != 2 {
		t.Fatalf("Calls = %d, want 2", n)
	}
}

func TestRateLimitMatchesFixture(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	fixture := testkit.ReadFile(t, "rate_limited_429.http.txt")
	want, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(fixture)), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantBody, err := io.ReadAll(want.Body)
	testkit.Must(t, err)
	if err := srv.RateLimitNext("chat.update", 30); err != nil {
		t.Fatal(err)
	}
	status, header, body := postRaw(t, srv.URL()+"chat.update", "application/x-www-form-urlencoded",
		"", "")
	if status != want.StatusCode || !bytes.Equal(body, wantBody) {
		t.Fatalf("answer %d %s, want %d %s", status, body, want.StatusCode, wantBody)
	}
	for _, h := range []string{"Retry-After", "Content-Type"} {
		if header.Get(h) != want.Header.Get(h) {
			t.Errorf("%s: %q, want %q", h, header.Get(h), want.Header.Get(h))
		}
	}
}

func TestFailNext(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	_, ts, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("x", false))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.FailNext("chat.update", "cant_update_message"); err != nil {
		t.Fatal(err)
	}
	if err := srv.FailNext("chat.update", "edit_window_closed"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cant_update_message", "edit_window_closed"} {
		_, _, _, err := api.UpdateMessageContext(ctx, slacktest.DefaultChannel, ts,
			slack.MsgOptionText("y", false))
		if got := slackError(t, err); got != want {
			t.Fatalf("update: %q, want %q (failures are used in order)", got, want)
		}
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, slacktest.DefaultChannel, ts,
		slack.MsgOptionText("y", false)); err != nil {
		t.Fatalf("third update: %v", err)
	}
	if got := srv.Updates(slacktest.DefaultChannel, ts); len(got) != 1 {
		t.Fatalf("Updates = %d, want only the successful one", len(got))
	}
}

func TestInjectBadInput(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	for _, tc := range []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"unknown method", srv.FailNext("chat.postmessage", "x"), slacktest.ErrUnknownMethod,
			`slacktest: inject failure: unknown Web API method: "chat.postmessage"`},
		{"empty code", srv.FailNext("chat.postMessage", ""), slacktest.ErrInvalidFailure,
			"slacktest: fail next chat.postMessage: invalid injected failure: empty error code"},
		{"negative retry", srv.RateLimitNext("chat.postMessage", -1), slacktest.ErrInvalidFailure,
			"slacktest: rate limit next chat.postMessage: invalid injected failure: " +
				"negative Retry-After -1"},
		{"rate limit unknown method", srv.RateLimitNext("chat.delete", 1),
			slacktest.ErrUnknownMethod,
			`slacktest: inject failure: unknown Web API method: "chat.delete"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) || tc.err.Error() != tc.msg {
				t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.msg)
			}
		})
	}
	if _, _, err := newAPI(srv, slacktest.DefaultBotToken).PostMessageContext(
		testkit.Context(t, 20*time.Second), slacktest.DefaultChannel,
		slack.MsgOptionText("x", false)); err != nil {
		t.Fatalf("a rejected injection was queued: %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  slacktest.Config
		msg  string
	}{
		{"bot token", slacktest.Config{BotToken: "xoxp-user"},
			"slacktest: new: invalid config: bot token must start with xoxb-"},
		{"app token", slacktest.Config{AppToken: "xoxb-bot"},
			"slacktest: new: invalid config: app token must start with xapp-"},
		{"empty channel", slacktest.Config{Channels: []string{""}},
			"slacktest: new: invalid config: empty channel id"},
		{"twice", slacktest.Config{Channels: []string{"C1"}, ForeignChannels: []string{"C1"}},
			"slacktest: new: invalid config: channel C1 listed twice"},
		{"ping", slacktest.Config{PingInterval: -time.Second},
			"slacktest: new: invalid config: negative ping interval -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := slacktest.New(tc.cfg)
			if srv != nil || !errors.Is(err, slacktest.ErrInvalidConfig) ||
				err.Error() != tc.msg {
				t.Errorf("%s: New = %v, %v; want %q", tc.name, srv, err, tc.msg)
			}
		})
	}
}

func TestWaitEnds(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := srv.WaitMessages(ctx, slacktest.DefaultChannel, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitMessages with a cancelled context: %v", err)
	}
	if _, err := srv.WaitAck(ctx, "e1"); !errors.Is(err, context.Canceled) ||
		err.Error() != "slacktest: wait for 1 acks of e1: context canceled" {
		t.Fatalf("WaitAck with a cancelled context: %v", err)
	}
	srv.Close()
	_, err = srv.WaitEphemerals(testkit.Context(t, 20*time.Second), 1)
	if !errors.Is(err, slacktest.ErrClosed) ||
		err.Error() != "slacktest: wait for 1 ephemerals: server closed" {
		t.Fatalf("WaitEphemerals after Close: %v", err)
	}
	srv.Close() // twice is fine
}

func TestViewsOpenAndSubmission(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	view := slack.ModalViewRequest{Type: slack.VTModal, CallbackID: "cb", PrivateMetadata: "meta",
		Title: slack.NewTextBlockObject(slack.PlainTextType, "T", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("b",
			slack.NewTextBlockObject(slack.PlainTextType, "L", false, false), nil,
			&slack.PlainTextInputBlockElement{Type: slack.METPlainTextInput, ActionID: "a"})}}}
	res, err := api.OpenViewContext(ctx, "1.2.3", view)
	testkit.Must(t, err)
	got := srv.Views()
	if len(got) != 1 || got[0].ID != res.ID || got[0].TriggerID != "1.2.3" ||
		got[0].CallbackID() != "cb" || got[0].PrivateMetadata() != "meta" {
		t.Fatalf("views %+v, answer %+v", got, res)
	}
	for name, c := range map[string]struct {
		token, trigger string
		view           slack.ModalViewRequest
		want           string
	}{
		"no blocks": {slacktest.DefaultBotToken, "1.2.4",
			slack.ModalViewRequest{Type: slack.VTModal, Title: view.Title}, "invalid_arguments"},
		"wrong token": {"xoxb-wrong", "1.2.5", view, "invalid_auth"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := newAPI(srv, c.token).OpenViewContext(ctx, c.trigger, c.view)
			if got := slackError(t, err); got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
		})
	}
	if n := len(srv.Views()); n != 1 {
		t.Errorf("%d views after the refused calls", n)
	}
	var cb slack.InteractionCallback
	p := srv.ViewSubmissionPayload(slacktest.ViewSubmission{View: got[0],
		Values: map[string]map[string]string{"b": {"a": "typed"}}})
	testkit.Must(t, json.Unmarshal(p, &cb))
	if cb.Type != slack.InteractionTypeViewSubmission || cb.View.CallbackID != "cb" ||
		cb.View.PrivateMetadata != "meta" || cb.View.State.Values["b"]["a"].Value != "typed" ||
		cb.User.ID != slacktest.DefaultUser {
		t.Fatalf("payload %s", p)
	}
}

// SetOutage makes every Web API call fail — the connection closed, or a 502 page that
// slack-go returns as a StatusCodeError — while the calls are still counted and change
// nothing; once back, calls work again.
func TestSetOutage(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	for _, o := range outage.Kinds() {
		t.Run(o.String(), func(t *testing.T) {
			want := o.ClientError()
			srv.SetOutage(o)
			calls := srv.Calls("chat.postMessage")
			msgs := len(srv.Messages(slacktest.DefaultChannel))
			_, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
				slack.MsgOptionText("x", false))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("PostMessage while down: %v, want an error with %q", err, want)
			}
			if n, m := srv.Calls("chat.postMessage"),
				len(srv.Messages(slacktest.DefaultChannel)); n != calls+1 || m != msgs {
				t.Errorf("%d calls and %d messages, want %d and %d", n, m, calls+1, msgs)
			}
			srv.SetOutage(outage.None)
			if _, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
				slack.MsgOptionText("x", false)); err != nil {
				t.Errorf("PostMessage once back: %v", err)
			}
			if m := len(srv.Messages(slacktest.DefaultChannel)); m != msgs+1 {
				t.Errorf("%d messages once back, want %d", m, msgs+1)
			}
		})
	}
}

func TestLoseReplyNext(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	if err := srv.LoseReplyNext("chat.postMessage"); err != nil {
		t.Fatal(err)
	}
	_, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("lost", false))
	if err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("PostMessage whose reply is lost: %v, want an error with EOF", err)
	}
	if ms := srv.Messages(slacktest.DefaultChannel); len(ms) != 1 || ms[0].Text != "lost" {
		t.Errorf("messages %+v, want the one whose reply was lost", ms)
	}
	next := slack.MsgOptionText("next", false)
	if _, _, err := api.PostMessageContext(ctx, slacktest.DefaultChannel, next); err != nil {
		t.Errorf("the next PostMessage: %v", err)
	}
	err = srv.LoseReplyNext("chat.delete")
	if !errors.Is(err, slacktest.ErrUnknownMethod) ||
		err.Error() != `slacktest: lose reply next: unknown Web API method: "chat.delete"` {
		t.Errorf("LoseReplyNext of an unknown method: %v", err)
	}
}
