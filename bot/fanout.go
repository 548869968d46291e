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
	// MarkMessageFinal marks message m of request id as showing the outcome.
	MarkMessageFinal(id uint64, m store.Message) error
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
	return &Fanout{
		store:       opt.Store,
		unfinalized: opt.Unfinalized,
		short:       bypassShort(opt.BypassShort),
		retry:       opt.Retry.withDefaults(),
		onFailure:   opt.OnFailure,
		log:         componentLog(opt.Logger),
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
// and edits until ctx is done; every OfferSweepEvery after a send or edit was given
// up on for an error that is not permanent, it reconciles again, so that a channel
// unreachable for minutes gets its prompts and outcomes, each once, when it is back.
// It blocks, and returns only when every goroutine it started has stopped; sends and
// edits still failing then are dropped (logged) and picked up by the next start's
// Reconcile. Retries asked for before Run starts wait for it. It returns an error
// only when called twice.
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
	return f.show(ctx, requestBox{f}, r.ID, r.Messages)
}

// box is the part of the outbox that holds one kind of item the Fanout shows:
// requests (requestBox) or clarifications (clarBox). The send, arm and edit of a
// message are told once, over a box.
type box interface {
	// read returns item id as stored now, or the store's error.
	read(id uint64) (item, error)
	// add records message m of item id.
	add(id uint64, m store.Message) error
	// markFinal marks message m of item id final: it shows the outcome.
	markFinal(id uint64, m store.Message) error
	// words names the kind in errors, logs and message keys.
	words() words
}

// words name a kind of item: the noun of errors ("request"), the log attribute of
// its id ("request_id"), the log message of a message sent, and whether its msgKeys
// are a clarification's.
type words struct {
	noun, attr, sent string
	clar             bool
}

// item is a request or a clarification as a box read it.
type item struct {
	id       uint64
	pending  bool
	status   string
	messages []store.Message
	prompt   Prompt
}

// requestBox is the requests of f's store.
type requestBox struct{ f *Fanout }

func (b requestBox) read(id uint64) (item, error) {
	r, err := b.f.store.Request(id)
	if err != nil {
		return item{}, err
	}
	return b.item(r), nil
}

func (b requestBox) item(r store.Request) item {
	return item{id: r.ID, pending: r.Status == store.Pending, status: string(r.Status),
		messages: r.Messages, prompt: NewPrompt(r, b.f.short)}
}

func (b requestBox) add(id uint64, m store.Message) error { return b.f.store.AddMessage(id, m) }

func (b requestBox) markFinal(id uint64, m store.Message) error {
	return b.f.store.MarkMessageFinal(id, m)
}

func (requestBox) words() words {
	return words{noun: "request", attr: "request_id", sent: "prompt sent"}
}

// show starts a sendTask of item id of b on every (channel, target) where msgs, its
// messages, have none, and returns as Show does.
func (f *Fanout) show(ctx context.Context, b box, id uint64, msgs []store.Message) error {
	f.mu.Lock()
	channels := slices.Clone(f.channels)
	f.mu.Unlock()
	var tasks []*task
	for _, ch := range channels {
		for _, target := range ch.Targets() {
			if hasMessage(msgs, ch.Name(), target) {
				continue
			}
			key := msgKey{id: id, channel: ch.Name(), chat: target, clar: b.words().clar}
			if !f.claim(key) {
				continue
			}
			tasks = append(tasks, f.sendTask(b, key, ch, target))
		}
	}
	return f.first(ctx, "send", tasks)
}

// sendTask shows the prompt of item key.id of b in one target in two phases
// (docs/design.md, "Chat prompts"): it posts the prompt without its buttons, records
// the message, then edits the buttons in (arm). Each attempt first re-reads the item,
// under the key's claim: one that left pending, or that got a message there meanwhile
// (from a concurrent Show or Reconcile that finished first), needs no prompt. A
// message sent but not recorded is recorded on the next attempt, never sent twice; one
// recorded but not armed is armed on the next attempt.
func (f *Fanout) sendTask(b box, key msgKey, ch Channel, target string) *task {
	var (
		w        = b.words()
		id       = key.id
		ref      string
		recorded bool
	)
	t := &task{key: key, done: func(error) {}}
	t.try = func(ctx context.Context) error {
		if ref == "" {
			it, err := b.read(id)
			if err != nil {
				return fmt.Errorf("bot: send %s %d to %s %s: %w",
					w.noun, id, key.channel, target, err)
			}
			if !it.pending || hasMessage(it.messages, key.channel, target) {
				return nil
			}
			ref, err = ch.Send(ctx, target, unarmed(it.prompt, w.noun, id))
			if err == nil && ref == "" {
				err = fmt.Errorf("%w: the channel returned no message reference", ErrPermanent)
			}
			if err != nil {
				ref = ""
				return fmt.Errorf("bot: send %s %d to %s %s: %w",
					w.noun, id, key.channel, target, err)
			}
		}
		msg := store.Message{Channel: key.channel, ChatID: target, Ref: ref}
		if !recorded {
			if err := b.add(id, msg); err != nil {
				return fmt.Errorf("bot: record message %s of %s %d on %s %s: %w",
					ref, w.noun, id, key.channel, target, err)
			}
			recorded = true
			f.log.Debug(w.sent, w.attr, id, "channel", key.channel, "chat", target, "ref", ref)
		}
		if err := f.arm(ctx, b, ch, id, msg); err != nil {
			return err
		}
		// Ended while we were sending? The end's Update may have read the messages
		// before this one was recorded, or found its arm in flight: edit it, and any
		// other still showing buttons, here.
		if cur, err := b.read(id); err == nil && !cur.pending {
			if err := f.edit(ctx, b, cur, unfinal(cur.messages)); err != nil {
				f.log.Warn("showing the outcome of a "+w.noun+
					" that ended while its prompt was sent", w.attr, id, "err", err)
			}
		}
		return nil
	}
	return t
}

// unarmed is p, the prompt of the noun's item id, without its buttons and with the
// line that says what a copy left so is: the first phase of a send.
func unarmed(p Prompt, noun string, id uint64) Prompt {
	p.Buttons = nil
	p.Spare = SpareLine(noun, id)
	return p
}

// SpareLine is the line a prompt of the noun's ("request", "clarification") item id
// shows until its buttons come (Prompt.Spare). A message whose post reply was lost
// is posted again and never learnt of, so it keeps the line: it says itself that it
// is a spare (docs/design.md, "Chat prompts").
func SpareLine(noun string, id uint64) string {
	return fmt.Sprintf("⏳ Buttons follow. If none appear, this is a spare copy of %s #%d: "+
		"answer on its message that has them.", noun, id)
}

// arm edits recorded message m of item id of b to show its buttons, when the item
// is still pending, under the message's claim. When the message is claimed (an edit
// of it in flight, which shows the item as it is then) or the item has left
// pending, it does nothing. It blocks for one Edit, one more each time the pending
// item's prompt changed meanwhile.
func (f *Fanout) arm(ctx context.Context, b box, ch Channel, id uint64, m store.Message) error {
	w := b.words()
	key := msgKey{id: id, channel: m.Channel, chat: m.ChatID, ref: m.Ref, clar: w.clar}
	if !f.claim(key) {
		return nil
	}
	defer f.release(key)
	it, err := b.read(id)
	if err != nil {
		return fmt.Errorf("bot: arm message %s of %s %d: %w", m.Ref, w.noun, id, err)
	}
	// A refresh of a pending request (a caller that stopped waiting) finds the
	// message claimed and skips it: edit again until it shows the item as stored.
	for p := it.prompt; it.pending; {
		if err := ch.Edit(ctx, m.ChatID, m.Ref, p); err != nil {
			return fmt.Errorf("bot: arm message %s of %s %d on %s %s: %w",
				m.Ref, w.noun, id, m.Channel, m.ChatID, err)
		}
		f.log.Debug("prompt armed", w.attr, id, "channel", m.Channel, "chat", m.ChatID,
			"ref", m.Ref)
		if it, err = b.read(id); err != nil {
			return fmt.Errorf("bot: arm message %s of %s %d: %w", m.Ref, w.noun, id, err)
		}
		if reflect.DeepEqual(it.prompt, p) {
			break
		}
		p = it.prompt
	}
	return nil
}

// Update edits every message of r that is not final yet to show its outcome, with the
// buttons removed (gate.Notifier); for a request still pending it edits every message
// to its prompt as it is now, buttons kept (a caller that stopped waiting). It
// re-reads the request so that a message recorded after r was read is edited too.
// Each message is marked final (MarkMessageFinal) once edited. It returns
// after the first attempt of every edit; failures are retried in the background. The
// error joins the first-attempt errors that will not be retried.
func (f *Fanout) Update(ctx context.Context, r store.Request) error {
	if cur, err := f.store.Request(r.ID); err == nil {
		r = cur
	} else {
		f.log.Warn("re-reading a request to update its messages", "request_id", r.ID, "err", err)
	}
	if r.Status == store.Pending {
		return f.refresh(ctx, r)
	}
	return f.edit(ctx, requestBox{f}, requestBox{f}.item(r), unfinal(r.Messages))
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
				if cur.Status != store.Pending && isFinal(cur.Messages, m) {
					return nil // its outcome was shown
				}
				if err := ch.Edit(ctx, m.ChatID, m.Ref, NewPrompt(cur, f.short)); err != nil {
					return fmt.Errorf("bot: edit message %s of request %d on %s %s: %w",
						m.Ref, r.ID, m.Channel, m.ChatID, err)
				}
				if cur.Status != store.Pending {
					f.markFinal(requestBox{f}, r.ID, m)
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

// edit edits msgs of finished item it of b to its outcome, one task per message, and
// marks each final once edited. Under the message's claim each task first re-reads
// the item and skips a message final already: another edit showed the outcome
// (docs/design.md, "Chat prompts"). A message whose edit is in flight, or whose
// channel is gone, is skipped. It returns as Show does.
func (f *Fanout) edit(ctx context.Context, b box, it item, msgs []store.Message) error {
	w := b.words()
	var tasks []*task
	for _, m := range msgs {
		ch := f.channel(m.Channel)
		key := msgKey{id: it.id, channel: m.Channel, chat: m.ChatID, ref: m.Ref, clar: w.clar}
		if ch == nil || !f.claim(key) {
			continue
		}
		t := &task{key: key, done: func(error) {}}
		t.try = func(ctx context.Context) error {
			// When the item cannot be read, edit: twice is the lesser harm.
			if cur, err := b.read(it.id); err == nil && isFinal(cur.messages, m) {
				return nil
			}
			if err := ch.Edit(ctx, m.ChatID, m.Ref, it.prompt); err != nil {
				return fmt.Errorf("bot: edit message %s of %s %d on %s %s: %w",
					m.Ref, w.noun, it.id, m.Channel, m.ChatID, err)
			}
			f.log.Debug("outcome shown", w.attr, it.id, "channel", m.Channel,
				"chat", m.ChatID, "ref", m.Ref, "status", it.status)
			f.markFinal(b, it.id, m)
			return nil
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

// markFinal marks message m of item id of b final, logging a failure: the message
// may then be edited once more by a later reconciliation.
func (f *Fanout) markFinal(b box, id uint64, m store.Message) {
	if err := b.markFinal(id, m); err != nil {
		w := b.words()
		f.log.Warn("marking a message final", w.attr, id, "err", err)
	}
}

// isFinal reports whether msgs hold message m (channel, chat and ref), final.
func isFinal(msgs []store.Message, m store.Message) bool {
	return slices.ContainsFunc(msgs, func(o store.Message) bool {
		return o.Final && o.Channel == m.Channel && o.ChatID == m.ChatID && o.Ref == m.Ref
	})
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
	f.log.Error("giving up on a message", "op", op, "request_id", t.key.id,
		"channel", t.key.channel, "chat", t.key.chat, "attempts", t.fails+t.limits,
		"err", err)
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

// hasMessage reports whether msgs hold a message in chat of channel.
func hasMessage(msgs []store.Message, channel, chat string) bool {
	return slices.ContainsFunc(msgs, func(m store.Message) bool {
		return m.Channel == channel && m.ChatID == chat
	})
}

// unfinal is the messages of ms not final yet.
func unfinal(ms []store.Message) []store.Message {
	var out []store.Message
	for _, m := range ms {
		if !m.Final {
			out = append(out, m)
		}
	}
	return out
}
