package telegram

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// The people and chats of the tests: the fake ids of the fixtures.
var (
	jane = models.User{ID: 100000001, FirstName: "Jane", LastName: "Doe",
		Username: "jane_doe_example"} // approver
	alice   = models.User{ID: 100000002, FirstName: "Alice", LastName: "Admin"} // admin
	mallory = models.User{ID: 100000009, FirstName: "Mallory"}                  // stranger

	janeChat  = models.Chat{ID: 100000001, Type: models.ChatTypePrivate, FirstName: "Jane"}
	groupChat = models.Chat{ID: -5000000001, Type: models.ChatTypeGroup,
		Title: "Fake Approvers Group"}
)

// testAccess: Jane approves; Alice, and Max of the fixtures (100000003), are admins.
var testAccess = bot.Access{
	Name: {Approvers: []string{"100000001"}, Admins: []string{"100000002", "100000003"}},
}

const secretToken = "s3cret_Token-for-tests"

// hookURL is the public webhook URL the tests configure: Telegram accepts only
// HTTPS on 80, 88, 443 or 8443, and a reverse proxy would forward it to the
// Channel's listener, whose address the tests post to instead.
const hookURL = "https://bot.example.com/telegram/hook"

// env is one running service as cmd/skald-bot wires it — a real store in a
// temporary directory, the gate, the Fanout, the Bot and the Channel — against a
// telegramtest server.
type env struct {
	t      *testing.T
	ctx    context.Context // for the waits of the test
	srv    *telegramtest.Server
	path   string
	db     *store.DB
	g      *gate.Manager
	fan    *bot.Fanout
	note   *notifier
	bot    *bot.Bot
	ch     *Channel
	logs   *testkit.Logs
	sleeps *sleeps
	hook   string // where the tests post webhook deliveries ("" when polling)

	stopOnce sync.Once
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type envOptions struct {
	// srv and path reuse a server and a store file (a restart).
	srv  *telegramtest.Server
	path string
	// webhook runs the Channel in webhook mode.
	webhook bool
	// handler wraps the Bot given to the Channel.
	handler    func(*bot.Bot) Handler
	httpClient *http.Client
	// tapWait zero means a minute: long enough never to fire in a test that does not
	// ask for it.
	tapWait time.Duration
	jobs    bot.Jobs
	// offset is stored before the Channel is built.
	offset []byte
	// store wraps the store given to the Channel.
	store func(Store) Store
	// now is the clock of the offers' expiry; nil means time.Now.
	now func() time.Time
	// addMessage, when set, runs before the Fanout records each prompt message; an
	// error it returns is the store's (nothing is recorded).
	addMessage func(id uint64, m store.Message) error
}

// outbox is the real store as the Fanout's, with envOptions.addMessage before each
// message is recorded.
type outbox struct {
	*store.DB
	before func(id uint64, m store.Message) error
}

func (o outbox) AddMessage(id uint64, m store.Message) error {
	if err := o.before(id, m); err != nil {
		return err
	}
	return o.DB.AddMessage(id, m)
}

// newChatServer starts a fake Telegram server that knows Jane's chat and the group
// chat, closed at the end of the test.
func newChatServer(t *testing.T) *telegramtest.Server {
	t.Helper()
	srv, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{janeChat, groupChat}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// newTelegramEnv builds the service; nothing runs until start.
func newTelegramEnv(t *testing.T, opt envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, srv: opt.srv, path: opt.path, logs: &testkit.Logs{},
		sleeps: &sleeps{}}
	if e.srv == nil {
		e.srv = newChatServer(t)
	}
	dir := t.TempDir()
	if e.path == "" {
		e.path = filepath.Join(dir, "skald.db")
	}
	db, err := store.Open(e.path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { _ = db.Close() })
	if opt.offset != nil {
		key := "telegram.offset." + strconv.FormatInt(telegramtest.BotID, 10)
		if err := db.PutMeta(key, opt.offset); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(e.logs)
	sig := newSignals()
	// Reconcile calls Unfinalized once it has shown the pending requests: start
	// waits for that, so that no test races the Fanout's start-up.
	unfinalized := func() ([]store.Request, error) {
		defer sig.done("reconciled")
		return db.Unfinalized()
	}
	var box bot.Outbox = db
	if opt.addMessage != nil {
		box = outbox{DB: db, before: opt.addMessage}
	}
	e.fan = bot.NewFanout(bot.FanoutOptions{Store: box, Unfinalized: unfinalized, Logger: log,
		Retry: bot.Retry{Attempts: 2, Backoff: time.Millisecond}, Meta: db, Now: opt.now,
		OnOffer: func(o bot.Offer, ev string) {
			sig.done(fmt.Sprintf("offer %s %d", ev, o.RequestID))
		}})
	e.note = &notifier{Fanout: e.fan, sig: sig}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.g = testgate.Over(t, db, root, func(o *gate.Options) { o.Notifier, o.Logger = e.note, log })
	if e.bot, err = bot.New(bot.Options{Gate: e.g, Access: testAccess, Jobs: opt.jobs, Logger: log,
		FollowUps: e.fan}); err != nil {
		t.Fatal(err)
	}
	var h Handler = e.bot
	if opt.handler != nil {
		h = opt.handler(e.bot)
	}
	tapWait := opt.tapWait
	if tapWait == 0 {
		tapWait = time.Minute
	}
	var chStore Store = db
	if opt.store != nil {
		chStore = opt.store(db)
	}
	copt := Options{Token: e.srv.Token(), APIURL: e.srv.URL(), Handler: h, Store: chStore,
		Chats: []int64{janeChat.ID, groupChat.ID}, HTTPClient: opt.httpClient, TapWait: tapWait,
		Sleep: e.sleeps.sleep, Logger: log}
	if opt.webhook {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		copt.Webhook = Webhook{URL: hookURL, SecretToken: secretToken, Listener: ln}
		e.hook = "http://" + ln.Addr().String() + "/telegram/hook"
	}
	if e.ch, err = New(copt); err != nil {
		t.Fatal(err)
	}
	if err := e.fan.Add(e.ch); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stop)
	return e
}

// start runs the gate, the Fanout and the Channel, each until stop.
func (e *env) start() *env {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	for name, run := range map[string]func(context.Context) error{
		"gate": e.g.Run, "fanout": e.fan.Run, "channel": e.ch.Run,
	} {
		e.wg.Go(func() {
			if err := run(ctx); err != nil {
				e.t.Errorf("%s Run: %v", name, err)
			}
		})
	}
	e.note.sig.wait(e.t, e.ctx, "reconciled")
	return e
}

// stop stops what start started and waits for it.
func (e *env) stop() {
	e.stopOnce.Do(func() {
		if e.cancel != nil {
			e.cancel()
		}
		e.wg.Wait()
	})
}

// close stops the service and closes its store, as a process that exits.
func (e *env) close() {
	e.stop()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
}

// require makes a call that requires approval, waits until its prompt was shown in
// both chats and returns the request.
func (e *env) require(session, tool string, args map[string]any) store.Request {
	e.t.Helper()
	r := testgate.Require(e.t, e.g, gate.Call{ToolName: tool, Arguments: args, SessionID: session})
	e.note.sig.wait(e.t, e.ctx, fmt.Sprintf("show %d", r.ID))
	return e.request(r.ID)
}

// request returns request id as stored now.
func (e *env) request(id uint64) store.Request {
	e.t.Helper()
	return teststore.Request(e.t, e.db, id)
}

// armedData is the callback data of the first version of m that shows buttons: a
// prompt is posted without them and armed by an edit. nil when no version has any.
func armedData(m telegramtest.SentMessage) []string {
	for _, v := range m.History {
		if v.Keyboard != nil {
			return v.CallbackData()
		}
	}
	return nil
}

// prompt returns the message showing request id in chat, waiting until it was armed.
func (e *env) prompt(chat int64, id uint64) telegramtest.SentMessage {
	e.t.Helper()
	want := bot.Callback{RequestID: id, Action: bot.ActionApprove}.String()
	return e.waitArmed(chat, fmt.Sprintf("prompt of request %d", id), func(data []string) bool {
		return slices.Contains(data, want)
	})
}

// waitArmed waits for the first message of chat armed with buttons whose callback
// data match accepts, and returns it; what names it in the failure.
func (e *env) waitArmed(chat int64, what string,
	match func(data []string) bool) telegramtest.SentMessage {
	e.t.Helper()
	var got telegramtest.SentMessage
	err := e.srv.Wait(e.ctx, func() bool {
		for _, m := range e.srv.Messages(chat) {
			if d := armedData(m); d != nil && match(d) {
				got = m
				return true
			}
		}
		return false
	})
	if err != nil {
		e.t.Fatalf("no %s in chat %d: %v", what, chat, err)
	}
	return got
}

// inject hands u to the server as an update for the bot.
func (e *env) inject(u models.Update) {
	e.t.Helper()
	if _, err := e.srv.Inject(u); err != nil {
		e.t.Fatal(err)
	}
}

// tap injects a tap of user on button action of request id's prompt in chat, and
// returns the callback query id.
func (e *env) tap(user models.User, chat int64, id uint64, action bot.Action) string {
	e.t.Helper()
	m := e.prompt(chat, id)
	u := e.srv.CallbackQueryUpdate(user, chat, m.MessageID,
		bot.Callback{RequestID: id, Action: action}.String())
	e.inject(u)
	return u.CallbackQuery.ID
}

// tapData injects a tap of user on the button with data under message msg of chat
// and returns the callback query's answer.
func (e *env) tapData(user models.User, chat int64, msg int,
	data string) telegramtest.CallbackAnswer {
	e.t.Helper()
	u := e.srv.CallbackQueryUpdate(user, chat, msg, data)
	e.inject(u)
	return e.answer(u.CallbackQuery.ID)
}

// answer waits for the answer of callback query id.
func (e *env) answer(id string) telegramtest.CallbackAnswer {
	e.t.Helper()
	var got telegramtest.CallbackAnswer
	err := e.srv.Wait(e.ctx, func() bool {
		for _, a := range e.srv.Answers() {
			if a.CallbackQueryID == id {
				got = a
				return true
			}
		}
		return false
	})
	if err != nil {
		e.t.Fatalf("callback query %s not answered: %v", id, err)
	}
	return got
}

// waitUpdated waits until the Fanout has made the first attempt at every edit of
// request id's messages.
func (e *env) waitUpdated(id uint64) {
	e.t.Helper()
	e.note.sig.wait(e.t, e.ctx, fmt.Sprintf("update %d", id))
}

// say injects a text message of user in chat and returns the bot's reply: the next
// message it sends there without buttons.
func (e *env) say(user models.User, chat models.Chat, text string) string {
	e.t.Helper()
	return e.deliver(chat.ID, func() { e.inject(e.srv.MessageUpdate(user, chat, text)) })
}

// deliver runs send, which makes the bot receive something, and returns the text
// of the next message without buttons the bot sends to chat.
func (e *env) deliver(chat int64, send func()) string {
	e.t.Helper()
	n := len(e.replies(chat))
	send()
	var got []telegramtest.SentMessage
	if err := e.srv.Wait(e.ctx, func() bool {
		got = e.replies(chat)
		return len(got) > n
	}); err != nil {
		e.t.Fatalf("no reply in chat %d: %v", chat, err)
	}
	return got[n].Text
}

// replies are the messages without buttons the bot sent to chat.
func (e *env) replies(chat int64) []telegramtest.SentMessage {
	var out []telegramtest.SentMessage
	for _, m := range e.srv.Messages(chat) {
		if armedData(m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// notifier is the gate's notifier: the Fanout, signalling when each Show and Update
// (of a request or a clarification) has made its first attempts (so the tests wait
// for them, never for a timer).
type notifier struct {
	*bot.Fanout
	sig *signals
}

func (n *notifier) Show(ctx context.Context, r store.Request) error {
	return n.signal(n.Fanout.Show(ctx, r), "show", r.ID)
}

func (n *notifier) Update(ctx context.Context, r store.Request) error {
	return n.signal(n.Fanout.Update(ctx, r), "update", r.ID)
}

func (n *notifier) ShowClarification(ctx context.Context, c store.Clarification) error {
	return n.signal(n.Fanout.ShowClarification(ctx, c), "ask", c.ID)
}

func (n *notifier) UpdateClarification(ctx context.Context, c store.Clarification) error {
	return n.signal(n.Fanout.UpdateClarification(ctx, c), "answered", c.ID)
}

// signal signals "<event> <id>" and returns err, the result of the Fanout's call.
func (n *notifier) signal(err error, event string, id uint64) error {
	n.sig.done(fmt.Sprintf("%s %d", event, id))
	return err
}

// signals are named events a test can wait for.
type signals struct {
	mu sync.Mutex // guards ch and count
	ch map[string]chan struct{}
	n  map[string]int
}

func newSignals() *signals { return &signals{ch: map[string]chan struct{}{}, n: map[string]int{}} }

func (s *signals) get(name string) chan struct{} {
	if s.ch[name] == nil {
		s.ch[name] = make(chan struct{})
	}
	return s.ch[name]
}

func (s *signals) done(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n[name]++
	if s.n[name] == 1 {
		close(s.get(name))
	}
}

func (s *signals) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[name]
}

func (s *signals) wait(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	s.mu.Lock()
	ch := s.get(name)
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", name, ctx.Err())
	}
}

// sleeps is the Channel's Sleep: it records each wait and returns at once.
type sleeps struct {
	mu  sync.Mutex
	all []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.all = append(s.all, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) list() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all)
}

// peek reads all of *body, a request's or a response's, and puts back a reader of the
// same bytes, so that a test's transport can look at what passes through it.
func peek(body *io.ReadCloser) ([]byte, error) {
	b, err := io.ReadAll(*body)
	_ = (*body).Close()
	if err != nil {
		return nil, err
	}
	*body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}
