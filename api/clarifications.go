package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// AskRequest is the body of POST /api/clarifications: a question, 0–10 options of at
// most 64 characters each, and how long, in seconds, to wait for the answer (capped at
// MaxWaitSecs). ClarificationID with SessionID makes the call idempotent.
type AskRequest struct {
	SessionID       string   `json:"session_id"`
	ClarificationID string   `json:"clarification_id,omitempty"`
	AgentID         string   `json:"agent_id,omitempty"`
	Source          string   `json:"source,omitempty"`
	ContextLabel    string   `json:"context_label,omitempty"`
	Question        string   `json:"question"`
	Options         []string `json:"options,omitempty"`
	WaitSecs        int      `json:"wait_secs,omitempty"`
}

// AnswerRequest is the body of POST /api/inbox/clarifications/{id}/resolve: the
// answer's text, or an option by its index (0-based), or both when they agree.
type AnswerRequest struct {
	Answer string `json:"answer"`
	Option *int   `json:"option,omitempty"`
}

// Clarification is a clarification as the API shows it (docs/design.md,
// "Clarifications").
type Clarification struct {
	ID              uint64                    `json:"id"`
	ClarificationID string                    `json:"clarification_id,omitempty"`
	SessionID       string                    `json:"session_id"`
	AgentID         string                    `json:"agent_id,omitempty"`
	Source          string                    `json:"source,omitempty"`
	ContextLabel    string                    `json:"context_label,omitempty"`
	Caller          string                    `json:"caller,omitempty"`
	Question        string                    `json:"question"`
	Options         []string                  `json:"options"`
	CreatedAt       time.Time                 `json:"created_at"`
	ExpiresAt       time.Time                 `json:"expires_at"`
	Status          store.ClarificationStatus `json:"status"`
	Answer          *ClarificationAnswer      `json:"answer,omitempty"`
	// Closed says who expired or cancelled it, when, and why (Note).
	Closed   *Resolution `json:"closed,omitempty"`
	Messages []Message   `json:"messages,omitempty"`
}

// ClarificationAnswer is a human's answer; Option is the chosen option's index.
type ClarificationAnswer struct {
	Text   string    `json:"text"`
	Option *int      `json:"option,omitempty"`
	By     string    `json:"by"`
	Via    string    `json:"via"`
	At     time.Time `json:"at"`
}

// ClarificationOf is stored clarification c as the API shows it.
func ClarificationOf(c store.Clarification) Clarification {
	out := Clarification{ID: c.ID, ClarificationID: c.ClarificationID, SessionID: c.SessionID,
		AgentID: c.AgentID, Source: c.Source, ContextLabel: c.ContextLabel, Caller: c.Caller,
		Question: c.Question, Options: append([]string{}, c.Options...),
		CreatedAt: c.CreatedAt, ExpiresAt: c.ExpiresAt, Status: c.Status}
	if a := c.Answer; a != nil {
		out.Answer = &ClarificationAnswer{Text: a.Text, By: a.By, Via: a.Via, At: a.At}
		if a.Option != nil {
			o := *a.Option
			out.Answer.Option = &o
		}
	}
	out.Closed = resolutionOf(c.Closed)
	out.Messages = messagesOf(c.Messages)
	return out
}

// ask is POST /api/clarifications: store the question, then wait up to wait_secs for
// its answer. An agent token's agent id replaces the body's; neither an agent token
// nor the local caller may claim source cron.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) error {
	var body AskRequest
	if err := decode(w, r, &body, false); err != nil {
		return err
	}
	wait, err := waitFor(body.WaitSecs)
	if err != nil {
		return err
	}
	p := principalOf(r)
	if !p.admin() && body.Source == "cron" {
		return fmt.Errorf("%w: an agent may not claim source cron", ErrForbidden)
	}
	if p.agent != nil && p.agent.agentID != "" {
		body.AgentID = p.agent.agentID
	}
	c, _, err := s.gate.Ask(gate.Question{SessionID: body.SessionID,
		ClarificationID: body.ClarificationID, AgentID: body.AgentID, Source: body.Source,
		ContextLabel: body.ContextLabel, Question: body.Question, Options: body.Options,
		Caller: p.caller()})
	if err != nil {
		return err
	}
	c, err = s.waitClarification(r, c, wait)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ClarificationOf(c))
	return nil
}

// waitClarification waits up to wait for pending c to end, for the client of r; c as
// it is then.
func (s *Server) waitClarification(r *http.Request, c store.Clarification,
	wait time.Duration) (store.Clarification, error) {
	if c.Status != store.ClarificationPending || wait <= 0 {
		return c, nil
	}
	wctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	got, err := s.gate.WaitClarification(wctx, c.ID)
	switch {
	case err == nil:
		return got, nil
	case wctx.Err() == nil:
		return c, err
	}
	return c, nil
}

// clarification is GET /api/clarifications/{id}?wait_secs=N; an agent's caller sees
// only its own.
func (s *Server) clarification(w http.ResponseWriter, r *http.Request) error {
	return getItem(w, r, s.gate.Clarification,
		func(c store.Clarification) string { return c.Caller },
		"clarification %d was asked by another caller", s.waitClarification, ClarificationOf)
}

// cancelClarification is POST /api/clarifications/{id}/cancel: the admin, or the
// caller that asked, withdraws the question.
func (s *Server) cancelClarification(w http.ResponseWriter, r *http.Request) error {
	return cancelItem(w, r, s.gate.CancelClarification, ClarificationOf)
}

// answerClarification is POST /api/inbox/clarifications/{id}/resolve (the admin).
func (s *Server) answerClarification(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var body AnswerRequest
	if err := decode(w, r, &body, false); err != nil {
		return err
	}
	by := actor(r)
	c, err := s.gate.AnswerClarification(r.Context(), id, gate.Reply{Text: body.Answer,
		Option: body.Option, By: by.By, Via: by.Via, Caller: principalOf(r).caller()})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ClarificationOf(c))
	return nil
}

// Ask asks a clarification (POST /api/clarifications), waiting up to req.WaitSecs
// (capped by the server) for its answer. Errors: *Error with 409 for a reused
// clarification_id, 422 for a bad question or options, 429 at a pending limit.
func (c *Client) Ask(ctx context.Context, req AskRequest) (Clarification, error) {
	var out Clarification
	err := c.do(ctx, http.MethodPost, "/api/clarifications", nil, req, &out)
	return out, err
}

// Clarification returns clarification id, waiting up to waitSecs (capped) for it to
// leave pending. 404 when unknown, 403 for another caller's.
func (c *Client) Clarification(ctx context.Context, id uint64,
	waitSecs int) (Clarification, error) {
	var out Clarification
	err := c.do(ctx, http.MethodGet, "/api/clarifications/"+u64(id), waitQuery(waitSecs), nil,
		&out)
	return out, err
}

// AwaitClarification polls clarification id until it leaves pending or ctx ends; then
// it returns the last one seen, still pending, and nil.
func (c *Client) AwaitClarification(ctx context.Context, id uint64) (Clarification, error) {
	return await(ctx, Clarification{ID: id, Status: store.ClarificationPending},
		func(wait int) (Clarification, error) { return c.Clarification(ctx, id, wait) },
		func(got Clarification) bool { return got.Status == store.ClarificationPending })
}

// CancelClarification withdraws clarification id with reason (the caller that asked,
// or the admin).
func (c *Client) CancelClarification(ctx context.Context, id uint64,
	reason string) (Clarification, error) {
	var out Clarification
	err := c.do(ctx, http.MethodPost, "/api/clarifications/"+u64(id)+"/cancel", nil,
		CancelRequest{Reason: reason}, &out)
	return out, err
}

// Answer answers clarification id (POST /api/inbox/clarifications/{id}/resolve; the
// admin token). 409 when it was answered already (the message says by whom) or expired.
func (c *Client) Answer(ctx context.Context, id uint64, req AnswerRequest) (Clarification, error) {
	var out Clarification
	err := c.do(ctx, http.MethodPost, "/api/inbox/clarifications/"+u64(id)+"/resolve", nil,
		req, &out)
	return out, err
}
