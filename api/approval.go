package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// check is POST /api/approval/check: gate the call, then wait up to
// wait_secs for a human when it needs one. The wait ends the moment the request is
// resolved, or when the client goes away. A negative wait_secs is a 400 before
// anything is checked.
func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	var req CheckRequest
	if err := decode(w, r, &req, false); err != nil {
		return err
	}
	wait, err := waitFor(req.WaitSecs)
	if err != nil {
		return err
	}
	p := principalOf(r)
	if err := s.restrict(p, &req.Call); err != nil {
		return err
	}
	req.Call.Caller = p.caller()
	out, err := s.gate.Check(r.Context(), req.Call)
	if err != nil {
		return err
	}
	res := CheckResult{Decision: out.Decision, RuleID: out.RuleID, Reason: out.Reason,
		Note: out.Note, Commands: commandsOf(out.Commands)}
	if out.Reason == rules.ReasonRule && out.RuleID != 0 {
		res.Reason = s.ruleReason(out.RuleID)
	} else if len(res.Commands) > 0 {
		res.Reason = s.namedRules(res.Reason)
	}
	if out.Request != nil {
		res = ResultOf(*out.Request)
		if out.Decision == gate.VerdictPending && wait > 0 {
			got, err := s.longPoll(r, *out.Request, wait)
			if err != nil {
				return err
			}
			res = ResultOf(got)
		}
	}
	res.NoChannel = s.noChannel && res.Decision == gate.VerdictPending
	s.metrics.checks.WithLabelValues(string(res.Decision)).Inc()
	writeJSON(w, http.StatusOK, res)
	return nil
}

// ruleReason is the reason of a decision rule id made, naming the rule as the gate
// holds it (rules.Rule.Text): "rule 12 (deny Bash)", "rule 5 (deny @fs_any
// secrets/*)", `rule 9 (allow Bash command="git status *")`; "rule 12" when it is gone
// meanwhile. The note stays in its own field.
func (s *Server) ruleReason(id uint64) string {
	r, err := s.gate.Rule(id)
	if err != nil {
		return fmt.Sprintf("rule %d", id)
	}
	return fmt.Sprintf("rule %d (%s)", id, r.Text())
}

// namedRules is reason with each "by rule N" of the rules package's command reasons
// followed by the rule in words (ruleReason), formatted here, once per answer, so the
// check itself builds no text for it.
func (s *Server) namedRules(reason string) string {
	const by = "by rule "
	var b strings.Builder
	for {
		i := strings.Index(reason, by)
		if i < 0 {
			b.WriteString(reason)
			return b.String()
		}
		j := i + len(by)
		for j < len(reason) && reason[j] >= '0' && reason[j] <= '9' {
			j++
		}
		b.WriteString(reason[:i+3])
		if id, err := strconv.ParseUint(reason[i+len(by):j], 10, 64); err == nil {
			b.WriteString(s.ruleReason(id))
		} else {
			b.WriteString(reason[i+3 : j])
		}
		reason = reason[j:]
	}
}

// restrict applies an agent's limits to a call: an agent token's profile only (naming
// another group or profile is ErrForbidden) and its agent_id when set; neither it nor
// the local caller may claim source cron (ErrForbidden). The admin's calls pass
// unchanged.
func (s *Server) restrict(p principal, c *gate.Call) error {
	if p.local && c.Source == "cron" {
		return fmt.Errorf("%w: a call without a token may not claim source cron", ErrForbidden)
	}
	a := p.agent
	if a == nil {
		return nil
	}
	if c.Profile != "" && c.Profile != a.profile {
		return fmt.Errorf("%w: this token is limited to profile %q", ErrForbidden, a.profile)
	}
	if c.Group != "" {
		prof, ok := s.gate.Profile(a.profile)
		if !ok || c.Group != prof.SecurityGroup {
			return fmt.Errorf("%w: this token is limited to the group of profile %q",
				ErrForbidden, a.profile)
		}
	}
	if c.Source == "cron" {
		return fmt.Errorf("%w: an agent token may not claim source cron", ErrForbidden)
	}
	c.Profile, c.Group = a.profile, ""
	if a.agentID != "" {
		c.AgentID = a.agentID
	}
	return nil
}

// ResultOf is the check answer request q gives, q as a Client returns it or as stored:
// pending while it waits ("waiting for approval (request 7)", plus the request's reason
// when it has one), else its final status with who resolved it and the note (for a
// cancelled request, why it was cancelled). The hook and the CLI use it on a polled
// request.
func ResultOf[R Request | store.Request](q R) CheckResult {
	if stored, ok := any(q).(store.Request); ok {
		return resultOf(RequestOf(stored))
	}
	return resultOf(any(q).(Request))
}

func resultOf(q Request) CheckResult {
	res := CheckResult{Decision: gate.Verdict(q.Status), RequestID: q.ID, RuleID: q.RuleID,
		Commands: q.Commands}
	switch q.Status {
	case store.Pending:
		res.Reason = fmt.Sprintf("waiting for approval (request %d)", q.ID)
		if q.Reason != "" {
			res.Reason += ": " + q.Reason
		}
	case store.Expired:
		res.Reason = fmt.Sprintf("no one answered before %s (request %d expired)",
			q.ExpiresAt.UTC().Format("2006-01-02 15:04:05Z"), q.ID)
	default:
		res.Reason = fmt.Sprintf("%s (request %d)", q.Status, q.ID)
	}
	if q.Resolution != nil && q.Status != store.Expired {
		res.ResolvedBy = q.Resolution.By
		res.Note = q.Resolution.Note
		res.Reason = fmt.Sprintf("%s by %s via %s (request %d)",
			q.Status, q.Resolution.By, viaName(q.Resolution.Via), q.ID)
	}
	return res
}

// viaName is how a channel is named in a reason: "Telegram", "Slack", "the API".
func viaName(via string) string {
	switch via {
	case "telegram":
		return "Telegram"
	case "slack":
		return "Slack"
	case "api":
		return "the API"
	case "web":
		return "the web inbox"
	}
	return via
}

// request is GET /api/approval/requests/{id}?wait_secs=N: the request, after waiting
// up to N seconds (capped) for it to leave pending. An agent's caller sees only the
// requests it made.
func (s *Server) request(w http.ResponseWriter, r *http.Request) error {
	return getItem(w, r, s.gate.Request, func(q store.Request) string { return q.Caller },
		"request %d was made by another caller", s.longPoll, RequestOf)
}

// getItem is the body of a GET …/{id}?wait_secs=N route: get reads the item, wait
// waits up to N seconds (capped) for it to leave pending, view is its answer type. An
// agent caller other than the item's (callerOf) gets ErrForbidden with the message
// forbidden, formatted with the id. Errors: a bad id or wait, and get's and wait's.
func getItem[T, V any](w http.ResponseWriter, r *http.Request, get func(uint64) (T, error),
	callerOf func(T) string, forbidden string,
	wait func(*http.Request, T, time.Duration) (T, error), view func(T) V) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	d, err := waitParam(r)
	if err != nil {
		return err
	}
	item, err := get(id)
	if err != nil {
		return err
	}
	if c := principalOf(r).caller(); store.IsAgentCaller(c) && callerOf(item) != c {
		return fmt.Errorf("%w: "+forbidden, ErrForbidden, id)
	}
	if item, err = wait(r, item, d); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view(item))
	return nil
}

// cancelRequest is POST /api/approval/requests/{id}/cancel: the admin, or the caller
// that made the request, cancels it with an optional reason.
func (s *Server) cancelRequest(w http.ResponseWriter, r *http.Request) error {
	return cancelItem(w, r, s.gate.CancelRequest, RequestOf)
}

// cancelItem is the body of a POST …/{id}/cancel route: cancel is the gate's cancel
// of that kind of item, view its answer type. Errors: a bad id or body, and cancel's.
func cancelItem[T, V any](w http.ResponseWriter, r *http.Request,
	cancel func(uint64, string, store.Actor, string) (T, error), view func(T) V) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var body CancelRequest
	if err := decode(w, r, &body, true); err != nil {
		return err
	}
	item, err := cancel(id, body.Reason, actor(r), principalOf(r).caller())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view(item))
	return nil
}

// inbox is GET /api/inbox: the pending requests and clarifications.
func (s *Server) inbox(w http.ResponseWriter, r *http.Request) error {
	pending, err := s.gate.Pending()
	if err != nil {
		return err
	}
	clars, err := s.gate.Clarifications()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Inbox{Total: len(pending) + len(clars),
		Approvals: listOf(pending, RequestOf), Clarifications: listOf(clars, ClarificationOf)})
	return nil
}

// resolve is POST /api/inbox/approvals/{id}/resolve.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.resolveID(w, r, id)
}

// resolveToolCall is POST /api/tools/{tool_call_id}/resolve[?session_id=]: resolve the
// request registered for that tool call id; ErrConflict when several sessions used it
// and no session_id says which.
func (s *Server) resolveToolCall(w http.ResponseWriter, r *http.Request) error {
	tcid := r.PathValue("tool_call_id")
	session := r.URL.Query().Get("session_id")
	all, err := s.store.RequestsByToolCallID(tcid)
	if err != nil {
		return fmt.Errorf("resolve tool call %q: %w", tcid, err)
	}
	var found []store.Request
	for _, q := range all {
		if session == "" || q.SessionID == session {
			found = append(found, q)
		}
	}
	switch {
	case len(found) == 0:
		return fmt.Errorf("%w: no request for tool call %q", ErrNotFound, tcid)
	case len(found) > 1:
		return fmt.Errorf("%w: tool call id %q is used by %d requests; add ?session_id=",
			ErrConflict, tcid, len(found))
	}
	return s.resolveID(w, r, found[0].ID)
}

func (s *Server) resolveID(w http.ResponseWriter, r *http.Request, id uint64) error {
	var body ResolveRequest
	if err := decode(w, r, &body, false); err != nil {
		return err
	}
	res, err := NewAnswer(body, actor(r), principalOf(r).caller())
	if err != nil {
		return err
	}
	q, err := s.gate.Resolve(r.Context(), id, res)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, RequestOf(q))
	return nil
}

// NewAnswer is body as the gate's answer, given by and on behalf of caller
// (store.Request.Caller): what the resolve endpoints and the web inbox pass to
// gate.Manager.Resolve. Errors: an unknown action or a bypass with a rejection
// (ErrBadRequest), a negative bypass_secs (ErrInvalid).
func NewAnswer(body ResolveRequest, by store.Actor, caller string) (gate.Answer, error) {
	res := gate.Answer{Note: body.Note, By: by.By, Via: by.Via, Caller: caller}
	switch body.Action {
	case ActionApprove:
		res.Approve = true
		res.BypassSecs, res.BypassScope = body.BypassSecs, body.BypassScope
	case ActionReject:
		if body.BypassSecs != nil || body.BypassScope != "" {
			return gate.Answer{}, fmt.Errorf("%w: a bypass goes only with approve", ErrBadRequest)
		}
	default:
		return gate.Answer{}, fmt.Errorf("%w: unknown action %q (approve or reject)",
			ErrBadRequest, body.Action)
	}
	if res.BypassSecs != nil && *res.BypassSecs < 0 {
		return gate.Answer{}, fmt.Errorf("%w: bypass_secs must be 0 (the session) or more",
			ErrInvalid)
	}
	return res, nil
}
