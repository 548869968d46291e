package store

import (
	"encoding/json"
	"time"
)

// Status is the state of an approval request (docs/design.md, "Terms"). Pending is the only
// state a request leaves; the others are final.
type Status string

// Request statuses.
const (
	Pending   Status = "pending"
	Approved  Status = "approved"
	Rejected  Status = "rejected"
	Expired   Status = "expired"
	Cancelled Status = "cancelled"
)

// Actor says who made a change and through what: By is a person or "api"/"cli"/"system",
// Via is the channel ("telegram", "slack", "api", "cli", "config", "gate"). The store's
// own changes are by "system" via "seed" (seeding), "gate" (expiry) or "retention"
// (Prune). By is required on every change.
type Actor struct {
	By  string `json:"by"`
	Via string `json:"via"`
}

// Request is an approval request (docs/design.md, "Terms") as it is stored, persisted
// before anyone is told of it. Its JSON tags are the on-disk format only: the API has
// its own types.
type Request struct {
	ID         uint64 `json:"request_id"`
	SessionID  string `json:"session_id"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name"`
	// Arguments is the call's arguments as canonical JSON (object keys sorted, no
	// insignificant space), so two calls compare equal byte for byte.
	Arguments    json.RawMessage `json:"arguments"`
	AgentID      string          `json:"agent_id,omitempty"`
	Source       string          `json:"source,omitempty"`
	ContextLabel string          `json:"context_label,omitempty"`
	Category     string          `json:"tool_category,omitempty"`
	MCPServer    string          `json:"mcp_server,omitempty"`
	GroupID      string          `json:"group_id"`
	Profile      string          `json:"profile,omitempty"`
	// Cwd is the call's working directory as it was sent ("" when none), against which
	// its relative paths were resolved. At most MaxCwdLen bytes.
	Cwd string `json:"cwd,omitempty"`
	// RuleID is the rule whose require made this request; 0 when no rule matched.
	RuleID uint64 `json:"rule_id,omitempty"`
	// Reason is why the gate asked a human when it was not simply a rule's require or
	// the default require (RuleID tells those): "path contains a protected or denied
	// place: secrets", "path argument cannot be normalised", "rules unavailable:
	// approval required". "" otherwise.
	Reason string `json:"reason,omitempty"`
	// Caller is who made the call (docs/design.md, "Callers"): CallerAdmin,
	// CallerLocal, CallerCron, or an agent token's name ("agent-" and 12 hex digits),
	// never the secret. Only that caller may read or cancel the request. A request
	// stored before callers were recorded decodes with its agent token's name, else
	// CallerAdmin.
	Caller string `json:"caller,omitempty"`
	// ClaimedCategory is the category the caller sent when the configuration gives
	// the tool none or another one: shown as claimed, never used for a bypass.
	ClaimedCategory string `json:"claimed_category,omitempty"`
	// Commands are, for a shell tool's call, how each simple command of its script
	// was decided (docs/design.md, "Shell commands"); nil for other tools.
	Commands []CommandDecision `json:"commands,omitempty"`
	// Host is, for a web tool's call, the host its URL goes to as host patterns match
	// it (docs/design.md, "Web hosts"); "" for other tools and a URL without a host.
	Host       string      `json:"host,omitempty"`
	CreatedAt  time.Time   `json:"created_at"`
	ExpiresAt  time.Time   `json:"expires_at"`
	Status     Status      `json:"status"`
	Resolution *Resolution `json:"resolution,omitempty"`
	// Messages are the chat messages that show the request (the outbox).
	Messages []Message `json:"messages,omitempty"`
	// WaiterGoneAt is when the caller that waited on the pending request stopped
	// waiting (its connection closed during a long poll); zero while it waits or
	// never did. The request stays resolvable.
	WaiterGoneAt time.Time `json:"waiter_gone_at,omitzero"`
}

// CommandDecision is how one simple command of a shell call's script was decided.
type CommandDecision struct {
	Command string `json:"command"` // its words joined by one space, as matched
	Action  string `json:"action"`  // allow, deny or require
	RuleID  uint64 `json:"rule_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Risky are its options that write a file or run a program: an offered rule
	// spells them (docs/design.md, "Shell commands").
	Risky []string `json:"risky,omitempty"`
}

// Callers that are not agent tokens (Request.Caller).
const (
	CallerAdmin = "admin" // the admin token, or an in-process caller such as the CLI
	CallerLocal = "local" // the token-less agent routes on loopback
	CallerCron  = "cron"  // a step of a scheduled job's run
)

// UnmarshalJSON decodes a request, including one stored in the older form that named
// its agent token under "token" and had no caller.
func (r *Request) UnmarshalJSON(b []byte) error {
	type plain Request
	var v struct {
		plain
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Request(v.plain)
	switch {
	case r.Caller != "":
	case v.Token != "":
		r.Caller = v.Token
	default:
		r.Caller = CallerAdmin
	}
	return nil
}

// IsAgentCaller reports whether caller is an agent's (an agent token's name or
// CallerLocal): such a caller may read and cancel only its own requests, never
// resolve one, and may not use a scheduled run's session.
func IsAgentCaller(caller string) bool {
	return caller != "" && caller != CallerAdmin && caller != CallerCron
}

// BypassScope is the scope a bypass granted on approving r covers when none is asked:
// its category, else its MCP server ("mcp:notes"), else its tool ("tool:WebFetch").
func (r Request) BypassScope() string {
	switch {
	case r.Category != "":
		return "category:" + r.Category
	case r.MCPServer != "":
		return "mcp:" + r.MCPServer
	}
	return "tool:" + r.ToolName
}

// Resolution records how a request left Pending.
type Resolution struct {
	By   string    `json:"by"`
	Via  string    `json:"via"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
	// Bypass is the session bypass granted with an approval, nil when none.
	Bypass *BypassGrant `json:"bypass,omitempty"`
}

// BypassGrant is a bypass granted on approval (docs/design.md, "Bypasses"): Scope is "all",
// "category:<c>", "mcp:<server>" or "tool:<name>"; Secs is its length in seconds,
// 0 meaning the whole session.
type BypassGrant struct {
	Scope string `json:"scope"`
	Secs  int64  `json:"secs"`
}

// Message is one chat message that shows a request (docs/design.md, "Chat prompts").
type Message struct {
	Channel string `json:"channel"` // "telegram" or "slack"
	ChatID  string `json:"chat_id"`
	// Ref identifies the message within its chat: a Telegram message_id or a Slack ts.
	Ref     string    `json:"ref"`
	ShownAt time.Time `json:"shown_at"`
	// Final is set once the message was edited to show the outcome, buttons removed.
	Final bool `json:"final,omitempty"`
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
	// ClarificationID is the clarification an entry is about, 0 for none.
	ClarificationID uint64 `json:"clarification_id,omitempty"`
}

// RunStatus is the state of a job run (docs/design.md, "Scheduled jobs").
type RunStatus string

// Run statuses. Running and WaitingApproval are the only non-final ones.
const (
	RunRunning         RunStatus = "running"
	RunWaitingApproval RunStatus = "waiting_approval"
	RunSucceeded       RunStatus = "succeeded"
	RunFailed          RunStatus = "failed"
	RunDenied          RunStatus = "denied"
	RunRejected        RunStatus = "rejected"
	RunExpired         RunStatus = "expired"
	RunCancelled       RunStatus = "cancelled"
	RunInterrupted     RunStatus = "interrupted"
	// RunWaitingAnswer is never stored: it is how a run, or its step, that waits
	// WaitingApproval on a clarification (an ask_user step) is shown (Run.Shown).
	RunWaitingAnswer RunStatus = "waiting_answer"
)

// Shown is the status to show for r: RunWaitingAnswer while it waits on a
// clarification, else its Status.
func (r Run) Shown() RunStatus {
	if r.Status == RunWaitingApproval && r.ClarificationID != 0 {
		return RunWaitingAnswer
	}
	return r.Status
}

// StepCount is how many steps r has: its Plan's, or for a run stored without one, the
// steps it recorded.
func (r Run) StepCount() int {
	if r.Plan != nil {
		return len(r.Plan)
	}
	return len(r.Steps)
}

// Shown is the status to show for step s: RunWaitingAnswer while it waits on a
// clarification, else its Status.
func (s StepResult) Shown() string {
	if s.Status == string(RunWaitingApproval) && s.ClarificationID != 0 {
		return string(RunWaitingAnswer)
	}
	return s.Status
}

// Run is one execution of a scheduled job. Its session is
// "cron:<job>:<id>". Step is the index of the step being run or waited on.
type Run struct {
	ID        uint64    `json:"id"`
	Job       string    `json:"job"`
	SessionID string    `json:"session_id"`
	Status    RunStatus `json:"status"`
	Trigger   string    `json:"trigger,omitempty"` // "schedule", "manual"
	Step      int       `json:"step"`
	RequestID uint64    `json:"request_id,omitempty"`
	// ClarificationID is the clarification an ask_user step waits on (status
	// waiting_approval), 0 otherwise.
	ClarificationID uint64       `json:"clarification_id,omitempty"`
	Steps           []StepResult `json:"steps"`
	Error           string       `json:"error,omitempty"`
	SkippedTriggers int          `json:"skipped_triggers,omitempty"`
	StartedAt       time.Time    `json:"started_at"`
	FinishedAt      time.Time    `json:"finished_at,omitzero"`
	// Plan is the job's steps as they were when the run started: what the run runs,
	// also once resumed after a restart with another config. Runs stored before
	// plans were kept have none (docs/design.md, "Scheduled jobs").
	Plan []PlanStep `json:"plan,omitempty"`
	// ConfigChanged is set when the run resumed while the job's configured steps
	// differed from its Plan.
	ConfigChanged bool `json:"config_changed,omitempty"`
}

// PlanStep is one step of a run's Plan: a tool and its arguments.
type PlanStep struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// StepResult is what one step of a run did. Output holds at most the last
// 16 KiB; DurationMS is in milliseconds.
type StepResult struct {
	Tool       string    `json:"tool"`
	Decision   string    `json:"decision"`
	Status     string    `json:"status"`
	ExitCode   int       `json:"exit_code"`
	Output     string    `json:"output,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	RequestID  uint64    `json:"request_id,omitempty"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	// ClarificationID is an ask_user step's clarification; its answer is Output.
	ClarificationID uint64 `json:"clarification_id,omitempty"`
}
