package rules

// Action is what a rule decides for a tool call (SPEC §3, §4).
type Action string

// The three actions of SPEC §4. Deny is never bypassed; Require asks a human.
const (
	Allow   Action = "allow"
	Deny    Action = "deny"
	Require Action = "require"
)

// Priority bounds (SPEC §3, issue 2): a rule's priority lies in [MinPriority, MaxPriority];
// DefaultPriority is used when a rule is created without one.
const (
	MinPriority     = 0
	MaxPriority     = 999999
	DefaultPriority = 100
)

// DefaultGroup is the permission group that always exists and cannot be deleted (SPEC §3).
const DefaultGroup = "default"

// Rule is one line of policy (SPEC §3). A rule matches a tool call when every non-empty
// filter holds (SPEC §4.2). ID is assigned by the store; rules of one group are tried in
// (Priority, ID) order, first match wins.
type Rule struct {
	ID      uint64 `json:"id"`
	GroupID string `json:"group_id"`
	// AgentID and Source are optional filters: empty matches every agent / source.
	AgentID string `json:"agent_id,omitempty"`
	Source  string `json:"source,omitempty"`
	// ToolPattern is "*", an exact tool name, "prefix*", or one of the classes
	// @fs_read, @fs_write, @fs_any (SPEC §4.3).
	ToolPattern string `json:"tool_pattern"`
	// PathPattern is optional (SPEC §4.6): "<dir>/*" is a subtree, "x*" a prefix,
	// anything else exact. Written as the admin typed it.
	PathPattern string `json:"path_pattern,omitempty"`
	// ResolvedPathPattern is PathPattern as it resolved through symlinks when the rule
	// was created, shown for information: matching resolves PathPattern as the file
	// system is at each call, so a moved or swapped directory is still covered.
	ResolvedPathPattern string `json:"resolved_path_pattern,omitempty"`
	Action              Action `json:"action"`
	Note                string `json:"note,omitempty"`
	Priority            int    `json:"priority"`

	// CommandPattern is optional, only on a rule whose tool pattern names a shell
	// tool: the rule then matches each command of the call's script that the pattern
	// matches (docs/design.md, "Shell commands").
	CommandPattern string `json:"command_pattern,omitempty"`
}

// Group is a permission group (SPEC §3). ID matches [a-z0-9_-]+ (SPEC §12.16); Name
// and Description are free text without control characters (the store refuses a
// newline, a tab or a NUL byte in them).
type Group struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Profile is a run context (SPEC §3, §12.3). Profiles come from the configuration
// only. Paths are as configured; relative ones are relative to the workspace root.
type Profile struct {
	ID               string   `json:"id"`
	SecurityGroup    string   `json:"security_group"`
	WorkingDirectory string   `json:"working_directory"`
	AllowFSReads     []string `json:"allow_fs_reads,omitempty"`
	AllowFSWrites    []string `json:"allow_fs_writes,omitempty"`
}
