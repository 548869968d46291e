package api

import (
	"encoding/json"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// The answers below are the API's wire format. They mirror the store's and the gate's
// types field for field, but their JSON is defined here, so a change to how the store
// keeps a record on disk cannot change what clients receive. The functions at the end
// are the one place that maps one to the other.

// Request is an approval request as the API shows it (docs/design.md, "Terms").
type Request struct {
	ID         uint64 `json:"request_id"`
	SessionID  string `json:"session_id"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name"`
	// Arguments is the call's arguments as canonical JSON (object keys sorted).
	Arguments    json.RawMessage `json:"arguments"`
	AgentID      string          `json:"agent_id,omitempty"`
	Source       string          `json:"source,omitempty"`
	ContextLabel string          `json:"context_label,omitempty"`
	Category     string          `json:"tool_category,omitempty"`
	MCPServer    string          `json:"mcp_server,omitempty"`
	GroupID      string          `json:"group_id"`
	Profile      string          `json:"profile,omitempty"`
	Cwd          string          `json:"cwd,omitempty"`
	// RuleID is the rule whose require made the request; 0 when no rule matched.
	RuleID uint64 `json:"rule_id,omitempty"`
	// Reason is why the gate asked a human beyond a rule's or the default require.
	Reason string `json:"reason,omitempty"`
	// Caller is who made the call (docs/design.md, "Callers"), never a secret.
	Caller          string `json:"caller,omitempty"`
	ClaimedCategory string `json:"claimed_category,omitempty"`
	// Commands are, for a shell tool's call, how each command of its script was
	// decided (docs/design.md, "Shell commands").
	Commands   []CommandDecision `json:"commands,omitempty"`
	CreatedAt  time.Time         `json:"created_at"`
	ExpiresAt  time.Time         `json:"expires_at"`
	Status     store.Status      `json:"status"`
	Resolution *Resolution       `json:"resolution,omitempty"`
	// Messages are the chat messages that show the request.
	Messages []Message `json:"messages,omitempty"`
}

// CommandDecision is how one simple command of a shell call's script was decided.
type CommandDecision struct {
	Command string `json:"command"` // its words joined by one space, as matched
	Action  string `json:"action"`  // allow, deny or require
	RuleID  uint64 `json:"rule_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Risky are its options that write a file or run a program.
	Risky []string `json:"risky,omitempty"`
}

// Resolution is how a request left pending: who, through what channel, when.
type Resolution struct {
	By   string    `json:"by"`
	Via  string    `json:"via"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
	// Bypass is the bypass granted with an approval, nil when none.
	Bypass *BypassGrant `json:"bypass,omitempty"`
}

// BypassGrant is a bypass granted on approval: Secs is its length in seconds, 0
// meaning the whole session (docs/design.md, "Bypasses").
type BypassGrant struct {
	Scope string `json:"scope"`
	Secs  int64  `json:"secs"`
}

// Message is one chat message that shows a request; Ref is a Telegram message_id or
// a Slack ts.
type Message struct {
	Channel string    `json:"channel"`
	ChatID  string    `json:"chat_id"`
	Ref     string    `json:"ref"`
	ShownAt time.Time `json:"shown_at"`
	Final   bool      `json:"final,omitempty"`
}

// Bypass is a live session bypass (docs/design.md, "Bypasses"). RequestID is the
// request whose approval granted it, 0 when an admin set it; a zero ExpiresAt means it
// lasts as long as the session.
type Bypass struct {
	SessionID string    `json:"session_id"`
	Scope     string    `json:"scope"`
	Caller    string    `json:"caller,omitempty"`
	RequestID uint64    `json:"request_id,omitempty"`
	Profile   string    `json:"profile,omitempty"`
	AgentID   string    `json:"agent_id,omitempty"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Run is one execution of a scheduled job (docs/design.md, "Scheduled jobs"); Step
// is the number, from 1, of the step being run or waited on (or last run), as every
// listing, log line and message numbers steps. Status, and a step's, is
// waiting_answer while an ask_user step waits on its clarification.
type Run struct {
	ID        uint64          `json:"id"`
	Job       string          `json:"job"`
	SessionID string          `json:"session_id"`
	Status    store.RunStatus `json:"status"`
	Trigger   string          `json:"trigger,omitempty"`
	Step      int             `json:"step"`
	// StepCount is how many steps the run has, Step among them.
	StepCount int    `json:"step_count"`
	RequestID uint64 `json:"request_id,omitempty"`
	// ClarificationID is the clarification an ask_user step waits on.
	ClarificationID uint64       `json:"clarification_id,omitempty"`
	Steps           []StepResult `json:"steps"`
	Error           string       `json:"error,omitempty"`
	SkippedTriggers int          `json:"skipped_triggers,omitempty"`
	StartedAt       time.Time    `json:"started_at"`
	FinishedAt      time.Time    `json:"finished_at,omitzero"`
}

// StepResult is what one step of a run did; DurationMS is in milliseconds. ExitCode
// is nil for a step that did not run to an end (denied, rejected, still running or
// waiting).
type StepResult struct {
	Tool       string    `json:"tool"`
	Decision   string    `json:"decision"`
	Status     string    `json:"status"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Output     string    `json:"output,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	RequestID  uint64    `json:"request_id,omitempty"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	// ClarificationID is an ask_user step's clarification; its answer is Output.
	ClarificationID uint64 `json:"clarification_id,omitempty"`
}

// AuditEntry is one line of the audit log (docs/design.md, "Persistence").
type AuditEntry struct {
	ID        uint64    `json:"id"`
	At        time.Time `json:"at"`
	By        string    `json:"by"`
	Via       string    `json:"via"`
	Action    string    `json:"action"`
	RequestID uint64    `json:"request_id,omitempty"`
	RuleID    uint64    `json:"rule_id,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	// ClarificationID is the clarification the entry is about, 0 for none.
	ClarificationID uint64 `json:"clarification_id,omitempty"`
}

// RequestOf is stored request q as the API shows it.
func RequestOf(q store.Request) Request {
	out := Request{
		ID: q.ID, SessionID: q.SessionID, ToolCallID: q.ToolCallID, ToolName: q.ToolName,
		Arguments: q.Arguments, AgentID: q.AgentID, Source: q.Source,
		ContextLabel: q.ContextLabel, Category: q.Category, MCPServer: q.MCPServer,
		GroupID: q.GroupID, Profile: q.Profile, Cwd: q.Cwd, RuleID: q.RuleID,
		Reason: q.Reason, Caller: q.Caller, ClaimedCategory: q.ClaimedCategory,
		CreatedAt: q.CreatedAt, ExpiresAt: q.ExpiresAt, Status: q.Status,
	}
	out.Commands = commandsOf(q.Commands)
	out.Resolution = resolutionOf(q.Resolution)
	out.Messages = messagesOf(q.Messages)
	return out
}

// resolutionOf is res as the API shows it; nil for nil.
func resolutionOf(res *store.Resolution) *Resolution {
	if res == nil {
		return nil
	}
	out := &Resolution{By: res.By, Via: res.Via, At: res.At, Note: res.Note}
	if b := res.Bypass; b != nil {
		out.Bypass = &BypassGrant{Scope: b.Scope, Secs: b.Secs}
	}
	return out
}

// messagesOf is ms as the API shows them; nil for nil.
func messagesOf(ms []store.Message) []Message {
	if ms == nil {
		return nil
	}
	return listOf(ms, func(m store.Message) Message { return Message(m) })
}

// commandsOf is cs as the API shows them; nil for nil.
func commandsOf(cs []store.CommandDecision) []CommandDecision {
	if cs == nil {
		return nil
	}
	return listOf(cs, func(c store.CommandDecision) CommandDecision { return CommandDecision(c) })
}

// listOf is view of every x of xs, in order; never nil: an empty list is [] on the
// wire, not null.
func listOf[T, V any](xs []T, view func(T) V) []V {
	out := make([]V, len(xs))
	for i, x := range xs {
		out[i] = view(x)
	}
	return out
}

func bypassOf(b gate.Bypass) Bypass {
	return Bypass{SessionID: b.SessionID, Scope: b.Scope, Caller: b.Caller,
		RequestID: b.RequestID, Profile: b.Profile, AgentID: b.AgentID, ExpiresAt: b.ExpiresAt}
}

func runOf(r store.Run) Run {
	out := Run{ID: r.ID, Job: r.Job, SessionID: r.SessionID, Status: r.Shown(),
		Trigger: r.Trigger, Step: r.Step + 1, StepCount: r.StepCount(), RequestID: r.RequestID,
		ClarificationID: r.ClarificationID, Error: r.Error,
		SkippedTriggers: r.SkippedTriggers, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	if r.Steps != nil { // nil stays null on the wire, as the store has it
		out.Steps = make([]StepResult, len(r.Steps))
		for i, s := range r.Steps {
			out.Steps[i] = StepResult{Tool: s.Tool, Decision: s.Decision, Status: s.Shown(),
				Output: s.Output, DurationMS: s.DurationMS,
				RequestID: s.RequestID, StartedAt: s.StartedAt, ClarificationID: s.ClarificationID}
			if ran(s) {
				out.Steps[i].ExitCode = &s.ExitCode
			}
		}
	}
	return out
}

// ran reports whether step s ran to an end: it started, and is no longer running or
// waiting for approval.
func ran(s store.StepResult) bool {
	return !s.StartedAt.IsZero() && s.Status != string(store.RunRunning) &&
		s.Status != string(store.RunWaitingApproval)
}

func auditEntryOf(e store.AuditEntry) AuditEntry {
	return AuditEntry{ID: e.ID, At: e.At, By: e.By, Via: e.Via, Action: e.Action,
		RequestID: e.RequestID, RuleID: e.RuleID, Detail: e.Detail,
		ClarificationID: e.ClarificationID}
}
