package bot_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/channels/telegram"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/outage"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// The chat and user of the real-channel outage test.
var (
	outageChat = models.Chat{ID: 100000001, Type: models.ChatTypePrivate, FirstName: "Jane"}
	outageJane = bot.Who{ID: "100000001", Name: "Jane Doe", Channel: "telegram"}
)

// TestFanoutRealChannelsDownForMinutes is the outage of TestFanoutChannelDownForMinutes
// with the real clients: the Telegram and Slack channels (go-telegram/bot, slack-go)
// against the in-repo test servers, made unreachable for minutes — Telegram answering
// 502 like a proxy whose server is down, Slack dropping every connection — while
// requests are made and resolved. Once both are back, each prompt is posted once and
// armed once, each outcome is shown once with its buttons removed, and a request that
// started and ended during the outage gets no message. The servers run outside the
// synctest bubble; the clients run in it without keep-alive connections, so the
// fake clock moves whenever no call is in flight: the retries and the Fanout's
// sweeps run on it, and no test line sleeps to wait for them.
func TestFanoutRealChannelsDownForMinutes(t *testing.T) {
	tg, sl := newRealServers(t)
	// A server's SetOutage makes a channel that the server's own goroutines close,
	// which they may not when it was made in the bubble: outside runs it out there.
	calls, done := make(chan func()), make(chan struct{})
	go func() {
		for f := range calls {
			f()
			done <- struct{}{}
		}
	}()
	t.Cleanup(func() { close(calls) })
	setOutage := func(tgo, slo outage.Kind) {
		calls <- func() { tg.SetOutage(tgo); sl.SetOutage(slo) }
		<-done
	}
	synctest.Test(t, func(t *testing.T) {
		e := newRealEnv(t, tg, sl)
		defer e.run()()
		synctest.Wait() // Run's start-up Reconcile
		old := e.require("s1")
		synctest.Wait()
		e.wantPrompt(old.ID)

		setOutage(outage.BadGateway, outage.Dropped)
		r := e.require("s2")
		brief := e.require("s3") // made and resolved while both are down
		e.resolve(old.ID, true)
		e.resolve(brief.ID, false)
		time.Sleep(5 * time.Minute) // every retry, and four sweeps, fail
		synctest.Wait()
		if tg.CallCount("sendMessage") < 4 || sl.Calls("chat.postMessage") < 4 {
			t.Fatalf("while down: %d and %d sends tried, want retries and sweeps",
				tg.CallCount("sendMessage"), sl.Calls("chat.postMessage"))
		}
		e.wantPrompt(old.ID) // nothing got through
		e.wantNoMessage(r.ID)

		setOutage(outage.None, outage.None)
		time.Sleep(2 * bot.OfferSweepEvery)
		synctest.Wait()
		e.wantPrompt(r.ID)
		e.wantOutcome(old.ID, "Approved by Jane Doe")
		e.wantNoMessage(brief.ID)
		time.Sleep(5 * bot.OfferSweepEvery) // later sweeps send and edit nothing more
		synctest.Wait()
		e.wantPrompt(r.ID)
		e.wantOutcome(old.ID, "Approved by Jane Doe")
		n, m := len(tg.Messages(outageChat.ID)), len(sl.Messages(slacktest.DefaultChannel))
		if n != 2 || m != 2 {
			t.Errorf("%d Telegram and %d Slack messages, want 2 each: one per request shown", n, m)
		}
	})
}

// newRealServers starts a Telegram Bot API server with outageChat and a Slack Web API
// server, closed when the test ends.
func newRealServers(t *testing.T) (*telegramtest.Server, *slacktest.Server) {
	t.Helper()
	tg, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{outageChat}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tg.Close)
	sl, err := slacktest.New(slacktest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sl.Close)
	return tg, sl
}

// realEnv is a store, a gate and a Fanout over the real Telegram and Slack channels.
type realEnv struct {
	t   *testing.T
	db  *store.DB
	g   *gate.Manager
	fan *bot.Fanout
	tg  *telegramtest.Server
	sl  *slacktest.Server
}

// newRealEnv builds the service on the servers; its clients make one connection per
// call, which a synctest bubble needs (an idle keep-alive connection is never
// durably blocked).
func newRealEnv(t *testing.T, tg *telegramtest.Server, sl *slacktest.Server) *realEnv {
	t.Helper()
	dir := t.TempDir()
	db := teststore.OpenAt(t, filepath.Join(dir, "skald.db"), store.Options{})
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	fan := bot.NewFanout(bot.FanoutOptions{Store: db, Unfinalized: db.Unfinalized,
		Retry: bot.Retry{Attempts: 3, Backoff: time.Second}, Logger: testkit.Logger()})
	g := testgate.Over(t, db, root, func(o *gate.Options) { o.Notifier = fan })
	b, err := bot.New(bot.Options{Gate: g, Logger: testkit.Logger(), Access: bot.Access{
		"telegram": {Approvers: []string{outageJane.ID}}}})
	if err != nil {
		t.Fatal(err)
	}
	client := func() *http.Client {
		return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	tch, err := telegram.New(telegram.Options{Token: tg.Token(), APIURL: tg.URL(),
		Chats: []int64{outageChat.ID}, Handler: b, Store: db, HTTPClient: client(),
		Logger: testkit.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := slack.New(slack.Options{BotToken: slacktest.DefaultBotToken,
		SigningSecret: "unused", APIURL: sl.URL(), Channels: []string{slacktest.DefaultChannel},
		Bot: b, Deliveries: db, HTTPClient: client(), Logger: testkit.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range []bot.Channel{tch, sch} {
		if err := fan.Add(ch); err != nil {
			t.Fatal(err)
		}
	}
	return &realEnv{t: t, db: db, g: g, fan: fan, tg: tg, sl: sl}
}

// run starts the gate and the Fanout and returns a function that stops them and
// waits for them.
func (e *realEnv) run() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for name, run := range map[string]func(context.Context) error{
		"gate": e.g.Run, "fanout": e.fan.Run,
	} {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				e.t.Errorf("%s Run: %v", name, err)
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// require makes a shell call that requires approval in session and returns its
// request.
func (e *realEnv) require(session string) store.Request {
	e.t.Helper()
	out, err := e.g.Check(context.Background(), gate.Call{ToolName: "Bash", SessionID: session,
		Arguments: map[string]any{"command": "make deploy"}})
	if err != nil {
		e.t.Fatal(err)
	}
	if out.Decision != gate.VerdictPending || out.Request == nil {
		e.t.Fatalf("Check = %+v, want pending", out)
	}
	return *out.Request
}

func (e *realEnv) resolve(id uint64, approve bool) {
	e.t.Helper()
	if _, err := e.g.Resolve(context.Background(), id,
		gate.Answer{Approve: approve, By: outageJane.Name, Via: "telegram"}); err != nil {
		e.t.Fatal(err)
	}
}

// messages returns request id's message on each server, as its records name them;
// ok is false when a channel has none recorded.
func (e *realEnv) messages(id uint64) (tg telegramtest.SentMessage, sl slacktest.Message,
	slUpdates []slacktest.Message, ok bool) {
	e.t.Helper()
	r, err := e.db.Request(id)
	if err != nil {
		e.t.Fatal(err)
	}
	var tgOK, slOK bool
	for _, m := range r.Messages {
		switch m.Channel {
		case telegram.Name:
			n, err := strconv.Atoi(m.Ref)
			if err != nil {
				e.t.Fatalf("telegram message ref %q: %v", m.Ref, err)
			}
			tg, tgOK = e.tg.Message(outageChat.ID, n)
		case slack.ChannelName:
			sl, slOK = e.sl.Current(m.ChatID, m.Ref)
			slUpdates = e.sl.Updates(m.ChatID, m.Ref)
		}
	}
	return tg, sl, slUpdates, tgOK && slOK
}

// wantPrompt checks that request id has one message on each channel, posted and then
// armed with its buttons once.
func (e *realEnv) wantPrompt(id uint64) {
	e.t.Helper()
	tg, sl, ups, ok := e.messages(id)
	switch {
	case !ok:
		e.t.Errorf("request %d: not on both channels", id)
	case len(tg.History) != 2 || tg.Keyboard == nil:
		e.t.Errorf("request %d on Telegram: %d versions, keyboard %v; want posted, then armed",
			id, len(tg.History), tg.Keyboard != nil)
	case len(ups) != 1 || !sl.HasActions():
		e.t.Errorf("request %d on Slack: %d updates, buttons %v; want one, arming it",
			id, len(ups), sl.HasActions())
	}
}

// wantOutcome checks that request id's message on each channel was edited once more
// than armed: to its outcome, which says says, without buttons.
func (e *realEnv) wantOutcome(id uint64, says string) {
	e.t.Helper()
	tg, sl, ups, ok := e.messages(id)
	switch {
	case !ok:
		e.t.Errorf("request %d: not on both channels", id)
	case len(tg.History) != 3 || tg.Keyboard != nil || !strings.Contains(tg.PlainText, says):
		e.t.Errorf("request %d on Telegram: %d versions, keyboard %v, text %q; "+
			"want its outcome once", id, len(tg.History), tg.Keyboard != nil, tg.PlainText)
	case len(ups) != 2 || sl.HasActions() || !strings.Contains(sl.Text, says):
		e.t.Errorf("request %d on Slack: %d updates, buttons %v, text %q; want its outcome once",
			id, len(ups), sl.HasActions(), sl.Text)
	}
}

// wantNoMessage checks that request id has no message recorded.
func (e *realEnv) wantNoMessage(id uint64) {
	e.t.Helper()
	r, err := e.db.Request(id)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(r.Messages) != 0 {
		e.t.Errorf("request %d has messages %+v, want none", id, r.Messages)
	}
}
