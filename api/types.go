package api

import (
	"time"

	"github.com/skald-circle/skald-bot/gate"
)

// The bodies the API takes and the answers it builds itself, shared by the server and
// the Client; answers that show a stored record are in answers.go.

// MaxWaitSecs caps every wait_secs: a longer wait is cut to 120 seconds, and a client
// that wants longer polls again (docs/design.md, "Timeouts and limits").
const MaxWaitSecs = 120

// MaxBodyBytes caps a request body at 1 MiB; a larger one gets 413.
const MaxBodyBytes = 1 << 20

// CheckRequest is the body of POST /api/approval/check: a tool call and how
// long, in seconds, to wait for a human when it needs one (0: answer pending at once;
// capped at MaxWaitSecs; negative: 400, as for GET /api/approval/requests/{id}).
type CheckRequest struct {
	gate.Call
	WaitSecs int `json:"wait_secs,omitempty"`
}

// CheckResult is the answer to a check. Decision is allow, deny, approved,
// rejected, expired, cancelled, or pending (still waiting after wait_secs). RequestID is
// set when the call needed approval; RuleID when a rule decided; ResolvedBy when a
// person resolved the request. Reason says what decided in words: the rule ("rule 12
// (deny Bash)", "rule 5 (deny @fs_any secrets/*)"), the gate ("session bypass",
// "protected path", …) or the person ("approved by jane via Telegram (request 7)").
type CheckResult struct {
	Decision   gate.Verdict `json:"decision"`
	RequestID  uint64       `json:"request_id,omitempty"`
	RuleID     uint64       `json:"rule_id,omitempty"`
	Reason     string       `json:"reason"`
	Note       string       `json:"note,omitempty"`
	ResolvedBy string       `json:"resolved_by,omitempty"`
	// Commands are, for a shell tool's call, how each command of its script was
	// decided: its words, action, rule and reason.
	Commands []CommandDecision `json:"commands,omitempty"`
	// NoChannel is set on a pending answer when no chat channel prompts approvers:
	// only the command line or the web inbox can answer it.
	NoChannel bool `json:"no_channel,omitempty"`
}

// Final reports whether the decision is an answer (anything but pending).
func (r CheckResult) Final() bool { return r.Decision != gate.VerdictPending }

// Resolve actions of POST /api/inbox/approvals/{id}/resolve and
// POST /api/tools/{tool_call_id}/resolve.
const (
	ActionApprove = "approve"
	ActionReject  = "reject"
)

// ResolveRequest is the body of the resolve endpoints. BypassSecs is nil for no bypass,
// 0 for the whole session, N for N seconds; BypassScope "" means the request's
// default scope (docs/design.md, "Bypasses"). Bypass fields only count with approve.
type ResolveRequest struct {
	Action      string `json:"action"`
	Note        string `json:"note,omitempty"`
	BypassSecs  *int64 `json:"bypass_secs,omitempty"`
	BypassScope string `json:"bypass_scope,omitempty"`
}

// CancelRequest is the optional body of POST /api/approval/requests/{id}/cancel;
// Reason is stored on the resolution ("terminal" from the hook).
type CancelRequest struct {
	Reason string `json:"reason,omitempty"`
}

// Inbox is GET /api/inbox: the pending requests and clarifications, oldest first;
// Total counts both.
type Inbox struct {
	Total          int             `json:"total"`
	Approvals      []Request       `json:"approvals"`
	Clarifications []Clarification `json:"clarifications"`
}

// VisibleRequest is the body of POST /api/approval/visible: the group or profile to
// evaluate in (docs/design.md, "Deciding a call"), optional agent and source filters, and
// the tool names.
type VisibleRequest struct {
	Group   string   `json:"group,omitempty"`
	Profile string   `json:"profile,omitempty"`
	AgentID string   `json:"agent_id,omitempty"`
	Source  string   `json:"source,omitempty"`
	Tools   []string `json:"tools"`
}

// VisibleResult splits the tools of a VisibleRequest: hidden ones are denied outright
// by their first path-free rule.
type VisibleResult struct {
	Visible []string `json:"visible"`
	Hidden  []string `json:"hidden"`
}

// DuplicateRequest is the body of POST /api/tool-permission-groups/{id}/duplicate:
// the new group's id and name.
type DuplicateRequest struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// BypassRequest is the body of POST /api/sessions/{id}/bypass: Secs 0 is the whole
// session, N is N seconds (required); Scope "" means "all"; Caller "" covers every
// caller of the session, else only that one ("admin", "local", "cron" or an agent
// token's name).
type BypassRequest struct {
	Secs   *int64 `json:"secs"`
	Scope  string `json:"scope,omitempty"`
	Caller string `json:"caller,omitempty"`
}

// CancelSessionResult is the answer to POST /api/sessions/{id}/cancel: the requests it
// cancelled.
type CancelSessionResult struct {
	Cancelled []Request `json:"cancelled"`
}

// Job is a scheduled job as GET /api/jobs lists it (docs/design.md, "Scheduled jobs").
type Job struct {
	Name         string    `json:"name"`
	Schedule     string    `json:"schedule"`
	AgentID      string    `json:"agent_id,omitempty"`
	Profile      string    `json:"profile,omitempty"`
	ContextLabel string    `json:"context_label,omitempty"`
	Steps        int       `json:"steps"`
	Next         time.Time `json:"next,omitzero"`
}
