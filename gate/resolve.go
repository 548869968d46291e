package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/skald-circle/skald-bot/store"
)

// Answer is a human's answer to a request; Resolve records it as a store.Resolution.
type Answer struct {
	Approve bool
	Note    string
	// By and Via say who resolved and through what: a chat user's
	// display name and id and "telegram"/"slack", or "api"/"cli".
	By, Via string
	// BypassSecs asks, with an approval, for a session bypass: nil for
	// none, 0 for the whole session, N for N seconds, at most MaxBypassSecs. Ignored on
	// a rejection.
	BypassSecs *int64
	// BypassScope is the bypass's scope; "" means the request's category, else its MCP
	// server, else its tool.
	BypassScope string
	// Caller is who resolves through the API (store.Request.Caller); "" for chat
	// users and the CLI. An agent token or the local caller may never resolve.
	Caller string
}

// waiter is the callers waiting on one record: ch is closed when the record leaves
// pending; n counts the callers still waiting. Guarded by its waiters' mu.
type waiter struct {
	ch chan struct{}
	n  int
}

// waiters are the callers waiting on records of one kind (requests or
// clarifications) by id. The zero value is ready to use; safe for concurrent use.
type waiters struct {
	mu   sync.Mutex // guards byID and each waiter's n
	byID map[uint64]*waiter
}

func (s *waiters) add(id uint64) *waiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = make(map[uint64]*waiter)
	}
	w := s.byID[id]
	if w == nil {
		w = &waiter{ch: make(chan struct{})}
		s.byID[id] = w
	}
	w.n++
	return w
}

func (s *waiters) drop(id uint64, w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.n--
	if w.n == 0 && s.byID[id] == w {
		delete(s.byID, id)
	}
}

// wake wakes every caller waiting on record id.
func (s *waiters) wake(id uint64) {
	s.mu.Lock()
	w := s.byID[id]
	delete(s.byID, id)
	s.mu.Unlock()
	if w != nil {
		close(w.ch)
	}
}

// waitFor blocks until the record id that read returns leaves pending or ctx is done,
// and returns it as read last: the pending one and ctx.Err() when ctx ends first, the
// zero value and read's error when read fails. Errors are wrapped as "gate: op id: ".
func waitFor[T any](ctx context.Context, s *waiters, id uint64, read func(uint64) (T, error),
	pending func(T) bool, op string) (T, error) {
	w := s.add(id)
	defer s.drop(id, w)
	// Read once after registering: a change committed before this read is seen here,
	// one committed after it wakes w.
	var zero T
	v, err := read(id)
	if err != nil {
		return zero, fmt.Errorf("gate: %s %d: %w", op, id, err)
	}
	if !pending(v) {
		return v, nil
	}
	select {
	case <-w.ch:
	case <-ctx.Done():
		return v, fmt.Errorf("gate: %s %d: %w", op, id, ctx.Err())
	}
	if v, err = read(id); err != nil {
		return zero, fmt.Errorf("gate: %s %d: %w", op, id, err)
	}
	return v, nil
}

// Wait blocks until request id leaves pending or ctx is done, and returns the request
// as stored. When ctx ends first it returns the still-pending request and ctx.Err().
// It does not poll: resolution, expiry and cancellation wake it (a restart
// keeps requests pending, so a Wait after a restart is woken by a resolution made
// then). Errors: ErrNotFound, ctx's error, or the store's error.
func (m *Manager) Wait(ctx context.Context, id uint64) (store.Request, error) {
	return waitFor(ctx, &m.waiters, id, m.store.Request,
		func(r store.Request) bool { return r.Status == store.Pending }, "wait")
}

// finished tells everyone that r left pending: its waiters, the event bus
// (approval_resolved with its status) and the notifier, which edits its
// messages.
func (m *Manager) finished(r store.Request) {
	m.pending.release(callerOf(r.Caller))
	m.waiters.wake(r.ID)
	m.bus.publish(Event{Name: EventApprovalResolved, Data: ApprovalResolved{
		RequestID: r.ID, ToolCallID: r.ToolCallID, Status: r.Status}}, m.log)
	m.notes.update(r)
}

// Resolve approves or rejects pending request id; of concurrent resolutions exactly one
// wins. On success it grants the asked bypass (in memory) for the calls of the request's
// caller, profile and agent id in its session, wakes the waiters, publishes
// approval_resolved, has the notifier update the messages, and returns the resolved
// request. Errors, after which nothing changed: ErrForbidden (an agent's r.Caller),
// ErrInvalidBypass, ErrInvalidScope, ErrAlreadyResolved with the stored request ("already
// approved by NAME via VIA"), ErrExpired (past expires_at), ErrNotFound, ctx's error or
// the store's. It blocks only for the store's transaction.
func (m *Manager) Resolve(ctx context.Context, id uint64, r Answer) (store.Request, error) {
	if store.IsAgentCaller(r.Caller) {
		return store.Request{}, fmt.Errorf(
			"gate: resolve %d: %w: an agent may not resolve requests", id, ErrForbidden)
	}
	if err := ctx.Err(); err != nil {
		return store.Request{}, fmt.Errorf("gate: resolve %d: %w", id, err)
	}
	status := store.Rejected
	res := store.Resolution{By: r.By, Via: r.Via, Note: r.Note}
	if r.Approve {
		status = store.Approved
		if r.BypassSecs != nil {
			g, err := m.bypassGrant(id, *r.BypassSecs, r.BypassScope)
			if err != nil {
				return store.Request{}, fmt.Errorf("gate: resolve %d: %w", id, err)
			}
			res.Bypass = g
		}
	}
	res.At = m.now()
	req, err := m.store.Resolve(id, status, res)
	if err != nil {
		return req, m.resolveErr("resolve", id, req, err)
	}
	m.log.Info("request resolved", "request_id", id, "status", req.Status,
		"by", r.By, "via", r.Via)
	if g := res.Bypass; g != nil {
		m.grant(Bypass{SessionID: req.SessionID, Scope: g.Scope, Caller: callerOf(req.Caller),
			RequestID: req.ID, Profile: req.Profile, AgentID: req.AgentID,
			ExpiresAt: expiry(res.At, g.Secs)})
	}
	m.finished(req)
	return req, nil
}

// bypassGrant checks the bypass asked with an approval of request id and fills in its
// default scope, which needs the request.
func (m *Manager) bypassGrant(id uint64, secs int64, scope string) (*store.BypassGrant, error) {
	if err := checkSecs(secs); err != nil {
		return nil, err
	}
	if scope != "" {
		if err := checkScope(scope); err != nil {
			return nil, err
		}
		return &store.BypassGrant{Scope: scope, Secs: secs}, nil
	}
	req, err := m.store.Request(id)
	if err != nil {
		return nil, err
	}
	return &store.BypassGrant{Scope: req.BypassScope(), Secs: secs}, nil
}

// resolveErr wraps an error of the store's Resolve; a lost compare-and-set says who won.
func (m *Manager) resolveErr(op string, id uint64, req store.Request, err error) error {
	switch {
	case errors.Is(err, store.ErrAlreadyResolved):
		if res := req.Resolution; res != nil && res.By != "" {
			return fmt.Errorf("gate: %s %d: already %s by %s via %s: %w",
				op, id, req.Status, res.By, res.Via, ErrAlreadyResolved)
		}
		return fmt.Errorf("gate: %s %d: already %s: %w", op, id, req.Status, ErrAlreadyResolved)
	case errors.Is(err, store.ErrExpired):
		m.askSweep()
	}
	return fmt.Errorf("gate: %s %d: %w", op, id, err)
}

// CancelRequest cancels pending request id, storing reason as the resolution's note;
// caller is who asks ("" or CallerAdmin for the admin, who may cancel any request; an
// agent's caller may cancel only its own). Like Resolve, it wakes waiters, publishes
// approval_resolved with status cancelled and has the notifier update the messages.
// Errors: ErrForbidden (another caller's request), ErrNotFound, ErrAlreadyResolved
// (saying who resolved it), ErrExpired, or the store's error; nothing changes then.
func (m *Manager) CancelRequest(id uint64, reason string, by store.Actor,
	caller string) (store.Request, error) {
	if caller != "" && caller != store.CallerAdmin {
		r, err := m.store.Request(id)
		if err != nil {
			return store.Request{}, fmt.Errorf("gate: cancel %d: %w", id, err)
		}
		if r.Caller != caller {
			return store.Request{}, fmt.Errorf("gate: cancel %d: %w: %s", id, ErrForbidden,
				"the request was made by another caller")
		}
	}
	req, err := m.store.Resolve(id, store.Cancelled,
		store.Resolution{By: by.By, Via: by.Via, At: m.now(), Note: reason})
	if err != nil {
		return req, m.resolveErr("cancel", id, req, err)
	}
	m.log.Info("request cancelled", "request_id", id, "by", by.By, "via", by.Via, "reason", reason)
	m.finished(req)
	return req, nil
}

// CancelSession cancels the session: its pending requests and clarifications become
// cancelled
// (each audited by the store), its bypasses are cleared, and one audit entry records
// the cancellation. Waiters are woken, approval_resolved is published and the notifier
// updates each request. It returns the requests it cancelled. Errors: ErrNoSession,
// or the store's error — when cancelling the requests fails nothing
// changed; when only the audit entry fails the session is cancelled all the same.
func (m *Manager) CancelSession(sessionID string, by store.Actor) ([]store.Request, error) {
	if sessionID == "" {
		return nil, fmt.Errorf("gate: cancel session: %w", ErrNoSession)
	}
	now := m.now()
	reqs, err := m.store.CancelSession(sessionID,
		store.Resolution{By: by.By, Via: by.Via, At: now, Note: "session cancelled"})
	if err != nil {
		return nil, fmt.Errorf("gate: cancel session %s: %w", sessionID, err)
	}
	n := m.dropBypasses(sessionID)
	for _, r := range reqs {
		m.finished(r)
	}
	clars, cerr := m.cancelSessionClarifications(sessionID, by, now)
	m.log.Info("session cancelled", "session_id", sessionID, "requests", len(reqs),
		"clarifications", len(clars), "bypasses", n, "by", by.By, "via", by.Via)
	if cerr != nil {
		return reqs, fmt.Errorf("gate: cancel session %s: clarifications: %w", sessionID, cerr)
	}
	detail := fmt.Sprintf("session %s: %d pending requests cancelled, %d bypasses cleared",
		sessionID, len(reqs), n)
	if len(clars) > 0 {
		detail += fmt.Sprintf(", %d clarifications cancelled", len(clars))
	}
	err = m.store.AppendAudit(store.AuditEntry{At: now, By: by.By, Via: by.Via,
		Action: AuditSessionCancelled, Detail: detail})
	if err != nil {
		return reqs, fmt.Errorf("gate: cancel session %s: %w", sessionID, err)
	}
	return reqs, nil
}

// Request returns request id as stored (it survives a restart). Errors: ErrNotFound,
// or the store's error.
func (m *Manager) Request(id uint64) (store.Request, error) {
	r, err := m.store.Request(id)
	if err != nil {
		return store.Request{}, fmt.Errorf("gate: request %d: %w", id, err)
	}
	return r, nil
}

// Pending returns every pending request, oldest first, read from the store (so it
// survives a restart).
func (m *Manager) Pending() ([]store.Request, error) {
	rs, err := m.store.Pending()
	if err != nil {
		return nil, fmt.Errorf("gate: pending: %w", err)
	}
	return rs, nil
}
