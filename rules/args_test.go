package rules

import (
	"os"
	"testing"
)

// locked is the decision of a call whose deciding path cannot be resolved: require,
// which no bypass or fast-path lifts.
func locked(ruleID uint64, reason string, paths int) Decision {
	return Decision{Action: Require, RuleID: ruleID, Reason: reason, PathState: PathInvalid,
		Paths: paths}
}

// TestEvaluatePathArguments covers every path argument: the default keys, arrays of
// paths, and the literal directory of Glob's pattern and Grep's glob.
func TestEvaluatePathArguments(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	n := func(d Decision, paths int) Decision { d.Paths = paths; return d }
	catchAll := ruled(Require, 12, "")
	guardedDot := Decision{Action: Require, RuleID: 12, Reason: ReasonContains + ": data/skald",
		Path: ".", PathState: PathOK, Contains: "data/skald"}
	runEvalCases(t, s, []evalCase{
		{"paths: one of many in secrets", "",
			Call{Tool: "read_file",
				Args: map[string]any{"paths": []any{"memory/a", "secrets/key"}}},
			n(ruled(Deny, 11, "secrets/key"), 2)},
		{"paths: all allowed", "",
			Call{Tool: "read_file",
				Args: map[string]any{"paths": []any{"memory/a", "data/file.txt"}}},
			n(ruled(Allow, 9, "memory/a"), 2)},
		{"paths: the data directory", "",
			Call{Tool: "read_file",
				Args: map[string]any{"paths": []any{"memory/a", root + "/state/skald.db"}}},
			n(protected("state/skald.db"), 2)},
		{"paths: empty and null elements are no path", "",
			Call{Tool: "read_file", Args: map[string]any{"paths": []any{"", nil, "memory/a"}}},
			n(ruled(Allow, 9, "memory/a"), 1)},
		{"paths: a number among them", "",
			Call{Tool: "read_file", Args: map[string]any{"paths": []any{"memory/a", 7.0}}},
			locked(12, ReasonRule, 2)},
		{"paths: a nested array", "",
			Call{Tool: "read_file", Args: map[string]any{"paths": []any{[]any{"secrets/key"}}}},
			locked(12, ReasonRule, 1)},
		{"paths: a nested array beside a denied path", "",
			Call{Tool: "read_file",
				Args: map[string]any{"paths": []any{[]any{"x"}, "secrets/key"}}},
			n(ruled(Deny, 11, "secrets/key"), 2)},
		{"source of a move", "",
			Call{Tool: "write_file",
				Args: map[string]any{"source": "secrets/key", "destination": "memory/k"}},
			n(ruled(Deny, 11, "secrets/key"), 2)},
		{"destination of a move", "",
			Call{Tool: "write_file",
				Args: map[string]any{"source": "memory/k", "destination": "secrets/k"}},
			n(ruled(Deny, 11, "secrets/k"), 2)},
		{"directory", "", Call{Tool: "list_files", Args: map[string]any{"directory": "secrets"}},
			n(ruled(Deny, 11, "secrets"), 1)},
		{"dir", "", Call{Tool: "list_files", Args: map[string]any{"dir": "data/link"}},
			n(ruled(Deny, 11, "secrets/x"), 1)},
		{"target", "", Call{Tool: "write_file", Args: map[string]any{"target": "secrets/x/y"}},
			n(ruled(Deny, 11, "secrets/x/y"), 1)},
		{"an object under a path key", "",
			Call{Tool: "read_file", Args: map[string]any{"target": map[string]any{"p": "x"}}},
			locked(12, ReasonRule, 1)},
		{"a bool under a path key of another tool", "",
			Call{Tool: "mcp__x__y", Args: map[string]any{"dir": true}}, locked(12, ReasonRule, 1)},
		{"Glob out of its path into secrets", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "../secrets/*", "path": "docs"}},
			n(ruled(Deny, 11, "secrets"), 2)},
		{"Glob up from its cwd", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "../secrets/*"}, Cwd: "memory"},
			n(ruled(Deny, 11, "secrets"), 2)},
		{"Glob with a literal file", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "secrets/key"}},
			n(ruled(Deny, 11, "secrets/key"), 1)},
		{"Glob with an absolute pattern", "",
			Call{Tool: "Glob",
				Args: map[string]any{"pattern": root + "/secrets/*.pem", "path": "memory"}},
			n(ruled(Deny, 11, "secrets"), 2)},
		{"Glob of the whole tree: its path alone", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "**/*.go", "path": "memory"}},
			n(ruled(Allow, 9, "memory"), 1)},
		{"Glob of the whole tree without a path: the root too", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "**/*.go"}, Cwd: "memory"},
			n(guardedDot, 2)},
		{"Glob with a brace before the slash", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "memory/{a,../secrets}/*"}},
			n(ruled(Deny, 11, "secrets"), 2)},
		{"Glob pattern not a string", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": []any{"*"}, "path": "memory"}},
			locked(12, ReasonRule, 2)},
		{"Grep glob into secrets", "",
			Call{Tool: "Grep",
				Args: map[string]any{"pattern": "token", "glob": "../secrets/**", "path": "data"}},
			n(ruled(Deny, 11, "secrets"), 2)},
		{"Grep glob inside its path", "",
			Call{Tool: "Grep",
				Args: map[string]any{"pattern": "token", "glob": "*.txt", "path": "data"}},
			n(guarded(ruled(Allow, 10, "data"), "data/skald"), 1)},
		{"Grep glob in a subfolder of its path", "",
			Call{Tool: "Grep",
				Args: map[string]any{"pattern": "token", "glob": "a/*.txt", "path": "memory"}},
			n(ruled(Allow, 9, "memory"), 2)},
		{"Grep pattern is a regexp, not a path", "",
			Call{Tool: "Grep", Args: map[string]any{"pattern": "../secrets/*", "path": "memory"}},
			n(ruled(Allow, 9, "memory"), 1)},
		{"Grep without path or glob: its cwd", "",
			Call{Tool: "Grep", Args: map[string]any{"pattern": "x"}}, guardedDot},
		{"Glob pattern of another tool is no path", "",
			Call{Tool: "mcp__search__find", Args: map[string]any{"pattern": "../secrets/*"}},
			catchAll},
	})
}

func guarded(d Decision, place string) Decision {
	if d.Action == Allow {
		d.RuleID = 0
	}
	d.Action, d.Reason, d.Contains = Require, ReasonContains+": "+place, place
	return d
}

// TestEvaluateOtherTools covers the guard of denied places for tools outside the file
// classes: inside or above what a deny rule with a path filter denies — whatever its
// tool pattern, when its agent and source filters apply — is a locked require.
func TestEvaluateOtherTools(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 1},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "Write", PathPattern: "docs/private/*",
			AgentID: "bob", Action: Deny, Priority: 1},
		Rule{ID: 22, GroupID: DefaultGroup, ToolPattern: "Edit", PathPattern: "memory/log*",
			Action: Deny, Priority: 1},
		Rule{ID: 23, GroupID: DefaultGroup, ToolPattern: "mcp__notes__*", PathPattern: "docs/x",
			Action: Deny, Priority: 0},
	)
	if err := os.MkdirAll(root+"/docs/private", 0o755); err != nil {
		t.Fatal(err)
	}
	s := Compile(nil, rs, seedOptions(root))
	in := func(path, place string, paths int) Decision {
		return Decision{Action: Require, Reason: ReasonDenied + ": " + place, Path: path,
			PathState: PathOK, Contains: place, Paths: paths}
	}
	notes := func(args map[string]any) Call { return Call{Tool: "mcp__notes__x", Args: args} }
	runEvalCases(t, s, []evalCase{
		{"in secrets under allow mcp__*", "", notes(map[string]any{"path": "secrets/key"}),
			in("secrets/key", "secrets", 1)},
		{"secrets itself", "", notes(map[string]any{"path": "secrets"}),
			in("secrets", "secrets", 1)},
		{"through a symlink into secrets", "", notes(map[string]any{"target": "data/link/k"}),
			in("secrets/x/k", "secrets", 1)},
		{"one of paths", "", notes(map[string]any{"paths": []any{"memory/a", "secrets/key"}}),
			in("secrets/key", "secrets", 2)},
		{"above secrets", "", notes(map[string]any{"path": "."}),
			Decision{Action: Require, Reason: ReasonContains + ": data/skald", Path: ".",
				PathState: PathOK, Contains: "data/skald", Paths: 1}},
		{"beside secrets", "", notes(map[string]any{"path": "memory-secrets/x"}),
			Decision{Action: Allow, RuleID: 20, Reason: ReasonRule, Path: "memory-secrets/x",
				PathState: PathOK, Paths: 1}},
		{"a rule's own deny still denies", "", notes(map[string]any{"path": "docs/x"}),
			Decision{Action: Deny, RuleID: 23, Reason: ReasonRule, Path: "docs/x",
				PathState: PathOK, Paths: 1}},
		{"a prefix deny of another tool", "", notes(map[string]any{"path": "memory/logs/1"}),
			in("memory/logs/1", "memory/log*", 1)},
		{"the agent filter applies: bob", "",
			Call{Tool: "mcp__notes__x", AgentID: "bob",
				Args: map[string]any{"path": "docs/private/p"}},
			in("docs/private/p", "docs/private", 1)},
		{"the agent filter applies: not bob", "",
			Call{Tool: "mcp__notes__x", AgentID: "eve",
				Args: map[string]any{"path": "docs/private/p"}},
			Decision{Action: Allow, RuleID: 20, Reason: ReasonRule, Path: "docs/private/p",
				PathState: PathOK, Paths: 1}},
		{"a require rule keeps its id", "",
			Call{Tool: "WebFetch", Args: map[string]any{"path": "secrets/key"}},
			func() Decision { d := in("secrets/key", "secrets", 1); d.RuleID = 12; return d }()},
		{"a file tool is decided by its rules", "",
			Call{Tool: "Write", AgentID: "eve",
				Args: map[string]any{"file_path": "docs/private/p"}},
			n1(ruled(Require, 12, "docs/private/p"))},
		{"the data directory is denied for every tool", "", notes(map[string]any{"dir": "state"}),
			Decision{Action: Deny, Reason: ReasonProtected, Path: "state", PathState: PathOK,
				Paths: 1}},
		// Under any other key a path is denied as under a path key, never allowed.
		{"another key: the tool's own deny", "", notes(map[string]any{"note": "docs/x"}),
			Decision{Action: Deny, RuleID: 23, Reason: ReasonRule, Path: "docs/x",
				PathState: PathOK}},
		{"another key: a word of a text", "", notes(map[string]any{"note": "see docs/x"}),
			Decision{Action: Deny, RuleID: 23, Reason: ReasonRule, Path: "docs/x",
				PathState: PathOK}},
		{"another key: the deny after a guard", "",
			notes(map[string]any{"a": "secrets/key",
				"b": []any{"x", map[string]any{"c": "docs/x"}}}),
			Decision{Action: Deny, RuleID: 23, Reason: ReasonRule, Path: "docs/x",
				PathState: PathOK}},
		{"another key: the deny beside a path key", "",
			notes(map[string]any{"path": "memory/a", "note": "docs/x"}),
			Decision{Action: Deny, RuleID: 23, Reason: ReasonRule, Path: "docs/x",
				PathState: PathOK, Paths: 1}},
		{"another key: a deny of other tools is a guard", "",
			notes(map[string]any{"note": "secrets/key"}), in("secrets/key", "secrets", 0)},
		{"another key: the protected place", "",
			notes(map[string]any{"note": root + "/state/skald.db"}), protected("state/skald.db")},
		{"another key: an allowed path does not allow", "",
			Call{Tool: "WebFetch", Args: map[string]any{"note": "memory/a"}},
			Decision{Action: Require, RuleID: 12, Reason: ReasonRule}},
	})
	for _, c := range []Call{notes(map[string]any{"path": "secrets/key"}),
		notes(map[string]any{"path": "."})} {
		if d := s.Evaluate(DefaultGroup, c); !d.Locked() {
			t.Errorf("%+v → %+v: want Locked", c, d)
		}
	}
}

func n1(d Decision) Decision { d.Paths = 1; return d }

// TestEvaluateMCPFilesystem covers the reference MCP filesystem server's tools as file
// tools under the servers of Options.MCPFilesystem.
func TestEvaluateMCPFilesystem(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 50})
	def := Compile(nil, rs, seedOptions(root))
	opt := seedOptions(root)
	opt.MCPFilesystem = []string{"fs", "files-2"}
	custom := Compile(nil, rs, opt)
	for _, tc := range []struct {
		name string
		s    *Set
		tool string
		args map[string]any
		want Decision
	}{
		{"read_file in secrets", def, "mcp__filesystem__read_file",
			map[string]any{"path": "secrets/key"}, n1(ruled(Deny, 11, "secrets/key"))},
		{"read_multiple_files", def, "mcp__filesystem__read_multiple_files",
			map[string]any{"paths": []any{"memory/a", "secrets/key"}},
			Decision{Action: Deny, RuleID: 11, Reason: ReasonRule, Path: "secrets/key",
				PathState: PathOK, Paths: 2}},
		{"move_file out of secrets", def, "mcp__filesystem__move_file",
			map[string]any{"source": "secrets/key", "destination": "memory/k"},
			Decision{Action: Deny, RuleID: 11, Reason: ReasonRule, Path: "secrets/key",
				PathState: PathOK, Paths: 2}},
		{"write_file in memory: the seeded allow", def, "mcp__filesystem__write_file",
			map[string]any{"path": "memory/n"}, n1(ruled(Allow, 9, "memory/n"))},
		{"directory_tree of data: guarded", def, "mcp__filesystem__directory_tree",
			map[string]any{"path": "data"}, n1(guarded(ruled(Allow, 10, "data"), "data/skald"))},
		{"list_directory without a path: its cwd", def, "mcp__filesystem__list_directory", nil,
			guarded(ruled(Allow, 20, "."), "data/skald")},
		{"an unknown tool of the server is not a file tool", def, "mcp__filesystem__zip",
			map[string]any{"path": "memory/a"}, n1(ruled(Allow, 20, "memory/a"))},
		{"another server is not a file server", def, "mcp__fs__read_file",
			map[string]any{"path": "secrets/key"},
			Decision{Action: Require, Reason: ReasonDenied + ": secrets", Path: "secrets/key",
				PathState: PathOK, Contains: "secrets", Paths: 1}},
		{"a configured server", custom, "mcp__files-2__get_file_info",
			map[string]any{"path": "secrets/key"}, n1(ruled(Deny, 11, "secrets/key"))},
		{"the default server when others are configured", custom, "mcp__filesystem__read_file",
			map[string]any{"path": "memory/a"}, n1(ruled(Allow, 20, "memory/a"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.Evaluate(DefaultGroup, Call{Tool: tc.tool, Args: tc.args})
			if got != tc.want {
				t.Errorf("%s %v\n got  %+v\n want %+v", tc.tool, tc.args, got, tc.want)
			}
		})
	}
	if !def.MatchTool(ClassFSRead, "mcp__filesystem__search_files") ||
		!def.MatchTool(ClassFSWrite, "mcp__filesystem__create_directory") ||
		def.MatchTool(ClassFSWrite, "mcp__filesystem__read_file") {
		t.Error("MatchTool: the MCP filesystem tools are not in their classes")
	}
	// Each of the reference server's tools, written out here rather than read from
	// MCPFSRead and MCPFSWrite, is in its class under every configured server, and
	// denied in secrets/; under a server not configured none is a file tool.
	for class, tools := range map[string][]string{
		ClassFSRead: {"read_file", "read_text_file", "read_media_file", "read_multiple_files",
			"list_directory", "list_directory_with_sizes", "directory_tree", "search_files",
			"get_file_info"},
		ClassFSWrite: {"write_file", "edit_file", "create_directory", "move_file"},
	} {
		for _, tool := range tools {
			for _, c := range []struct {
				s      *Set
				server string
				file   bool
			}{{def, "filesystem", true}, {custom, "fs", true}, {custom, "files-2", true},
				{custom, "filesystem", false}, {def, "fs", false}} {
				name := "mcp__" + c.server + "__" + tool
				if c.s.MatchTool(class, name) != c.file {
					t.Errorf("MatchTool(%s, %s) = %v", class, name, !c.file)
				}
				d := c.s.Evaluate(DefaultGroup, Call{Tool: name,
					Args: map[string]any{"path": "secrets/key"}})
				if c.file && (d.Action != Deny || d.RuleID != 11) {
					t.Errorf("%s secrets/key = %+v, want denied by rule 11", name, d)
				}
				if !c.file && d.Action == Allow {
					t.Errorf("%s secrets/key allowed: %+v", name, d)
				}
			}
		}
	}
}

// TestEvaluateUnresolvable covers the paths the service cannot resolve for the agent:
// require, locked, and still deny when another path is denied.
func TestEvaluateUnresolvable(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "@fs_read", AgentID: "reviewer",
			Action: Allow, Priority: 50},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "Edit", Action: Deny, Priority: 1})
	mustSymlink(t, "/proc/self/cwd", root+"/data/me")
	mustSymlink(t, "/dev/stdin", root+"/data/in")
	s := Compile(nil, rs, seedOptions(root))
	rev := func(path string) Call {
		return Call{Tool: "Read", AgentID: "reviewer", Args: map[string]any{"file_path": path}}
	}
	badAllow := locked(0, ReasonBadPath, 1)
	runEvalCases(t, s, []evalCase{
		{"/proc/self/cwd", "", rev("/proc/self/cwd/secrets/key"), badAllow},
		{"/proc/thread-self", "", rev("/proc/thread-self/root/etc/passwd"), badAllow},
		{"/proc/<pid>/cwd", "", rev("/proc/1/cwd/x"), badAllow},
		{"/proc/self itself", "", rev("/proc/self"), badAllow},
		{"/proc/./self", "", rev("/proc/./self/environ"), badAllow},
		{"/dev/fd", "", rev("/dev/fd/3"), badAllow},
		{"/dev/stdin leads to /proc/self", "", rev("/dev/stdin"), badAllow},
		{"a link in the workspace to /proc/self", "", rev("data/me/secrets/key"), badAllow},
		{"a link to /dev/stdin", "", rev("data/in"), badAllow},
		{"a cwd through /proc/self", "",
			Call{Tool: "Read", AgentID: "reviewer", Args: map[string]any{"file_path": "docs/x"},
				Cwd: "/proc/self/cwd"},
			forms(badAllow, 2)},
		// The workspace root is a base too, and there the path is in secrets/.
		{"a cwd through /proc/self, secrets/ from the root", "",
			Call{Tool: "Read", AgentID: "reviewer",
				Args: map[string]any{"file_path": "secrets/key"}, Cwd: "/proc/self/cwd"},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"/proc itself is a path", "", rev("/proc/cpuinfo"),
			n1(ruled(Allow, 20, "/proc/cpuinfo"))},
		{"/proc/selfish is not /proc/self", "", rev("/proc/selfish"),
			n1(ruled(Allow, 20, "/proc/selfish"))},
		{"a NUL byte", "", rev("memory/a\x00"), badAllow},
		{"a symlink loop", "", rev("data/loop1"), badAllow},
		{"a NUL in the cwd, absolute path", "",
			Call{Tool: "Read", AgentID: "reviewer",
				Args: map[string]any{"file_path": root + "/memory/a"}, Cwd: "x\x00"}, badAllow},
		{"a NUL in the cwd, no path", "", Call{Tool: "mcp__x__y", Cwd: "x\x00"},
			locked(12, ReasonRule, 0)},
		{"a NUL in the cwd, a file tool with no path", "",
			Call{Tool: "Read", AgentID: "reviewer", Cwd: "x\x00"}, locked(0, ReasonBadPath, 0)},
		{"unresolvable beside a denied path: deny", "",
			Call{Tool: "Read", AgentID: "reviewer",
				Args: map[string]any{"path": "/proc/self/cwd", "file_path": "secrets/key"}},
			Decision{Action: Deny, RuleID: 11, Reason: ReasonRule, Path: "secrets/key",
				PathState: PathOK, Paths: 2}},
		{"unresolvable under a tool's deny: deny", "",
			Call{Tool: "Edit", Args: map[string]any{"file_path": "/proc/self/cwd/x"}},
			Decision{Action: Deny, RuleID: 21, Reason: ReasonRule, PathState: PathInvalid,
				Paths: 1}},
		{"unresolvable beside an allowed path: locked", "",
			Call{Tool: "Read", AgentID: "reviewer",
				Args: map[string]any{"path": "memory/a", "file_path": "/dev/fd/0"}},
			locked(0, ReasonBadPath, 2)},
	})
	if d := s.Evaluate(DefaultGroup, rev("/proc/self/cwd/secrets/key")); !d.Locked() {
		t.Errorf("%+v: want Locked", d)
	}
}

// TestEvaluateUninspectable: a directory the service may not search hides where a path
// leads; as root every directory can be searched, so the test needs another user.
func TestEvaluateUninspectable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root searches every directory")
	}
	root := workspace(t)
	if err := os.Mkdir(root+"/data/private", 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, "../../secrets/key", root+"/data/private/k")
	if err := os.Chmod(root+"/data/private", 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root+"/data/private", 0o755) })
	s := Compile(nil, seedRules(), seedOptions(root))
	if d := s.Evaluate(DefaultGroup, read("data/private/k")); !d.Locked() ||
		d.PathState != PathInvalid {
		t.Errorf("Read data/private/k → %+v, want a locked require", d)
	}
}
