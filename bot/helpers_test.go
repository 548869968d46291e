package bot

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// The users of the tests: ids as the adapters pass them.
var (
	jane     = Who{ID: "100000001", Name: "Jane Doe", Channel: "telegram"}    // approver
	alice    = Who{ID: "100000002", Name: "Alice Admin", Channel: "telegram"} // admin
	stranger = Who{ID: "100000009", Name: "Mallory", Channel: "telegram"}
	slackBob = Who{ID: "U0FAKEUSR01", Name: "bob", Channel: "slack"} // approver on slack
)

var testAccess = Access{
	"telegram": {Approvers: []string{jane.ID}, Admins: []string{alice.ID}},
	"slack":    {Approvers: []string{slackBob.ID}},
}

// env is a real store in a temporary directory, a real gate over it and, when asked,
// a Fanout with fake channels as the gate's notifier.
type env struct {
	t     testing.TB
	dir   string
	path  string
	clock *testkit.Clock
	db    *store.DB
	g     *gate.Manager
	fan   *Fanout
	bot   *Bot
	chans map[string]*fakeChannel
	// failures receives what the Fanout gave up on.
	failures chan Failure
}

type envOptions struct {
	fanout      bool
	channels    []*fakeChannel
	bypassShort time.Duration
	retry       Retry
	jobs        Jobs
	clock       *testkit.Clock
	// path reopens an existing store file instead of a new one.
	path string
}

// newBotEnv opens the store and builds the gate and the Bot (and the Fanout with
// opt.channels when opt.fanout); nothing runs until run is called.
func newBotEnv(t testing.TB, opt envOptions) *env {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "skald.db")
	if opt.path != "" {
		path = opt.path
	}
	e := &env{t: t, dir: dir, path: path, clock: opt.clock,
		chans: map[string]*fakeChannel{}, failures: make(chan Failure, 100)}
	if e.clock == nil {
		e.clock = &testkit.Clock{}
	}
	e.open()
	if opt.fanout {
		e.fan = NewFanout(FanoutOptions{Store: e.db, Unfinalized: e.unfinalized,
			BypassShort: opt.bypassShort, Retry: opt.retry, Logger: testkit.Logger(),
			OnFailure: func(f Failure) { e.failures <- f }})
		for _, c := range opt.channels {
			e.chans[c.name] = c
			if err := e.fan.Add(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.g = testgate.Over(t, e.db, root, func(o *gate.Options) {
		o.Now = e.clock.Now
		if e.fan != nil {
			o.Notifier = e.fan
		}
	})
	if e.bot, err = New(Options{Gate: e.g, Access: testAccess, Jobs: opt.jobs,
		BypassShort: opt.bypassShort, Logger: testkit.Logger()}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) open() {
	e.t.Helper()
	e.db = teststore.OpenAt(e.t, e.path, store.Options{Now: e.clock.Now})
}

// run starts the gate (and the Fanout) and returns a function that stops them and
// waits for them to return; it must be called before the test (or its synctest
// bubble) ends.
func (e *env) run() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := e.g.Run(ctx); err != nil {
			e.t.Errorf("gate Run: %v", err)
		}
	})
	if e.fan != nil {
		wg.Go(func() {
			if err := e.fan.Run(ctx); err != nil {
				e.t.Errorf("Fanout Run: %v", err)
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// unfinalized lists the finished requests with a message not final, by walking the
// request ids (the test store is never pruned, so they are 1, 2, …).
func (e *env) unfinalized() ([]store.Request, error) {
	var out []store.Request
	for id := uint64(1); ; id++ {
		r, err := e.db.Request(id)
		if errors.Is(err, store.ErrNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if r.Status != store.Pending &&
			slices.ContainsFunc(r.Messages, func(m store.Message) bool { return !m.Final }) {
			out = append(out, r)
		}
	}
}

// require makes a call that requires approval and returns its request.
func (e *env) require(session, tool string, args map[string]any) store.Request {
	e.t.Helper()
	return testgate.Require(e.t, e.g,
		gate.Call{ToolName: tool, Arguments: args, SessionID: session})
}

// resolve resolves request id with answer a, failing the test on an error.
func (e *env) resolve(id uint64, a gate.Answer) {
	e.t.Helper()
	if _, err := e.g.Resolve(context.Background(), id, a); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) request(id uint64) store.Request {
	e.t.Helper()
	return teststore.Request(e.t, e.db, id)
}

// fakeChannel is a hand-written Channel: it records every send and edit, and fails
// the next sends or edits when asked to.
type fakeChannel struct {
	name    string
	targets []string

	mu        sync.Mutex // guards the fields below
	next      int
	sends     []sent
	edits     []sent
	arms      int         // edits that gave a message posted without buttons its buttons
	attempts  []time.Time // every call of Send, failed or not
	failSends int         // fail the next failSends sends with failErr
	failEdits int
	failErr   error
	// notices are the texts Notify posted, by target; failNotices fails the next
	// failNotices notices with failErr.
	notices     map[string][]string
	noticeCalls int
	failNotices int
	// gate, when set, makes Send wait for a value on it before answering.
	gate chan struct{}
	// onArm, when set, runs (under the lock) as an Edit arms a message.
	onArm func(target, ref string)
}

type sent struct {
	Target, Ref string
	// Prompt is what the message shows once armed: the first Edit that gives a
	// message posted without buttons its buttons arms it, and is counted in arms, not
	// in edits.
	Prompt Prompt
	At     time.Time
	// Posted is the prompt as posted; Armed is set once the buttons were added.
	Posted Prompt
	Armed  bool
}

var _ Channel = (*fakeChannel)(nil)

func newFake(name string, targets ...string) *fakeChannel {
	return &fakeChannel{name: name, targets: targets}
}

func (c *fakeChannel) Name() string      { return c.name }
func (c *fakeChannel) Targets() []string { return c.targets }

func (c *fakeChannel) Send(ctx context.Context, target string, p Prompt) (string, error) {
	c.mu.Lock()
	g := c.gate
	c.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts = append(c.attempts, time.Now())
	if c.failSends > 0 {
		c.failSends--
		return "", c.err()
	}
	c.next++
	ref := strconv.Itoa(c.next)
	c.sends = append(c.sends, sent{Target: target, Ref: ref, Prompt: p, Posted: p, At: time.Now(),
		Armed: p.Buttons != nil})
	return ref, nil
}

func (c *fakeChannel) Edit(ctx context.Context, target, ref string, p Prompt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failEdits > 0 {
		c.failEdits--
		return c.err()
	}
	if p.Buttons != nil {
		for i, s := range c.sends {
			if s.Target == target && s.Ref == ref && !s.Armed {
				c.sends[i].Prompt, c.sends[i].Armed = p, true
				c.arms++
				if c.onArm != nil {
					c.onArm(target, ref)
				}
				return nil
			}
		}
	}
	c.edits = append(c.edits, sent{Target: target, Ref: ref, Prompt: p, At: time.Now()})
	return nil
}

func (c *fakeChannel) Notify(ctx context.Context, target, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noticeCalls++
	if c.failNotices > 0 {
		c.failNotices--
		return c.err()
	}
	if c.notices == nil {
		c.notices = map[string][]string{}
	}
	c.notices[target] = append(c.notices[target], text)
	return nil
}

// noticed returns the notices posted, by target.
func (c *fakeChannel) noticed() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]string{}
	for k, v := range c.notices {
		out[k] = slices.Clone(v)
	}
	return out
}

func (c *fakeChannel) err() error {
	if c.failErr != nil {
		return c.failErr
	}
	return errors.New("connection reset")
}

func (c *fakeChannel) sent() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sends)
}

func (c *fakeChannel) edited() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.edits)
}

func (c *fakeChannel) set(f func(c *fakeChannel)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c)
}
