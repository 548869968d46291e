package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Outbox is what the Fanout needs of the store: the requests and their chat message
// records. *store.DB implements it. Errors are the store's sentinels.
type Outbox interface {
	Request(id uint64) (store.Request, error)
	Pending() ([]store.Request, error)
	AddMessage(id uint64, m store.Message) error
	MarkMessagesFinal(id uint64) error
}

// FanoutOptions configure a Fanout.
type FanoutOptions struct {
	// Store holds the message records. Required.
	Store Outbox
	// Unfinalized lists the requests that left pending while one of their messages
	// is not Final yet (still showing buttons), for Reconcile. nil means Reconcile
	// only shows pending requests.
	Unfinalized func() ([]store.Request, error)
	// BypassShort is bypass_short, for the ⏱ button's label; zero means
	// DefaultBypassShort.
	BypassShort time.Duration
	// Retry is the retry policy; the zero value means DefaultRetry.
	Retry Retry
	// OnFailure, when set, is called for every send, edit or notice (Notices) given
	// up on (a metric hook). It is called from the Fanout's goroutines and must not block.
	OnFailure func(Failure)
	// Meta stores the "➕ Always" offers (store.DB's GetMeta and PutMeta); nil
	// means none are made.
	Meta Meta
	// OnOffer, when set, is called once an offer's follow-up was sent, recorded and
	// armed ("sent") and once it was closed ("closed"), from the Fanout's goroutines; it
	// must not block.
	OnOffer func(o Offer, event string)
	// Now is the clock of the offers' expiry; nil means time.Now.
	Now func() time.Time
	// Logger nil means slog.Default(); the Fanout adds component=bot.
	Logger *slog.Logger
}

// Meta is the store's small-value map (*store.DB implements it).
type Meta interface {
	GetMeta(key string) ([]byte, error)
	PutMeta(key string, v []byte) error
}

// Fanout shows approval requests on every chat of every Channel and keeps the outbox
// (docs/design.md, "Chat prompts"): each prompt message sent is recorded on its
// request, so it can be edited to the outcome, also after a restart, and a tap can be
// checked against it. It implements gate.Notifier. Each message is sent or edited on
// its own goroutine; failures are retried (Retry) on goroutines Run owns. All methods
// are safe for concurrent use.
type Fanout struct {
	store       Outbox
	unfinalized func() ([]store.Request, error)
	short       time.Duration
	retry       Retry
	onFailure   func(Failure)
	log         *slog.Logger
	meta        Meta
	clock       func() time.Time
	onOffer     func(Offer, string)
	offMu       sync.Mutex // serialises the offers' read-modify-write of the store
	// lost is set when a send or edit was given up on for an error that is not
	// permanent (a channel unreachable for longer than Retry covers): the next
	// sweep reconciles the outbox.
	lost atomic.Bool

	mu       sync.Mutex // guards channels, inflight, offerAgain, runCtx, queued, running, stopped
	channels []Channel
	// inflight holds the sends and edits being tried, so that a Show and a Reconcile
	// of the same request, or two Updates, never send or edit one message twice at
	// once.
	inflight map[msgKey]bool
	// offerAgain marks the offers whose step must run again once the one in flight
	// ends.
	offerAgain map[msgKey]bool
	runCtx     context.Context // Run's; nil until Run starts
	queued     []*task         // retries asked for before Run started
	running    bool
	stopped    bool
	wg         sync.WaitGroup // the retry goroutines
}

// msgKey names one send (ref "") or one edit of a message.
type msgKey struct {
	id                 uint64
	channel, chat, ref string
	clar               bool // id is a clarification's
	rearm              bool // the task arming message ref again (Reconcile)
}

var _ gate.Notifier = (*Fanout)(nil)

// NewFanout returns a Fanout without channels; add them with Add. It panics when
// opt.Store is nil (a wiring mistake).
func NewFanout(opt FanoutOptions) *Fanout {
	if opt.Store == nil {
		panic("bot: NewFanout without a store")
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	short := opt.BypassShort
	if short <= 0 {
		short = DefaultBypassShort
	}
	return &Fanout{
		store:       opt.Store,
		unfinalized: opt.Unfinalized,
		short:       short,
		retry:       opt.Retry.withDefaults(),
		onFailure:   opt.OnFailure,
		log:         log.With("component", "bot"),
		inflight:    make(map[msgKey]bool),
		offerAgain:  make(map[msgKey]bool),
		meta:        opt.Meta,
		clock:       opt.Now,
		onOffer:     opt.OnOffer,
	}
}

// Add adds a channel. Add channels before Run and before the gate starts
// notifying; a prompt shown before a channel is added reaches it at the next
// Reconcile. It returns an error when a channel of the same Name was added already.
func (f *Fanout) Add(ch Channel) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.ContainsFunc(f.channels, func(c Channel) bool { return c.Name() == ch.Name() }) {
		return fmt.Errorf("bot: add channel: %q added twice", ch.Name())
	}
	f.channels = append(f.channels, ch)
	return nil
}

func (f *Fanout) channel(name string) Channel {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.channels {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// Run reconciles the outbox once (Reconcile), then runs the retries of failed sends
// and edits until ctx is done; every OfferSweepEvery after a send or edit was given up
// on for an error that is not permanent, it reconciles again, so that a channel
// unreachable for minutes gets its prompts and outcomes, each once, when it is back. It blocks, and returns only when every goroutine it
// started has stopped; sends and edits still failing then are dropped (logged) and
// picked up by the next start's Reconcile. Retries asked for before Run starts wait
// for it. It returns an error only when called twice.
func (f *Fanout) Run(ctx context.Context) error {
	f.mu.Lock()
	if f.running {
		f.mu.Unlock()
		return errors.New("bot: fanout: Run called twice")
	}
	f.running, f.runCtx = true, ctx
	for _, t := range f.queued {
		f.wg.Go(func() { f.retryLoop(ctx, t) })
	}
	f.queued = nil
	f.wg.Go(func() { f.sweepLoop(ctx) })
	f.mu.Unlock()

	if err := f.Reconcile(ctx); err != nil && ctx.Err() == nil {
		f.log.Error("reconciling the outbox", "err", err)
	}
	<-ctx.Done()
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.wg.Wait()
	return nil
}

// Show presents pending request r on every (channel, target) where it has no message
// yet (gate.Notifier): one goroutine per message, each posted without its buttons,
// recorded with AddMessage, then edited to show them (docs/design.md, "Chat prompts"),
// so no button can be tapped before its message is recorded. The request is re-read
// from the store before each send, so a request shown twice at once (by the gate and
// by Reconcile) gets one message per chat. It returns once every message had its
// first attempt; failures are retried in the background (see Run). It returns the
// first-attempt errors that will not be retried, joined, or nil.
func (f *Fanout) Show(ctx context.Context, r store.Request) error {
	f.mu.Lock()
	channels := slices.Clone(f.channels)
	f.mu.Unlock()
	var tasks []*task
	for _, ch := range channels {
		for _, target := range ch.Targets() {
			if hasMessage(r, ch.Name(), target) {
				continue
			}
			key := msgKey{id: r.ID, channel: ch.Name(), chat: target}
			if !f.claim(key) {
				continue
			}
			tasks = append(tasks, f.sendTask(key, ch, target, r.ID))
		}
	}
	return f.first(ctx, "send", tasks)
}

// sendTask shows the prompt of request id in one target in two phases (docs/design.md,
// "Chat prompts"): it posts the prompt without its buttons, records the message, then
// edits the buttons in (arm). Each attempt first re-reads the request, under the key's
// claim: one that left pending, or that got a message there meanwhile (from a
// concurrent Show or Reconcile that finished first), needs no prompt. A message sent
// but not recorded is recorded on the next attempt, never sent twice; one recorded but
// not armed is armed on the next attempt.
func (f *Fanout) sendTask(key msgKey, ch Channel, target string, id uint64) *task {
	var (
		ref      string
		recorded bool
	)
	t := &task{key: key, done: func(error) {}}
	t.try = func(ctx context.Context) error {
		if ref == "" {
			r, err := f.store.Request(id)
			if err != nil {
				return fmt.Errorf("bot: send request %d to %s %s: %w", id, key.channel, target, err)
			}
			if r.Status != store.Pending || hasMessage(r, key.channel, target) {
				return nil
			}
			ref, err = ch.Send(ctx, target, unarmed(NewPrompt(r, f.short)))
			if err == nil && ref == "" {
				err = fmt.Errorf("%w: the channel returned no message reference", ErrPermanent)
			}
			if err != nil {
				ref = ""
				return fmt.Errorf("bot: send request %d to %s %s: %w", id, key.channel, target, err)
			}
		}
		msg := store.Message{Channel: key.channel, ChatID: target, Ref: ref}
		if !recorded {
			if err := f.store.AddMessage(id, msg); err != nil {
				return fmt.Errorf("bot: record message %s of request %d on %s %s: %w",
					ref, id, key.channel, target, err)
			}
			recorded = true
			f.log.Debug("prompt sent", "request_id", id, "channel", key.channel, "chat", target,
				"ref", ref)
		}
		if err := f.arm(ctx, ch, id, msg); err != nil {
			return err
		}
		// Resolved while we were sending? The resolution's Update may have read the
		// messages before this one was recorded, found its arm in flight, or found
		// them all final: edit this one, and any other still showing buttons, here.
		if cur, err := f.store.Request(id); err == nil && cur.Status != store.Pending {
			msgs := []store.Message{msg}
			for _, m := range cur.Messages {
				if !m.Final && (m.Channel != msg.Channel || m.ChatID != msg.ChatID || m.Ref != msg.Ref) {
					msgs = append(msgs, m)
				}
			}
			if err := f.edit(ctx, cur, msgs); err != nil {
				f.log.Warn("showing the outcome of a request resolved while its prompt was sent",
					"request_id", id, "err", err)
			}
		}
		return nil
	}
	return t
}

// unarmed is p without its buttons: the first phase of a send.
func unarmed(p Prompt) Prompt {
	p.Buttons = nil
	return p
}

// arm edits recorded message m of request id to show its buttons, when the request
// is still pending, under the message's claim. When the message is claimed (an edit
// of it in flight, which shows the request as it is then) or the request has left
// pending, it does nothing. It blocks for one Edit, one more each time the pending
// request's prompt changed meanwhile.
func (f *Fanout) arm(ctx context.Context, ch Channel, id uint64, m store.Message) error {
	key := msgKey{id: id, channel: m.Channel, chat: m.ChatID, ref: m.Ref}
	if !f.claim(key) {
		return nil
	}
	defer f.release(key)
	r, err := f.store.Request(id)
	if err != nil {
		return fmt.Errorf("bot: arm message %s of request %d: %w", m.Ref, id, err)
	}
	// A refresh of the pending request (a caller that stopped waiting) finds the
	// message claimed and skips it: edit again until it shows the request as stored.
	for p := NewPrompt(r, f.short); r.Status == store.Pending; {
		if err := ch.Edit(ctx, m.ChatID, m.Ref, p); err != nil {
			return fmt.Errorf("bot: arm message %s of request %d on %s %s: %w",
				m.Ref, id, m.Channel, m.ChatID, err)
		}
		f.log.Debug("prompt armed", "request_id", id, "channel", m.Channel, "chat", m.ChatID,
			"ref", m.Ref)
		if r, err = f.store.Request(id); err != nil {
			return fmt.Errorf("bot: arm message %s of request %d: %w", m.Ref, id, err)
		}
		next := NewPrompt(r, f.short)
		if reflect.DeepEqual(next, p) {
			break
		}
		p = next
	}
	return nil
}

// Update edits every message of r that is not final yet to show its outcome, with
// the buttons removed (gate.Notifier); for a request still pending it edits every
// message to its prompt as it is now, buttons kept (a caller that stopped waiting). It re-reads the request so that a
// message recorded after r was read is edited too. Once every message was edited it
// marks them final (MarkMessagesFinal). It returns after the first attempt of every
// edit; failures are retried in the background. The error joins the first-attempt
// errors that will not be retried.
func (f *Fanout) Update(ctx context.Context, r store.Request) error {
	if cur, err := f.store.Request(r.ID); err == nil {
		r = cur
	} else {
		f.log.Warn("re-reading a request to update its messages", "request_id", r.ID, "err", err)
	}
	if r.Status == store.Pending {
		return f.refresh(ctx, r)
	}
	var todo []store.Message
	for _, m := range r.Messages {
		if !m.Final {
			todo = append(todo, m)
		}
	}
	return f.edit(ctx, r, todo)
}

// refresh edits every message of pending request r to its prompt as stored now. Each
// edit re-reads the request under its message's claim, and once more after it: a
// request resolved meanwhile gets its outcome edited here, since the resolution's own
// edit of that message found it claimed and skipped it.
func (f *Fanout) refresh(ctx context.Context, r store.Request) error {
	var tasks []*task
	for _, m := range r.Messages {
		ch := f.channel(m.Channel)
		key := msgKey{id: r.ID, channel: m.Channel, chat: m.ChatID, ref: m.Ref}
		if ch == nil || !f.claim(key) {
			continue
		}
		t := &task{key: key, done: func(error) {}}
		t.try = func(ctx context.Context) error {
			cur, err := f.store.Request(r.ID)
			for err == nil {
				if err := ch.Edit(ctx, m.ChatID, m.Ref, NewPrompt(cur, f.short)); err != nil {
					return fmt.Errorf("bot: edit message %s of request %d on %s %s: %w",
						m.Ref, r.ID, m.Channel, m.ChatID, err)
				}
				if cur.Status != store.Pending {
					f.markFinal(r.ID, m)
					return nil
				}
				if cur, err = f.store.Request(r.ID); err == nil && cur.Status == store.Pending {
					return nil
				}
			}
			return fmt.Errorf("bot: refresh request %d: %w", r.ID, err)
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

// edit edits msgs of finished request r, then marks the request's messages final
// when every one of them was edited.
func (f *Fanout) edit(ctx context.Context, r store.Request, msgs []store.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	p := NewPrompt(r, f.short)
	var (
		mu     sync.Mutex // guards left and failed
		left   = len(msgs)
		failed = false
	)
	finish := func(err error) {
		mu.Lock()
		left--
		failed = failed || err != nil
		last := left == 0 && !failed
		mu.Unlock()
		if last {
			if err := f.store.MarkMessagesFinal(r.ID); err != nil {
				f.log.Error("marking the messages of a request final", "request_id", r.ID, "err", err)
			}
		}
	}
	var tasks []*task
	for _, m := range msgs {
		ch := f.channel(m.Channel)
		key := msgKey{id: r.ID, channel: m.Channel, chat: m.ChatID, ref: m.Ref}
		if ch == nil || !f.claim(key) {
			// No such channel any more, or an edit of it in flight: not ours to
			// finish, so not final on our account.
			finish(errSkipped)
			continue
		}
		t := &task{key: key, done: finish}
		t.try = func(ctx context.Context) error {
			if err := ch.Edit(ctx, m.ChatID, m.Ref, p); err != nil {
				return fmt.Errorf("bot: edit message %s of request %d on %s %s: %w",
					m.Ref, r.ID, m.Channel, m.ChatID, err)
			}
			f.log.Debug("outcome shown", "request_id", r.ID, "channel", m.Channel,
				"chat", m.ChatID, "ref", m.Ref, "status", r.Status)
			// Final at once, so a later reconciliation, after another message's
			// edit was given up on, does not edit this one again.
			f.markFinal(r.ID, m)
			return nil
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

var errSkipped = errors.New("skipped")

// markFinal marks message m of request id final, when the store can mark one message.
func (f *Fanout) markFinal(id uint64, m store.Message) {
	if mf, ok := f.store.(messageFinaler); ok {
		if err := mf.MarkMessageFinal(id, m); err != nil {
			f.log.Warn("marking a message final", "request_id", id, "err", err)
		}
	}
}

// messageFinaler marks one message final (*store.DB has it); an Outbox without it
// has its messages marked final all at once, when every edit succeeded.
type messageFinaler interface {
	MarkMessageFinal(id uint64, m store.Message) error
}

// first runs the first attempt of every task at once and waits for them all; the
// ones to retry go to Run's goroutines. It returns the errors of the tasks given up
// on, joined.
func (f *Fanout) first(ctx context.Context, op string, tasks []*task) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex // guards errs
		errs []error
	)
	for _, t := range tasks {
		wg.Go(func() {
			finished, err := f.attempt(ctx, t)
			if finished {
				f.release(t.key)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
				return
			}
			f.log.Warn("will retry", "op", op, "request_id", t.key.id,
				"channel", t.key.channel, "chat", t.key.chat, "in", t.wait, "err", err)
			f.later(t)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// later hands t to Run's goroutines, or keeps it until Run starts; after Run stopped
// it drops t (the next start's Reconcile takes over).
func (f *Fanout) later(t *task) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.stopped:
		f.releaseLocked(t.key)
		f.log.Warn("shutting down: retry dropped until the next start",
			"request_id", t.key.id, "channel", t.key.channel, "chat", t.key.chat)
	case f.runCtx == nil:
		f.queued = append(f.queued, t)
	default:
		ctx := f.runCtx
		f.wg.Go(func() { f.retryLoop(ctx, t) })
	}
}

// giveUp logs and reports a send or edit that will not be tried again.
func (f *Fanout) giveUp(t *task, err error) {
	op := "send"
	if t.key.ref != "" {
		op = "edit"
	}
	f.log.Error("giving up on a message", "op", op, "request_id", t.key.id, "channel", t.key.channel,
		"chat", t.key.chat, "attempts", t.fails+t.limits, "err", err)
	if !errors.Is(err, ErrPermanent) {
		f.lost.Store(true)
	}
	if f.onFailure != nil {
		f.onFailure(Failure{Op: op, Channel: t.key.channel, Target: t.key.chat,
			RequestID: t.key.id, Attempts: t.fails + t.limits, Err: err})
	}
	t.done(err)
}

// claim marks key in flight; false when it already is.
func (f *Fanout) claim(key msgKey) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight[key] {
		return false
	}
	f.inflight[key] = true
	return true
}

func (f *Fanout) release(key msgKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked(key)
}

func (f *Fanout) releaseLocked(key msgKey) {
	delete(f.inflight, key)
}

// Reconcile brings the chats in line with the store, at start-up: it shows every
// pending request in every (channel, target) that has no message of it, edits its
// recorded messages to the request as it is now (buttons included: a message recorded
// but not armed gets them), and, when FanoutOptions.Unfinalized is set, edits the
// messages of finished requests that still show buttons. It blocks until every first
// attempt is made; failures are retried like any other. It returns the store's error
// listing the requests, or the joined errors of the messages given up on.
func (f *Fanout) Reconcile(ctx context.Context) error {
	pending, err := f.store.Pending()
	if err != nil {
		return fmt.Errorf("bot: reconcile: %w", err)
	}
	var errs []error
	for _, r := range pending {
		errs = append(errs, f.Show(ctx, r))
		// Its recorded messages, to the request as it is now: a message recorded
		// but never armed (the process stopped in between) gets its buttons.
		errs = append(errs, f.refresh(ctx, r))
	}
	if f.unfinalized != nil {
		done, err := f.unfinalized()
		if err != nil {
			return fmt.Errorf("bot: reconcile: %w", err)
		}
		for _, r := range done {
			errs = append(errs, f.Update(ctx, r))
		}
	}
	errs = append(errs, f.SweepOffers(), f.reconcileClarifications(ctx))
	return errors.Join(errs...)
}

func hasMessage(r store.Request, channel, chat string) bool {
	return slices.ContainsFunc(r.Messages, func(m store.Message) bool {
		return m.Channel == channel && m.ChatID == chat
	})
}
