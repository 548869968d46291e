package rules

// Options say how tools and paths are classified (SPEC §4.3–4.5, §12.14, §12.25). The
// zero value of a list means its SPEC default.
type Options struct {
	// WorkspaceRoot is absolute and already resolved through symlinks (SPEC §12.14);
	// Compile cleans it but does not resolve it. Empty means none: a relative path with
	// no absolute Cwd or WorkingDir is then invalid, and paths stay absolute.
	WorkspaceRoot string
	// FSRead and FSWrite are the tool names of @fs_read and @fs_write; nil means
	// DefaultFSRead / DefaultFSWrite.
	FSRead, FSWrite []string
	// PathArgs are the argument keys searched, in order, for a call's path; nil means
	// DefaultPathArgs.
	PathArgs []string
	// Protected are absolute paths (the data directory, the config file): a call whose
	// normalised path is one of them or under one is denied before any rule (SPEC §12.25).
	// Compile normalises them, so one reached through a symlink is still protected.
	Protected []string
}

// SPEC §4.3 and §4.4 defaults.
var (
	DefaultFSRead   = []string{"read_file", "grep_files", "list_files", "search_file", "get_ast_outline", "Read", "Grep", "Glob", "LS"}
	DefaultFSWrite  = []string{"write_file", "edit_file", "insert_at_line", "replace_lines", "Write", "Edit", "MultiEdit", "NotebookEdit"}
	DefaultPathArgs = []string{"path", "file_path", "notebook_path"}
)

// Call is what evaluation looks at in a tool call.
type Call struct {
	Tool    string
	AgentID string
	Source  string
	// Args are the call's arguments as decoded JSON (map[string]any).
	Args map[string]any
	// Cwd is the call's working directory, WorkingDir the profile's; relative paths
	// resolve against Cwd, else WorkingDir, else Options.WorkspaceRoot (SPEC §4.5). A
	// relative Cwd or WorkingDir is itself relative to Options.WorkspaceRoot.
	Cwd, WorkingDir string
}

// PathState says what evaluation found as the call's path argument.
type PathState uint8

// Path states: no path argument; a path that normalised; one that could not be
// normalised (not a string, NUL byte, symlink loop), which matches no path rule.
const (
	NoPath PathState = iota
	PathOK
	PathInvalid
)

// Decision is the outcome of evaluating one call against a Set.
type Decision struct {
	Action Action
	// RuleID is the matching rule, 0 when none matched (default require) or when a
	// protected path decided.
	RuleID uint64
	// Reason is one of the Reason constants, a short text for humans; Note is the
	// matching rule's note.
	Reason string
	Note   string
	// Path is the normalised path (relative to the workspace root with / separators
	// when under it, else absolute) when PathState is PathOK. When Reason is
	// ReasonProtected it is the protected path the call named, which may come from a
	// later path argument key than the one rules match.
	Path      string
	PathState PathState
}

// The reasons a Decision gives. They are constants so that evaluation allocates nothing.
const (
	ReasonRule      = "rule"            // a rule matched; Decision.RuleID names it
	ReasonNoRule    = "no rule matched" // default-closed: require (SPEC §4.7)
	ReasonProtected = "protected path"  // the path lies under Options.Protected: deny (SPEC §12.25)
)
