package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// The prompt reaches every configured chat in HTML with the four buttons and their
// callback data; an approver's tap approves, is answered with a toast, and every
// message is edited once to the outcome with its buttons gone.
func TestPromptAndApproverTap(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"})

	wantLabels := [][]string{{"✅ Approve", "❌ Reject"}, {"⏱ 15 min", "🔄 Session"}}
	wantData := []string{fmt.Sprintf("a:%d:ok", r.ID), fmt.Sprintf("a:%d:no", r.ID),
		fmt.Sprintf("a:%d:b15", r.ID), fmt.Sprintf("a:%d:bs", r.ID)}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, r.ID)
		if m.ParseMode != "HTML" {
			t.Errorf("chat %d: parse_mode %q", chat, m.ParseMode)
		}
		for _, s := range []string{
			"🔐 Approval needed: Bash", "Tool: Bash", "Session: sess-1", "Category: shell",
			`"command": "make deploy"`, fmt.Sprintf("Request: #%d", r.ID),
		} {
			if !strings.Contains(m.PlainText, s) {
				t.Errorf("chat %d: prompt does not show %q:\n%s", chat, s, m.PlainText)
			}
		}
		var labels [][]string
		for _, row := range m.Keyboard.InlineKeyboard {
			var l []string
			for _, b := range row {
				l = append(l, b.Text)
			}
			labels = append(labels, l)
		}
		if testkit.JSON(labels) != testkit.JSON(wantLabels) ||
			!slices.Equal(m.CallbackData(), wantData) {
			t.Errorf("chat %d: keyboard %v %v, want %v %v",
				chat, labels, m.CallbackData(), wantLabels, wantData)
		}
	}
	// The messages are recorded on the request, for the edits and the taps.
	if got := e.request(r.ID).Messages; len(got) != 2 || got[0].Channel != Name {
		t.Fatalf("stored messages %+v", got)
	}

	q := e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)
	if a := e.answer(q); a.Text != "Approved" {
		t.Errorf("toast %q, want Approved", a.Text)
	}
	e.waitUpdated(r.ID)
	got := e.request(r.ID)
	if got.Status != store.Approved || got.Resolution.By != "Jane Doe (100000001)" ||
		got.Resolution.Via != "telegram" {
		t.Errorf("request %s %+v", got.Status, got.Resolution)
	}
	e.stop()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, r.ID)
		// Posted without buttons, armed, then the outcome.
		if len(m.History) != 3 || m.Keyboard != nil ||
			!strings.Contains(m.PlainText, "✅ Approved by Jane Doe (100000001) · telegram · ") {
			t.Errorf("chat %d: %d versions, keyboard %v, text:\n%s",
				chat, len(m.History), m.Keyboard, m.PlainText)
		}
	}
}

// A stranger's tap in a group chat is answered "Not authorized" and changes
// nothing: the request stays pending, no message is edited, the store is the same.
func TestStrangerTapRefused(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "rm -rf build"})
	audit, err := e.db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []bot.Action{bot.ActionApprove, bot.ActionBypassSession, bot.ActionReject} {
		q := e.tap(mallory, groupChat.ID, r.ID, a)
		if got := e.answer(q); got.Text != "Not authorized" {
			t.Errorf("%s: toast %q", a, got.Text)
		}
	}
	if got := e.request(r.ID); got.Status != store.Pending || got.Resolution != nil {
		t.Errorf("request is %s %+v", got.Status, got.Resolution)
	}
	if after, err := e.db.Audit(0); err != nil || testkit.JSON(after) != testkit.JSON(audit) {
		t.Errorf("audit log changed: %s (err %v)", testkit.JSON(after), err)
	}
	if n := len(e.g.Bypasses("sess-1")); n != 0 {
		t.Errorf("%d bypasses", n)
	}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if m := e.prompt(chat, r.ID); len(m.History) != 2 {
			t.Errorf("chat %d: prompt edited %d times, want once (armed)", chat, len(m.History)-1)
		}
	}
	if len(e.logs.Find("tap refused", "user_id=100000009")) != 3 {
		t.Errorf("refusals not logged:\n%s", e.logs.All())
	}
}

// ⏱ and 🔄 approve with a bypass: the next call of the same category in the session
// is allowed with no prompt; one of another category still prompts.
func TestBypassButtons(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	for _, tc := range []struct {
		action bot.Action
		toast  string
		secs   int64
	}{
		{bot.ActionBypassShort, "Approved · ⏱ 15 min bypass", 900},
		{bot.ActionBypassSession, "Approved · 🔄 session bypass", 0},
	} {
		t.Run(tc.toast, func(t *testing.T) {
			session := "sess-" + string(tc.action)
			r := e.require(session, "Bash", map[string]any{"command": "make"})
			if a := e.answer(e.tap(jane, janeChat.ID, r.ID, tc.action)); a.Text != tc.toast {
				t.Errorf("%s: toast %q", tc.action, a.Text)
			}
			got := e.request(r.ID)
			if got.Status != store.Approved || got.Resolution.Bypass == nil ||
				got.Resolution.Bypass.Secs != tc.secs ||
				got.Resolution.Bypass.Scope != "category:shell" {
				t.Fatalf("%s: %s %+v", tc.action, got.Status, got.Resolution)
			}
			sent := len(e.srv.Messages(janeChat.ID))
			out, err := e.g.Check(e.ctx, gate.Call{ToolName: "execute_cmd",
				Arguments: map[string]any{"cmd": "ls"}, SessionID: session})
			if err != nil || out.Decision != gate.VerdictAllow {
				t.Errorf("%s: same category: %+v, %v; want allow", tc.action, out, err)
			}
			other := e.require(session, "write_file",
				map[string]any{"path": "notes.txt", "content": "x"})
			if other.Status != store.Pending {
				t.Errorf("%s: other category: %s", tc.action, other.Status)
			}
			if n := len(e.srv.Messages(janeChat.ID)); n != sent+1 {
				t.Errorf("%s: %d new messages, want the one prompt of write_file",
					tc.action, n-sent)
			}
		})
	}
}

// Two taps at once (webhook deliveries run concurrently), and a tap racing an API
// resolution: one resolution, every message edited once, all to the same outcome.
func TestConcurrentResolutions(t *testing.T) {
	t.Run("two taps", func(t *testing.T) {
		e := newTelegramEnv(t, envOptions{webhook: true}).start()
		r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
		var ids []string
		var wg sync.WaitGroup
		for _, tap := range []struct {
			user   models.User
			chat   int64
			action bot.Action
		}{{jane, groupChat.ID, bot.ActionApprove}, {alice, janeChat.ID, bot.ActionReject}} {
			u := e.srv.CallbackQueryUpdate(tap.user, tap.chat, e.prompt(tap.chat, r.ID).MessageID,
				bot.Callback{RequestID: r.ID, Action: tap.action}.String())
			ids = append(ids, u.CallbackQuery.ID)
			wg.Go(func() { e.post(u) })
		}
		wg.Wait()
		e.checkOneOutcome(r.ID, ids)
	})
	t.Run("tap and API", func(t *testing.T) {
		e := newTelegramEnv(t, envOptions{}).start()
		r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
		var wg sync.WaitGroup
		wg.Go(func() { // whichever comes second finds the request resolved
			_, err := e.g.Resolve(context.Background(), r.ID,
				gate.Answer{Approve: false, By: "api", Via: "api"})
			if err != nil && !errors.Is(err, gate.ErrAlreadyResolved) {
				t.Errorf("Resolve through the API: %v", err)
			}
		})
		q := e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)
		wg.Wait()
		e.checkOneOutcome(r.ID, []string{q})
	})
}

// checkOneOutcome checks that request id was resolved once, that every tap was
// answered, and (after stopping) that each message was edited once to the outcome.
func (e *env) checkOneOutcome(id uint64, taps []string) {
	e.t.Helper()
	for _, q := range taps {
		e.answer(q)
	}
	e.waitUpdated(id)
	r := e.request(id)
	audit, err := e.db.Audit(0)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, a := range audit {
		if a.RequestID == id && strings.HasPrefix(a.Action, "request.") {
			n++
		}
	}
	if n != 1 {
		e.t.Errorf("%d resolutions in the audit log: %s", n, testkit.JSON(audit))
	}
	outcome := bot.OutcomeText(r)
	e.stop()
	if c := e.note.sig.count(fmt.Sprintf("update %d", id)); c != 1 {
		e.t.Errorf("messages updated %d times", c)
	}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, id)
		if len(m.History) != 3 || m.Keyboard != nil || !strings.Contains(m.PlainText, outcome) {
			e.t.Errorf("chat %d: %d versions, keyboard %v, want the outcome %q:\n%s",
				chat, len(m.History), m.Keyboard, outcome, m.PlainText)
		}
	}
}

// A restart between the prompt and the tap: the new process's Channel takes the
// tap on the old message, the request resolves, and a caller waiting after the
// restart gets the outcome.
func TestRestartBetweenPromptAndTap(t *testing.T) {
	first := newTelegramEnv(t, envOptions{}).start()
	r := first.require("sess-1", "Bash", map[string]any{"command": "make deploy"})
	first.close()

	e := newTelegramEnv(t, envOptions{srv: first.srv, path: first.path}).start()
	outcome := make(chan store.Request, 1)
	go func() {
		got, err := e.g.Wait(e.ctx, r.ID)
		if err != nil {
			t.Error(err)
		}
		outcome <- got
	}()
	if a := e.answer(e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)); a.Text != "Approved" {
		t.Errorf("toast %q", a.Text)
	}
	if got := <-outcome; got.Status != store.Approved {
		t.Errorf("the waiting caller got %s", got.Status)
	}
	e.waitUpdated(r.ID)
	e.stop()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if m := e.prompt(chat, r.ID); m.Keyboard != nil ||
			!strings.Contains(m.PlainText, "✅ Approved by Jane Doe") {
			t.Errorf("chat %d after the restart:\n%s", chat, m.PlainText)
		}
	}
}

// A tap whose message Telegram no longer sends whole (an InaccessibleMessage) still
// names its chat and message and resolves; a tap on an inline message, which is no
// prompt of ours, is answered "Unknown request".
func TestTapOnInaccessibleAndInlineMessages(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	m := e.prompt(janeChat.ID, r.ID)
	// A message the bot never sent: inaccessible.
	u := e.srv.CallbackQueryUpdate(jane, janeChat.ID, 424242, "a:1:no")
	u.CallbackQuery.Message.InaccessibleMessage.MessageID = m.MessageID
	u.CallbackQuery.Data = bot.Callback{RequestID: r.ID, Action: bot.ActionReject}.String()
	e.inject(u)
	if a := e.answer(u.CallbackQuery.ID); a.Text != "Rejected" {
		t.Errorf("toast %q", a.Text)
	}
	if got := e.request(r.ID); got.Status != store.Rejected {
		t.Errorf("request %s", got.Status)
	}

	if _, err := e.srv.InjectJSON(
		testkit.ReadFile(t, "update_callback_query_docs_example.json")); err != nil {
		t.Fatal(err)
	}
	if a := e.answer("4382bfdwdsb323b2d9"); a.Text != "Unknown request" {
		t.Errorf("inline message tap: toast %q", a.Text)
	}
}

// The fixture of a tap on a message left over from another database (request 42
// that this store does not have) is refused, and answered.
func TestTapFixtureUnknownRequest(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	if _, err := e.srv.InjectJSON(testkit.ReadFile(t,
		"update_callback_query_inaccessible_message_derived.json")); err != nil {
		t.Fatal(err)
	}
	if a := e.answer("4000000000000000004"); a.Text != "Unknown request" {
		t.Errorf("toast %q", a.Text)
	}
}

// The callback query is answered before the slow work. The edits of the messages
// come after the answer: here every editMessageText is held until the answer was
// seen, and the answer still comes.
func TestTapAnsweredBeforeEdits(t *testing.T) {
	release := make(chan struct{})
	client := &http.Client{Transport: holdEdits{release: release, next: http.DefaultTransport}}
	e := newTelegramEnv(t, envOptions{httpClient: client}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	q := e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)
	if a := e.answer(q); a.Text != "Approved" {
		t.Errorf("toast %q", a.Text)
	}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if m := e.prompt(chat, r.ID); m.Keyboard == nil {
			t.Errorf("chat %d: the outcome was shown before the answer", chat)
		}
	}
	close(release)
	e.waitUpdated(r.ID)
	if n := e.srv.CallCount("editMessageText"); n != 4 {
		t.Errorf("%d edits, want 4 (two to arm, two to show the outcome)", n)
	}
}

// holdEdits is a RoundTripper that holds every editMessageText call that removes
// the buttons (not the ones that arm a prompt) until release is closed.
type holdEdits struct {
	release chan struct{}
	next    http.RoundTripper
}

func (h holdEdits) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/editMessageText") {
		body, err := peek(&r.Body)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(body, []byte("callback_data")) {
			return h.next.RoundTrip(r)
		}
		select {
		case <-h.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return h.next.RoundTrip(r)
}

// A resolution slower than TapWait (a stalled disk) does not hold the answer: the
// query is answered "Working on it", the resolution ends later, and the messages
// then show the outcome.
func TestSlowResolutionAnsweredFirst(t *testing.T) {
	slow := &slowTaps{release: make(chan struct{})}
	e := newTelegramEnv(t, envOptions{tapWait: 1, handler: func(b *bot.Bot) Handler {
		slow.Bot = b
		return slow
	}}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	q := e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)
	if a := e.answer(q); a.Text != ToastWorking {
		t.Errorf("toast %q, want %q", a.Text, ToastWorking)
	}
	if got := e.request(r.ID); got.Status != store.Pending {
		t.Fatalf("resolved before the test let it: %s", got.Status)
	}
	close(slow.release)
	e.waitUpdated(r.ID)
	if got := e.request(r.ID); got.Status != store.Approved {
		t.Errorf("request %s", got.Status)
	}
	if len(e.logs.Find("takes longer than the tap wait")) != 1 {
		t.Errorf("slow tap not logged:\n%s", e.logs.All())
	}
}

// slowTaps is the Bot with a HandleTap that waits for release.
type slowTaps struct {
	*bot.Bot
	release chan struct{}
}

func (s *slowTaps) HandleTap(ctx context.Context, t bot.Tap) (bot.TapResult, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return bot.TapResult{}, ctx.Err()
	}
	return s.Bot.HandleTap(ctx, t)
}

// A 429 on answerCallbackQuery is waited out for its retry_after, then answered.
func TestAnswerRateLimited(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	if err := e.srv.FailNext("answerCallbackQuery", telegramtest.TooManyRequests(7)); err != nil {
		t.Fatal(err)
	}
	if a := e.answer(e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)); a.Text != "Approved" {
		t.Errorf("toast %q", a.Text)
	}
	if got := e.sleeps.list(); !slices.Contains(got, 7e9) {
		t.Errorf("waits %v, want retry_after 7s", got)
	}
	if n := e.srv.CallCount("answerCallbackQuery"); n != 2 {
		t.Errorf("%d answerCallbackQuery calls, want 2", n)
	}
}

// post delivers u to the webhook with the right secret and wants 200. The update is
// injected first, so that its callback query can be answered; its update_id is the
// one the server gave it.
func (e *env) post(u models.Update) {
	e.t.Helper()
	id, err := e.srv.Inject(u)
	if err != nil {
		e.t.Error(err)
		return
	}
	u.ID = id
	if code := e.postRaw(u, secretToken); code != http.StatusOK {
		e.t.Errorf("webhook delivery: %d", code)
	}
}

func (e *env) postRaw(u models.Update, secret string) int {
	e.t.Helper()
	raw := []byte(testkit.JSON(u))
	code, err := telegramtest.PostWebhook(e.ctx, e.hook, secret, raw)
	if err != nil {
		e.t.Error(err)
	}
	return code
}

// brokenStore is the real store whose offset and delivery records fail once broken.
type brokenStore struct {
	Store
	broken chan struct{} // closed: broken
}

func (b brokenStore) isBroken() bool {
	select {
	case <-b.broken:
		return true
	default:
		return false
	}
}

func (b brokenStore) PutMeta(key string, v []byte) error {
	if b.isBroken() {
		return errDisk
	}
	return b.Store.PutMeta(key, v)
}

func (b brokenStore) SeenDelivery(id string, now time.Time, ttl time.Duration) (bool, error) {
	if b.isBroken() {
		return false, errDisk
	}
	return b.Store.SeenDelivery(id, now, ttl)
}

// What fails on the way is logged and does not stop the Channel: a store that
// cannot record the update (it is handled anyway, rather than lost), an answer or a
// reply the Bot API refuses.
func TestFailuresAreLogged(t *testing.T) {
	broken := brokenStore{broken: make(chan struct{})}
	e := newTelegramEnv(t, envOptions{store: func(s Store) Store {
		broken.Store = s
		return broken
	}}).start()

	close(broken.broken)
	if reply := e.say(jane, janeChat, "/whoami"); !strings.Contains(reply, "approver") {
		t.Errorf("whoami with a broken store: %q", reply)
	}

	r := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	for _, f := range []telegramtest.APIError{
		telegramtest.ErrQueryTooOld, telegramtest.ServerError(500),
	} {
		if err := e.srv.FailNext("answerCallbackQuery", f); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.srv.FailNext("sendMessage", telegramtest.ErrBotBlocked); err != nil {
		t.Fatal(err)
	}
	e.tap(mallory, groupChat.ID, r.ID, bot.ActionApprove)
	e.tap(mallory, groupChat.ID, r.ID, bot.ActionReject)
	e.inject(e.srv.MessageUpdate(jane, janeChat, "/whoami"))
	// Handled in order: once this one is answered, the three before were handled.
	if reply := e.say(jane, janeChat, "/pending"); !strings.Contains(reply, "1 pending") {
		t.Errorf("pending: %q", reply)
	}
	for _, want := range []string{
		"callback query answered too late", "answering a callback query", "replying to a command",
	} {
		if len(e.logs.Find("WARN", want)) != 1 {
			t.Errorf("not logged %q:\n%s", want, e.logs.All())
		}
	}
	// Every update since the store broke: recorded and stored by no one, handled all
	// the same (the offset of the last one is stored after its reply).
	if n := len(e.logs.Find("ERROR", "recording a handled update", "disk on fire")); n != 5 {
		t.Errorf("%d failed records logged, want 5:\n%s", n, e.logs.All())
	}
	if n := len(e.logs.Find("ERROR", "storing the offset", "disk on fire")); n < 4 {
		t.Errorf("%d failed offsets logged, want at least 4:\n%s", n, e.logs.All())
	}
}

// tapFirst is the Bot API client's transport. It notes whether the prompt posted to
// the group chat came with buttons; when the edit that arms it returns, it makes
// Jane tap ✅ under it before the client sees the answer, and holds the answer until
// the tap was handled.
type tapFirst struct {
	e    *env
	next http.RoundTripper

	mu          sync.Mutex
	fired       bool
	postedArmed bool   // a sendMessage to the group chat carried a keyboard
	query       string // the callback query id of the tap
}

func (h *tapFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	send := strings.HasSuffix(req.URL.Path, "/sendMessage")
	if err != nil || !send && !strings.HasSuffix(req.URL.Path, "/editMessageText") {
		return resp, err
	}
	body, err := peek(&resp.Body)
	if err != nil {
		return nil, err
	}
	var out struct {
		Result models.Message `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Result.Chat.ID != groupChat.ID ||
		out.Result.ReplyMarkup == nil || len(out.Result.ReplyMarkup.InlineKeyboard) == 0 {
		return resp, nil
	}
	h.mu.Lock()
	fired := h.fired
	h.fired = true
	h.postedArmed = h.postedArmed || send
	h.mu.Unlock()
	if fired {
		return resp, nil
	}
	data := out.Result.ReplyMarkup.InlineKeyboard[0][0].CallbackData
	u := h.e.srv.CallbackQueryUpdate(jane, groupChat.ID, out.Result.ID, data)
	h.mu.Lock()
	h.query = u.CallbackQuery.ID
	h.mu.Unlock()
	if _, err := h.e.srv.Inject(u); err != nil {
		return nil, fmt.Errorf("inject the tap: %w", err)
	}
	if _, err := h.e.logs.Wait(h.e.ctx, []string{"request resolved by a tap"},
		[]string{"tap refused"}); err != nil {
		return nil, err
	}
	return resp, nil
}

// A prompt is posted without buttons and armed once its message is recorded, so the
// earliest possible tap — the moment its buttons show, before the service has even
// seen the edit's answer — is on a recorded message and approves.
func TestTapBeforePromptRecorded(t *testing.T) {
	hook := &tapFirst{next: http.DefaultTransport.(*http.Transport).Clone()}
	e := newTelegramEnv(t, envOptions{httpClient: &http.Client{Transport: hook}})
	hook.e = e
	e.start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"})

	hook.mu.Lock()
	q, postedArmed := hook.query, hook.postedArmed
	hook.mu.Unlock()
	if q == "" || postedArmed {
		t.Fatalf("tap %q, posted with buttons %v: want posted without, armed by an edit", q,
			postedArmed)
	}
	if a := e.answer(q); a.Text != "Approved" {
		t.Fatalf("toast %q, want Approved; logs:\n%s", a.Text, e.logs.All())
	}
	e.waitUpdated(r.ID)
	got := e.request(r.ID)
	if got.Status != store.Approved || got.Resolution == nil ||
		got.Resolution.By != "Jane Doe (100000001)" {
		t.Fatalf("request %s %+v, want approved by Jane", got.Status, got.Resolution)
	}
}

// A process killed after Telegram posted a prompt and before its message was
// recorded (here: recording fails until the process stops) leaves that message
// without buttons; the next start posts a recorded prompt, which ends without
// buttons too.
func TestPromptNotRecordedHasNoButtons(t *testing.T) {
	broken := errors.New("disk full")
	e := newTelegramEnv(t, envOptions{
		addMessage: func(uint64, store.Message) error { return broken },
	}).start()
	id := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"}).ID
	e.close()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		ms := e.srv.Messages(chat)
		if len(ms) != 1 || armedData(ms[0]) != nil {
			t.Fatalf("chat %d: %d messages, buttons %v; want one never armed", chat, len(ms),
				len(ms) > 0 && armedData(ms[0]) != nil)
		}
	}

	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path}).start()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		e.prompt(chat, id) // the new, recorded one
	}
	if a := e.answer(e.tap(jane, groupChat.ID, id, bot.ActionReject)); a.Text != "Rejected" {
		t.Fatalf("toast %q", a.Text)
	}
	e.waitUpdated(id)
	e.wantNoButtons()
}

// A process killed after a prompt's message was recorded and before the edit that
// arms it (here: that edit fails for good) leaves a recorded message without
// buttons; the next start's reconciliation arms it, and a tap on it approves.
func TestPromptRecordedNotArmedIsArmedAtStart(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	for range 2 {
		testkit.Must(t, e.srv.FailNext("editMessageText",
			telegramtest.APIError{Code: 400, Description: "Bad Request: chat not found"}))
	}
	id := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"}).ID
	e.stop()
	if r := e.request(id); len(r.Messages) != 2 {
		t.Fatalf("recorded %+v, want both messages", r.Messages)
	}
	e.close()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if ms := e.srv.Messages(chat); len(ms) != 1 || armedData(ms[0]) != nil {
			t.Fatalf("chat %d: %d messages, want one not armed", chat, len(ms))
		}
	}

	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path}).start()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if ms := e.srv.Messages(chat); len(ms) != 1 {
			t.Fatalf("chat %d: %d messages after the restart, want the recorded one",
				chat, len(ms))
		}
		e.prompt(chat, id)
	}
	if a := e.answer(e.tap(jane, groupChat.ID, id, bot.ActionApprove)); a.Text != "Approved" {
		t.Fatalf("toast %q; logs:\n%s", a.Text, e.logs.All())
	}
	e.waitUpdated(id)
	e.wantNoButtons()
}

// wantNoButtons waits until no message in either chat shows buttons.
func (e *env) wantNoButtons() {
	e.t.Helper()
	if err := e.srv.Wait(e.ctx, func() bool {
		for _, chat := range []int64{janeChat.ID, groupChat.ID} {
			for _, m := range e.srv.Messages(chat) {
				if m.Keyboard != nil {
					return false
				}
			}
		}
		return true
	}); err != nil {
		e.t.Fatalf("buttons still shown: %v\n%s", err, e.logs.All())
	}
}

// A caller that stopped waiting is shown on the prompt, buttons kept; the request is
// still approved by a tap, and its messages end without buttons.
func TestPromptShowsCallerStoppedWaiting(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"})
	if err := e.g.WaiterGone(r.ID); err != nil {
		t.Fatal(err)
	}
	e.waitUpdated(r.ID)
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, r.ID)
		if !strings.Contains(m.PlainText, "stopped waiting at ") || m.Keyboard == nil {
			t.Fatalf("chat %d: keyboard %v, text:\n%s\nlogs:\n%s",
				chat, m.Keyboard != nil, m.PlainText, e.logs.All())
		}
	}
	q := e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove)
	if a := e.answer(q); a.Text != "Approved" {
		t.Fatalf("toast %q", a.Text)
	}
	if got := e.request(r.ID); got.Status != store.Approved {
		t.Fatalf("request %s", got.Status)
	}
	// The outcome's edits: the update signal fired for the first update already.
	e.wantNoButtons()
	e.stop()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if m := e.prompt(chat, r.ID); m.Keyboard != nil ||
			!strings.Contains(m.PlainText, "✅ Approved by Jane Doe") {
			t.Errorf("chat %d: keyboard %v, %d versions, text:\n%s\nlogs:\n%s",
				chat, m.Keyboard != nil, len(m.History), m.PlainText, e.logs.All())
		}
	}
}
