package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// ClarificationOutbox is what the Fanout needs of the store to show clarifications;
// *store.DB implements it. A Fanout whose store does not shows none.
type ClarificationOutbox interface {
	Clarification(id uint64) (store.Clarification, error)
	PendingClarifications() ([]store.Clarification, error)
	AddClarificationMessage(id uint64, m store.Message) error
	MarkClarificationMessageFinal(id uint64, m store.Message) error
	UnfinalizedClarifications() ([]store.Clarification, error)
}

var _ gate.ClarificationNotifier = (*Fanout)(nil)

func (f *Fanout) clarStore() (ClarificationOutbox, bool) {
	s, ok := f.store.(ClarificationOutbox)
	return s, ok
}

// clarBox is the clarifications of a store, for the Fanout's send, arm and edit.
type clarBox struct{ cs ClarificationOutbox }

func (b clarBox) read(id uint64) (item, error) {
	c, err := b.cs.Clarification(id)
	if err != nil {
		return item{}, err
	}
	return clarItem(c), nil
}

func clarItem(c store.Clarification) item {
	return item{id: c.ID, pending: c.Status == store.ClarificationPending,
		status: string(c.Status), messages: c.Messages, prompt: NewClarificationPrompt(c)}
}

func (b clarBox) add(id uint64, m store.Message) error {
	return b.cs.AddClarificationMessage(id, m)
}

func (b clarBox) markFinal(id uint64, m store.Message) error {
	return b.cs.MarkClarificationMessageFinal(id, m)
}

func (clarBox) words() words {
	return words{noun: "clarification", attr: "clarification", sent: "question sent", clar: true}
}

// ShowClarification presents pending clarification c on every (channel, target)
// where it has no message yet (gate.ClarificationNotifier), as Show does for requests:
// each message recorded as soon as it is sent, failures retried in the background.
func (f *Fanout) ShowClarification(ctx context.Context, c store.Clarification) error {
	cs, ok := f.clarStore()
	if !ok {
		return nil
	}
	return f.show(ctx, clarBox{cs}, c.ID, c.Messages)
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
		b := clarBox{cs}
		t := &task{key: key, done: func(error) {}}
		t.try = func(ctx context.Context) error {
			if err := f.arm(ctx, b, ch, c.ID, m); err != nil {
				return err
			}
			if cur, err := b.read(c.ID); err == nil && !cur.pending {
				return f.edit(ctx, b, cur, unfinal(cur.messages))
			}
			return nil
		}
		tasks = append(tasks, t)
	}
	return f.first(ctx, "edit", tasks)
}

// UpdateClarification edits every message of c not final yet to show how it ended,
// without buttons (gate.ClarificationNotifier), marking each final once edited.
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
	return f.edit(ctx, clarBox{cs}, clarItem(c), unfinal(c.Messages))
}

// reconcileClarifications shows the pending clarifications where they have no
// message, arms their recorded messages again, and edits the finished ones still
// showing buttons (Reconcile).
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
