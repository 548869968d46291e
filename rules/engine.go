package rules

// Options say how tools and paths are classified. The zero value of a list means its
// default.
type Options struct {
	// WorkspaceRoot is absolute and already resolved through symlinks;
	// Compile cleans it but does not resolve it. Empty means none: a relative path with
	// no absolute Cwd or WorkingDir is then invalid, and paths stay absolute.
	WorkspaceRoot string
	// FSRead and FSWrite are the tool names of @fs_read and @fs_write; nil means
	// DefaultFSRead / DefaultFSWrite.
	FSRead, FSWrite []string
	// PathArgs are the argument keys that hold a call's paths, each a string or an
	// array of strings; nil means DefaultPathArgs. Every one that holds a value is
	// evaluated (see Set.Evaluate), in this order; a file tool (FSRead, FSWrite) that
	// holds none is evaluated on its working directory.
	PathArgs []string
	// MCPFilesystem are the MCP servers whose tools are file tools: under one of
	// these server names, the reference filesystem server's read tools (MCPFSRead)
	// are @fs_read and its write tools (MCPFSWrite) @fs_write. nil means
	// DefaultMCPFilesystem.
	MCPFilesystem []string
	// Protected are absolute paths (the data directory, the config file): a call whose
	// normalised path is one of them or under one is denied before any rule, and one whose
	// path is a strict ancestor of one of them requires a human (see Set.Evaluate).
	// Compile normalises them, so one reached through a symlink is still protected.
	Protected []string
	// NeedsHuman are absolute paths that configure or are the gate itself (Claude Code's
	// settings files, the service's executable): a write to one of them, under one, or
	// of a folder holding one that exists — a write-class file tool, any path of a tool
	// outside the file classes, a shell command's output redirect or plain argument —
	// requires a human, and nothing lifts it (Decision.Locked); a deny still denies.
	// Reading them is decided by the rules. Compile normalises them like Protected.
	NeedsHuman []string
	// Shell are the tools whose argument holds a shell script, decided command by
	// command; nil means DefaultShell.
	Shell []ShellTool
	// Web are the tools whose argument holds a URL, matched by host patterns; nil
	// means DefaultWeb.
	Web []WebTool
	// Home is the absolute directory ~ stands for in shell scripts; empty leaves ~
	// unexpanded.
	Home string
	// Projects are the other workspace roots (absolute, resolved through symlinks) whose
	// rules hold here too: a path lying in one of them, deeper than WorkspaceRoot, is
	// also decided in its form relative to the deepest one holding it, by the path
	// patterns as they resolve there (docs/design.md, "Projects"). A guarded place of
	// WorkspaceRoot counts when it exists under it or under one of them.
	Projects []string
	// Watcher, when not nil and open, watches the directories the path patterns
	// depend on, so that a check with a path need not lstat them (docs/design.md,
	// "Tool patterns and file classes"), and keeps the lookups a shell call's paths
	// made while their directories do not change; nil, or closed, lstats them on
	// every such check. One Watcher serves every Set compiled with it.
	Watcher *Watcher
	// FoldsCase reports whether the file system of a root (WorkspaceRoot, a project,
	// and "/" for the absolute paths outside them) compares names case-insensitively:
	// there paths are compared in lower case. nil means the package's FoldsCase, which
	// probes each root once per process.
	FoldsCase func(dir string) bool
}

// ShellTool is a tool that runs a shell script: the script is its argument Arg, and
// CwdArg, when set, names the argument holding the directory it starts in.
type ShellTool struct {
	Tool   string `json:"tool" yaml:"tool"`
	Arg    string `json:"arg" yaml:"arg"`
	CwdArg string `json:"cwd_arg,omitempty" yaml:"cwd_arg,omitempty"`
}

// DefaultShell are the shell tools when Options.Shell is nil.
var DefaultShell = []ShellTool{{Tool: "Bash", Arg: "command"},
	{Tool: "execute_cmd", Arg: "cmd", CwdArg: "cwd"}}

// The defaults of Options' lists (docs/design.md, "Path arguments").
var (
	DefaultFSRead = []string{"read_file", "grep_files", "list_files", "search_file",
		"get_ast_outline", "Read", "Grep", "Glob", "LS"}
	DefaultFSWrite = []string{"write_file", "edit_file", "insert_at_line", "replace_lines",
		"Write", "Edit", "MultiEdit", "NotebookEdit"}
	DefaultPathArgs = []string{"path", "file_path", "notebook_path", "paths", "source",
		"destination", "directory", "dir", "target"}
	DefaultMCPFilesystem = []string{"filesystem"}
	// MCPFSRead and MCPFSWrite are the tools of the reference MCP filesystem server,
	// named mcp__<server>__<tool> under a server of Options.MCPFilesystem.
	MCPFSRead = []string{"read_file", "read_text_file", "read_media_file",
		"read_multiple_files", "list_directory", "list_directory_with_sizes",
		"directory_tree", "search_files", "get_file_info"}
	MCPFSWrite = []string{"write_file", "edit_file", "create_directory", "move_file"}
)

// Call is what evaluation looks at in a tool call.
type Call struct {
	Tool    string
	AgentID string
	Source  string
	// Args are the call's arguments as decoded JSON (map[string]any).
	Args map[string]any
	// Cwd is the call's working directory, WorkingDir the profile's; a relative path
	// is decided against each of them and Options.WorkspaceRoot (see Set.Evaluate). A
	// relative Cwd or WorkingDir is itself relative to Options.WorkspaceRoot.
	Cwd, WorkingDir string
	// Places, when not nil, are what the call's tool may reach without a rule
	// deciding (the gate's profile fast-path): see Decision.Inside.
	Places *Places
}

// Places are directories and files, normalised as Normalize returns them ("src",
// "notes.txt", "/opt/x"), that a file tool's call may reach: Read for the read class
// (@fs_read), Write for the write class. A place holds itself and what lies below it.
type Places struct {
	Read, Write []string
}

// PathState says what evaluation found as the path that decided.
type PathState uint8

// Path states: no path argument; a path that normalised; one that could not be
// normalised (not a string or an array of strings, a NUL byte, a symlink loop, a
// component the service cannot inspect, a way through /proc/self or /dev/fd), which
// matches no path rule and makes the call require that nothing lifts (Decision.Locked).
const (
	NoPath PathState = iota
	PathOK
	PathInvalid
)

// Decision is the outcome of evaluating one call against a Set. When the call has
// several path arguments it is the most restrictive of their decisions (see
// Set.Evaluate), and its Path and PathState are those of the path that decided.
type Decision struct {
	Action Action
	// RuleID is the matching rule, 0 when none matched (default require), when a
	// protected path decided, or when an unresolvable path or a guarded place
	// (Contains) turned the rule's answer into require.
	RuleID uint64
	// Reason is one of the Reason constants (ReasonContains with its place appended),
	// a short text for humans; Note is the matching rule's note.
	Reason string
	Note   string
	// Path is the normalised path that decided (relative to the workspace root with /
	// separators when under it, else absolute) when PathState is PathOK. When Reason is
	// ReasonProtected it is the protected path the call named. For a file tool without
	// a path argument it is the directory the tool acts on, and Paths is 0.
	Path      string
	PathState PathState
	// Contains is the guarded place that made a path require: one the path holds (a strict
	// ancestor of a protected path, or of what a deny rule with a path filter denies:
	// "secrets", "data/skald", or a prefix pattern "data/log*"), also through a symlink
	// in it (docs/sx → ../secrets: "secrets"), or, for a tool outside the file classes,
	// the denied place it lies in. Action is then require, Reason ReasonContains or
	// ReasonDenied followed by ": " and the place, and the decision is Locked. For a
	// write to an Options.NeedsHuman path it is that path, and Reason is
	// ReasonNeedsHuman followed by ": " and the path.
	Contains string
	// Paths is how many places the call's paths name: the distinct forms (see
	// Set.Evaluate, step 1) of each string, and each element of an array, under an
	// Options.PathArgs key, other than null and "", and of the literal directory of
	// each alternative of Glob's pattern or Grep's glob when it is not the call's
	// "path" itself ("**/*.go" in "src" counts once). With none, a file tool is
	// decided on its working directory (Paths 0).
	Paths int
	// Inside reports, for a call of a file tool (IsFSRead, IsFSWrite) whose every path
	// resolved, that every place its paths name — each form of each path, or, with no
	// path, the directory it works in — lies in Call.Places of its class (Read when
	// the tool is of both). False for any other call.
	Inside bool
	// Script is, for a shell tool's call (Options.Shell), how each simple command of
	// its script was decided, its paths included (see Set.EvaluateShell); nil for any
	// other call. It is not to be modified.
	Script *ScriptDecision
}

// Locked reports whether the decision is a require that no session bypass or profile
// fast-path may turn into allow: a path of the call holds a guarded place (Contains),
// lies in a denied place under a tool outside the file classes, writes a NeedsHuman
// path, or cannot be resolved.
func (d Decision) Locked() bool {
	return d.Action == Require && (d.Contains != "" || d.PathState == PathInvalid)
}

// The reasons a Decision gives. They are constants, and the Reasons that name a place
// are built at Compile, so that evaluation allocates nothing.
const (
	ReasonRule      = "rule"                               // a rule matched: Decision.RuleID
	ReasonNoRule    = "no rule matched"                    // default-closed: require
	ReasonProtected = "protected path"                     // under Options.Protected: deny
	ReasonBadPath   = "path argument cannot be normalised" // an unresolvable path: locked require
	// ReasonContains starts the Reason of a call whose path contains a protected or
	// denied place (Decision.Contains); ": " and the place follow.
	ReasonContains = "path contains a protected or denied place"
	// ReasonDenied starts the Reason of a call of a tool outside the file classes
	// whose path lies in a denied place (Decision.Contains); ": " and the place follow.
	ReasonDenied = "path lies in a place a rule denies"
	// ReasonInProtected starts the Reason of a call with an argument, other than its
	// path arguments, that lies in a protected place (Decision.Contains); ": " and the
	// place follow.
	ReasonInProtected = "argument lies in a protected place"
	// ReasonNeedsHuman starts the Reason of a write to an Options.NeedsHuman path
	// (Decision.Contains); ": " and the path follow.
	ReasonNeedsHuman = "writes a place that needs a human"
)
