package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Reasons Check gives when something other than a rule decided.
const (
	ReasonBypass           = "session bypass"
	ReasonFastPath         = "profile fast-path"
	ReasonRulesUnavailable = "rules unavailable: approval required"
	ReasonExisting         = "request already registered for this tool call"
)

// Check gates one tool call (docs/design.md, "Deciding a call"): VerdictAllow or
// VerdictDeny at once; VerdictAllow for a require a session bypass or the profile
// fast-path lifts (never a locked one); else VerdictPending with Outcome.Request, the
// request registered — or, for a (session, tool_call_id) already registered by the same
// call, that request, with its final verdict once it left pending. It never waits for a
// human (see Wait). Errors, after which nothing is stored: ErrInvalidCall, ErrForbidden,
// ErrUnknownProfile, ErrUnknownGroup, ErrToolCallReused, ErrTooManyPending, ctx's error
// before registration, or the store's.
func (m *Manager) Check(ctx context.Context, c Call) (Outcome, error) {
	if c.ToolName == "" {
		return Outcome{}, fmt.Errorf("gate: check: %w: tool_name is required", ErrInvalidCall)
	}
	c.Caller = callerOf(c.Caller)
	if strings.HasPrefix(c.SessionID, "cron:") && store.IsAgentCaller(c.Caller) {
		return Outcome{}, fmt.Errorf("gate: check %s: %w: %s", c.ToolName, ErrForbidden,
			"session ids beginning with cron: belong to scheduled runs")
	}
	snap := m.snap.Load()
	p, group, err := m.route(snap, c.Group, c.Profile, c.Cwd)
	if err != nil {
		return Outcome{}, fmt.Errorf("gate: check %s: %w", c.ToolName, err)
	}
	m.catalog.see(c.ToolName, &m.batch)
	set := snap.setOf(p)
	d := set.Evaluate(group, rules.Call{
		Tool: c.ToolName, AgentID: c.AgentID, Source: c.Source, Args: c.Arguments,
		Cwd: c.Cwd, WorkingDir: p.workDir, Places: &p.places,
	})
	cmds := commandsOf(d.Script)
	switch d.Action {
	case rules.Allow:
		return Outcome{Decision: VerdictAllow, RuleID: d.RuleID, Reason: d.Reason, Note: d.Note,
			Commands: cmds}, nil
	case rules.Deny:
		m.auditDeny(c, group, d)
		return Outcome{Decision: VerdictDeny, RuleID: d.RuleID, Reason: d.Reason, Note: d.Note,
			Commands: cmds}, nil
	}
	category := m.category(snap, c.ToolName)
	server := MCPServer(c.ToolName)
	if snap.err != nil {
		m.log.Error("rules unavailable: approval required", "tool", c.ToolName,
			"session_id", c.SessionID, "err", snap.err)
		d.Reason = ReasonRulesUnavailable
	} else if !d.Locked() && !m.replays(&c) { // a locked require needs a human
		if m.bypassed(&c, p.ID, category, server) {
			return Outcome{Decision: VerdictAllow, Reason: ReasonBypass, Commands: cmds}, nil
		}
		if d.Inside { // the profile fast-path
			return Outcome{Decision: VerdictAllow, Reason: ReasonFastPath, Commands: cmds}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("gate: check %s: %w", c.ToolName, err)
	}
	args, err := encodeArgs(c.Arguments)
	if err != nil {
		return Outcome{}, fmt.Errorf("gate: check %s: %w: arguments: %v",
			c.ToolName, ErrInvalidCall, err)
	}
	now := m.now()
	timeout := m.timeout
	if c.ApprovalTimeout > 0 {
		timeout = c.ApprovalTimeout
	}
	claimed := c.Category
	if claimed == category {
		claimed = ""
	}
	host, _ := m.WebHost(c.ToolName, c.Arguments)
	reserved, err := m.reserve(&c)
	if err != nil {
		return Outcome{}, fmt.Errorf("gate: check %s: %w", c.ToolName, err)
	}
	req, created, err := m.store.CreateRequest(store.Request{
		SessionID: c.SessionID, ToolCallID: c.ToolCallID, ToolName: c.ToolName, Arguments: args,
		AgentID: c.AgentID, Source: c.Source, ContextLabel: c.ContextLabel, Category: category,
		MCPServer: server, GroupID: group, Profile: p.ID, Cwd: c.Cwd, RuleID: d.RuleID,
		Reason: requestReason(d), Caller: c.Caller, ClaimedCategory: claimed,
		Commands: cmds, Host: host, CreatedAt: now, ExpiresAt: now.Add(timeout),
		Status: store.Pending,
	})
	switch {
	case reserved && !created:
		m.pending.release(c.Caller)
	case !reserved && created: // the request a replay found was removed meanwhile
		m.pending.add(c.Caller)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("gate: check %s: %w", c.ToolName, err)
	}
	out := Outcome{Decision: decisionOf(req.Status), RuleID: d.RuleID, Reason: d.Reason,
		Note: d.Note, Commands: cmds, Request: &req}
	if !created {
		out.Reason = ReasonExisting
		return out, nil
	}
	m.log.Info("approval requested", "request_id", req.ID, "session_id", req.SessionID,
		"tool", req.ToolName, "group", group)
	m.bus.publish(Event{Name: EventApprovalRequested, Data: ApprovalRequested{
		RequestID: req.ID, ToolCallID: req.ToolCallID, ToolName: req.ToolName}}, m.log)
	m.notes.show(req)
	return out, nil
}

// replays reports whether c's (session, tool_call_id) names a request c's caller
// registered: a replay gets that request and its outcome (who approved or rejected
// it), not a bypass's or the fast-path's allow.
func (m *Manager) replays(c *Call) bool {
	if c.ToolCallID == "" {
		return false
	}
	r, err := m.store.RequestByToolCall(c.SessionID, c.ToolCallID)
	return err == nil && r.Caller == c.Caller
}

// reserve takes a pending slot for the request c may register, reporting whether it
// took one. At a limit, a call that replays a registered request takes none and goes
// on — it will get that request — while any other is refused with ErrTooManyPending.
func (m *Manager) reserve(c *Call) (bool, error) {
	err := m.pending.take(c.Caller)
	if err == nil {
		return true, nil
	}
	if c.ToolCallID != "" {
		if _, lookErr := m.store.RequestByToolCall(c.SessionID, c.ToolCallID); lookErr == nil {
			return false, nil
		}
	}
	return false, err
}

// commandsOf is how the commands of a shell call's script were decided, as a request
// records them; nil when sd is.
func commandsOf(sd *rules.ScriptDecision) []store.CommandDecision {
	if sd == nil {
		return nil
	}
	out := make([]store.CommandDecision, len(sd.Commands))
	for i, c := range sd.Commands {
		out[i] = store.CommandDecision{Command: c.Text, Action: string(c.Action),
			RuleID: c.RuleID, Reason: c.Reason, Risky: c.Risky}
	}
	return out
}

// requestReason is what a new request records of why a human must decide
// (store.Request.Reason): d's reason, unless a rule's require or the default require
// decided — of the call, or of a shell script's command — which the request's RuleID
// and Commands already tell; over a path that cannot be resolved, which they do not
// tell, it is rules.ReasonBadPath.
func requestReason(d rules.Decision) string {
	rule := d.Reason == rules.ReasonRule || d.Reason == rules.ReasonNoRule
	switch {
	case rule && d.Script == nil && d.Locked() && d.PathState == rules.PathInvalid:
		return rules.ReasonBadPath
	case rule || d.Script != nil && d.Reason == d.Script.Reason:
		return ""
	}
	return d.Reason
}

// auditDeny queues the audit entry of a denied call for the batcher.
func (m *Manager) auditDeny(c Call, group string, d rules.Decision) {
	by := c.AgentID
	if by == "" {
		by = "agent"
	}
	via := c.Source
	if via == "" {
		via = "gate"
	}
	detail := "tool " + c.ToolName + " in group " + group +
		" session " + c.SessionID + ": " + d.Reason
	if d.Path != "" {
		detail += " (path " + d.Path + ")"
	}
	m.batch.audit(store.AuditEntry{At: m.now(), By: by, Via: via, Action: AuditDenied,
		RuleID: d.RuleID, Detail: detail})
}

// MCPServer returns the server of an MCP tool name "mcp__<server>__<tool>" (the
// server of a bypass scope "mcp:<server>"), else "".
func MCPServer(tool string) string {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return ""
	}
	server, _, ok := strings.Cut(rest, "__")
	if !ok {
		return ""
	}
	return server
}

// encodeArgs encodes a call's arguments as JSON for the store, which keeps them in
// canonical form. Nil arguments are {}.
func encodeArgs(args map[string]any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(args)
}

// decisionOf maps a request's status to Check's decision.
func decisionOf(s store.Status) Verdict {
	switch s {
	case store.Approved:
		return VerdictApproved
	case store.Rejected:
		return VerdictRejected
	case store.Expired:
		return VerdictExpired
	case store.Cancelled:
		return VerdictCancelled
	}
	return VerdictPending
}
