package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
	"github.com/skald-circle/skald-bot/store"
)

// rulesNoted counts the rules whose note is note.
func (e *env) rulesNoted(note string) int {
	e.t.Helper()
	rs, err := e.db.Rules()
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		if r.Note == note {
			n++
		}
	}
	return n
}

// A replay after a restart acts once. The offset stored after each update is the
// next start's initial offset, so the Bot API confirms the update again without
// returning it; and when the offset was lost, the handled update_ids catch it.
func TestReplayActsOnce(t *testing.T) {
	for _, lost := range []bool{false, true} {
		t.Run("offset lost "+strconv.FormatBool(lost), func(t *testing.T) {
			first := newTelegramEnv(t, envOptions{}).start()
			u := first.srv.MessageUpdate(alice, janeChat, `/allow Bash note=replayed`)
			var id int64
			first.deliver(janeChat.ID, func() {
				var err error
				if id, err = first.srv.Inject(u); err != nil {
					t.Fatal(err)
				}
			})
			first.close()
			if err := first.srv.Redeliver(id); err != nil {
				t.Fatal(err)
			}

			// The first service's last poll, cut by its stop, may reach the server
			// after the restart: the second service's calls carry a mark of their own.
			mark := &markCalls{next: http.DefaultTransport, key: "test_service", value: "second"}
			opt := envOptions{srv: first.srv, path: first.path,
				httpClient: &http.Client{Transport: mark}}
			if lost {
				opt.offset = []byte("{}") // an offset of 0: getUpdates returns the update again
			}
			e := newTelegramEnv(t, opt).start()
			if reply := e.say(alice, janeChat, "/whoami"); !strings.Contains(reply, "admin") {
				t.Errorf("whoami: %q", reply)
			}
			if n := e.rulesNoted("replayed"); n != 1 {
				t.Errorf("%d rules made by the command, want 1", n)
			}
			if n := len(e.replies(janeChat.ID)); n != 2 {
				t.Errorf("%d replies, want 2: the command's once, and whoami's", n)
			}
			polls := mark.of(e.srv.Calls("getUpdates"))
			if len(polls) == 0 {
				t.Fatal("no getUpdates call after the restart")
			}
			wantOffset := strconv.FormatInt(id+1, 10)
			if lost {
				wantOffset = "1"
			}
			if polls[0].Params["offset"] != wantOffset {
				t.Errorf("first getUpdates offset %q, want %s",
					polls[0].Params["offset"], wantOffset)
			}
			replays := e.logs.Find("update delivered again; ignored",
				"update_id="+strconv.FormatInt(id, 10))
			if logged := len(replays); logged != map[bool]int{false: 0, true: 1}[lost] {
				t.Errorf("replay logged %d times:\n%s", logged, e.logs.All())
			}
		})
	}
}

// The stored offset is the initial offset while it is younger than the 24 hours
// Telegram keeps updates; an older or unreadable one is not used.
func TestStoredOffset(t *testing.T) {
	offset := func(id int64, age time.Duration) []byte {
		return testkit.Marshal(t, storedOffset{UpdateID: id, At: time.Now().Add(-age)})
	}
	for _, tc := range []struct {
		name   string
		stored []byte
		want   string
		log    string
	}{
		{"fresh", offset(41, time.Hour), "42", ""},
		{"stale", offset(41, 25*time.Hour), "1",
			"stored offset is older than Telegram keeps updates"},
		{"unreadable", []byte("garbage"), "1", "ignoring an unreadable stored offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTelegramEnv(t, envOptions{offset: tc.stored}).start()
			polls, err := e.srv.WaitCalls(e.ctx, "getUpdates", 1)
			if err != nil {
				t.Fatal(err)
			}
			if polls[0].Params["offset"] != tc.want {
				t.Errorf("getUpdates offset %q, want %s", polls[0].Params["offset"], tc.want)
			}
			if tc.log != "" && len(e.logs.Find(tc.log)) != 1 {
				t.Errorf("not logged %q:\n%s", tc.log, e.logs.All())
			}
			if tc.want != "1" {
				return // the test server's update ids start at 1
			}
			// Each handled update moves the stored offset.
			e.inject(e.srv.MessageUpdate(jane, janeChat, "/whoami"))
			if err := e.srv.Wait(e.ctx, func() bool {
				return len(e.replies(janeChat.ID)) == 1
			}); err != nil {
				t.Fatal(err)
			}
			e.stop()
			raw, err := e.db.GetMeta("telegram.offset." +
				strconv.FormatInt(telegramtest.BotID, 10))
			var got storedOffset
			if err != nil || json.Unmarshal(raw, &got) != nil || got.UpdateID != 1 ||
				time.Since(got.At) > time.Minute {
				t.Errorf("stored offset %s, %v; want update 1, now", raw, err)
			}
		})
	}
}

// A webhook left over from an earlier setup is deleted, and long polling works.
func TestLeftoverWebhookDeleted(t *testing.T) {
	srv := newChatServer(t)
	srv.SetWebhook("https://old.example.com/hook-with-secret-path", "old_secret")
	e := newTelegramEnv(t, envOptions{srv: srv}).start()
	if reply := e.say(jane, janeChat, "/whoami"); !strings.Contains(reply, "approver") {
		t.Errorf("whoami: %q", reply)
	}
	if w := srv.Webhook(); w.URL != "" {
		t.Errorf("webhook still set: %+v", w)
	}
	logged := e.logs.Find("deleting a webhook left over", "host=old.example.com")
	if len(logged) != 1 || strings.Contains(e.logs.All(), "hook-with-secret-path") {
		t.Errorf("leftover webhook logged %v:\n%s", logged, e.logs.All())
	}
}

// A 409 Conflict (another poller on the token) is logged as such, and polling is
// retried with a growing backoff until it works.
func TestConflictRetriedWithBackoff(t *testing.T) {
	srv := newChatServer(t)
	for range 2 {
		if err := srv.FailNext("getUpdates", telegramtest.ErrTerminatedByOtherPoll); err != nil {
			t.Fatal(err)
		}
	}
	timing := &pollTimes{next: http.DefaultTransport}
	e := newTelegramEnv(t, envOptions{srv: srv, httpClient: &http.Client{Transport: timing}}).start()
	if reply := e.say(jane, janeChat, "/whoami"); !strings.Contains(reply, "approver") {
		t.Errorf("whoami: %q", reply)
	}
	if n := len(e.logs.Find("WARN", "409 Conflict: another poller is using this bot token",
		"retrying with backoff")); n != 2 {
		t.Errorf("%d conflicts logged, want 2:\n%s", n, e.logs.All())
	}
	at := timing.list()
	if len(at) < 3 {
		t.Fatalf("%d getUpdates calls", len(at))
	}
	// go-telegram/bot waits 100 ms after the first failure, then 200 ms.
	if d1, d2 := at[1].Sub(at[0]), at[2].Sub(at[1]); d1 < 100*time.Millisecond ||
		d2 < 200*time.Millisecond {
		t.Errorf("waits %v then %v, want at least 100 ms then 200 ms", d1, d2)
	}
}

// markCalls is a RoundTripper that adds the query parameter key=value to each call,
// which the test server records among the call's parameters: of picks out the calls
// that went through it.
type markCalls struct {
	next       http.RoundTripper
	key, value string
}

func (m *markCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	q := r.URL.Query()
	q.Set(m.key, m.value)
	r.URL.RawQuery = q.Encode()
	return m.next.RoundTrip(r)
}

// of returns the calls that went through m, in their order.
func (m *markCalls) of(calls []telegramtest.Call) []telegramtest.Call {
	var out []telegramtest.Call
	for _, c := range calls {
		if c.Params[m.key] == m.value {
			out = append(out, c)
		}
	}
	return out
}

// pollTimes is a RoundTripper that records when each getUpdates call is made.
type pollTimes struct {
	next http.RoundTripper
	mu   sync.Mutex
	at   []time.Time
}

func (p *pollTimes) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/getUpdates") {
		p.mu.Lock()
		p.at = append(p.at, time.Now())
		p.mu.Unlock()
	}
	return p.next.RoundTrip(r)
}

func (p *pollTimes) list() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.at)
}

// newChannel builds a Channel on srv with e's store, for the tests that run it by
// hand.
func (e *env) newChannel(change func(*Options)) *Channel {
	e.t.Helper()
	opt := Options{Token: e.srv.Token(), APIURL: e.srv.URL(), Chats: []int64{janeChat.ID},
		Handler: e.bot, Store: e.db, Sleep: e.sleeps.sleep, Logger: e.ch.log}
	if change != nil {
		change(&opt)
	}
	ch, err := New(opt)
	if err != nil {
		e.t.Fatal(err)
	}
	return ch
}

// Start-up: a refused token ends Run at once with ErrUnauthorized; a passing
// failure (502, 429) is retried after a backoff or the retry_after; Run twice is
// ErrRunning.
func TestRunStartup(t *testing.T) {
	e := newTelegramEnv(t, envOptions{})
	other := e.newChannel(func(o *Options) { o.Token = "7000000002:AAOtherTokenNotAccepted" })
	err := other.Run(e.ctx)
	if !errors.Is(err, ErrUnauthorized) ||
		strings.Contains(err.Error(), "AAOtherTokenNotAccepted") {
		t.Errorf("Run with a refused token: %v", err)
	}
	if got := e.sleeps.list(); len(got) != 0 {
		t.Errorf("waited %v before giving up", got)
	}
	if err := other.Run(e.ctx); !errors.Is(err, ErrRunning) {
		t.Errorf("second Run: %v", err)
	}

	for _, f := range []telegramtest.APIError{
		telegramtest.ServerError(502), telegramtest.TooManyRequests(3),
	} {
		if err := e.srv.FailNext("getMe", f); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.srv.FailNext("getWebhookInfo", telegramtest.ServerError(500)); err != nil {
		t.Fatal(err)
	}
	ch := e.newChannel(nil)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- ch.Run(ctx) }()
	if _, err := e.srv.WaitCalls(e.ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after ctx done: %v", err)
	}
	if got, want := e.sleeps.list(),
		[]time.Duration{time.Second, 3 * time.Second, time.Second}; !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v (backoff, retry_after, backoff)", got, want)
	}
	if n := e.srv.CallCount("getMe"); n != 3 { // the refused token's is not counted
		t.Errorf("%d getMe calls", n)
	}
}

// Long polling outlives a Bot API that is unreachable for a while: the connection of
// the waiting getUpdates is cut, or it answers 502 like a proxy whose server is down,
// and so does every poll after it. go-telegram/bot polls again with its backoff; a
// tap made during the outage waits in Telegram's queue and is handled once it is
// back, as is one made after. Each is handled once: one answer, one resolution.
func TestPollingOutlivesOutage(t *testing.T) {
	for _, o := range outage.Kinds() {
		t.Run(o.String(), func(t *testing.T) {
			e := newTelegramEnv(t, envOptions{}).start()
			during := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
			after := e.require("s2", "Bash", map[string]any{"command": "make test"})
			e.prompt(janeChat.ID, after.ID) // both prompts are shown and armed
			// A long poll is waiting, with nothing to return, when the Bot API goes away.
			if _, err := e.srv.WaitCalls(e.ctx, "getUpdates", 1); err != nil {
				t.Fatal(err)
			}
			e.srv.SetOutage(o)
			down := e.srv.CallCount("getUpdates")
			if _, err := e.srv.WaitCalls(e.ctx, "getUpdates", down+2); err != nil {
				t.Fatal(err) // two polls failed
			}
			tap1 := e.tap(jane, janeChat.ID, during.ID, bot.ActionApprove)
			if _, err := e.srv.WaitCalls(e.ctx, "getUpdates", down+3); err != nil {
				t.Fatal(err) // and one more, with the tap waiting
			}
			if st := e.request(during.ID).Status; st != store.Pending {
				t.Fatalf("request %d is %s while the Bot API is down", during.ID, st)
			}
			e.srv.SetOutage(outage.None)
			if a := e.answer(tap1); !strings.Contains(a.Text, "Approved") {
				t.Errorf("answer of the tap made while down: %+v", a)
			}
			tap2 := e.tap(jane, janeChat.ID, after.ID, bot.ActionReject)
			if a := e.answer(tap2); !strings.Contains(a.Text, "Rejected") {
				t.Errorf("answer of the tap made after: %+v", a)
			}
			e.waitUpdated(after.ID)
			if st := e.request(during.ID).Status; st != store.Approved {
				t.Errorf("request %d is %s, want approved", during.ID, st)
			}
			if st := e.request(after.ID).Status; st != store.Rejected {
				t.Errorf("request %d is %s, want rejected", after.ID, st)
			}
			if n := len(e.srv.Answers()); n != 2 {
				t.Errorf("%d callback answers, want 2: each tap once", n)
			}
			if n := len(e.logs.Find("getUpdates failed; retrying with backoff")); n < 3 {
				t.Errorf("%d failed polls logged, want at least 3:\n%s", n, e.logs.All())
			}
		})
	}
}
