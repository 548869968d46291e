package gate

import (
	"context"
	"log/slog"
	"time"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Call is a tool call as an agent submits it (SPEC §3). Arguments is a decoded JSON
// object. Group or Profile pick the permission group (SPEC §12.1).
type Call struct {
	ToolName     string         `json:"tool_name"`
	Arguments    map[string]any `json:"arguments"`
	SessionID    string         `json:"session_id"`
	ToolCallID   string         `json:"tool_call_id,omitempty"`
	AgentID      string         `json:"agent_id,omitempty"`
	Source       string         `json:"source,omitempty"`
	Category     string         `json:"category,omitempty"`
	ContextLabel string         `json:"context_label,omitempty"`
	Group        string         `json:"group,omitempty"`
	Profile      string         `json:"profile,omitempty"`
	Cwd          string         `json:"cwd,omitempty"`
	// Token names the agent token that made the call (SPEC §12.2); set by the API,
	// never by the caller. Empty for admin calls.
	Token string `json:"-"`
}

// Category maps tool patterns to a category name (SPEC §12.4); the first entry whose
// patterns match a tool gives its category.
type Category struct {
	Name  string   `json:"name" yaml:"name"`
	Tools []string `json:"tools" yaml:"tools"`
}

// DefaultCategories is SPEC §12.4's default for tools.categories.
var DefaultCategories = []Category{
	{Name: "shell", Tools: []string{"execute_cmd", "Bash"}},
	{Name: "filesystem", Tools: []string{"@fs_any"}},
}

// Decision is what Check answers (SPEC §8): allow and deny at once, pending while a
// human decides, then the request's final status.
type Decision string

// Decisions of SPEC §8.
const (
	DecisionAllow     Decision = "allow"
	DecisionDeny      Decision = "deny"
	DecisionPending   Decision = "pending"
	DecisionApproved  Decision = "approved"
	DecisionRejected  Decision = "rejected"
	DecisionExpired   Decision = "expired"
	DecisionCancelled Decision = "cancelled"
)

// Outcome is the answer to a Check.
type Outcome struct {
	Decision Decision `json:"decision"`
	// RuleID is the rule that decided (0 for none: default require, bypass, profile
	// fast-path or protected path).
	RuleID uint64 `json:"rule_id,omitempty"`
	Reason string `json:"reason"`
	Note   string `json:"note,omitempty"`
	// Request is set when the call required approval: the registered (or existing)
	// request as stored.
	Request *store.Request `json:"-"`
}

// Notifier is what a chat layer implements to show requests (SPEC §5, §6). The gate
// calls it from its own goroutines, after the request is committed, never while
// holding a lock; implementations must be safe for concurrent use and return when
// ctx is done. Errors are logged by the gate; retrying is the notifier's job.
type Notifier interface {
	// Show presents a new pending request on every chat it serves.
	Show(ctx context.Context, r store.Request) error
	// Update edits every message of a request that left pending to show its outcome,
	// removing the buttons.
	Update(ctx context.Context, r store.Request) error
}

// Options configure a Manager.
type Options struct {
	Store Store
	// Rules configures tool classes, path arguments, the workspace root and the
	// protected paths (data_dir, config file).
	Rules rules.Options
	// Profiles from the configuration; a "default" profile (group default, working
	// directory the workspace root) is added when absent (SPEC §12.3).
	Profiles []rules.Profile
	// Categories nil means DefaultCategories.
	Categories []Category
	// ApprovalTimeout is how long a request stays pending; zero means 24h.
	ApprovalTimeout time.Duration
	// Notifier may be nil (no chat channel).
	Notifier Notifier
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}
