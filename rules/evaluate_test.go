package rules

import (
	"cmp"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

type evalCase struct {
	name  string
	group string // "" means DefaultGroup
	call  Call
	want  Decision
}

func runEvalCases(t *testing.T, s *Set, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			group := tc.group
			if group == "" {
				group = DefaultGroup
			}
			got := s.Evaluate(group, tc.call)
			if tc.want.Paths == 0 {
				tc.want.Paths = pathCount(s, tc.call)
			}
			if got != tc.want {
				t.Errorf("Evaluate(%q, %+v)\n got  %+v\n want %+v", group, tc.call, got, tc.want)
			}
		})
	}
}

// pathCount is how many path arguments c has under s's keys: Decision.Paths.
func pathCount(s *Set, c Call) int {
	n := 0
	for _, k := range s.opt.PathArgs {
		if v, ok := c.Args[k]; ok && v != nil && v != "" {
			n++
		}
	}
	return n
}

func read(path string) Call {
	return Call{Tool: "read_file", Args: map[string]any{"path": path}}
}

func ruled(a Action, id uint64, path string) Decision {
	d := Decision{Action: a, RuleID: id, Reason: ReasonRule}
	if path != "" {
		d.Path, d.PathState = path, PathOK
	}
	return d
}

// forms is d decided on n forms of its paths (Decision.Paths).
func forms(d Decision, n int) Decision { d.Paths = n; return d }

// inPlace is the locked require of a call with an argument string in a guarded place.
func inPlace(reason, place, path string) Decision {
	return Decision{Action: Require, Reason: reason + ": " + place, Contains: place, Path: path,
		PathState: PathOK}
}

// protected is the deny of a call on path in a protected place (Options.Protected).
func protected(path string) Decision {
	return Decision{Action: Deny, Reason: ReasonProtected, Path: path, PathState: PathOK}
}

func withState(d Decision, st PathState) Decision { d.PathState = st; return d }

func withPath(d Decision, path string) Decision { d.Path, d.PathState = path, PathOK; return d }

// TestEvaluateSeeded covers matching, paths and default require with the seeded rules
// of group default.
func TestEvaluateSeeded(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	catchAll := ruled(Require, 12, "")
	runEvalCases(t, s, []evalCase{
		// Exact names and the catch-all.
		{"exact require", "", Call{Tool: "Bash", Args: map[string]any{"input": "ls"}},
			ruled(Require, 2, "")},
		{"exact allow", "", Call{Tool: "TodoWrite"}, ruled(Allow, 8, "")},
		{"unknown tool meets the catch-all", "", Call{Tool: "mcp__gmail__send"}, catchAll},
		// Paths.
		{"memory subtree", "", read("memory/a/b"), ruled(Allow, 9, "memory/a/b")},
		{"memory itself", "", read("memory"), ruled(Allow, 9, "memory")},
		{"sibling memory-secrets is not memory/*", "", read("memory-secrets/x"),
			withPath(catchAll, "memory-secrets/x")},
		{"docs/../secrets/x", "", read("docs/../secrets/x"), ruled(Deny, 11, "secrets/x")},
		{"symlink into secrets", "", read("data/link"), ruled(Deny, 11, "secrets/x")},
		{"below a symlink into secrets", "", read("data/link/y"), ruled(Deny, 11, "secrets/x/y")},
		{"dotdot after a symlink leaves its target", "", read("data/link/../key"),
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"symlink whose target does not exist yet", "", read("data/new"),
			ruled(Deny, 11, "secrets/newx")},
		{"dotdot out of a new directory meets a symlink", "", read("data/newdir/../link/y"),
			ruled(Deny, 11, "secrets/x/y")},
		{"data file", "", read("data/file.txt"), ruled(Allow, 10, "data/file.txt")},
		{"new file in data", "",
			Call{Tool: "Write", Args: map[string]any{"file_path": "data/a/../b.txt"}},
			ruled(Allow, 10, "data/b.txt")},
		{"dotdot out of the root", "", read("data/../../x"),
			withPath(catchAll, filepath.Dir(root)+"/x")},
		{"symlink loop matches no path rule", "", read("data/loop1"),
			withState(catchAll, PathInvalid)},
		{"NUL byte matches no path rule", "", read("secrets/x\x00"),
			withState(catchAll, PathInvalid)},
		{"path not a string", "", Call{Tool: "read_file", Args: map[string]any{"path": 42}},
			withState(catchAll, PathInvalid)},
		{"path an object", "",
			Call{Tool: "read_file",
				Args: map[string]any{"path": map[string]any{"p": "secrets/x"}}},
			withState(catchAll, PathInvalid)},
		{"a non-string path gives way to a string", "",
			Call{Tool: "read_file", Args: map[string]any{"path": 42, "file_path": "secrets/key"}},
			ruled(Deny, 11, "secrets/key")},
		// Which argument is the path.
		{"empty path falls to file_path", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "", "file_path": "secrets/key"}},
			ruled(Deny, 11, "secrets/key")},
		{"null path falls to file_path", "",
			Call{Tool: "read_file", Args: map[string]any{"path": nil, "file_path": "secrets/key"}},
			ruled(Deny, 11, "secrets/key")},
		{"file_path before notebook_path", "",
			Call{Tool: "NotebookEdit",
				Args: map[string]any{"file_path": "secrets/key",
					"notebook_path": "memory/n.ipynb"}},
			ruled(Deny, 11, "secrets/key")},
		{"notebook_path alone", "",
			Call{Tool: "NotebookEdit", Args: map[string]any{"notebook_path": "memory/n.ipynb"}},
			ruled(Allow, 9, "memory/n.ipynb")},
		{"other keys are no path: the cwd is", "",
			Call{Tool: "read_file", Args: map[string]any{"url": "memory/a"}, Cwd: "docs"},
			withPath(catchAll, "docs")},
		{"other keys are scanned: a denied place locks", "",
			Call{Tool: "read_file", Args: map[string]any{"url": "secrets/key"}, Cwd: "docs"},
			inPlace(ReasonDenied, "secrets", "secrets/key")},
		{"no path: path rules do not match", "",
			Call{Tool: "mcp__files__read", Args: map[string]any{"url": "memory/a"}}, catchAll},
		// The base of a relative path.
		{"relative to cwd", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "memory/a"}, Cwd: root,
				WorkingDir: root},
			ruled(Allow, 9, "memory/a")},
		{"relative: the root counts beside cwd and the working directory", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "a"}, Cwd: root + "/memory",
				WorkingDir: root + "/memory"},
			forms(withPath(catchAll, "a"), 2)},
		{"relative: the working directory counts beside cwd", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "a"}, Cwd: root + "/memory",
				WorkingDir: root + "/secrets"},
			forms(ruled(Deny, 11, "secrets/a"), 3)},
		{"relative: the root counts beside cwd", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "secrets/key"},
				Cwd: root + "/memory"},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"relative cwd is relative to the root", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "key"}, Cwd: "secrets"},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"cwd through a symlink", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "../key"},
				Cwd: root + "/data/link"},
			forms(ruled(Deny, 11, "secrets/key"), 3)},
		{"relative to the working directory", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "key"},
				WorkingDir: root + "/secrets"},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"relative to the workspace root", "", read("secrets/key"),
			ruled(Deny, 11, "secrets/key")},
		{"absolute under the root", "", read(root + "/memory/a"), ruled(Allow, 9, "memory/a")},
		{"absolute outside the root stays absolute", "", read("/etc/../etc/passwd"),
			withState(Decision{Action: Require, RuleID: 12, Reason: ReasonRule,
				Path: "/etc/passwd"}, PathOK)},
		// Protected paths come first, for every tool.
		{"data directory", "", read("state/skald.db"), protected("state/skald.db")},
		{"data directory itself", "",
			Call{Tool: "list_files", Args: map[string]any{"path": "state"}}, protected("state")},
		{"data directory through a symlink", "",
			Call{Tool: "write_file", Args: map[string]any{"path": "data/state-link/skald.db"}},
			protected("state/skald.db")},
		{"config file", "", read(root + "/skald.yaml"), protected("skald.yaml")},
		{"config file through a symlink", "", read("data/config-link"), protected("skald.yaml")},
		{"protected for any tool with a path", "",
			Call{Tool: "TodoWrite", Args: map[string]any{"path": "state/x"}},
			protected("state/x")},
		{"protected under a later path key", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "memory/a", "file_path": "data/state-link/skald.db"}},
			protected("state/skald.db")},
		{"protected under a later key after an invalid path", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "data/loop1", "notebook_path": "skald.yaml"}},
			protected("skald.yaml")},
		{"protected after a non-string path", "",
			Call{Tool: "Read", Args: map[string]any{"path": true, "file_path": "state"}},
			protected("state")},
		{"a sibling of the data directory is not protected", "", read("state-x"),
			withState(Decision{Action: Require, RuleID: 12, Reason: ReasonRule, Path: "state-x"},
				PathOK)},
	})
}

// TestEvaluateEveryPathKey covers (docs/design.md, "Path arguments"): every path argument key is
// evaluated and the most restrictive outcome wins, so a decoy key cannot vouch for
// another one.
func TestEvaluateEveryPathKey(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	two := func(d Decision) Decision { d.Paths = 2; return d }
	badPath := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
	catchAll := ruled(Require, 12, "")
	runEvalCases(t, s, []evalCase{
		{"a decoy path beside a file_path in secrets", "", Call{Tool: "Edit", Args: map[string]any{
			"path": "memory/x", "file_path": "secrets/key", "old_string": "a", "new_string": "b"}},
			two(ruled(Deny, 11, "secrets/key"))},
		{"the deny first", "",
			Call{Tool: "Edit",
				Args: map[string]any{"path": "secrets/key", "file_path": "memory/x"}},
			two(ruled(Deny, 11, "secrets/key"))},
		{"a decoy notebook_path", "",
			Call{Tool: "NotebookEdit",
				Args: map[string]any{"notebook_path": "memory/n.ipynb",
					"file_path": "data/link/../key"}},
			forms(ruled(Deny, 11, "secrets/key"), 3)},
		{"two allows: the first key decides", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "memory/a", "file_path": "data/file.txt"}},
			two(ruled(Allow, 9, "memory/a"))},
		{"an allow and a require: require", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "memory/a", "notebook_path": "docs/x"}},
			two(withPath(catchAll, "docs/x"))},
		{"a non-string beside an allow: require", "",
			Call{Tool: "Read", Args: map[string]any{"path": "memory/a", "file_path": 42}},
			two(withState(catchAll, PathInvalid))},
		{"a symlink loop beside an allow: require", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "memory/a", "file_path": "data/loop1"}},
			two(withState(catchAll, PathInvalid))},
		{"an invalid path under a rule's allow: require", "",
			Call{Tool: "TodoWrite", Args: map[string]any{"path": 42}}, badPath},
		{"an invalid later key under a rule's allow: require", "",
			Call{Tool: "TodoWrite",
				Args: map[string]any{"path": "memory/a", "file_path": []any{[]any{"x"}}}},
			two(badPath)},
		{"null and empty keys are no paths", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": nil, "file_path": "", "notebook_path": "memory/n"}},
			ruled(Allow, 9, "memory/n")},
		{"the same path twice", "",
			Call{Tool: "Read",
				Args: map[string]any{"path": "memory/a", "file_path": root + "/memory/a"}},
			two(ruled(Allow, 9, "memory/a"))},
	})
}

// TestEvaluateOrder covers (docs/design.md, "Rule order"): tiers, ordering, filters.
func TestEvaluateOrder(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		// default tier
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__gmail__*", Action: Deny,
			Priority: 50},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "deploy", AgentID: "bot1", Action: Allow,
			Priority: 50},
		Rule{ID: 22, GroupID: DefaultGroup, ToolPattern: "deploy", Source: "cron", Action: Deny,
			Priority: 50},
		Rule{ID: 23, GroupID: DefaultGroup, ToolPattern: "order", Action: Deny, Priority: 60},
		Rule{ID: 24, GroupID: DefaultGroup, ToolPattern: "order", Action: Allow, Priority: 60},
		Rule{ID: 25, GroupID: DefaultGroup, ToolPattern: "order", Action: Require, Priority: 59},
		Rule{ID: 26, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 46},
		Rule{ID: 27, GroupID: DefaultGroup, ToolPattern: "mcp__gmail__send", Action: Require,
			Priority: 45},
		// group dev: its allow overrides the default deny of secrets/ (its tier comes first)
		Rule{ID: 30, GroupID: "dev", ToolPattern: "@fs_read", PathPattern: "secrets/*",
			Action: Allow, Priority: 100},
		Rule{ID: 31, GroupID: "dev", ToolPattern: "Bash", Action: Allow, Priority: 999},
		Rule{ID: 32, GroupID: "dev", ToolPattern: "@fs_any", PathPattern: "state/*", Action: Allow,
			Priority: 0},
	)
	s := Compile([]Group{{ID: "dev"}}, rs, seedOptions(root))
	runEvalCases(t, s, []evalCase{
		{"prefix pattern", "", Call{Tool: "mcp__gmail__list"}, ruled(Allow, 26, "")},
		{"exact beats prefix by priority", "", Call{Tool: "mcp__gmail__send"},
			ruled(Require, 27, "")},
		{"the prefix itself matches", "", Call{Tool: "mcp__gmail__"}, ruled(Allow, 26, "")},
		{"other server's prefix", "", Call{Tool: "mcp__gmailx__send"}, ruled(Allow, 26, "")},
		{"priority first", "", Call{Tool: "order"}, ruled(Require, 25, "")},
		{"agent filter holds", "", Call{Tool: "deploy", AgentID: "bot1", Source: "cron"},
			ruled(Allow, 21, "")},
		{"agent filter excludes another agent", "",
			Call{Tool: "deploy", AgentID: "bot2", Source: "cron"}, ruled(Deny, 22, "")},
		{"agent filter excludes no agent", "", Call{Tool: "deploy", Source: "cron"},
			ruled(Deny, 22, "")},
		{"source filter excludes another source", "",
			Call{Tool: "deploy", AgentID: "bot2", Source: "web"}, ruled(Require, 12, "")},
		{"group allow overrides the default deny", "dev", read("secrets/key"),
			ruled(Allow, 30, "secrets/key")},
		{"group rule for reads only", "dev",
			Call{Tool: "write_file", Args: map[string]any{"path": "secrets/key"}},
			ruled(Deny, 11, "secrets/key")},
		{"group tier before default, whatever the priority", "dev", Call{Tool: "Bash"},
			ruled(Allow, 31, "")},
		{"group falls back to default", "dev", Call{Tool: "TodoWrite"}, ruled(Allow, 8, "")},
		{"group cannot open the protected path", "dev", read("state/skald.db"),
			protected("state/skald.db")},
		{"unknown group uses the default tier", "nope", Call{Tool: "Bash"}, ruled(Require, 2, "")},
	})
}

// TestEvaluateSameIDOrder checks the id tie-break among equal priorities whatever the
// order rules are given in.
func TestEvaluateSameIDOrder(t *testing.T) {
	rs := []Rule{
		{ID: 9, GroupID: DefaultGroup, ToolPattern: "*", Action: Deny, Priority: 7},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "t*", Action: Allow, Priority: 7},
		{ID: 5, GroupID: DefaultGroup, ToolPattern: "tool", Action: Require, Priority: 7},
	}
	s := Compile(nil, rs, Options{WorkspaceRoot: "/"})
	if d := s.Evaluate(DefaultGroup, Call{Tool: "tool"}); d.RuleID != 3 {
		t.Errorf("got rule %d, want 3 (lowest id among equal priorities)", d.RuleID)
	}
	if d := s.Evaluate(DefaultGroup, Call{Tool: "x"}); d.RuleID != 9 {
		t.Errorf("got rule %d, want 9", d.RuleID)
	}
}

// TestEvaluateDefaultClosed covers default require: no rule → require.
func TestEvaluateDefaultClosed(t *testing.T) {
	s := Compile(nil, nil, Options{WorkspaceRoot: t.TempDir()})
	want := Decision{Action: Require, Reason: ReasonNoRule}
	if got := s.Evaluate(DefaultGroup, Call{Tool: "Bash"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	s = Compile(nil,
		[]Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Allow, AgentID: "a"}},
		Options{})
	if got := s.Evaluate(DefaultGroup, Call{Tool: "Bash", AgentID: "b"}); got != want {
		t.Errorf("filtered out: got %+v, want %+v", got, want)
	}
}

// TestEvaluateClasses covers the @fs classes with configured tool lists and
// configured path argument keys.
func TestEvaluateClasses(t *testing.T) {
	root := workspace(t)
	rs := []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "@fs_read", PathPattern: "docs/*",
			Action: Allow, Priority: 1},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "@fs_write", PathPattern: "docs/*",
			Action: Deny, Priority: 1},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "@fs_any", Action: Require, Priority: 2},
	}
	s := Compile(nil, rs,
		Options{WorkspaceRoot: root, FSRead: []string{"cat", "both"},
			FSWrite: []string{"tee", "both"}, PathArgs: []string{"target", "path"}})
	call := func(tool string, args map[string]any) Call { return Call{Tool: tool, Args: args} }
	runEvalCases(t, s, []evalCase{
		{"custom read tool", "", call("cat", map[string]any{"target": "docs/a"}),
			ruled(Allow, 1, "docs/a")},
		{"custom write tool", "", call("tee", map[string]any{"target": "docs/a"}),
			ruled(Deny, 2, "docs/a")},
		{"a tool in both lists", "", call("both", map[string]any{"target": "docs/a"}),
			ruled(Allow, 1, "docs/a")},
		{"a default read tool is no longer one: the guard of denied places", "",
			call("read_file", map[string]any{"target": "docs/a"}),
			Decision{Action: Require, Reason: ReasonDenied + ": docs", Contains: "docs",
				Path: "docs/a", PathState: PathOK, Paths: 1}},
		{"@fs_any without a path: on its cwd, which holds the write deny's docs/", "",
			call("tee", nil), Decision{Action: Require, RuleID: 3,
				Reason: ReasonContains + ": docs", Path: ".", PathState: PathOK,
				Contains: "docs"}},
		{"every configured key counts", "",
			call("cat", map[string]any{"path": "x", "target": "docs/b"}), ruled(Require, 3, "x")},
		{"a default key is no longer one: the call is on its cwd", "",
			call("cat", map[string]any{"file_path": "memo"}), ruled(Require, 3, ".")},
		{"a default key is no longer one: scanned, a denied place locks", "",
			call("cat", map[string]any{"file_path": "docs/b"}),
			inPlace(ReasonDenied, "docs", "docs/b")},
	})
	if !s.IsFSRead("both") || !s.IsFSWrite("both") || s.IsFSRead("tee") || s.IsFSWrite("cat") ||
		s.IsFSRead("read_file") {
		t.Error("IsFSRead/IsFSWrite disagree with the configured lists")
	}
}

// TestEvaluatePatternSymlink covers a pattern following its name: a secrets directory
// that is itself a symlink still matches secrets/*, whether the rule carries its
// resolved pattern or Compile resolves it.
func TestEvaluatePatternSymlink(t *testing.T) {
	root := workspace(t)
	mustRename(t, root+"/secrets", root+"/vault")
	mustSymlink(t, "vault", root+"/secrets")
	if got := ResolvePattern("secrets/*", root); got != "vault/*" {
		t.Fatalf("ResolvePattern(secrets/*) = %q, want vault/*", got)
	}
	for _, resolved := range []string{"", "vault/*"} {
		rs := []Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "@fs_any",
			PathPattern: "secrets/*", ResolvedPathPattern: resolved, Action: Deny}}
		s := Compile(nil, rs, Options{WorkspaceRoot: root})
		for _, p := range []string{"secrets/key", "vault/key", "data/link",
			root + "/secrets/x/y"} {
			if d := s.Evaluate(DefaultGroup, read(p)); d.Action != Deny || d.RuleID != 1 {
				t.Errorf("resolved %q: %s → %+v, want deny by rule 1", resolved, p, d)
			}
		}
	}
}

// TestVisible covers which tools an agent sees.
func TestVisible(t *testing.T) {
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "rm_rf", Action: Deny, Priority: 1},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "mcp__bank__*", AgentID: "bob",
			Action: Deny, Priority: 1},
		Rule{ID: 22, GroupID: DefaultGroup, ToolPattern: "mcp__bank__*", Source: "slack",
			Action: Deny, Priority: 2},
		Rule{ID: 23, GroupID: DefaultGroup, ToolPattern: "web_*", Action: Allow, Priority: 1},
		Rule{ID: 24, GroupID: DefaultGroup, ToolPattern: "web_*", Action: Deny, Priority: 2},
		Rule{ID: 30, GroupID: "ops", ToolPattern: "rm_rf", Action: Require, Priority: 500},
		Rule{ID: 31, GroupID: "ops", ToolPattern: "Bash", Action: Deny, Priority: 500},
	)
	s := Compile([]Group{{ID: "ops"}}, rs, Options{WorkspaceRoot: t.TempDir()})
	for _, tc := range []struct {
		group, agent, source, tool string
		want                       bool
	}{
		{DefaultGroup, "", "", "Bash", true},       // require is shown
		{DefaultGroup, "", "", "rm_rf", false},     // deny hides
		{DefaultGroup, "", "", "never_seen", true}, // the catch-all requires
		{DefaultGroup, "", "", "read_file", true},  // the secrets/ deny has a path: ignored
		{DefaultGroup, "bob", "web", "mcp__bank__pay", false},
		{DefaultGroup, "ann", "web", "mcp__bank__pay", true},
		{DefaultGroup, "", "web", "mcp__bank__pay", false}, // no agent named: bob's rule applies
		{DefaultGroup, "ann", "slack", "mcp__bank__pay", false},
		// no source named: the slack rule applies
		{DefaultGroup, "ann", "", "mcp__bank__pay", false},
		{DefaultGroup, "", "", "web_search", true}, // first match is the allow
		{"ops", "", "", "rm_rf", true},             // group tier first
		{"ops", "", "", "Bash", false},
		{"ops", "", "", "TodoWrite", true},
		{"unknown", "", "", "rm_rf", false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			if got := s.Visible(tc.group, tc.agent, tc.source, tc.tool); got != tc.want {
				t.Errorf("Visible(%q, %q, %q, %q) = %v, want %v",
					tc.group, tc.agent, tc.source, tc.tool, got, tc.want)
			}
		})
	}
}

// TestCompile covers what Compile keeps and leaves out.
func TestCompile(t *testing.T) {
	rs := []Rule{
		// invalid: left out
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "a*b", Action: Deny},
		// unknown group: left out
		{ID: 2, GroupID: "ghost", ToolPattern: "x", Action: Deny},
		// invalid: left out
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "x", Action: "maybe"},
		{ID: 4, GroupID: "dev", ToolPattern: "y", Action: Deny, Priority: 100}, // kept
	}
	s := Compile([]Group{{ID: "dev"}}, rs, Options{WorkspaceRoot: "/w/./x/"})
	if d := s.Evaluate(DefaultGroup, Call{Tool: "ab"}); d.Reason != ReasonNoRule {
		t.Errorf("invalid rule 1 was kept: %+v", d)
	}
	if d := s.Evaluate("ghost", Call{Tool: "x"}); d.Reason != ReasonNoRule {
		t.Errorf("rule 2 of an unknown group was kept: %+v", d)
	}
	if d := s.Evaluate("dev", Call{Tool: "y"}); d.RuleID != 4 {
		t.Errorf("rule 4 was left out: %+v", d)
	}
	if !s.HasGroup(DefaultGroup) || !s.HasGroup("dev") || s.HasGroup("ghost") {
		t.Error("HasGroup: want default and dev only")
	}
	o := s.Options()
	if o.WorkspaceRoot != "/w/x" || len(o.FSRead) != len(DefaultFSRead) ||
		len(o.FSWrite) != len(DefaultFSWrite) || len(o.PathArgs) != len(DefaultPathArgs) ||
		!slices.Equal(o.MCPFilesystem, DefaultMCPFilesystem) {
		t.Errorf("Options() = %+v, want defaults filled and the root cleaned", o)
	}
	o.PathArgs[0] = "changed"
	if s.Options().PathArgs[0] != "path" {
		t.Error("Options() shares its slices with the Set")
	}
	// The input slices are not kept.
	args := []string{"p"}
	s = Compile(nil,
		[]Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "t", PathPattern: "*", Action: Allow}},
		Options{WorkspaceRoot: "/w", PathArgs: args})
	args[0] = "q"
	c := Call{Tool: "t", Args: map[string]any{"p": "a"}}
	if d := s.Evaluate(DefaultGroup, c); d.RuleID != 1 {
		t.Errorf("PathArgs changed after Compile: %+v", d)
	}
}

// TestMatchTool covers tool pattern matching as the gate uses it.
func TestMatchTool(t *testing.T) {
	s := Compile(nil, nil, Options{})
	for _, tc := range []struct {
		pattern, tool string
		want          bool
	}{
		{"*", "anything", true},
		{"Bash", "Bash", true},
		{"Bash", "bash", false},
		{"Bash", "Bash2", false},
		{"mcp__gmail__*", "mcp__gmail__send", true},
		{"mcp__gmail__*", "mcp__gmail__", true},
		{"mcp__gmail__*", "mcp__gmailx__send", false},
		{"mcp__gmail__*", "mcp__gmail", false},
		{"@fs_read", "Read", true},
		{"@fs_read", "Write", false},
		{"@fs_write", "Write", true},
		{"@fs_write", "grep_files", false},
		{"@fs_any", "NotebookEdit", true},
		{"@fs_any", "list_files", true},
		{"@fs_any", "Bash", false},
		{"@fs_bogus", "Read", false},
		{"", "", false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			if got := s.MatchTool(tc.pattern, tc.tool); got != tc.want {
				t.Errorf("MatchTool(%q, %q) = %v, want %v", tc.pattern, tc.tool, got, tc.want)
			}
		})
	}
}

// TestEvaluateConcurrent evaluates one Set from many goroutines (run with -race).
func TestEvaluateConcurrent(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 200 {
				if d := s.Evaluate(DefaultGroup, read("data/link")); d.Action != Deny {
					t.Errorf("data/link: %+v", d)
					return
				}
				if !s.Visible(DefaultGroup, "", "", "Bash") {
					t.Error("Bash hidden")
					return
				}
			}
		})
	}
	wg.Wait()
}

// linear is the reference the index is checked against: "Rule order" read
// literally, one rule after another.
type linear struct {
	s     *Set
	tiers map[string][]Rule      // valid rules per group, in (priority, id) order
	paths map[string]pathPattern // path_pattern → resolved
}

func newLinear(s *Set, rs []Rule) *linear {
	l := &linear{s: s, tiers: map[string][]Rule{}, paths: map[string]pathPattern{}}
	for _, r := range rs {
		if Validate(r) == nil {
			l.tiers[r.GroupID] = append(l.tiers[r.GroupID], r)
			l.paths[r.PathPattern] = parsePath(ResolvePattern(r.PathPattern, s.opt.WorkspaceRoot))
		}
	}
	for _, tier := range l.tiers {
		slices.SortStableFunc(tier, func(a, b Rule) int {
			return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.ID, b.ID))
		})
	}
	return l
}

// path is the call's "path" argument, normalised; for a file tool without one, its
// working directory.
func (l *linear) path(c Call) (string, PathState) {
	path, st := "", NoPath
	v, ok := c.Args["path"]
	if (!ok || v == nil || v == "") && (l.s.IsFSRead(c.Tool) || l.s.IsFSWrite(c.Tool)) {
		v, ok = ".", true
	}
	if ok && v != nil && v != "" {
		st = PathInvalid
		if p, ok := v.(string); ok {
			if np, ok := l.s.normalize(&c, p); ok {
				path, st = np, PathOK
			}
		}
	}
	return path, st
}

func (l *linear) tiersOf(group string) []string {
	if group != DefaultGroup && l.s.HasGroup(group) {
		return []string{group, DefaultGroup}
	}
	return []string{DefaultGroup}
}

func (l *linear) first(group string, c Call, visibility bool) (Rule, bool) {
	path, st := l.path(c)
	for _, g := range l.tiersOf(group) {
		for _, r := range l.tiers[g] {
			agentOK := r.AgentID == "" || r.AgentID == c.AgentID || visibility && c.AgentID == ""
			sourceOK := r.Source == "" || r.Source == c.Source || visibility && c.Source == ""
			pathOK := r.PathPattern == "" ||
				!visibility && st == PathOK && l.paths[r.PathPattern].match(path)
			if agentOK && sourceOK && pathOK && l.s.MatchTool(r.ToolPattern, c.Tool) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// abs is a normalised path made absolute again.
func (l *linear) abs(p string) string {
	switch {
	case p == ".":
		return l.s.opt.WorkspaceRoot
	case strings.HasPrefix(p, "/"):
		return p
	}
	return l.s.opt.WorkspaceRoot + "/" + p
}

// guarded reports whether the normalised path holds, other than itself, a protected
// path or something a deny rule with a path filter that applies to c denies — for a
// prefix pattern, the pattern's directory, itself included.
func (l *linear) guarded(group string, c Call, path string) bool {
	p := l.abs(path)
	exists := func(place string) bool { _, err := os.Lstat(place); return err == nil }
	strictlyHolds := func(place string) bool {
		return place != p && Under(place, p) && exists(place)
	}
	for _, pr := range l.s.view.Load().protected {
		if strictlyHolds(l.abs(pr)) {
			return true
		}
	}
	for _, g := range l.tiersOf(group) {
		for _, r := range l.tiers[g] {
			if r.Action != Deny || r.PathPattern == "" ||
				r.AgentID != "" && r.AgentID != c.AgentID ||
				r.Source != "" && r.Source != c.Source ||
				l.file(c.Tool) && !l.s.MatchTool(r.ToolPattern, c.Tool) {
				continue
			}
			pat := l.paths[r.PathPattern]
			if dir := l.abs(pathpkg.Dir(pat.s)); pat.kind == pathPrefix && Under(dir, p) &&
				exists(dir) || pat.kind != pathPrefix && strictlyHolds(l.abs(pat.s)) {
				return true
			}
		}
	}
	return false
}

func (l *linear) file(tool string) bool { return l.s.IsFSRead(tool) || l.s.IsFSWrite(tool) }

// linked reports whether a symlink directly in the directory that the normalised
// path names leads to a place that holds a guarded place (guarded), is one or lies
// in one (docs/design.md, "Protected and guarded places").
func (l *linear) linked(group string, c Call, path string) bool {
	ents, _ := os.ReadDir(l.abs(path))
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(filepath.Join(l.abs(path), e.Name()))
		if err != nil { // a loop, a dangling link: nothing to read through it
			continue
		}
		rel := l.s.relIn(target, 0)
		if l.guarded(group, c, rel) {
			return true
		}
		for _, pr := range l.s.view.Load().protected {
			if Under(target, l.abs(pr)) {
				return true
			}
		}
		for _, g := range l.tiersOf(group) {
			for _, r := range l.tiers[g] {
				if r.Action == Deny && r.PathPattern != "" &&
					(r.AgentID == "" || r.AgentID == c.AgentID) &&
					(r.Source == "" || r.Source == c.Source) &&
					(!l.file(c.Tool) || l.s.MatchTool(r.ToolPattern, c.Tool)) &&
					l.paths[r.PathPattern].match(rel) {
					return true
				}
			}
		}
	}
	return false
}

// inDenied reports whether a tool outside the file classes reaches, with the normalised
// path, a place a deny rule with a path filter denies, whatever its tool pattern.
func (l *linear) inDenied(group string, c Call, path string) bool {
	if l.file(c.Tool) {
		return false
	}
	for _, g := range l.tiersOf(group) {
		for _, r := range l.tiers[g] {
			if r.Action == Deny && r.PathPattern != "" &&
				(r.AgentID == "" || r.AgentID == c.AgentID) &&
				(r.Source == "" || r.Source == c.Source) && l.paths[r.PathPattern].match(path) {
				return true
			}
		}
	}
	return false
}

// TestIndexMatchesLinear checks the tool-name and directory indexes against the literal
// reading of docs/design.md, "Deciding a call", over many calls on a realistic mix of rules.
func TestIndexMatchesLinear(t *testing.T) {
	root := workspace(t)
	rs := append(mixRules(600),
		Rule{ID: 5000, GroupID: "dev", ToolPattern: "@fs_any", PathPattern: "./*", Action: Require,
			Priority: 3},
		Rule{ID: 5001, GroupID: DefaultGroup, ToolPattern: "read_*", PathPattern: "proj1*",
			Action: Deny, Priority: 2},
		Rule{ID: 5002, GroupID: DefaultGroup, ToolPattern: "*", PathPattern: "/etc/*",
			Action: Deny, Priority: 2},
		Rule{ID: 5003, GroupID: "dev", ToolPattern: "mcp__*", Source: "slack", Action: Allow,
			Priority: 1},
	)
	s := Compile([]Group{{ID: "dev"}, {ID: "empty"}}, rs,
		Options{WorkspaceRoot: root, Protected: []string{root + "/state"}})
	tools := []string{"read_file", "Write", "Edit", "grep_files", "Bash", "tool_0", "tool_30",
		"tool_537", "mcp__srv4__x", "mcp__srv8__act8", "mcp__srv41__y", "mcp__", "unknown"}
	paths := []any{nil, "", 7, "proj4/a", "proj6/src/x", "proj1x/y", "proj16/src", "secret9/k",
		"/etc/passwd", "memory/a", "data/link", ".", "/usr/x", "secrets/key", "proj6", "proj16",
		"/", "/etc", "state/x", "data", "proj1", filepath.Dir(root), "secret1"}
	agents := []string{"", "agent3", "agent7"}
	sources := []string{"", "slack", "cron", "web"}
	l := newLinear(s, rs)
	n, guarded := 0, 0
	for i := range 4000 {
		c := Call{
			Tool:    tools[i%len(tools)],
			AgentID: agents[i/7%len(agents)],
			Source:  sources[i/11%len(sources)],
		}
		if p := paths[i/3%len(paths)]; p != nil {
			c.Args = map[string]any{"path": p}
		}
		group := []string{DefaultGroup, "dev", "empty", "ghost"}[i%4]
		want, ok := l.first(group, c, false)
		d := s.Evaluate(group, c)
		path, st := l.path(c)
		switch {
		case st == PathOK && Under(path, "state"):
			if d.Action != Deny || d.Reason != ReasonProtected {
				t.Fatalf("Evaluate(%q, %+v) = %+v; want deny, protected", group, c, d)
			}
		case ok && want.Action == Deny:
			if d.Action != Deny || d.Reason != ReasonRule || d.RuleID != want.ID {
				t.Fatalf("Evaluate(%q, %+v) = %+v; linear scan: deny by rule %d",
					group, c, d, want.ID)
			}
		case st == PathOK && (l.inDenied(group, c, path) || l.guarded(group, c, path) ||
			l.linked(group, c, path)):
			guarded++
			wantID := uint64(0)
			if ok && want.Action == Require {
				wantID = want.ID
			}
			reason, why := ReasonContains, "it holds a guarded place"
			if l.inDenied(group, c, path) {
				reason, why = ReasonDenied, "it lies in a denied place"
			}
			if d.Action != Require || d.Contains == "" || d.Reason != reason+": "+d.Contains ||
				d.RuleID != wantID {
				t.Fatalf("Evaluate(%q, %+v) = %+v; %s: want require by rule %d",
					group, c, d, why, wantID)
			}
		case ok && want.Action == Allow && st == PathInvalid: // at least require
			if d.Action != Require || d.Reason != ReasonBadPath || d.RuleID != 0 {
				t.Fatalf("Evaluate(%q, %+v) = %+v; an invalid path under rule %d's allow, "+
					"want require", group, c, d, want.ID)
			}
		default:
			if d.Contains != "" || ok != (d.Reason == ReasonRule) || ok && d.RuleID != want.ID {
				t.Fatalf("Evaluate(%q, %+v) = %+v; linear scan: rule %d (%v)",
					group, c, d, want.ID, ok)
			}
		}
		want, ok = l.first(group, Call{Tool: c.Tool, AgentID: c.AgentID, Source: c.Source}, true)
		vis := !ok || want.Action != Deny
		if s.Visible(group, c.AgentID, c.Source, c.Tool) != vis {
			t.Fatalf("Visible(%q, %+v) = %v; linear scan: rule %d (%v)",
				group, c, !vis, want.ID, ok)
		}
		if ok {
			n++
		}
	}
	if n < 1000 || guarded < 200 {
		t.Errorf("only %d of 4000 calls matched a rule, %d held a guarded place: "+
			"the test checks little", n, guarded)
	}
}

// TestEvaluateGuarded covers the places a call's path must not contain without a human
// (docs/design.md, "Protected and guarded places"): a path that is a strict ancestor of a
// protected path, or of what a deny rule with a path filter denies for this call, is
// require with Contains set, whatever the rule said; the place itself is still denied.
func TestEvaluateGuarded(t *testing.T) {
	root := workspace(t)
	for _, d := range []string{"data/db", "src/gen", "docs/private"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opt := seedOptions(root)
	// a data_dir inside data/, as in config.example.yaml
	opt.Protected = append(opt.Protected, root+"/data/db")
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "@fs_read", PathPattern: "docs/private/*",
			AgentID: "bob", Action: Deny, Priority: 1},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_write", PathPattern: "docs/draft*",
			Action: Deny, Priority: 1},
		Rule{ID: 22, GroupID: DefaultGroup, ToolPattern: "@fs_any", PathPattern: "docs/*",
			Action: Allow, Priority: 2},
		Rule{ID: 30, GroupID: "dev", ToolPattern: "@fs_any", PathPattern: "src/gen/*",
			Action: Deny, Priority: 1},
		Rule{ID: 31, GroupID: "dev", ToolPattern: "@fs_any", PathPattern: "src/*", Action: Allow,
			Priority: 2},
	)
	s := Compile([]Group{{ID: "dev"}}, rs, opt)
	guarded := func(d Decision, place string) Decision {
		if d.Action == Allow {
			d.RuleID, d.Note = 0, ""
		}
		d.Action, d.Reason, d.Contains = Require, ReasonContains+": "+place, place
		return d
	}
	call := func(tool string, args map[string]any) Call { return Call{Tool: tool, Args: args} }
	catchAll := ruled(Require, 12, "")
	runEvalCases(t, s, []evalCase{
		// The tester's calls: Grep on the workspace, LS on the folder that holds data_dir.
		{"Grep the workspace", "", call("Grep", map[string]any{"pattern": "token", "path": "."}),
			guarded(withPath(catchAll, "."), "data/db")},
		{"Grep the workspace, absolute", "", call("Grep", map[string]any{"path": root}),
			guarded(withPath(catchAll, "."), "data/db")},
		{"LS the folder of data_dir", "", call("LS", map[string]any{"path": root + "/data"}),
			guarded(ruled(Allow, 10, "data"), "data/db")},
		{"LS above the workspace", "", call("LS", map[string]any{"path": filepath.Dir(root)}),
			guarded(withPath(catchAll, filepath.Dir(root)), "data/db")},
		{"LS /", "", call("LS", map[string]any{"path": "/"}),
			guarded(withPath(catchAll, "/"), "data/db")},
		{"a protected path holds for every tool", "",
			call("TodoWrite", map[string]any{"path": "data"}),
			guarded(ruled(Allow, 8, "data"), "data/db")},
		// The places themselves, and what lies beside them.
		{"data_dir itself", "", call("LS", map[string]any{"path": "data/db"}),
			protected("data/db")},
		{"secrets itself", "", call("LS", map[string]any{"path": "secrets"}),
			ruled(Deny, 11, "secrets")},
		{"a folder beside them", "", call("LS", map[string]any{"path": "memory"}),
			ruled(Allow, 9, "memory")},
		{"a folder below data, beside data_dir", "", call("LS", map[string]any{"path": "data/x"}),
			ruled(Allow, 10, "data/x")},
		{"a file of data", "", call("Read", map[string]any{"file_path": "data/file.txt"}),
			ruled(Allow, 10, "data/file.txt")},
		// A deny rule guards its place only for the calls it applies to.
		{"agent filter: bob", "",
			Call{Tool: "Read", AgentID: "bob", Args: map[string]any{"path": "docs"}},
			guarded(ruled(Allow, 22, "docs"), "docs/private")},
		{"agent filter: alice", "",
			Call{Tool: "Read", AgentID: "alice", Args: map[string]any{"path": "docs"}},
			ruled(Allow, 22, "docs")},
		{"tool filter: a write tool", "", call("Write", map[string]any{"file_path": "docs"}),
			guarded(ruled(Allow, 22, "docs"), "docs/draft*")},
		{"a prefix pattern: its own folder holds it", "",
			call("Write", map[string]any{"file_path": "docs/drafts"}),
			ruled(Deny, 21, "docs/drafts")},
		{"group tier", "dev", call("Read", map[string]any{"path": "src"}),
			guarded(ruled(Allow, 31, "src"), "src/gen")},
		{"not in another group", "", call("Read", map[string]any{"path": "src"}),
			withPath(catchAll, "src")},
		{"the default tier's places hold in a group", "dev",
			call("Read", map[string]any{"path": "."}),
			guarded(withPath(catchAll, "."), "data/db")},
		// Every path key counts: a guarded key outranks a plain require.
		{"a guarded second key", "",
			call("Read", map[string]any{"path": "/etc/x", "file_path": "."}), func() Decision {
				d := guarded(withPath(catchAll, "."), "data/db")
				d.Paths = 2
				return d
			}()},
	})
}

// TestEvaluateGuardedPrefixRoot covers prefix patterns at the top: the workspace holds
// what log* matches, a folder below it does not.
func TestEvaluateGuardedPrefixRoot(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "LS", PathPattern: "log*", Action: Deny,
			Priority: 1},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "LS", Action: Allow, Priority: 2},
	}, Options{WorkspaceRoot: root})
	for path, want := range map[string]string{".": "log*", "docs": "", root: "log*", "/": "log*",
		"/usr": ""} {
		d := s.Evaluate(DefaultGroup, Call{Tool: "LS", Args: map[string]any{"path": path}})
		if d.Contains != want || (want == "") != (d.Action == Allow) {
			t.Errorf("LS %q: %+v, want Contains %q", path, d, want)
		}
	}
}

// TestEvaluateFileToolWithoutPath covers (docs/design.md, "Path arguments") a file tool sent
// no path argument: Grep, Glob and LS then search their working directory, so the call
// is decided as if its path were the call's cwd, else the profile's working directory,
// else the workspace root — protected places, deny rules and guarded places included.
// Other tools without a path are decided by their rules alone.
func TestEvaluateFileToolWithoutPath(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, seedRules(), seedOptions(root))
	catchAll := ruled(Require, 12, "")
	// Glob's pattern names its directory
	one := func(d Decision) Decision { d.Paths = 1; return d }
	guarded := func(d Decision, place string) Decision {
		if d.Action == Allow {
			d.RuleID = 0
		}
		d.Action, d.Reason, d.Contains = Require, ReasonContains+": "+place, place
		return d
	}
	grep := map[string]any{"pattern": "token"}
	runEvalCases(t, s, []evalCase{
		{"Grep in the workspace root holds secrets/ and the data directories", "",
			Call{Tool: "Grep", Args: grep}, guarded(withPath(catchAll, "."), "data/skald")},
		{"Glob with the root as cwd", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "**/*"}, Cwd: root},
			one(guarded(withPath(catchAll, "."), "data/skald"))},
		{"LS {} in data/ holds data/skald despite the data/* allow", "",
			Call{Tool: "LS", Cwd: "data"}, guarded(ruled(Allow, 10, "data"), "data/skald")},
		{"LS {} in the data directory", "",
			Call{Tool: "LS", Args: map[string]any{}, Cwd: root + "/state"}, protected("state")},
		{"Grep in the data directory through a symlink", "",
			Call{Tool: "Grep", Args: grep, Cwd: "data/state-link"}, protected("state")},
		{"Grep in secrets/", "", Call{Tool: "Grep", Args: grep, Cwd: "secrets"},
			ruled(Deny, 11, "secrets")},
		{"Glob in a symlink into secrets/", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "*"}, Cwd: "data/link"},
			forms(ruled(Deny, 11, "secrets/x"), 2)},
		{"a write tool in secrets/", "",
			Call{Tool: "Write", Args: map[string]any{"content": "x"}, Cwd: "secrets"},
			ruled(Deny, 11, "secrets")},
		{"the profile's working directory", "", Call{Tool: "LS", WorkingDir: root + "/memory"},
			ruled(Allow, 9, "memory")},
		{"the cwd before the working directory", "",
			Call{Tool: "LS", Cwd: "memory", WorkingDir: root + "/secrets"},
			ruled(Allow, 9, "memory")},
		{"the working directory before the root", "",
			Call{Tool: "Grep", Args: grep, WorkingDir: "secrets"}, ruled(Deny, 11, "secrets")},
		{"a folder that holds nothing guarded", "", Call{Tool: "Grep", Args: grep, Cwd: "docs"},
			withPath(catchAll, "docs")},
		{"empty and null path keys are no path", "",
			Call{Tool: "read_file", Args: map[string]any{"path": "", "file_path": nil},
				Cwd: "secrets"},
			ruled(Deny, 11, "secrets")},
		{"a cwd that cannot be normalised", "", Call{Tool: "LS", Cwd: "data/loop1"},
			withState(catchAll, PathInvalid)},
		{"not a file tool: the rules alone", "", Call{Tool: "TodoWrite", Cwd: "state"},
			ruled(Allow, 8, "")},
		// Run in secrets/, any name a tool is given lies there.
		{"not a file tool", "",
			Call{Tool: "Task", Args: map[string]any{"input": "ls -l"}, Cwd: "secrets"},
			inPlace(ReasonDenied, "secrets", "secrets/ls")},
		{"not a file tool, elsewhere", "",
			Call{Tool: "Task", Args: map[string]any{"input": "ls -l"}, Cwd: "docs"}, catchAll},
		// A string with a "/" is scanned as a path against every base: cwd is secrets/.
		{"not a file tool, a string scanned", "",
			Call{Tool: "Task", Args: map[string]any{"input": "cat x/key"}, Cwd: "secrets"},
			inPlace(ReasonDenied, "secrets", "secrets/cat x/key")},
	})

	// The file tools are the Set's: a custom class changes which tools search their cwd.
	opt := seedOptions(root)
	opt.FSRead, opt.FSWrite = []string{"search_repo"}, []string{"save"}
	custom := Compile(nil,
		append(seedRules(),
			Rule{ID: 13, GroupID: DefaultGroup, ToolPattern: "Grep", Action: Allow, Priority: 1}),
		opt)
	runEvalCases(t, custom, []evalCase{
		{"a custom read tool", "", Call{Tool: "search_repo", Cwd: "secrets"},
			ruled(Deny, 11, "secrets")},
		{"a custom write tool", "", Call{Tool: "save", Cwd: "state"}, protected("state")},
		{"Grep is no longer a file tool", "", Call{Tool: "Grep", Args: grep, Cwd: "docs"},
			ruled(Allow, 13, "")},
		{"Grep is no longer a file tool, run in secrets/", "",
			Call{Tool: "Grep", Args: grep, Cwd: "secrets"},
			inPlace(ReasonDenied, "secrets", "secrets/token")},
	})

	// With no workspace root and no absolute directory there is nothing to resolve: an
	// allow becomes require, as for any path that cannot be normalised.
	bare := Compile(nil,
		[]Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "LS", Action: Allow, Priority: 1}},
		Options{})
	if d := bare.Evaluate(DefaultGroup, Call{Tool: "LS"}); d.Action != Require ||
		d.Reason != ReasonBadPath || d.PathState != PathInvalid {
		t.Errorf("LS {} with no directory: %+v, want require (%s)", d, ReasonBadPath)
	}
	d := bare.Evaluate(DefaultGroup, Call{Tool: "LS", Cwd: root + "/docs"})
	if d.Action != Allow || d.Path != root+"/docs" {
		t.Errorf("LS {} with an absolute cwd: %+v, want allow on it", d)
	}
}

// TestGuardedPlaceMustExist: a folder holds a guarded place only when that place is on
// disk at the time of the call — a workspace without secrets/ can be searched without a
// human — and holds it again as soon as it is created.
func TestGuardedPlaceMustExist(t *testing.T) {
	root := testkit.Dir(t, "src")
	rs := []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "@fs_any", PathPattern: "secrets/*",
			Action: Deny, Priority: 5},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "Grep", Action: Allow, Priority: 10},
	}
	s := Compile(nil, rs,
		Options{WorkspaceRoot: root, Protected: []string{filepath.Join(root, "state")}})
	grep := Call{Tool: "Grep", Args: map[string]any{"pattern": "token", "path": "."}}
	if d := s.Evaluate(DefaultGroup, grep); d.Action != Allow || d.Contains != "" {
		t.Fatalf("no secrets/ and no state/ yet: %+v, want allow by rule 2", d)
	}
	if err := os.MkdirAll(filepath.Join(root, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	if d := s.Evaluate(DefaultGroup, grep); d.Action != Require || d.Contains != "secrets" {
		t.Fatalf("secrets/ created: %+v, want require holding secrets", d)
	}
	if err := os.Remove(filepath.Join(root, "secrets")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if d := s.Evaluate(DefaultGroup, grep); d.Action != Require || d.Contains != "state" {
		t.Fatalf("protected state/ created: %+v, want require holding state", d)
	}
}
