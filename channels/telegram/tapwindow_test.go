package telegram

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

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
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
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
	e := newEnv(t, envOptions{httpClient: &http.Client{Transport: hook}})
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
	if got.Status != store.Approved || got.Resolution == nil || got.Resolution.By != "Jane Doe (100000001)" {
		t.Fatalf("request %s %+v, want approved by Jane", got.Status, got.Resolution)
	}
}

// A process killed after Telegram posted a prompt and before its message was
// recorded (here: recording fails until the process stops) leaves that message
// without buttons; the next start posts a recorded prompt, which ends without
// buttons too.
func TestPromptNotRecordedHasNoButtons(t *testing.T) {
	broken := errors.New("disk full")
	e := newEnv(t, envOptions{addMessage: func(uint64, store.Message) error { return broken }}).start()
	id := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"}).ID
	e.close()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		ms := e.srv.Messages(chat)
		if len(ms) != 1 || armedData(ms[0]) != nil {
			t.Fatalf("chat %d: %d messages, buttons %v; want one never armed", chat, len(ms),
				len(ms) > 0 && armedData(ms[0]) != nil)
		}
	}

	e = newEnv(t, envOptions{srv: e.srv, path: e.path}).start()
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
	e := newEnv(t, envOptions{}).start()
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

	e = newEnv(t, envOptions{srv: e.srv, path: e.path}).start()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if ms := e.srv.Messages(chat); len(ms) != 1 {
			t.Fatalf("chat %d: %d messages after the restart, want the recorded one", chat, len(ms))
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
	e := newEnv(t, envOptions{}).start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"})
	if err := e.g.WaiterGone(r.ID); err != nil {
		t.Fatal(err)
	}
	e.waitUpdated(r.ID)
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.prompt(chat, r.ID)
		if !strings.Contains(m.PlainText, "stopped waiting at ") || m.Keyboard == nil {
			t.Fatalf("chat %d: keyboard %v, text:\n%s\nlogs:\n%s", chat, m.Keyboard != nil, m.PlainText, e.logs.All())
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
		if m := e.prompt(chat, r.ID); m.Keyboard != nil || !strings.Contains(m.PlainText, "✅ Approved by Jane Doe") {
			t.Errorf("chat %d: keyboard %v, %d versions, text:\n%s\nlogs:\n%s", chat, m.Keyboard != nil,
				len(m.History), m.PlainText, e.logs.All())
		}
	}
}
