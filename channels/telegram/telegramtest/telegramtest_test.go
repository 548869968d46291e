package telegramtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// The people and chats of the fixtures in testdata.
var (
	jane     = models.User{ID: 100000001, FirstName: "Jane", Username: "jane_doe_example"}
	janeChat = models.Chat{ID: 100000001, Type: models.ChatTypePrivate, FirstName: "Jane",
		Username: "jane_doe_example"}
	groupChat = models.Chat{ID: -5000000001, Type: models.ChatTypeGroup,
		Title: "Fake Approvers Group"}
)

// approvalKeyboard is the prompt keyboard: ✅ Approve ❌ Reject / ⏱ 15 min 🔄 Session.
var approvalKeyboard = &models.InlineKeyboardMarkup{
	InlineKeyboard: [][]models.InlineKeyboardButton{{
		{Text: "✅ Approve", CallbackData: "a:42:ok"}, {Text: "❌ Reject", CallbackData: "a:42:no"},
	}, {
		{Text: "⏱ 15 min", CallbackData: "a:42:b15"}, {Text: "🔄 Session", CallbackData: "a:42:bs"},
	}},
}

func newTelegramServer(t *testing.T, cfg telegramtest.Config) *telegramtest.Server {
	t.Helper()
	srv, err := telegramtest.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// newBot returns the real go-telegram/bot client pointed at srv.
func newBot(t *testing.T, srv *telegramtest.Server, opts ...bot.Option) *bot.Bot {
	t.Helper()
	opts = append([]bot.Option{
		bot.WithServerURL(srv.URL()), bot.WithSkipGetMe(), bot.WithNotAsyncHandlers(),
		bot.WithErrorsHandler(func(error) {}),
	}, opts...)
	b, err := bot.New(srv.Token(), opts...)
	if err != nil {
		t.Fatalf("bot.New: %v", err)
	}
	return b
}

// testContext bounds a test that would otherwise hang on a bug; nothing waits on it
// for synchronisation.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startPolling runs b.Start (long polling) until the returned stop is called; stop
// returns once Start has returned.
func startPolling(t *testing.T, b *bot.Bot) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Start(ctx)
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}

// collectErrors returns an errors handler for bot.WithErrorsHandler and the channel it
// fills (never blocking the client).
func collectErrors() (bot.Option, chan error) {
	ch := make(chan error, 100)
	return bot.WithErrorsHandler(func(err error) {
		select {
		case ch <- err:
		default:
		}
	}), ch
}

func receive[T any](t *testing.T, ctx context.Context, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		var zero T
		t.Fatalf("nothing received: %v", ctx.Err())
		return zero
	}
}

// rawCall posts a form to a method and returns the HTTP status and body, for checks
// the client hides (descriptions of successes, exact bytes).
func rawCall(t *testing.T, ctx context.Context, srv *telegramtest.Server, token, method string,
	form url.Values) (int, []byte) {
	t.Helper()
	status, body, err := post(ctx, srv, token, method, form)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return status, body
}

// post is rawCall for goroutines other than the test's (which may not call t.Fatal).
func post(ctx context.Context, srv *telegramtest.Server, token, method string,
	form url.Values) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		srv.URL()+"/bot"+token+"/"+method, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// apiFixture returns the recorded Telegram Bot API fixture name, failing the test at
// once when it is missing.
func apiFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := telegramtest.Fixture(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantBadRequest checks that err is go-telegram/bot's 400 error carrying exactly
// Telegram's description.
func wantBadRequest(t *testing.T, err error, want telegramtest.APIError) {
	t.Helper()
	if !errors.Is(err, bot.ErrorBadRequest) {
		t.Fatalf("err = %v, want bot.ErrorBadRequest", err)
	}
	if got := err.Error(); got != "bad request, "+want.Description {
		t.Fatalf("err = %q, want %q", got, "bad request, "+want.Description)
	}
}

// wantSent sends p with b and returns the message, failing the test unless it was
// sent and recorded in its chat.
func wantSent(t *testing.T, srv *telegramtest.Server, b *bot.Bot,
	p *bot.SendMessageParams) *models.Message {
	t.Helper()
	id := p.ChatID.(int64)
	before := len(srv.Messages(id))
	msg, err := b.SendMessage(testContext(t), p)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Messages(id)); got != before+1 {
		t.Errorf("messages = %d, want %d", got, before+1)
	}
	return msg
}

// wantSendRefused sends p with b and fails the test unless the Bot API refused it
// with want (see wantBadRequest) and recorded nothing.
func wantSendRefused(t *testing.T, srv *telegramtest.Server, b *bot.Bot, p *bot.SendMessageParams,
	want telegramtest.APIError) {
	t.Helper()
	id := p.ChatID.(int64)
	before := len(srv.Messages(id))
	_, err := b.SendMessage(testContext(t), p)
	wantBadRequest(t, err, want)
	if got := len(srv.Messages(id)); got != before {
		t.Errorf("messages = %d, want %d: a refused message was recorded", got, before)
	}
}

func TestSendMessageWithInlineKeyboardRoundTrips(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)

	text := "<b>Approval request #42</b>\nTool: <code>Bash</code>\n" +
		"Args: <pre>rm -rf &lt;dir&gt; &amp;&amp; ls</pre>"
	msg, err := b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID: janeChat.ID, Text: text, ParseMode: models.ParseModeHTML,
		ReplyMarkup: approvalKeyboard,
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	wantPlain := "Approval request #42\nTool: Bash\nArgs: rm -rf <dir> && ls"
	if msg.ID != 1 || msg.Chat.ID != janeChat.ID || msg.From == nil ||
		msg.From.ID != telegramtest.BotID || msg.Text != wantPlain {
		t.Errorf("result = id %d chat %d from %+v text %q",
			msg.ID, msg.Chat.ID, msg.From, msg.Text)
	}
	if msg.ReplyMarkup == nil || len(msg.ReplyMarkup.InlineKeyboard) != 2 ||
		msg.ReplyMarkup.InlineKeyboard[1][1].CallbackData != "a:42:bs" {
		t.Errorf("result keyboard = %+v", msg.ReplyMarkup)
	}
	wantEntities := []models.MessageEntity{
		{Type: models.MessageEntityTypeBold, Offset: 0, Length: 20},
		{Type: models.MessageEntityTypeCode, Offset: 27, Length: 4},
		{Type: models.MessageEntityTypePre, Offset: 38, Length: 18},
	}
	if !equalJSON(t, msg.Entities, wantEntities) {
		t.Errorf("result entities = %+v, want %+v", msg.Entities, wantEntities)
	}

	sent := srv.Messages(janeChat.ID)
	if len(sent) != 1 {
		t.Fatalf("Messages = %d, want 1", len(sent))
	}
	m := sent[0]
	if m.MessageID != 1 || m.Method != "sendMessage" || m.Text != text || m.ParseMode != "HTML" ||
		m.PlainText != wantPlain {
		t.Errorf("recorded = %+v", m.Content)
	}
	if got := strings.Join(m.CallbackData(), " "); got != "a:42:ok a:42:no a:42:b15 a:42:bs" {
		t.Errorf("callback data = %q", got)
	}
	if m.Keyboard.InlineKeyboard[0][0].Text != "✅ Approve" || len(m.History) != 1 {
		t.Errorf("keyboard = %+v, history = %d", m.Keyboard, len(m.History))
	}
	calls := srv.Calls("sendMessage")
	if len(calls) != 1 || calls[0].Params["chat_id"] != "100000001" ||
		!strings.Contains(calls[0].Params["reply_markup"], `"callback_data":"a:42:ok"`) {
		t.Errorf("calls = %+v", calls)
	}
	if n := srv.CallCount("sendMessage"); n != 1 {
		t.Errorf("CallCount = %d", n)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	return string(testkit.Marshal(t, a)) == string(testkit.Marshal(t, b))
}

func TestSendMessageRejectsBadHTML(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	prefix := "Bad Request: can't parse entities: "
	tests := []struct{ text, want string }{
		{"x < y", `Unsupported start tag "" at byte offset 2`},
		{"<p>hi</p>", `Unsupported start tag "p" at byte offset 0`},
		{"<b>hi", "Can't find end tag corresponding to start tag b"},
		{"<b>hi</i>", `Unmatched end tag at byte offset 5, expected "</b>", found "</i>"`},
		{"<span>secret</span>", `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{"<b>&</b>",
			`unescaped "&" at byte offset 3 (stricter than Telegram: the docs require "&amp;")`},
	}
	for i, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: tt.text,
				ParseMode: models.ParseModeHTML})
			wantBadRequest(t, err, telegramtest.APIError{Code: 400, Description: prefix + tt.want})
			if n := srv.CallCount("sendMessage"); n != i+1 {
				t.Errorf("%q: CallCount = %d, want %d", tt.text, n, i+1)
			}
		})
	}
	if got := srv.Messages(janeChat.ID); len(got) != 0 {
		t.Errorf("rejected messages were recorded: %+v", got)
	}
	// The same texts escaped, as a bot must send them, are accepted and shown as written.
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			escaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(tt.text)
			msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID,
				Text: escaped, ParseMode: models.ParseModeHTML})
			if err != nil || msg.Text != tt.text || len(msg.Entities) != 0 {
				t.Errorf("escaped %q: %v, text %q, entities %+v",
					tt.text, err, msg.Text, msg.Entities)
			}
		})
	}
	// Without parse_mode nothing is parsed; an unknown parse mode is refused.
	if msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID,
		Text: "x < y & z"}); err != nil || msg.Text != "x < y & z" {
		t.Errorf("plain text: %v, %q", err, msg.Text)
	}
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "x",
		ParseMode: "XML"})
	wantBadRequest(t, err, telegramtest.ErrUnsupportedParseMode)
	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "<b> </b>",
		ParseMode: models.ParseModeHTML})
	wantBadRequest(t, err, telegramtest.ErrTextBlank)
	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: ""})
	wantBadRequest(t, err, telegramtest.ErrTextEmpty)
	if got := len(srv.Messages(janeChat.ID)); got != len(tests)+1 {
		t.Errorf("messages = %d, want %d", got, len(tests)+1)
	}
}

// TestTextLengthIsCountedAfterEntitiesParsing pins what MaxTextLength counts: the
// characters (code points) the user sees, not the HTML sent nor UTF-16 units.
func TestTextLengthIsCountedAfterEntitiesParsing(t *testing.T) {
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	tests := []struct {
		name, text string
		mode       models.ParseMode
		ok         bool
	}{
		{"4096 letters", strings.Repeat("a", 4096), "", true},
		{"4097 letters", strings.Repeat("a", 4097), "", false},
		{"4096 escaped < (16384 bytes sent)", strings.Repeat("&lt;", 4096),
			models.ParseModeHTML, true},
		{"4096 bold letters", strings.Repeat("<b>x</b>", 4096), models.ParseModeHTML, true},
		{"4097 characters after parsing", strings.Repeat("<b>x</b>", 4096) + "&amp;",
			models.ParseModeHTML, false},
		{"4096 emoji (8192 UTF-16 units)", strings.Repeat("😀", 4096), "", true},
		{"4097 emoji", strings.Repeat("😀", 4097), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &bot.SendMessageParams{ChatID: janeChat.ID, Text: tt.text, ParseMode: tt.mode}
			if !tt.ok {
				wantSendRefused(t, srv, b, p, telegramtest.ErrMessageTooLong)
				return
			}
			if n := len([]rune(wantSent(t, srv, b, p).Text)); n != 4096 {
				t.Errorf("shown text has %d characters", n)
			}
		})
	}
}

func TestTooManyRequestsCarriesRetryAfter(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	if err := srv.FailNext("sendMessage", telegramtest.TooManyRequests(7)); err != nil {
		t.Fatal(err)
	}
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
	var tooMany *bot.TooManyRequestsError
	if !errors.As(err, &tooMany) || tooMany.RetryAfter != 7 {
		t.Fatalf("err = %#v, want *bot.TooManyRequestsError{RetryAfter: 7}", err)
	}
	if tooMany.Message != "too many requests, Too Many Requests: retry after 7" {
		t.Errorf("message = %q", tooMany.Message)
	}
	if got := srv.Messages(janeChat.ID); len(got) != 0 {
		t.Fatalf("a refused call was recorded as a message: %+v", got)
	}
	// The failure was one-shot: the retry goes through.
	if _, err := b.SendMessage(ctx,
		&bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n, m := srv.CallCount("sendMessage"), len(srv.Messages(janeChat.ID)); n != 2 || m != 1 {
		t.Errorf("calls = %d, messages = %d; want 2, 1", n, m)
	}
}

func TestFailNextInjectsOtherFailures(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	for _, e := range []telegramtest.APIError{
		telegramtest.ErrBotBlocked, telegramtest.ServerError(502),
	} {
		if err := srv.FailNext("SENDMESSAGE", e); err != nil { // method names are case-insensitive
			t.Fatal(err)
		}
	}
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
	if !errors.Is(err, bot.ErrorForbidden) ||
		!strings.HasSuffix(err.Error(), "Forbidden: bot was blocked by the user") {
		t.Errorf("first: %v", err)
	}
	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
	if err == nil ||
		err.Error() != "error response from telegram for method sendMessage, 502 Bad Gateway" {
		t.Errorf("second: %v", err)
	}

	tests := []struct {
		method string
		e      telegramtest.APIError
		want   error
	}{
		{"sendMesage", telegramtest.ErrNotModified, telegramtest.ErrUnknownMethod},
		{"sendMessage", telegramtest.APIError{Code: 200, Description: "ok"},
			telegramtest.ErrInvalidFailure},
		{"sendMessage", telegramtest.APIError{Code: 400}, telegramtest.ErrInvalidFailure},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			if err := srv.FailNext(tt.method, tt.e); !errors.Is(err, tt.want) {
				t.Errorf("FailNext(%q, %+v) = %v, want %v", tt.method, tt.e, err, tt.want)
			}
		})
	}
	// Nothing was queued by the refused FailNext calls.
	if _, err := b.SendMessage(ctx,
		&bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"}); err != nil {
		t.Errorf("after refused FailNext: %v", err)
	}
}

func TestLongPollingDeliversAnInjectedUpdateOnce(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	got := make(chan *models.Update, 10)
	b := newBot(t, srv,
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) { got <- u }))
	stop := startPolling(t, b)

	id1, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "/rules"))
	if err != nil {
		t.Fatal(err)
	}
	u := receive(t, ctx, got)
	if u.ID != id1 || u.Message == nil || u.Message.Text != "/rules" ||
		u.Message.From.ID != jane.ID {
		t.Fatalf("update = %+v", u)
	}
	if e := u.Message.Entities; len(e) != 1 || e[0].Type != models.MessageEntityTypeBotCommand ||
		e[0].Length != 6 {
		t.Errorf("entities = %+v", e)
	}
	// The client's next poll confirms it: offset = id1+1.
	waitForPollAt(t, ctx, srv, id1+1)
	if n := srv.PendingUpdates(); n != 0 {
		t.Errorf("pending after confirmation = %d", n)
	}

	id2, err := srv.Inject(srv.MessageUpdate(jane, groupChat, "/pending@fake_approval_bot now"))
	if err != nil {
		t.Fatal(err)
	}
	u = receive(t, ctx, got)
	if u.ID != id2 || id2 != id1+1 {
		t.Fatalf("second update = %d, want %d = %d+1", u.ID, id2, id1)
	}
	if e := u.Message.Entities; len(e) != 1 || e[0].Length != len("/pending@fake_approval_bot") {
		t.Errorf("group command entities = %+v", e)
	}
	waitForPollAt(t, ctx, srv, id2+1)
	select {
	case u := <-got:
		t.Fatalf("update %d delivered again", u.ID)
	default:
	}

	// Stopping the client ends its waiting getUpdates; the server lets it go.
	stop()
	polls := srv.CallCount("getUpdates")
	if _, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "after stop")); err != nil {
		t.Fatal(err)
	}
	if n := srv.PendingUpdates(); n != 1 || srv.CallCount("getUpdates") != polls {
		t.Errorf("pending = %d, polls %d → %d", n, polls, srv.CallCount("getUpdates"))
	}
}

// waitForPollAt waits until a getUpdates with the given offset arrived.
func waitForPollAt(t *testing.T, ctx context.Context, srv *telegramtest.Server, offset int64) {
	t.Helper()
	want := strconv.FormatInt(offset, 10)
	err := srv.Wait(ctx, func() bool {
		for _, c := range srv.Calls("getUpdates") {
			if c.Params["offset"] == want {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no getUpdates with offset %s: %v (calls %+v)",
			want, err, srv.Calls("getUpdates"))
	}
}

func TestGetUpdatesConflictsWhileAWebhookIsSet(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	srv.SetWebhook("https://bot.example.com/telegram/webhook", "FAKE_secret-token_0123456789")
	errorsOpt, errs := collectErrors()
	got := make(chan *models.Update, 10)
	b := newBot(t, srv, errorsOpt,
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) { got <- u }))
	startPolling(t, b)

	err := receive(t, ctx, errs)
	if !errors.Is(err, bot.ErrorConflict) ||
		!strings.HasSuffix(err.Error(), telegramtest.ErrWebhookActive.Description) {
		t.Fatalf("poll error = %v, want the webhook conflict", err)
	}
	// What a bot must do with a webhook left over from an earlier setup: delete it.
	if ok, err := b.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil || !ok {
		t.Fatalf("DeleteWebhook = %v, %v", ok, err)
	}
	if w := srv.Webhook(); w.URL != "" {
		t.Errorf("webhook after delete = %+v", w)
	}
	id, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "/help"))
	if err != nil {
		t.Fatal(err)
	}
	if u := receive(t, ctx, got); u.ID != id {
		t.Errorf("update = %d, want %d", u.ID, id)
	}
}

func TestAnotherPollerTerminatesTheWaitingOne(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	errorsA, errsA := collectErrors()
	first := newBot(t, srv, errorsA)
	stopFirst := startPolling(t, first)
	// Recorded and registered as the waiting poll in one step.
	if _, err := srv.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	second := newBot(t, srv)
	stopSecond := startPolling(t, second)

	err := receive(t, ctx, errsA)
	if !errors.Is(err, bot.ErrorConflict) ||
		!strings.HasSuffix(err.Error(), telegramtest.ErrTerminatedByOtherPoll.Description) {
		t.Fatalf("first poller's error = %v", err)
	}
	stopFirst()
	stopSecond()
}

func TestCallbackDataIsLimitedTo64Bytes(t *testing.T) {
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	keyboard := func(data string) *models.InlineKeyboardMarkup {
		return &models.InlineKeyboardMarkup{
			InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "ok", CallbackData: data}}},
		}
	}
	tests := []struct {
		name, data string
		ok         bool
	}{
		{"64 bytes", strings.Repeat("a", 64), true},
		{"65 bytes", strings.Repeat("a", 65), false},
		{"33 two-byte characters (66 bytes)", strings.Repeat("é", 33), false},
		{"32 two-byte characters (64 bytes)", strings.Repeat("é", 32), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &bot.SendMessageParams{ChatID: janeChat.ID, Text: "prompt",
				ReplyMarkup: keyboard(tt.data)}
			if tt.ok {
				wantSent(t, srv, b, p)
			} else {
				wantSendRefused(t, srv, b, p, telegramtest.ErrButtonDataInvalid)
			}
		})
	}
	// A button with nothing to do is refused by the Bot API itself.
	wantSendRefused(t, srv, b,
		&bot.SendMessageParams{ChatID: janeChat.ID, Text: "prompt", ReplyMarkup: keyboard("")},
		telegramtest.APIError{Code: 400, Description: "Bad Request: can't parse inline keyboard " +
			"button: Text buttons are unallowed in the inline keyboard"})
}

func TestEditMessage(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	sent, err := b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID: janeChat.ID, Text: "<b>Request #42</b>", ParseMode: models.ParseModeHTML,
		ReplyMarkup: approvalKeyboard,
	})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(text string, markup models.ReplyMarkup) (*models.Message, error) {
		return b.EditMessageText(ctx, &bot.EditMessageTextParams{
			ChatID: janeChat.ID, MessageID: sent.ID, Text: text, ParseMode: models.ParseModeHTML,
			ReplyMarkup: markup,
		})
	}

	// Same text and keyboard; and the same after parsing (<strong> is <b>).
	_, err = edit("<b>Request #42</b>", approvalKeyboard)
	wantBadRequest(t, err, telegramtest.ErrNotModified)
	_, err = edit("<strong>Request #42</strong>", approvalKeyboard)
	wantBadRequest(t, err, telegramtest.ErrNotModified)
	if m, ok := srv.Message(janeChat.ID, sent.ID); !ok || len(m.History) != 1 {
		t.Fatalf("a refused edit changed the history: %+v (found %v)", m.History, ok)
	}

	// The outcome, without reply_markup: the buttons go, as on Telegram.
	got, err := edit("<b>Request #42</b>\n✅ Approved by Jane · telegram · 14:03 UTC", nil)
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	if got.ReplyMarkup != nil || got.EditDate == 0 ||
		got.Text != "Request #42\n✅ Approved by Jane · telegram · 14:03 UTC" {
		t.Errorf("edit result = markup %+v, edit date %d, text %q",
			got.ReplyMarkup, got.EditDate, got.Text)
	}
	// Removing buttons that are already gone changes nothing.
	_, err = b.EditMessageReplyMarkup(ctx,
		&bot.EditMessageReplyMarkupParams{ChatID: janeChat.ID, MessageID: sent.ID})
	wantBadRequest(t, err, telegramtest.ErrNotModified)
	if _, err := b.EditMessageReplyMarkup(ctx, &bot.EditMessageReplyMarkupParams{
		ChatID: janeChat.ID, MessageID: sent.ID, ReplyMarkup: approvalKeyboard,
	}); err != nil {
		t.Fatalf("EditMessageReplyMarkup: %v", err)
	}

	m, ok := srv.Message(janeChat.ID, sent.ID)
	if !ok || len(m.History) != 3 {
		t.Fatalf("history = %+v", m.History)
	}
	if m.History[0].Keyboard == nil || m.History[1].Keyboard != nil ||
		m.History[1].Method != "editMessageText" ||
		m.History[2].Method != "editMessageReplyMarkup" ||
		m.History[2].PlainText != m.History[1].PlainText || m.Keyboard == nil {
		t.Errorf("history = %+v", m.History)
	}

	_, err = b.EditMessageText(ctx,
		&bot.EditMessageTextParams{ChatID: janeChat.ID, MessageID: 999, Text: "x"})
	wantBadRequest(t, err, telegramtest.ErrMessageToEditNotFound)
	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: janeChat.ID,
		MessageID: sent.ID, Text: strings.Repeat("a", 4097)})
	wantBadRequest(t, err, telegramtest.ErrEditTooLong)
	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: janeChat.ID, Text: "x"})
	wantBadRequest(t, err, telegramtest.ErrMessageIDMissing)
	_, err = b.EditMessageText(ctx,
		&bot.EditMessageTextParams{ChatID: int64(42), MessageID: sent.ID, Text: "x"})
	wantBadRequest(t, err, telegramtest.ErrChatNotFound)
	if m2, ok := srv.Message(janeChat.ID, sent.ID); !ok || len(m2.History) != 3 {
		t.Errorf("refused edits changed the history: %d versions (found %v)", len(m2.History), ok)
	}
}

func TestAnswerCallbackQuery(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	sent, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID,
		Text: "Request #42", ReplyMarkup: approvalKeyboard})
	if err != nil {
		t.Fatal(err)
	}
	tap := srv.CallbackQueryUpdate(jane, janeChat.ID, sent.ID, "a:42:ok")
	cq := tap.CallbackQuery
	if cq.Message.Message == nil || cq.Message.Message.ID != sent.ID ||
		cq.Message.Message.ReplyMarkup == nil || cq.Data != "a:42:ok" {
		t.Fatalf("callback query = %+v", cq)
	}
	answer := func(id, text string) (bool, error) {
		return b.AnswerCallbackQuery(ctx,
			&bot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
	}

	// Not delivered yet: not answerable.
	_, err = answer(cq.ID, "")
	wantBadRequest(t, err, telegramtest.ErrQueryTooOld)
	if _, err := srv.Inject(tap); err != nil {
		t.Fatal(err)
	}
	// Too long a toast is refused and leaves the query answerable.
	_, err = answer(cq.ID, strings.Repeat("x", 201))
	wantBadRequest(t, err, telegramtest.ErrEditTooLong)
	if ok, err := answer(cq.ID, "Approved"); err != nil || !ok {
		t.Fatalf("answer = %v, %v", ok, err)
	}
	_, err = answer(cq.ID, "again")
	wantBadRequest(t, err, telegramtest.ErrQueryTooOld)
	if got, err := srv.WaitAnswers(ctx, 1); err != nil || len(got) != 1 ||
		got[0].CallbackQueryID != cq.ID || got[0].Text != "Approved" {
		t.Errorf("answers = %+v, %v", got, err)
	}

	// Expired before the answer: too old.
	late := srv.CallbackQueryUpdate(jane, janeChat.ID, sent.ID, "a:42:no")
	if _, err := srv.Inject(late); err != nil {
		t.Fatal(err)
	}
	srv.ExpireCallbackQuery(late.CallbackQuery.ID)
	_, err = answer(late.CallbackQuery.ID, "")
	wantBadRequest(t, err, telegramtest.ErrQueryTooOld)
	if n := len(srv.Answers()); n != 1 {
		t.Errorf("answers = %d, want 1", n)
	}

	// A tap on a message the bot never sent carries an InaccessibleMessage.
	old := srv.CallbackQueryUpdate(jane, janeChat.ID, 777, "a:7:ok").CallbackQuery
	if old.Message.InaccessibleMessage == nil ||
		old.Message.InaccessibleMessage.MessageID != 777 ||
		old.Message.InaccessibleMessage.Chat.ID != janeChat.ID {
		t.Errorf("message = %+v", old.Message)
	}
	if old.ID == cq.ID || old.ID == late.CallbackQuery.ID {
		t.Errorf("callback query ids repeat: %q", old.ID)
	}
}

func TestUnknownMethodWrongTokenAndUnknownChat(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	b := newBot(t, srv)

	_, err := b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: 1, MessageID: 1})
	if !errors.Is(err, bot.ErrorNotFound) || !strings.HasSuffix(err.Error(), "Not Found") {
		t.Errorf("unknown method: %v", err)
	}
	if calls := srv.Calls("deleteMessage"); len(calls) != 1 {
		t.Errorf("unknown method calls = %+v", calls)
	}

	_, err = bot.New("7000000001:WrongToken", bot.WithServerURL(srv.URL()))
	if !errors.Is(err, bot.ErrorUnauthorized) {
		t.Errorf("wrong token: %v", err)
	}
	if me, err := b.GetMe(ctx); err != nil || me.ID != telegramtest.BotID || !me.IsBot ||
		me.Username != telegramtest.DefaultBotUsername {
		t.Errorf("GetMe = %+v, %v", me, err)
	}

	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
	wantBadRequest(t, err, telegramtest.ErrChatNotFound)
	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: "", Text: "hi"})
	wantBadRequest(t, err, telegramtest.ErrChatIDEmpty)

	// A user writing to the bot makes the chat known.
	if _, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "/whoami")); err != nil {
		t.Fatal(err)
	}
	msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
	if err != nil || msg.ID != 2 { // message 1 is Jane's
		t.Errorf("reply = %+v, %v", msg, err)
	}
	srv.AddChat(models.Chat{ID: -1001000000001, Username: "fake_approvers"})
	if msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: "@fake_approvers",
		Text: "hi"}); err != nil || msg.Chat.Type != models.ChatTypeSupergroup {
		t.Errorf("send to @username = %+v, %v", msg, err)
	}
}

func TestInjectJSONFromFixtures(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	got := make(chan *models.Update, 10)
	b := newBot(t, srv,
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) { got <- u }))
	startPolling(t, b)

	id, err := srv.InjectJSON(apiFixture(t, "update_message_command_group.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := receive(t, ctx, got)
	if u.ID != id || u.Message.Text != "/rules@fake_approval_bot" ||
		u.Message.Chat.ID != groupChat.ID || u.Message.Chat.Title != "Fake Approvers Group" {
		t.Fatalf("update = %+v", u.Message)
	}
	// The group is known now; the bot's reply comes after message 6 of the fixture.
	msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: groupChat.ID, Text: "rules: …"})
	if err != nil || msg.ID != 7 {
		t.Fatalf("reply = %+v, %v", msg, err)
	}

	cbID, err := srv.InjectJSON(apiFixture(t, "update_callback_query_approve_derived.json"))
	if err != nil {
		t.Fatal(err)
	}
	u = receive(t, ctx, got)
	if u.ID != cbID || u.CallbackQuery == nil || u.CallbackQuery.Data != "a:42:ok" ||
		u.CallbackQuery.Message.Message.ID != 1508 {
		t.Fatalf("callback update = %+v", u.CallbackQuery)
	}
	if ok, err := b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{
		CallbackQueryID: u.CallbackQuery.ID,
	}); err != nil || !ok {
		t.Errorf("answer fixture callback = %v, %v", ok, err)
	}
	if _, err := srv.InjectJSON(
		apiFixture(t, "update_callback_query_inaccessible_message_derived.json")); err != nil {
		t.Fatal(err)
	}
	if u := receive(t, ctx, got); u.CallbackQuery.Message.InaccessibleMessage == nil {
		t.Errorf("inaccessible message decoded as %+v", u.CallbackQuery.Message)
	}

	for _, bad := range []string{`[1,2]`, `not json`, `{"message":"text"}`} {
		if _, err := srv.InjectJSON([]byte(bad)); !errors.Is(err, telegramtest.ErrInvalidUpdate) {
			t.Errorf("InjectJSON(%s) = %v, want ErrInvalidUpdate", bad, err)
		}
	}
	if _, err := srv.Inject(models.Update{CallbackQuery: &models.CallbackQuery{
		Message: models.MaybeInaccessibleMessage{Type: 9},
	}}); !errors.Is(err, telegramtest.ErrInvalidUpdate) {
		t.Errorf("Inject(bad message type) = %v", err)
	}
	// The refused injections took no update id.
	next, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "next"))
	if err != nil || next != cbID+2 {
		t.Errorf("next id = %d, %v; want %d", next, err, cbID+2)
	}
	_, err = telegramtest.Fixture("no_such_fixture.json")
	if !errors.Is(err, telegramtest.ErrUnknownFixture) {
		t.Errorf("Fixture(unknown) = %v", err)
	}
}

func TestGetUpdatesOffsetLimitAndRedeliver(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	decode := func(status int, body []byte) []int64 {
		t.Helper()
		var env struct {
			OK     bool            `json:"ok"`
			Result []models.Update `json:"result"`
		}
		if err := json.Unmarshal(body, &env); err != nil || status != 200 || !env.OK {
			t.Fatalf("getUpdates = %d %s", status, body)
		}
		var out []int64
		for _, u := range env.Result {
			out = append(out, u.ID)
		}
		return out
	}
	ids := func(form url.Values) []int64 {
		t.Helper()
		return decode(rawCall(t, ctx, srv, srv.Token(), "getUpdates", form))
	}
	for range 3 {
		if _, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "hi")); err != nil {
			t.Fatal(err)
		}
	}
	check := func(form url.Values, want string, pending int) {
		t.Helper()
		if got := toString(ids(form)); got != want {
			t.Errorf("getUpdates %v = [%s], want [%s]", form, got, want)
		}
		if n := srv.PendingUpdates(); n != pending {
			t.Errorf("after %v pending = %d, want %d", form, n, pending)
		}
	}
	check(url.Values{}, "1 2 3", 3)                             // no offset confirms nothing
	check(url.Values{"limit": {"2"}}, "1 2", 3)                 // limit
	check(url.Values{"offset": {"2"}}, "2 3", 2)                // confirms 1
	check(url.Values{"offset": {"-1"}}, "3", 1)                 // the last one; the rest forgotten
	check(url.Values{"offset": {"4"}, "timeout": {"0"}}, "", 0) // confirms all, answers at once

	if err := srv.Redeliver(2); err != nil {
		t.Fatal(err)
	}
	check(url.Values{}, "2", 1)
	check(url.Values{"offset": {"3"}}, "", 0) // a redelivered update is confirmed like any other
	if err := srv.Redeliver(99); !errors.Is(err, telegramtest.ErrUnknownUpdate) ||
		srv.PendingUpdates() != 0 {
		t.Errorf("Redeliver(99) = %v, pending %d", err, srv.PendingUpdates())
	}

	// A waiting poll returns as soon as an update is injected.
	type answer struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan answer)
	polls := srv.CallCount("getUpdates")
	go func() {
		status, body, err := post(ctx, srv, srv.Token(), "getUpdates",
			url.Values{"offset": {"4"}, "timeout": {"50"}})
		done <- answer{status, body, err}
	}()
	if _, err := srv.WaitCalls(ctx, "getUpdates", polls+1); err != nil {
		t.Fatal(err)
	}
	id, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "now"))
	if err != nil {
		t.Fatal(err)
	}
	a := receive(t, ctx, done)
	testkit.Must(t, a.err)
	if got := decode(a.status, a.body); len(got) != 1 || got[0] != id {
		t.Errorf("waiting poll got %v, want [%d]", got, id)
	}
}

func toString(ids []int64) string {
	var s []string
	for _, id := range ids {
		s = append(s, strconv.FormatInt(id, 10))
	}
	return strings.Join(s, " ")
}

func TestCloseAnswersAWaitingPoll(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result)
	go func() {
		status, body, err := post(ctx, srv, srv.Token(), "getUpdates", url.Values{"timeout": {"50"}})
		done <- result{status, string(body), err}
	}()
	if _, err := srv.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if got := receive(t, ctx, done); got.err != nil || got.status != 200 ||
		got.body != `{"ok":true,"result":[]}` {
		t.Errorf("waiting poll after Close = %+v", got)
	}
	if _, err := srv.WaitCalls(ctx, "getUpdates", 2); !errors.Is(err, telegramtest.ErrClosed) {
		t.Errorf("WaitCalls after Close = %v, want ErrClosed", err)
	}
	srv.Close() // again: nothing
}

func TestWebhookMethods(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	b := newBot(t, srv)
	const hook, secret = "https://bot.example.com/telegram/webhook", "FAKE_secret-token_0123456789"

	ok, err := b.SetWebhook(ctx, &bot.SetWebhookParams{URL: hook, SecretToken: secret,
		AllowedUpdates: []string{"message", "callback_query"}})
	if err != nil || !ok {
		t.Fatalf("SetWebhook = %v, %v", ok, err)
	}
	if w := srv.Webhook(); w.URL != hook || w.SecretToken != secret || w.MaxConnections != 40 ||
		strings.Join(w.AllowedUpdates, ",") != "message,callback_query" {
		t.Errorf("webhook = %+v", w)
	}
	setAgain := url.Values{"url": {hook}, "secret_token": {secret},
		"allowed_updates": {`["message","callback_query"]`}}
	if _, body := rawCall(t, ctx, srv, srv.Token(), "setWebhook", setAgain); string(body) !=
		`{"ok":true,"result":true,"description":"Webhook is already set"}` {
		t.Errorf("setWebhook again = %s", body)
	}

	prefix := "Bad Request: "
	for _, tt := range []struct{ url, secret, want string }{
		{"http://bot.example.com/hook", "", "bad webhook: HTTPS url must be provided for webhook"},
		{"https://bot.example.com:8080/hook", "",
			"bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"},
		{"https://bad host/hook", "", "invalid webhook URL specified"},
		{hook, "not allowed!", "secret token contains unallowed characters"},
		{hook, strings.Repeat("s", 257), "secret token is too long"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			_, err := b.SetWebhook(ctx, &bot.SetWebhookParams{URL: tt.url, SecretToken: tt.secret})
			wantBadRequest(t, err, telegramtest.APIError{Code: 400, Description: prefix + tt.want})
		})
	}
	if w := srv.Webhook(); w.URL != hook || w.SecretToken != secret {
		t.Errorf("refused setWebhook calls changed the webhook: %+v", w)
	}

	for range 2 {
		if _, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "queued")); err != nil {
			t.Fatal(err)
		}
	}
	info, err := b.GetWebhookInfo(ctx)
	if err != nil || info.URL != hook || info.PendingUpdateCount != 2 ||
		info.MaxConnections != 40 {
		t.Errorf("GetWebhookInfo = %+v, %v", info, err)
	}
	_, body := rawCall(t, ctx, srv, srv.Token(), "deleteWebhook",
		url.Values{"drop_pending_updates": {"true"}})
	if string(body) != `{"ok":true,"result":true,"description":"Webhook was deleted"}` ||
		srv.PendingUpdates() != 0 || srv.Webhook().URL != "" {
		t.Errorf("deleteWebhook = %s, pending %d, webhook %+v",
			body, srv.PendingUpdates(), srv.Webhook())
	}
	if _, body := rawCall(t, ctx, srv, srv.Token(), "deleteWebhook", nil); string(body) !=
		`{"ok":true,"result":true,"description":"Webhook is already deleted"}` {
		t.Errorf("deleteWebhook again = %s", body)
	}
}

// TestSetWebhookTerminatesAWaitingPoll checks the 409 a poller gets when a webhook is
// set under it.
func TestSetWebhookTerminatesAWaitingPoll(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{})
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result)
	go func() {
		_, body, err := post(ctx, srv, srv.Token(), "getUpdates", url.Values{"timeout": {"50"}})
		done <- result{body, err}
	}()
	if _, err := srv.WaitCalls(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	srv.SetWebhook("https://bot.example.com/hook", "")
	want := `{"ok":false,"error_code":409,` +
		`"description":"Conflict: terminated by setWebhook request"}`
	if got := receive(t, ctx, done); got.err != nil || string(got.body) != want {
		t.Errorf("poll = %s (%v), want %s", got.body, got.err, want)
	}
}

// TestErrorEnvelopesMatchFixtures compares the bytes this server answers with the
// real captures in testdata.
func TestErrorEnvelopesMatchFixtures(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	chat := strconv.FormatInt(janeChat.ID, 10)
	send := url.Values{"chat_id": {chat}, "text": {"Request #42"}}
	_, body := rawCall(t, ctx, srv, srv.Token(), "sendMessage", send)
	var sent struct {
		Result models.Message `json:"result"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	cb := srv.CallbackQueryUpdate(jane, janeChat.ID, sent.Result.ID, "a:42:ok")
	if _, err := srv.Inject(cb); err != nil {
		t.Fatal(err)
	}
	failNext := func(method string, e telegramtest.APIError) {
		if err := srv.FailNext(method, e); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		fixture, token, method string
		form                   url.Values
		before                 func()
	}{
		{"error_message_not_modified.json", srv.Token(), "editMessageText",
			url.Values{"chat_id": {chat}, "message_id": {strconv.Itoa(sent.Result.ID)},
				"text": {"Request #42"}}, nil},
		{"error_message_too_long.json", srv.Token(), "sendMessage",
			url.Values{"chat_id": {chat}, "text": {strings.Repeat("x", 4097)}}, nil},
		{"error_button_data_invalid.json", srv.Token(), "sendMessage",
			url.Values{"chat_id": {chat}, "text": {"x"},
				"reply_markup": {`{"inline_keyboard":[[{"text":"x","callback_data":"` +
					strings.Repeat("d", 65) + `"}]]}`}}, nil},
		{"error_query_too_old.json", srv.Token(), "answerCallbackQuery",
			url.Values{"callback_query_id": {"1"}}, nil},
		{"error_chat_not_found.json", srv.Token(), "sendMessage",
			url.Values{"chat_id": {"42"}, "text": {"x"}}, nil},
		{"error_unauthorized.json", "7000000001:Wrong", "getMe", nil, nil},
		{"error_too_many_requests.json", srv.Token(), "sendMessage", send,
			func() { failNext("sendMessage", telegramtest.TooManyRequests(35)) }},
		{"error_bot_blocked.json", srv.Token(), "sendMessage", send,
			func() { failNext("sendMessage", telegramtest.ErrBotBlocked) }},
		{"answerCallbackQuery_response.json", srv.Token(), "answerCallbackQuery",
			url.Values{"callback_query_id": {cb.CallbackQuery.ID}}, nil},
		{"setWebhook_response.json", srv.Token(), "setWebhook",
			url.Values{"url": {"https://bot.example.com/hook"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			if tt.before != nil {
				tt.before()
			}
			want := apiFixture(t, tt.fixture)
			status, body := rawCall(t, ctx, srv, tt.token, tt.method, tt.form)
			if string(body) != string(want) {
				t.Errorf("body = %s\nwant   %s", body, want)
			}
			var env struct {
				ErrorCode int `json:"error_code"`
			}
			if err := json.Unmarshal(want, &env); err != nil {
				t.Fatalf("fixture %s: %v", tt.fixture, err)
			}
			if wantStatus := max(env.ErrorCode, 200); status != wantStatus {
				t.Errorf("status = %d, want %d", status, wantStatus)
			}
		})
	}
}

func TestParametersInEveryEncoding(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	post := func(contentType, body, query string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost,
			srv.URL()+"/bot"+srv.Token()+"/SendMessage?"+query, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post("application/json", `{"chat_id":100000001,"text":"json","reply_markup":`+
		`{"inline_keyboard":[[{"text":"a","callback_data":"a:1:ok"}]]}}`, ""); s != 200 {
		t.Errorf("JSON: %d", s)
	}
	if s := post("", "", "chat_id=100000001&text=query"); s != 200 {
		t.Errorf("query: %d", s)
	}
	if s := post("application/json", `{"chat_id":`, ""); s != 400 {
		t.Errorf("broken JSON: %d", s)
	}
	msgs := srv.Messages(janeChat.ID)
	if len(msgs) != 2 || msgs[0].PlainText != "json" ||
		strings.Join(msgs[0].CallbackData(), "") != "a:1:ok" || msgs[1].PlainText != "query" {
		t.Errorf("messages = %+v", msgs)
	}
	if calls := srv.Calls(""); len(calls) != 3 || calls[0].Method != "sendMessage" {
		t.Errorf("calls = %+v", calls)
	}
}

func TestPostWebhookDeliversLikeTelegram(t *testing.T) {
	ctx := testContext(t)
	const secret = "FAKE_secret-token_0123456789"
	request := string(apiFixture(t, "webhook_request.http.txt"))
	head, body, _ := strings.Cut(request, "\r\n\r\n")

	// Through go-telegram/bot's webhook handler, secret checked.
	got := make(chan *models.Update, 1)
	b, err := bot.New(telegramtest.DefaultToken, bot.WithSkipGetMe(),
		bot.WithWebhookSecretToken(secret),
		bot.WithNotAsyncHandlers(), bot.WithErrorsHandler(func(error) {}),
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) { got <- u }))
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		method, path string
		header       http.Header
	}
	requests := make(chan seen, 1)
	handler := b.WebhookHandler()
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests <- seen{r.Method, r.URL.Path, r.Header.Clone()}
		handler(w, r)
	}))
	t.Cleanup(hookSrv.Close)
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { defer close(stopped); b.StartWebhook(runCtx) }()
	defer func() { cancel(); <-stopped }()

	status, err := telegramtest.PostWebhook(ctx, hookSrv.URL+"/telegram/webhook", secret,
		[]byte(body))
	if err != nil || status != http.StatusOK {
		t.Fatalf("PostWebhook = %d, %v", status, err)
	}
	r := receive(t, ctx, requests)
	if r.method != http.MethodPost || r.path != "/telegram/webhook" ||
		r.header.Get("Content-Type") != "application/json" ||
		r.header.Get(telegramtest.SecretTokenHeader) != secret {
		t.Errorf("request = %+v", r)
	}
	for _, line := range strings.Split(head, "\r\n")[1:] {
		name, value, _ := strings.Cut(line, ": ")
		if name != "Host" && name != "Content-Length" && r.header.Get(name) != value {
			t.Errorf("header %s = %q, fixture has %q", name, r.header.Get(name), value)
		}
	}
	if u := receive(t, ctx, got); u.ID != 363455590 || u.Message.Text != "/rules" {
		t.Errorf("update = %+v", u)
	}

	if _, err := telegramtest.PostWebhook(ctx, "https://bot.example.com/telegram/webhook", secret,
		[]byte(body)); !errors.Is(err, telegramtest.ErrNotLoopback) {
		t.Errorf("PostWebhook off loopback = %v", err)
	}
	select {
	case r := <-requests:
		t.Errorf("a refused PostWebhook reached a handler: %+v", r)
	default:
	}
}

func TestNewRejectsABadConfig(t *testing.T) {
	for _, cfg := range []telegramtest.Config{
		{Token: "no-colon"},
		{Token: "abc:secret"},
		{Token: "1:bad secret"},
		{Chats: []models.Chat{{Title: "no id"}}},
	} {
		if srv, err := telegramtest.New(cfg); !errors.Is(err, telegramtest.ErrInvalidConfig) ||
			srv != nil {
			t.Errorf("New(%+v) = %v, %v; want ErrInvalidConfig", cfg, srv, err)
		}
	}
	srv := newTelegramServer(t, telegramtest.Config{Token: "123:abc_DEF-9", BotUsername: "other_bot",
		BotName: "Other"})
	if me := srv.Me(); me.ID != 123 || me.Username != "other_bot" || me.FirstName != "Other" ||
		!me.IsBot {
		t.Errorf("Me = %+v", me)
	}
}

// SetOutage makes every call fail — the connection closed, or a 502 page — while the
// calls are still recorded and change nothing; a waiting long poll is ended too, and
// an update injected meanwhile is delivered once the server is back.
func TestSetOutage(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	for _, o := range outage.Kinds() {
		t.Run(o.String(), func(t *testing.T) {
			want := o.ClientError()
			polled := make(chan error, 1)
			calls := srv.CallCount("getUpdates") // before the poll, which may be counted at once
			go func() {
				status, body, err := post(ctx, srv, srv.Token(), "getUpdates",
					url.Values{"timeout": {"50"}})
				if err == nil {
					err = fmt.Errorf("%d %s", status, body)
				}
				polled <- err
			}()
			if _, err := srv.WaitCalls(ctx, "getUpdates", calls+1); err != nil {
				t.Fatal(err)
			}
			srv.SetOutage(o)
			if err := <-polled; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("the waiting getUpdates: %v, want an error with %q", err, want)
			}
			sends, msgs := srv.CallCount("sendMessage"), len(srv.Messages(janeChat.ID))
			_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "hi"})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("sendMessage while down: %v, want an error with %q", err, want)
			}
			if n, m := srv.CallCount("sendMessage"),
				len(srv.Messages(janeChat.ID)); n != sends+1 || m != msgs {
				t.Errorf("%d sendMessage calls and %d messages, want %d and %d",
					n, m, sends+1, msgs)
			}
			id, err := srv.Inject(srv.MessageUpdate(jane, janeChat, "hello"))
			if err != nil {
				t.Fatal(err)
			}
			srv.SetOutage(outage.None)
			status, body, err := post(ctx, srv, srv.Token(), "getUpdates",
				url.Values{"offset": {strconv.FormatInt(id, 10)}})
			if err != nil || status != 200 ||
				!strings.Contains(string(body), `"update_id":`+strconv.FormatInt(id, 10)) {
				t.Errorf("getUpdates once back: %d %s %v; want the update injected meanwhile",
					status, body, err)
			}
			rawCall(t, ctx, srv, srv.Token(), "getUpdates",
				url.Values{"offset": {strconv.FormatInt(id+1, 10)}})
		})
	}
}

func TestLoseReplyNext(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	if err := srv.LoseReplyNext("sendmessage"); err != nil {
		t.Fatal(err)
	}
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "lost"})
	if err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("sendMessage whose reply is lost: %v, want an error with EOF", err)
	}
	if ms := srv.Messages(janeChat.ID); len(ms) != 1 || ms[0].Text != "lost" {
		t.Errorf("messages %+v, want the one whose reply was lost", ms)
	}
	m, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "next"})
	if err != nil || m.Text != "next" {
		t.Errorf("the next sendMessage: %+v, %v; want it answered", m, err)
	}
	err = srv.LoseReplyNext("sendSticker")
	if !errors.Is(err, telegramtest.ErrUnknownMethod) ||
		err.Error() != `telegramtest: lose reply next "sendSticker": unknown Bot API method` {
		t.Errorf("LoseReplyNext of an unknown method: %v", err)
	}
}

// With PostOnly, a GET and a POST with a query are refused before they are served:
// no message changes and no call is recorded; the client's POSTs still work.
func TestPostOnly(t *testing.T) {
	ctx := testContext(t)
	srv := newTelegramServer(t, telegramtest.Config{PostOnly: true, Chats: []models.Chat{janeChat}})
	b := newBot(t, srv)
	msg, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: janeChat.ID, Text: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	edit := url.Values{"chat_id": {strconv.FormatInt(janeChat.ID, 10)},
		"message_id": {strconv.Itoa(msg.ID)}, "text": {"forged"}}.Encode()
	base := srv.URL() + "/bot" + srv.Token() + "/editMessageText"
	for _, tc := range []struct{ name, method, url, body string }{
		{"GET with query", http.MethodGet, base + "?" + edit, ""},
		{"GET", http.MethodGet, base, ""},
		{"POST with query", http.MethodPost, base + "?" + edit, ""},
		{"POST with query and body", http.MethodPost, base + "?x=1", edit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, tc.method, tc.url,
				strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body),
				`"description":"Not Found"`) {
				t.Errorf("%d %s, want 404 Not Found", resp.StatusCode, body)
			}
			if m, _ := srv.Message(janeChat.ID, msg.ID); m.PlainText != "bot" ||
				len(m.History) != 1 {
				t.Errorf("message = %+v, want the bot's only", m)
			}
			if calls := srv.Calls("editMessageText"); len(calls) != 0 {
				t.Errorf("calls = %+v", calls)
			}
		})
	}
	status, body := rawCall(t, ctx, srv, srv.Token(), "editMessageText", url.Values{
		"chat_id": {strconv.FormatInt(janeChat.ID, 10)}, "message_id": {strconv.Itoa(msg.ID)},
		"text": {"edited by the bot"}})
	if m, _ := srv.Message(janeChat.ID, msg.ID); status != http.StatusOK ||
		m.PlainText != "edited by the bot" {
		t.Errorf("POST: %d %s, message %+v", status, body, m)
	}
}
