package telegram

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/store"
)

// tapFirst is the Bot API client's transport: when the bot has posted its first prompt
// to the group chat, it makes Jane tap ✅ under it before sendMessage returns, and
// holds the response until the tap was handled or is waiting for the send.
type tapFirst struct {
	e    *env
	next http.RoundTripper

	mu    sync.Mutex
	fired bool
	query string // the callback query id of the tap
}

func (h *tapFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/sendMessage") {
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
		out.Result.ReplyMarkup == nil {
		return resp, nil
	}
	h.mu.Lock()
	fired := h.fired
	h.fired = true
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
	if _, err := h.e.logs.Wait(h.e.ctx, []string{"tap waits for the send of its prompt"},
		[]string{"tap refused"}, []string{"request resolved by a tap"}); err != nil {
		return nil, err
	}
	return resp, nil
}

// A tap on a prompt that Telegram has posted but whose message the service has not
// recorded yet counts: it waits for the send in flight to record it, then approves.
func TestTapBeforePromptRecorded(t *testing.T) {
	hook := &tapFirst{next: http.DefaultTransport.(*http.Transport).Clone()}
	e := newEnv(t, envOptions{httpClient: &http.Client{Transport: hook}})
	hook.e = e
	e.start()
	r := e.require("sess-1", "Bash", map[string]any{"command": "make deploy"})

	hook.mu.Lock()
	q := hook.query
	hook.mu.Unlock()
	if q == "" {
		t.Fatal("the prompt was sent without the hook tapping it")
	}
	if a := e.answer(q); a.Text != "Approved" {
		t.Fatalf("toast %q, want Approved; logs:\n%s", a.Text, e.logs.All())
	}
	e.waitUpdated(r.ID)
	got := e.request(r.ID)
	if got.Status != store.Approved || got.Resolution == nil || got.Resolution.By != "Jane Doe (100000001)" {
		t.Fatalf("request %s %+v, want approved by Jane", got.Status, got.Resolution)
	}
	if len(e.logs.Find("tap waits for the send of its prompt", fmt.Sprint("request_id=", r.ID))) != 1 {
		t.Errorf("the tap did not wait for the send; logs:\n%s", e.logs.All())
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
		t.Fatalf("buttons still shown: %v\n%s", err, e.logs.All())
	}
	e.stop()
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if m := e.prompt(chat, r.ID); m.Keyboard != nil || !strings.Contains(m.PlainText, "✅ Approved by Jane Doe") {
			t.Errorf("chat %d: keyboard %v, %d versions, text:\n%s\nlogs:\n%s", chat, m.Keyboard != nil,
				len(m.History), m.PlainText, e.logs.All())
		}
	}
}
