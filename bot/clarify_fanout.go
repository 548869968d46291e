package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// ClarificationOutbox is what the Fanout needs of the store to show clarifications;
// *store.DB implements it. A Fanout whose store does not shows none.
type ClarificationOutbox interface {
	Clarification(id uint64) (store.Clarification, error)
	PendingClarifications() ([]store.Clarification, error)
	AddClarificationMessage(id uint64, m store.Message) error
	MarkClarificationMessagesFinal(id uint64) error
	UnfinalizedClarifications() ([]store.Clarification, error)
}

var _ gate.ClarificationNotifier = (*Fanout)(nil)

func (f *Fanout) clarStore() (ClarificationOutbox, bool) {
	s, ok := f.store.(ClarificationOutbox)
	return s, ok
}

// ShowClarification presents pending clarification c on every (channel, target)
// where it has no message yet (gate.ClarificationNotifier), as Show does for requests:
// each message recorded as soon as it is sent, failures retried in the background.
func (f *Fanout) ShowClarification(ctx context.Context, c store.Clarification) error {
	cs, ok := f.clarStore()
	if !ok {
		return nil
	}
	f.mu.Lock()
	channels := slices.Clone(f.channels)
	f.mu.Unlock()
	var tasks []*task
	for _, ch := range channels {
		for _, target := range ch.Targets() {
			if clarHasMessage(c, ch.Name(), target) {
				continue
			}
			key := msgKey{id: c.ID, channel: ch.Name(), chat: target, clar: true}
			if !f.claim(key) {
				continue
			}
			tasks = append(tasks, f.clarSendTask(cs, key, ch, target))
		}
	}
	return f.first(ctx, "send", tasks)
}

// clarSendTask sends clarification key.id's prompt to target in two phases, as
// sendTask does for requests: without buttons, recorded, then armed; it re-reads the
// clarification first and never sends twice.
func (f *Fanout) clarSendTask(cs ClarificationOutbox, key msgKey, ch Channel, target string) *task {
	var (
		ref      string
		recorded bool
	)
	t := &task{key: key, done: func(error) {}}
	t.try = func(ctx context.Context) error {
		if ref == "" {
			c, err := cs.Clarification(key.id)
			if err != nil {
				return fmt.Errorf("bot: send clarification %d to %s %s: %w",
					key.id, key.channel, target, err)
			}
			if c.Status != store.ClarificationPending || clarHasMessage(c, key.channel, target) {
				return nil
			}
			ref, err = ch.Send(ctx, target, unarmed(NewClarificationPrompt(c)))
			if err == nil && ref == "" {
				err = fmt.Errorf("%w: the channel returned no message reference", ErrPermanent)
			}
			if err != nil {
				ref = ""
				return fmt.Errorf("bot: send clarification %d to %s %s: %w",
					key.id, key.channel, target, err)
			}
		}
		msg := store.Message{Channel: key.channel, ChatID: target, Ref: ref}
		if !recorded {
			if err := cs.AddClarificationMessage(key.id, msg); err != nil {
				return fmt.Errorf("bot: record message %s of clarification %d: %w", ref, key.id, err)
			}
			recorded = true
			f.log.Debug("question sent", "clarification", key.id, "channel", key.channel,
				"chat", target, "ref", ref)
		}
		if err := f.clarArm(ctx, cs, ch, key.id, msg); err != nil {
			return err
		}
		if cur, err := cs.Clarification(key.id); err == nil && cur.Status != store.ClarificationPending {
			if err := f.clarEdit(ctx, cs, cur, unfinal(cur.Messages)); err != nil {
				f.log.Warn("showing the end of a clarification answered while it was sent",
					"clarification", key.id, "err", err)
			}
		}
		return nil
	}
	return t
}

// clarArm edits recorded message m of clarification id to show its buttons, when it
// is still pending, under the message's claim; as arm does for requests.
func (f *Fanout) clarArm(ctx context.Context, cs ClarificationOutbox, ch Channel, id uint64,
	m store.Message) error {
	key := msgKey{id: id, channel: m.Channel, chat: m.ChatID, ref: m.Ref, clar: true}
	if !f.claim(key) {
		return nil
	}
	defer f.release(key)
	c, err := cs.Clarification(id)
	if err != nil {
		return fmt.Errorf("bot: arm message %s of clarification %d: %w", m.Ref, id, err)
	}
	if c.Status != store.ClarificationPending {
		return nil
	}
	if err := ch.Edit(ctx, m.ChatID, m.Ref, NewClarificationPrompt(c)); err != nil {
		return fmt.Errorf("bot: arm message %s of clarification %d on %s %s: %w",
			m.Ref, id, m.Channel, m.ChatID, err)
	}
	return nil
}

// clarRearm arms every recorded message of pending clarification c again (Reconcile):
// one recorded but never armed gets its buttons. An edit that changes nothing is a
// success. A clarification that ends meanwhile has its outcome edited in.
func (f *Fanout) clarRearm(ctx context.Context, cs ClarificationOutbox,
	c store.Clarification) error {
	var tasks []*task
	for _, m := range c.Messages {
		ch := f.channel(m.Channel)
		if ch == nil || m.Final {
			continue
		}
		key := msgKey{id: c.ID, channel: m.Channel, chat: m.ChatID, ref: m.Ref, clar: true,
			rearm: true}
		if !f.claim(key) {
			continue
		}
		t := &task{key: key, done: func(error) {}}
		t.try = func(ctx context.Context) error {
			if err := f.clarArm(ctx, cs, ch, c.ID, m); err != nil {
				return err
			}
			cur, err := cs.Clarification(c.ID)
			if err == nil && cur.Status != store.ClarificationPending {
				return f.clarEdit(ctx, cs, cur, unfinal(cur.Messages))
			}
			return nil
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

// UpdateClarification edits every message of c not final yet to show how it ended,
// without buttons (gate.ClarificationNotifier), then marks them final.
func (f *Fanout) UpdateClarification(ctx context.Context, c store.Clarification) error {
	cs, ok := f.clarStore()
	if !ok {
		return nil
	}
	if cur, err := cs.Clarification(c.ID); err == nil {
		c = cur
	}
	if c.Status == store.ClarificationPending {
		return nil
	}
	return f.clarEdit(ctx, cs, c, unfinal(c.Messages))
}

func unfinal(ms []store.Message) []store.Message {
	var out []store.Message
	for _, m := range ms {
		if !m.Final {
			out = append(out, m)
		}
	}
	return out
}

// clarEdit edits msgs of finished clarification c, then marks its messages final
// when every one was edited.
func (f *Fanout) clarEdit(ctx context.Context, cs ClarificationOutbox, c store.Clarification,
	msgs []store.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	p := NewClarificationPrompt(c)
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
			if err := cs.MarkClarificationMessagesFinal(c.ID); err != nil {
				f.log.Error("marking the messages of a clarification final",
					"clarification", c.ID, "err", err)
			}
		}
	}
	var tasks []*task
	for _, m := range msgs {
		ch := f.channel(m.Channel)
		key := msgKey{id: c.ID, channel: m.Channel, chat: m.ChatID, ref: m.Ref, clar: true}
		if ch == nil || !f.claim(key) {
			finish(errSkipped)
			continue
		}
		t := &task{key: key, done: finish}
		t.try = func(ctx context.Context) error {
			if err := ch.Edit(ctx, m.ChatID, m.Ref, p); err != nil {
				return fmt.Errorf("bot: edit message %s of clarification %d on %s %s: %w",
					m.Ref, c.ID, m.Channel, m.ChatID, err)
			}
			return nil
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

// reconcileClarifications shows the pending clarifications where they have no
// message, arms their recorded messages again, and edits the finished ones still showing buttons (Reconcile).
func (f *Fanout) reconcileClarifications(ctx context.Context) error {
	cs, ok := f.clarStore()
	if !ok {
		return nil
	}
	pending, err := cs.PendingClarifications()
	if err != nil {
		return fmt.Errorf("bot: reconcile clarifications: %w", err)
	}
	var errs []error
	for _, c := range pending {
		errs = append(errs, f.ShowClarification(ctx, c), f.clarRearm(ctx, cs, c))
	}
	done, err := cs.UnfinalizedClarifications()
	if err != nil {
		return fmt.Errorf("bot: reconcile clarifications: %w", err)
	}
	for _, c := range done {
		errs = append(errs, f.UpdateClarification(ctx, c))
	}
	return errors.Join(errs...)
}

func clarHasMessage(c store.Clarification, channel, chat string) bool {
	return slices.ContainsFunc(c.Messages, func(m store.Message) bool {
		return m.Channel == channel && m.ChatID == chat
	})
}
