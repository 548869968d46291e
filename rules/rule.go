package rules

import "strconv"

// Action is what a rule decides for a tool call.
type Action string

// The three actions. Deny is never bypassed; Require asks a human.
const (
	Allow   Action = "allow"
	Deny    Action = "deny"
	Require Action = "require"
)

// Priority bounds: a rule's priority lies in [MinPriority, MaxPriority];
// DefaultPriority is used when a rule is created without one.
const (
	MinPriority     = 0
	MaxPriority     = 999999
	DefaultPriority = 100
)

// DefaultGroup is the permission group that always exists and cannot be deleted.
const DefaultGroup = "default"

// Rule is one line of policy. A rule matches a tool call when every non-empty
// filter holds. ID is assigned by the store; rules of one group are tried in
// (Priority, ID) order, first match wins.
type Rule struct {
	ID      uint64 `json:"id"`
	GroupID string `json:"group_id"`
	// AgentID and Source are optional filters: empty matches every agent / source.
	AgentID string `json:"agent_id,omitempty"`
	Source  string `json:"source,omitempty"`
	// ToolPattern is "*", an exact tool name, "prefix*", or one of the classes
	// @fs_read, @fs_write, @fs_any.
	ToolPattern string `json:"tool_pattern"`
	// PathPattern is optional: "<dir>/*" is a subtree, "x*" a prefix,
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

	// HostPattern is optional, only on a rule whose tool pattern names a web tool:
	// the rule then matches a call whose URL's host the pattern matches ("example.com",
	// "*.example.com", "*"; docs/design.md, "Web hosts").
	HostPattern string `json:"host_pattern,omitempty"`
}

// Text is r in words, as reasons and explain name it: its action, tool pattern, path
// pattern, then each other filter it has, `deny @fs_any secrets/*`, `allow Bash
// command="git status *" agent=a1`, `allow WebFetch host="*.example.com"`. The note is
// not part of it.
func (r Rule) Text() string {
	s := string(r.Action) + " " + r.ToolPattern
	if r.PathPattern != "" {
		s += " " + r.PathPattern
	}
	if r.CommandPattern != "" {
		s += " command=" + strconv.Quote(r.CommandPattern)
	}
	if r.HostPattern != "" {
		s += " host=" + strconv.Quote(r.HostPattern)
	}
	for _, kv := range [][2]string{{"agent=", r.AgentID}, {"source=", r.Source}} {
		if kv[1] != "" {
			s += " " + kv[0] + kv[1]
		}
	}
	return s
}

// Group is a permission group. ID matches [a-z0-9_-]+; Name
// and Description are free text without control characters (the store refuses a
// newline, a tab or a NUL byte in them).
type Group struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Profile is a run context. Profiles come from the configuration
// only. WorkspaceRoot, when set, is the profile's own workspace: absolute and resolved
// through symlinks (docs/design.md, "Projects"); empty means the Options' one. Other
// paths are as configured; relative ones are relative to the profile's workspace.
type Profile struct {
	ID               string   `json:"id"`
	SecurityGroup    string   `json:"security_group"`
	WorkspaceRoot    string   `json:"workspace_root,omitempty"`
	WorkingDirectory string   `json:"working_directory"`
	AllowFSReads     []string `json:"allow_fs_reads,omitempty"`
	AllowFSWrites    []string `json:"allow_fs_writes,omitempty"`
}
