package slack_test

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// mode is how the Channel receives: Socket Mode or HTTP.
type mode int

const (
	socketMode mode = iota
	httpMode
)

func (m mode) String() string {
	if m == socketMode {
		return "socket"
	}
	return "http"
}

var modes = []mode{socketMode, httpMode}

// The users of the tests, by Slack user id.
const (
	approver     = slacktest.DefaultUser // jane.approver
	approverName = "jane.approver"
	admin        = "U0FAKEADM01"
	stranger     = "U0FAKEUSR09"
	// secret is Slack's documented example signing secret (fixture
	// request_signing_docs_example.json).
	secret = "8f742231b10e8888abcd99yyyzzz85a5"
)

var access = bot.Access{
	slack.ChannelName: {Approvers: []string{approver}, Admins: []string{admin}},
}

// outbox is the real store as the Fanout's outbox, telling the test when a prompt
// message was recorded and when one was marked final (edited to its outcome).
type outbox struct {
	*store.DB
	added chan store.Message
	final chan uint64
	// beforeAdd, when set, runs before each message is recorded; an error it
	// returns is the store's, and nothing is recorded.
	beforeAdd func(id uint64, m store.Message) error
}

func (o *outbox) AddMessage(id uint64, m store.Message) error {
	if o.beforeAdd != nil {
		if err := o.beforeAdd(id, m); err != nil {
			return err
		}
	}
	return report(o.added, m, o.DB.AddMessage(id, m))
}

func (o *outbox) MarkMessageFinal(id uint64, m store.Message) error {
	return report(o.final, id, o.DB.MarkMessageFinal(id, m))
}

func (o *outbox) AddClarificationMessage(id uint64, m store.Message) error {
	return report(o.added, m, o.DB.AddClarificationMessage(id, m))
}

func (o *outbox) MarkClarificationMessageFinal(id uint64, m store.Message) error {
	return report(o.final, id, o.DB.MarkClarificationMessageFinal(id, m))
}

// report sends v on ch when err, the store's answer, is nil, and returns err.
func report[T any](ch chan<- T, v T, err error) error {
	if err == nil {
		ch <- v
	}
	return err
}

// jobs is a hand-written bot.Jobs with one job, nightly-backup. When hold is set,
// Trigger waits for a value on it: a slow command.
type jobs struct {
	mu   sync.Mutex
	runs []store.Run
	hold chan struct{}
}

func (j *jobs) List() []string { return []string{"nightly-backup"} }

func (j *jobs) Trigger(ctx context.Context, name string) (store.Run, error) {
	if j.hold != nil {
		select {
		case <-j.hold:
		case <-ctx.Done():
			return store.Run{}, ctx.Err()
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r := store.Run{ID: uint64(len(j.runs) + 1), Job: name, Status: store.RunStatus("running"),
		Trigger: "manual", StartedAt: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)}
	j.runs = append(j.runs, r)
	return r, nil
}

func (j *jobs) Runs(name string, limit int) ([]store.Run, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []store.Run
	for i := len(j.runs) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, j.runs[i])
	}
	return out, nil
}

// env is the real thing on loopback: a slacktest server, a store in a temporary
// directory, the gate, the Fanout and the Bot, and the Channel under test, running.
type env struct {
	t    *testing.T
	mode mode
	srv  *slacktest.Server
	db   *store.DB
	box  *outbox
	// failed receives what the Fanout gave up on.
	failed chan bot.Failure
	g      *gate.Manager
	fan    *bot.Fanout
	jobs   *jobs
	ch     *slack.Channel
	clock  *testkit.Clock
	base   string // HTTP mode: "http://127.0.0.1:PORT"
	http   *http.Client

	mu     sync.Mutex // guards sleeps
	sleeps []time.Duration
	// wake, when set before start, makes each Sleep wait for a value on it.
	wake chan struct{}

	ephemerals int // ephemerals consumed by nextEphemeral
	stopOnce   sync.Once
	stopFn     func()
}

type envOptions struct {
	bypassShort time.Duration
	// started false builds everything but runs nothing (see start).
	manual bool
	srv    slacktest.Config
	// logs, when set, gets the logs of the Bot and the Channel.
	logs *testkit.Logs
	// deliveries, when set, is the Channel's DeliveryLog instead of the store.
	deliveries slack.DeliveryLog
}

func newSlackEnv(t *testing.T, m mode, opt envOptions) *env {
	t.Helper()
	srv, err := slacktest.New(opt.srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "skald.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	log := testkit.Logger()
	if opt.logs != nil {
		log = opt.logs.Logger()
	}
	e := &env{t: t, mode: m, srv: srv, db: db, clock: &testkit.Clock{},
		http: &http.Client{Timeout: 10 * time.Second}}
	e.box = &outbox{DB: db, added: make(chan store.Message, 100), final: make(chan uint64, 100)}
	e.failed = make(chan bot.Failure, 100)
	e.fan = bot.NewFanout(bot.FanoutOptions{Store: e.box, BypassShort: opt.bypassShort,
		Retry: bot.Retry{Attempts: 3, Backoff: time.Millisecond}, Logger: testkit.Logger(),
		OnFailure: func(f bot.Failure) {
			select {
			case e.failed <- f:
			default:
			}
		},
		Meta: db, Now: e.clock.Now})
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.g = testgate.Over(t, db, root, func(o *gate.Options) { o.Notifier = e.fan })
	e.jobs = &jobs{}
	b, err := bot.New(bot.Options{Gate: e.g, Access: access, Jobs: e.jobs,
		BypassShort: opt.bypassShort, Logger: log, FollowUps: e.fan})
	if err != nil {
		t.Fatal(err)
	}
	o := slack.Options{
		BotToken:   slacktest.DefaultBotToken,
		APIURL:     srv.URL(),
		Channels:   []string{slacktest.DefaultChannel},
		Bot:        b,
		Deliveries: cmp.Or[slack.DeliveryLog](opt.deliveries, db),
		Now:        e.clock.Now,
		Sleep:      e.sleep,
		Logger:     log,
	}
	if m == socketMode {
		o.AppToken = slacktest.DefaultAppToken
	} else {
		o.SigningSecret, o.HTTPListen = secret, "127.0.0.1:0"
	}
	if e.ch, err = slack.New(o); err != nil {
		t.Fatal(err)
	}
	if err := e.fan.Add(e.ch); err != nil {
		t.Fatal(err)
	}
	if !opt.manual {
		e.start()
	}
	return e
}

// sleep is the Channel's Sleep: it records the wait and returns at once, or when
// e.wake is set once it receives a value.
func (e *env) sleep(ctx context.Context, d time.Duration) error {
	e.mu.Lock()
	e.sleeps = append(e.sleeps, d)
	e.mu.Unlock()
	if e.wake != nil {
		select {
		case <-e.wake:
		case <-ctx.Done():
		}
	}
	return ctx.Err()
}

func (e *env) slept() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Duration(nil), e.sleeps...)
}

// start runs the gate, the Fanout and the Channel, and waits until the Channel is
// connected (Socket Mode) or listening (HTTP mode). stop ends them all.
func (e *env) start() {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := e.g.Run(ctx); err != nil {
			e.t.Errorf("gate Run: %v", err)
		}
	})
	wg.Go(func() {
		if err := e.fan.Run(ctx); err != nil {
			e.t.Errorf("Fanout Run: %v", err)
		}
	})
	wg.Go(func() {
		if err := e.ch.Run(ctx); err != nil {
			e.t.Errorf("slack Run: %v", err)
		}
	})
	e.stopFn = func() { cancel(); wg.Wait() }
	e.t.Cleanup(e.stop)
	wctx := testkit.Context(e.t, 30*time.Second)
	if e.mode == socketMode {
		if err := e.srv.WaitConnections(wctx, 1); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	addr, err := e.ch.Addr(wctx)
	if err != nil {
		e.t.Fatal(err)
	}
	e.base = "http://" + addr.String()
}

// stop stops everything start started and waits for it: after it, every delivery
// acknowledged has been handled.
func (e *env) stop() {
	e.stopOnce.Do(func() {
		if e.stopFn != nil {
			e.stopFn()
		}
	})
}

// require makes a call that requires approval and returns its request once its
// prompt is posted in Slack, recorded on the request and armed (its first
// chat.update), with the message's ts.
func (e *env) require(session, tool string, args map[string]any) (store.Request, string) {
	e.t.Helper()
	req := testgate.Require(e.t, e.g,
		gate.Call{ToolName: tool, Arguments: args, SessionID: session})
	select {
	case m := <-e.box.added:
		if m.Channel != slack.ChannelName || m.ChatID != slacktest.DefaultChannel || m.Ref == "" {
			e.t.Fatalf("recorded message %+v, want one in slack %s", m, slacktest.DefaultChannel)
		}
		e.waitArmed(m.Ref)
		return e.request(req.ID), m.Ref
	case <-testkit.Context(e.t, 30*time.Second).Done():
		e.t.Fatal("the prompt was never recorded")
	}
	return store.Request{}, ""
}

func (e *env) request(id uint64) store.Request {
	e.t.Helper()
	return teststore.Request(e.t, e.db, id)
}

// waitFinal waits until the Fanout marked a message of request id final: its
// chat.update is done (the tests show a request in one Slack channel).
func (e *env) waitFinal(id uint64) {
	e.t.Helper()
	for {
		select {
		case got := <-e.box.final:
			if got == id {
				return
			}
		case <-testkit.Context(e.t, 30*time.Second).Done():
			e.t.Fatalf("the messages of request %d were never marked final", id)
		}
	}
}

// delivery is something sent to the Channel the way Slack sends it, kept so it can
// be sent again.
type delivery struct {
	envelope slacktest.Envelope // Socket Mode
	path     string             // HTTP mode
	body     []byte
}

// click clicks the button of action a for request id on message ts, as user.
func (e *env) click(user, ts string, id uint64, a bot.Action) delivery {
	e.t.Helper()
	return e.clickAction(slacktest.BlockAction{UserID: user, MessageTS: ts,
		Value: bot.Callback{RequestID: id, Action: a}.String()})
}

func (e *env) clickAction(a slacktest.BlockAction) delivery {
	e.t.Helper()
	return e.deliver(func() (slacktest.Envelope, error) { return e.srv.PushBlockAction(a) },
		slack.PathInteractions, func() []byte { return e.srv.BlockActionBody(a) })
}

// command types /skald text as user.
func (e *env) command(user, text string) delivery {
	e.t.Helper()
	c := slacktest.SlashCommand{UserID: user, Text: text}
	return e.deliver(func() (slacktest.Envelope, error) { return e.srv.PushSlashCommand(c) },
		slack.PathCommands, func() []byte { return e.srv.SlashCommandBody(c) })
}

// submit sends the submission of view v by user with the answer text.
func (e *env) submit(user string, v slacktest.OpenedView, answer string) delivery {
	e.t.Helper()
	s := slacktest.ViewSubmission{UserID: user, View: v,
		Values: map[string]map[string]string{"answer": {"answer": answer}}}
	return e.deliver(func() (slacktest.Envelope, error) { return e.srv.PushViewSubmission(s) },
		slack.PathInteractions, func() []byte { return e.srv.ViewSubmissionBody(s) })
}

// deliver sends one delivery the way e's mode receives it: the envelope push makes
// (Socket Mode), or body posted to path (HTTP mode); it returns once it is acked.
func (e *env) deliver(push func() (slacktest.Envelope, error), path string,
	body func() []byte) delivery {
	e.t.Helper()
	if e.mode == socketMode {
		env, err := push()
		if err != nil {
			e.t.Fatal(err)
		}
		e.waitAck(env.EnvelopeID, 1)
		return delivery{envelope: env}
	}
	d := delivery{path: path, body: body()}
	e.post(d, http.StatusOK)
	return d
}

// redeliver sends d again as Slack does when an ack was late: the same envelope (a
// retry) or the same body (same trigger_id), freshly signed.
func (e *env) redeliver(d delivery, n int) {
	e.t.Helper()
	if e.mode == socketMode {
		if _, err := e.srv.Push(d.envelope.Retry("timeout")); err != nil {
			e.t.Fatal(err)
		}
		e.waitAck(d.envelope.EnvelopeID, n)
		return
	}
	e.post(d, http.StatusOK)
}

func (e *env) waitAck(id string, n int) {
	e.t.Helper()
	if _, err := e.srv.WaitAcks(testkit.Context(e.t, 30*time.Second), id, n); err != nil {
		e.t.Fatal(err)
	}
}

// post sends an HTTP-mode delivery signed now and checks the status.
func (e *env) post(d delivery, want int) {
	e.t.Helper()
	req, err := slacktest.NewSignedRequest(testkit.Context(e.t, 30*time.Second),
		e.base+d.path, secret, e.clock.Now(), d.body)
	if err != nil {
		e.t.Fatal(err)
	}
	if got := e.do(req); got != want {
		e.t.Fatalf("POST %s: status %d, want %d", d.path, got, want)
	}
}

func (e *env) do(req *http.Request) int {
	e.t.Helper()
	resp, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	testkit.Must(e.t, err)
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusOK && len(body) != 0 {
		e.t.Errorf("200 with a body %q: the ack must be empty", body)
	}
	return resp.StatusCode
}

// nextEphemeral waits for the next chat.postEphemeral and returns it with its text
// (the plain text of its sections).
func (e *env) nextEphemeral() (slacktest.Message, string) {
	e.t.Helper()
	all, err := e.srv.WaitEphemerals(testkit.Context(e.t, 30*time.Second), e.ephemerals+1)
	if err != nil {
		e.t.Fatal(err)
	}
	m := all[e.ephemerals]
	e.ephemerals++
	return m, replyText(e.t, m)
}

// replyText joins the texts of an ephemeral's plain_text sections.
func replyText(t *testing.T, m slacktest.Message) string {
	t.Helper()
	var parts []string
	for _, b := range m.Blocks.BlockSet {
		s, ok := b.(*slackgo.SectionBlock)
		if !ok || s.Text == nil || s.Text.Type != slackgo.PlainTextType {
			t.Fatalf("ephemeral block %#v is not a plain_text section", b)
		}
		parts = append(parts, s.Text.Text)
	}
	return strings.Join(parts, "\n")
}

// rawBlocks decodes a recorded blocks argument into generic JSON.
func rawBlocks(t *testing.T, m slacktest.Message) []map[string]any {
	t.Helper()
	var bs []map[string]any
	if err := json.Unmarshal(m.RawBlocks, &bs); err != nil {
		t.Fatalf("blocks %s: %v", m.RawBlocks, err)
	}
	return bs
}

// blockIDs lists the block_ids of blocks.
func blockIDs(bs []map[string]any) string {
	var ids []string
	for _, b := range bs {
		id, _ := b["block_id"].(string)
		ids = append(ids, id)
	}
	return strings.Join(ids, ",")
}

// waitArmed waits for the first chat.update of prompt ts, which adds its buttons, and
// fails the test when the message was posted with buttons or that update has none.
func (e *env) waitArmed(ts string) {
	e.t.Helper()
	ups, err := e.srv.WaitUpdates(testkit.Context(e.t, 30*time.Second),
		slacktest.DefaultChannel, ts, 1)
	if err != nil {
		e.t.Fatalf("prompt %s never armed: %v", ts, err)
	}
	for _, m := range e.srv.Messages(slacktest.DefaultChannel) {
		if m.TS == ts && strings.Contains(blockIDs(rawBlocks(e.t, m)), slack.BlockActions) {
			e.t.Errorf("prompt %s posted with buttons", ts)
		}
	}
	if !strings.Contains(blockIDs(rawBlocks(e.t, ups[0])), slack.BlockActions) {
		e.t.Errorf("prompt %s: its first update has no buttons", ts)
	}
}

// checkUpdates fails the test when a chat.update of message ts after the one that
// armed it came without blocks, or with an actions block: either would leave the old
// buttons live.
func (e *env) checkUpdates(ts string) {
	e.t.Helper()
	ups := e.srv.Updates(slacktest.DefaultChannel, ts)
	if len(ups) < 2 {
		e.t.Errorf("message %s was never updated after it was armed", ts)
	}
	for i, u := range ups {
		if i == 0 {
			continue // armed (waitArmed)
		}
		if !u.HasBlocks() {
			e.t.Errorf("chat.update %d of %s carried no blocks", i, ts)
			continue
		}
		if ids := blockIDs(rawBlocks(e.t, u)); strings.Contains(ids, slack.BlockActions) {
			e.t.Errorf("chat.update %d of %s keeps the actions block: %s", i, ts, ids)
		}
	}
	if cur, ok := e.srv.Current(slacktest.DefaultChannel, ts); !ok ||
		strings.Contains(blockIDs(rawBlocks(e.t, cur)), slack.BlockActions) {
		e.t.Errorf("message %s still shows buttons", ts)
	}
}
