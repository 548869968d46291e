package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// Event names of clarifications (docs/design.md, "Clarifications").
const (
	EventClarificationRequested = "clarification_requested"
	EventClarificationResolved  = "clarification_resolved"
)

// ClarificationRequested is the data of clarification_requested.
type ClarificationRequested struct {
	ID              uint64 `json:"id"`
	ClarificationID string `json:"clarification_id,omitempty"`
	SessionID       string `json:"session_id"`
}

// ClarificationResolved is the data of clarification_resolved, sent for every way out
// of pending (answered, expired, cancelled).
type ClarificationResolved struct {
	ID              uint64                    `json:"id"`
	ClarificationID string                    `json:"clarification_id,omitempty"`
	SessionID       string                    `json:"session_id"`
	Status          store.ClarificationStatus `json:"status"`
}

// ClarificationNotifier is what a chat layer implements, beside Notifier, to show
// clarifications; Options.Notifier is asked for it. The same rules as Notifier's hold:
// called from the gate's goroutines after the store committed, never under a lock.
type ClarificationNotifier interface {
	// ShowClarification presents a new pending clarification on every chat it serves.
	ShowClarification(ctx context.Context, c store.Clarification) error
	// UpdateClarification edits the messages of a clarification that left pending to
	// show how it ended, without buttons.
	UpdateClarification(ctx context.Context, c store.Clarification) error
}

// Question is a clarification as an agent asks it. Caller is set by the API or the
// scheduler, never by the agent ("" means store.CallerAdmin).
type Question struct {
	SessionID       string
	ClarificationID string
	AgentID         string
	Source          string
	ContextLabel    string
	Question        string
	Options         []string
	// Timeout is how long it stays pending; zero means the Manager's approval timeout.
	Timeout time.Duration
	Caller  string
}

// Reply is a human's answer to a clarification. Text is the answer; Option, when not
// nil, picks an option by its index (Text may then be empty). A Text equal to one of
// the options counts as picking it.
type Reply struct {
	Text   string
	Option *int
	// By and Via say who answered and through what ("Jane (100000001)", "telegram").
	By, Via string
	// Caller is who answers through the API; an agent's caller may never answer.
	Caller string
}

// Ask registers a clarification, persisted before anyone is told of it, and returns
// it as stored with created=true; the chat layer then shows it and
// clarification_requested is published. A replay of (SessionID, ClarificationID) with
// every field equal returns the stored one (created=false) and counts nothing.
// Errors, after which nothing is stored: ErrForbidden (an agent's caller in a cron:
// session), ErrTooManyPending, ErrToolCallReused (a different question under the same
// ids), ErrInvalid (the store's checks: empty question, bad options, …).
func (m *Manager) Ask(q Question) (store.Clarification, bool, error) {
	caller := callerOf(q.Caller)
	if strings.HasPrefix(q.SessionID, "cron:") && store.IsAgentCaller(caller) {
		return store.Clarification{}, false, fmt.Errorf("gate: ask: %w: %s", ErrForbidden,
			"session ids beginning with cron: belong to scheduled runs")
	}
	if q.Timeout < 0 {
		return store.Clarification{}, false, fmt.Errorf("gate: ask: %w: timeout %s is negative",
			ErrInvalid, q.Timeout)
	}
	timeout := q.Timeout
	if timeout == 0 {
		timeout = m.timeout
	}
	counted := true
	if err := m.pending.take(caller); err != nil {
		// A replay of a stored one counts nothing: it is answered, not refused.
		_, ferr := m.store.ClarificationByCallerID(q.SessionID, q.ClarificationID)
		if ferr != nil {
			return store.Clarification{}, false, fmt.Errorf("gate: ask: %w", err)
		}
		counted = false
	}
	now := m.now()
	c, created, err := m.store.CreateClarification(store.Clarification{
		ClarificationID: q.ClarificationID, SessionID: q.SessionID, AgentID: q.AgentID,
		Source: q.Source, ContextLabel: q.ContextLabel, Caller: caller, Question: q.Question,
		Options: slices.Clone(q.Options), CreatedAt: now, ExpiresAt: now.Add(timeout),
	})
	switch {
	case counted && (err != nil || !created):
		m.pending.release(caller)
	case !counted && created: // the stored one was pruned meanwhile
		m.pending.add(caller)
	}
	if err != nil {
		return c, false, fmt.Errorf("gate: ask: %w", err)
	}
	if created {
		m.log.Info("clarification asked", "clarification", c.ID, "session_id", c.SessionID,
			"caller", c.Caller)
		m.bus.publish(Event{Name: EventClarificationRequested, Data: ClarificationRequested{
			ID: c.ID, ClarificationID: c.ClarificationID, SessionID: c.SessionID}}, m.log)
		m.notes.showClarification(c)
	}
	return c, created, nil
}

// Clarification returns clarification id as stored. Errors: ErrNotFound or the store's.
func (m *Manager) Clarification(id uint64) (store.Clarification, error) {
	c, err := m.store.Clarification(id)
	if err != nil {
		return store.Clarification{}, fmt.Errorf("gate: clarification %d: %w", id, err)
	}
	return c, nil
}

// Clarifications returns every pending clarification, oldest first, from the store.
func (m *Manager) Clarifications() ([]store.Clarification, error) {
	cs, err := m.store.PendingClarifications()
	if err != nil {
		return nil, fmt.Errorf("gate: clarifications: %w", err)
	}
	return cs, nil
}

// WaitClarification blocks until clarification id leaves pending or ctx is done, and
// returns it as stored; when ctx ends first, the pending one and ctx.Err(). Answers,
// expiry and cancellation wake it; it does not poll. Errors: ErrNotFound, ctx's, the
// store's.
func (m *Manager) WaitClarification(ctx context.Context, id uint64) (store.Clarification, error) {
	return waitFor(ctx, &m.clarWaiters, id, m.store.Clarification,
		func(c store.Clarification) bool { return c.Status == store.ClarificationPending },
		"wait for clarification")
}

// AnswerClarification records r as the answer of pending clarification id; of
// concurrent answers exactly one wins. On success it wakes the waiters, publishes
// clarification_resolved, has the chat layer edit its messages and returns it.
// Errors, after which nothing changed: ErrForbidden (an agent's r.Caller),
// ErrAlreadyResolved with the stored clarification ("already answered by NAME via
// VIA"), ErrExpired, ErrNotFound, ErrInvalid (no text, an unknown option), ctx's.
func (m *Manager) AnswerClarification(ctx context.Context, id uint64,
	r Reply) (store.Clarification, error) {
	if store.IsAgentCaller(r.Caller) {
		return store.Clarification{}, fmt.Errorf("gate: answer clarification %d: %w: "+
			"an agent may not answer clarifications", id, ErrForbidden)
	}
	if err := ctx.Err(); err != nil {
		return store.Clarification{}, fmt.Errorf("gate: answer clarification %d: %w", id, err)
	}
	a := store.ClarificationAnswer{Text: r.Text, Option: r.Option, By: r.By, Via: r.Via,
		At: m.now()}
	if a.Option != nil || a.Text != "" {
		cur, err := m.store.Clarification(id)
		if err != nil {
			return store.Clarification{}, fmt.Errorf("gate: answer clarification %d: %w", id, err)
		}
		switch o := a.Option; {
		case o != nil && *o >= 0 && *o < len(cur.Options) && a.Text == "":
			a.Text = cur.Options[*o]
		case o == nil:
			if i := slices.Index(cur.Options, a.Text); i >= 0 {
				a.Option = &i
			}
		}
	}
	c, err := m.store.AnswerClarification(id, a)
	if err != nil {
		return c, m.clarErr("answer clarification", id, c, err)
	}
	m.log.Info("clarification answered", "clarification", id, "by", r.By, "via", r.Via)
	m.clarFinished(c)
	return c, nil
}

// CancelClarification cancels pending clarification id with reason; caller is who asks
// ("" or store.CallerAdmin may cancel any; an agent's caller only its own). Errors:
// ErrForbidden, ErrNotFound, ErrAlreadyResolved (saying how it ended), the store's.
func (m *Manager) CancelClarification(id uint64, reason string, by store.Actor,
	caller string) (store.Clarification, error) {
	if caller != "" && caller != store.CallerAdmin {
		c, err := m.store.Clarification(id)
		if err != nil {
			return store.Clarification{}, fmt.Errorf("gate: cancel clarification %d: %w", id, err)
		}
		if c.Caller != caller {
			return store.Clarification{}, fmt.Errorf("gate: cancel clarification %d: %w: %s", id,
				ErrForbidden, "it was asked by another caller")
		}
	}
	c, err := m.store.CancelClarification(id, store.Resolution{By: by.By, Via: by.Via,
		At: m.now(), Note: reason})
	if err != nil {
		return c, m.clarErr("cancel clarification", id, c, err)
	}
	m.clarFinished(c)
	return c, nil
}

// clarEnded is ErrAlreadyResolved for a clarification: its text says how it ended,
// without the sentinel's, which speaks of a request.
type clarEnded string

func (e clarEnded) Error() string { return string(e) }
func (e clarEnded) Unwrap() error { return ErrAlreadyResolved }

// clarErr wraps a store error of an answer or cancel; a lost compare-and-set says
// how the clarification ended.
func (m *Manager) clarErr(op string, id uint64, c store.Clarification, err error) error {
	switch {
	case errors.Is(err, store.ErrAlreadyResolved):
		return fmt.Errorf("gate: %s %d: %w", op, id, clarEnded("already "+c.Outcome()))
	case errors.Is(err, store.ErrExpired):
		m.askSweep()
	}
	return fmt.Errorf("gate: %s %d: %w", op, id, err)
}

// clarFinished tells everyone that c left pending.
func (m *Manager) clarFinished(c store.Clarification) {
	m.pending.release(callerOf(c.Caller))
	m.clarWaiters.wake(c.ID)
	m.bus.publish(Event{Name: EventClarificationResolved, Data: ClarificationResolved{
		ID: c.ID, ClarificationID: c.ClarificationID, SessionID: c.SessionID,
		Status: c.Status}}, m.log)
	m.notes.updateClarification(c)
}

// expireDueClarifications marks expired every pending clarification past expires_at.
func (m *Manager) expireDueClarifications() {
	cs, err := m.store.ExpireDueClarifications(m.now())
	if err != nil {
		m.log.Error("expiring due clarifications", "err", err)
		return
	}
	for _, c := range cs {
		m.log.Info("clarification expired", "clarification", c.ID, "session_id", c.SessionID)
		m.clarFinished(c)
	}
}

// cancelSessionClarifications cancels the pending clarifications of a session
// (CancelSession).
func (m *Manager) cancelSessionClarifications(sessionID string, by store.Actor,
	at time.Time) ([]store.Clarification, error) {
	cs, err := m.store.CancelSessionClarifications(sessionID, store.Resolution{By: by.By,
		Via: by.Via, At: at, Note: "session cancelled"})
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		m.clarFinished(c)
	}
	return cs, nil
}

// showClarification asks the chat layer, when it shows clarifications, to show c.
func (q *notifier) showClarification(c store.Clarification) {
	n, ok := q.n.(ClarificationNotifier)
	if !ok {
		return
	}
	q.goShow(q.clarShows, c.ID, func(ctx context.Context) {
		if err := n.ShowClarification(ctx, c); err != nil {
			q.log.Error("showing a clarification", "clarification", c.ID, "err", err)
		}
	})
}

// updateClarification asks the chat layer to show how c ended, after its show.
func (q *notifier) updateClarification(c store.Clarification) {
	n, ok := q.n.(ClarificationNotifier)
	if !ok {
		return
	}
	q.goAfterShow(q.clarShows, c.ID, func(ctx context.Context) {
		if err := n.UpdateClarification(ctx, c); err != nil {
			q.log.Error("updating the messages of a clarification",
				"clarification", c.ID, "err", err)
		}
	})
}

// BindReply records that p's chat message asks p.UserID for the answer of
// clarification id, so that their reply to it answers (ClarificationByReply).
// Errors: ErrNotFound, ErrInvalid (an empty field, a message bound elsewhere).
func (m *Manager) BindReply(id uint64, p store.ReplyPrompt) error {
	if err := m.store.BindReply(id, p); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	return nil
}

// ClarificationByReply returns the clarification a reply to chat message (channel,
// chat, ref) answers and the prompt that asked for it; ErrNotFound when none.
func (m *Manager) ClarificationByReply(channel, chatID, ref string) (store.Clarification,
	store.ReplyPrompt, error) {
	c, p, err := m.store.ClarificationByReply(channel, chatID, ref)
	if err != nil {
		return c, p, fmt.Errorf("gate: %w", err)
	}
	return c, p, nil
}
