package api_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// checkAs sends a call with the agent token in session "s" and returns the decision.
func (e *env) checkAs(tool string, args map[string]any, cwd string) api.CheckResult {
	e.t.Helper()
	res, err := e.client(agentToken).Check(context.Background(), api.CheckRequest{Call: gate.Call{
		ToolName: tool, SessionID: "s", Arguments: args, Cwd: cwd}})
	if err != nil {
		e.t.Fatalf("check %s %v: %v", tool, args, err)
	}
	return res
}

// addRule creates a rule through the API, in group agents when it names none.
func (e *env) addRule(r rules.Rule) {
	e.t.Helper()
	if r.GroupID == "" {
		r.GroupID = "agents"
	}
	if _, err := e.admin.CreateRule(context.Background(), r); err != nil {
		e.t.Fatalf("create rule %+v: %v", r, err)
	}
}

// wantDecision checks a call's decision; a denied call stores no request (its audit
// entry is written in the background, so the audit log is not compared).
func (e *env) wantDecision(tool string, args map[string]any, cwd string, want gate.Verdict) {
	e.t.Helper()
	pending := func() string {
		ps, err := e.db.Pending()
		testkit.Must(e.t, err)
		return testkit.JSON(ps)
	}
	before := pending()
	if res := e.checkAs(tool, args, cwd); res.Decision != want {
		e.t.Errorf("%s %v (cwd %q) = %+v, want %s", tool, args, cwd, res, want)
	}
	if after := pending(); want == gate.VerdictDeny && after != before {
		e.t.Errorf("a denied %s stored a request:\nbefore %s\nafter  %s", tool, before, after)
	}
}

// TestEveryPathArgument: under a plausible allow mcp__*, the MCP filesystem server's
// tools reach secrets/ and the data directory through paths, source and path; a
// notes tool's path in secrets/, a string naming one under any key and Glob's pattern
// out of its path are held back too.
func TestEveryPathArgument(t *testing.T) {
	e := newAPIEnv(t)
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Glob",
		Action: rules.Allow, Priority: 100})
	e.allowMCP()
	key := filepath.Join(e.root, "secrets", "key")
	e.wantDecision("mcp__filesystem__read_multiple_files",
		map[string]any{"paths": []any{"README.md", key}}, "", gate.VerdictDeny)
	e.wantDecision("mcp__filesystem__move_file",
		map[string]any{"source": "secrets/key", "destination": "out"}, "", gate.VerdictDeny)
	e.wantDecision("mcp__filesystem__read_file", map[string]any{"path": "secrets/key"},
		"", gate.VerdictDeny)
	e.wantDecision("mcp__filesystem__read_file", map[string]any{"path": "notes.txt"},
		"", gate.VerdictAllow)
	e.wantDecision("Glob", map[string]any{"pattern": "../secrets/*", "path": "docs"},
		"", gate.VerdictDeny)
	// Outside the file classes a denied place is for a human, whatever the bypass.
	e.wantDecision("mcp__notes__get", map[string]any{"path": "secrets/key"},
		"", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"path": "."}, "", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"path": "docs/a"}, "", gate.VerdictAllow)
	// Under any other key: a string or a word of it that names, lies in or holds one.
	for _, v := range []string{"secrets", ".", "/", e.root, "cat secrets/key",
		"--file=secrets/key", "a=secrets/key", "(secrets/key)", e.root + "/secret?/key"} {
		e.wantDecision("mcp__notes__run", map[string]any{"p": v}, "", gate.VerdictPending)
	}
	e.wantDecision("mcp__notes__run", map[string]any{"p": "notes about keys"},
		"", gate.VerdictAllow)
}

// TestProtectedEveryArgument: the data directory and the config file, inside the
// workspace as in config.example.yaml, are denied under any path argument of the MCP
// filesystem server's tools and under any key of another tool's, under a plausible
// allow mcp__*, allow Grep and a bypass of all; Grep's glob reaching out of its path is
// denied like Glob's pattern, and one that stays in it is not.
func TestProtectedEveryArgument(t *testing.T) {
	var data, conf string
	e := newAPIEnvGate(t, func(o *gate.Options) {
		data = filepath.Join(o.Rules.WorkspaceRoot, "skald-data")
		conf = filepath.Join(o.Rules.WorkspaceRoot, "skald.yaml")
		o.Rules.Protected = []string{data, conf}
	})
	testkit.Must(t, os.MkdirAll(data, 0o700))
	testkit.Files(t, e.root, "skald-data/skald.db", "skald.yaml", "docs/a.md")
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Grep",
		Action: rules.Allow, Priority: 100})
	e.allowMCP()
	db := filepath.Join(data, "skald.db")
	for _, c := range []struct {
		tool string
		args map[string]any
		want gate.Verdict
	}{
		{"mcp__filesystem__read_multiple_files", map[string]any{"paths": []any{db, conf}},
			gate.VerdictDeny},
		{"mcp__filesystem__read_multiple_files", map[string]any{"paths": db}, gate.VerdictDeny},
		{"mcp__filesystem__read_multiple_files",
			map[string]any{"paths": []any{"docs/a.md", "skald-data/admin.token"}},
			gate.VerdictDeny},
		{"mcp__filesystem__move_file", map[string]any{"source": "docs/a.md",
			"destination": "skald.yaml"}, gate.VerdictDeny},
		{"mcp__filesystem__move_file", map[string]any{"source": "docs/a.md",
			"destination": "docs/b.md"}, gate.VerdictAllow},
		{"mcp__notes__put", map[string]any{"a": map[string]any{"b": []any{db}}},
			gate.VerdictDeny},
		{"Grep", map[string]any{"pattern": "x", "path": "docs", "glob": "../secrets/*"},
			gate.VerdictDeny},
		{"Grep", map[string]any{"pattern": "x", "path": "docs", "glob": "../skald-data/*"},
			gate.VerdictDeny},
		{"Grep", map[string]any{"pattern": "x", "path": "docs", "glob": "*.md"},
			gate.VerdictAllow},
	} {
		t.Run(fmt.Sprint(c.tool, " ", c.args), func(t *testing.T) {
			parent := e.t
			e.t = t // wantDecision reports to the case
			defer func() { e.t = parent }()
			e.wantDecision(c.tool, c.args, "", c.want)
		})
	}
}

// allowMCP adds the plausible allow mcp__* and a bypass of all for session "s".
func (e *env) allowMCP() {
	e.t.Helper()
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "mcp__*",
		Action: rules.Allow, Priority: 100})
	if _, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0); err != nil {
		e.t.Fatal(err)
	}
}

// TestArgumentStringDenied: a path under a key that is no path key is denied when the
// tool's own deny rule covers it — under a bypass of all too — and the deny of other
// tools' paths keeps it for a human.
func TestArgumentStringDenied(t *testing.T) {
	e := newAPIEnv(t)
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "mcp__*",
		Action: rules.Allow, Priority: 100})
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "mcp__notes__*",
		PathPattern: "docs/*", Action: rules.Deny, Priority: 1})
	if _, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("mcp__notes__put", map[string]any{"note": "see docs/plan"},
		"", gate.VerdictDeny)
	e.wantDecision("mcp__notes__put", map[string]any{"opts": map[string]any{"to": "docs"}},
		"", gate.VerdictDeny)
	e.wantDecision("mcp__notes__put", map[string]any{"note": "secrets/key"},
		"", gate.VerdictPending)
	e.wantDecision("mcp__other__put", map[string]any{"note": "docs/plan"}, "", gate.VerdictPending)
	e.wantDecision("mcp__notes__put", map[string]any{"note": "notes/plan"}, "", gate.VerdictAllow)
}

// TestArgumentExpansions: a word a tool may expand into a path is for a human under
// allow mcp__* and a bypass of all; a price or a bare variable is not.
func TestArgumentExpansions(t *testing.T) {
	e := newAPIEnv(t)
	e.allowMCP()
	for _, v := range []string{"cat $PWD/secrets/key", `cat se\crets`, "`cat secrets/key`",
		"~root/.ssh/id_rsa", "file:secrets/key", "${HOME}/x"} {
		e.wantDecision("mcp__shell__run", map[string]any{"cmd": v}, "", gate.VerdictPending)
	}
	e.wantDecision("mcp__shell__run", map[string]any{"cmd": "echo costs $5, 50% off, see $PATH"},
		"", gate.VerdictAllow)
}

// TestArgumentShellWords: a string is read as a shell joins its words — quotes,
// braces, $'…', substitutions — under allow mcp__* and a bypass of all; prose is not.
func TestArgumentShellWords(t *testing.T) {
	e := newAPIEnv(t)
	e.allowMCP()
	for _, v := range []string{`cat "sec"rets/key`, `cat se"cr"ets/key`, `cat sec''rets/key`,
		`cat sec""rets`, `cat {sec,x}rets/key`, `cat sec{rets,x}/key`, `cat $'\x73ecrets'/key`,
		`cat $(printf c2VjcmV0cw==|base64 -d)/key`, `cat $(cat data/nl)/key`, "`echo sec`rets",
		`bash -c 'cat sec"r"ets'`, `eval "cat se\"cr\"ets"`, `ssh h 'cat sec"r"ets'`,
		`cat sec@(r)ets`, `type sec^rets`, `%X:~0,3%rets`, `x —-force`} {
		res := e.checkAs("mcp__x__run", map[string]any{"cmd": v}, "")
		if res.Decision != gate.VerdictPending && res.Decision != gate.VerdictDeny {
			t.Errorf("%s: %+v, want pending or deny", v, res)
		}
	}
	// A substitution alone is a value the call does not say, like a variable alone.
	for _, v := range []string{`it's "fine"`, "costs $5", "{json: 1}", `cat $(cat data/nl)`,
		"Run `go test ./...` first", "—fix it", "use –v", "[2, 3]", "[1/2]", "ready?"} {
		e.wantDecision("mcp__x__run", map[string]any{"cmd": v}, "", gate.VerdictAllow)
	}
}

// TestLookAlikeOptions: an option spelt with look-alike letters, in a Bash command or
// a word of an MCP tool's argument, is for a human under allow Bash, allow mcp__* and a
// bypass of all.
func TestLookAlikeOptions(t *testing.T) {
	e := newAPIEnv(t)
	e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash",
		Action: rules.Allow, Priority: 1})
	e.allowMCP()
	e.wantDecision("Bash", map[string]any{"command": "sort --оutput=out notes.txt"},
		"", gate.VerdictPending)
	e.wantDecision("Bash", map[string]any{"command": "sort --output=out notes.txt"},
		"", gate.VerdictAllow)
	e.wantDecision("mcp__shell__run", map[string]any{"args": []any{"sort", "－－output=out"}},
		"", gate.VerdictPending)
	e.wantDecision("mcp__shell__run", map[string]any{"args": []any{"sort", "--output=out"}},
		"", gate.VerdictAllow)
}

// TestBareWords: a plain name is opened in the directory the tool runs in: a symlink
// there into secrets/, or any name run in secrets/, is for a human under allow mcp__*
// and a bypass of all.
func TestBareWords(t *testing.T) {
	e := newAPIEnv(t)
	e.allowMCP()
	testkit.Must(t, os.WriteFile(filepath.Join(e.root, "secrets", "key"), []byte("k"), 0o600))
	testkit.Must(t, os.Symlink("secrets/key", filepath.Join(e.root, "k")))
	e.wantDecision("mcp__notes__get", map[string]any{"arg": "k"}, "", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"arg": "key"}, "secrets", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"arg": "key"}, "", gate.VerdictAllow)
}

// TestFoldedCase: on a workspace whose file system folds case (injected: Linux's do
// not), SECRETS/key is secrets/key: denied for Read, for a human for an MCP tool under
// allow mcp__* and a bypass of all.
func TestFoldedCase(t *testing.T) {
	e := newAPIEnvGate(t, func(o *gate.Options) {
		o.Rules.FoldsCase = func(string) bool { return true }
	})
	e.allowMCP()
	e.wantDecision("Read", map[string]any{"file_path": "SECRETS/key"}, "", gate.VerdictDeny)
	e.wantDecision("mcp__notes__get", map[string]any{"path": "Secrets/key"},
		"", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"q": "cat SECRETS/key"},
		"", gate.VerdictPending)
	e.wantDecision("mcp__notes__get", map[string]any{"path": "Docs/a"}, "", gate.VerdictAllow)
}

// TestPatternFollowsSwap: mv secrets .vault-1; ln -s .vault-1 secrets, with the service
// running, then a second swap: Read by either name stays denied, never allowed by the
// profile's fast-path (its working directory is the workspace root).
func TestPatternFollowsSwap(t *testing.T) {
	e := newAPIEnv(t)
	if err := os.WriteFile(filepath.Join(e.root, "secrets", "key"), []byte("k"),
		0o600); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Read", map[string]any{"file_path": "notes.txt"},
		"", gate.VerdictAllow) // the fast-path
	e.wantDecision("Read", map[string]any{"file_path": "secrets/key"}, "", gate.VerdictDeny)
	if err := os.Rename(filepath.Join(e.root, "secrets"),
		filepath.Join(e.root, ".vault-1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".vault-1", filepath.Join(e.root, "secrets")); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Read", map[string]any{"file_path": "secrets/key"}, "", gate.VerdictDeny)
	e.wantDecision("Read", map[string]any{"file_path": ".vault-1/key"}, "", gate.VerdictDeny)
	if err := os.Remove(filepath.Join(e.root, "secrets")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.root, ".vault-1"),
		filepath.Join(e.root, ".vault-2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".vault-2", filepath.Join(e.root, "secrets")); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Read", map[string]any{"file_path": "secrets/key"}, "", gate.VerdictDeny)
	e.wantDecision("Read", map[string]any{"file_path": ".vault-2/key"}, "", gate.VerdictDeny)
}

// TestUnresolvableNotBypassed: paths the service cannot resolve — a loop, a NUL byte,
// an object, a NUL in the cwd — are for a human even under a session bypass of all,
// and still denied beside a path in secrets/.
func TestUnresolvableNotBypassed(t *testing.T) {
	e := newAPIEnv(t)
	if err := os.Symlink("loop2", filepath.Join(e.root, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop1", filepath.Join(e.root, "loop2")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Edit", map[string]any{"file_path": "docs/a"},
		"", gate.VerdictAllow) // the bypass works
	for _, args := range []map[string]any{
		{"file_path": "loop1/x"},
		{"file_path": "docs/a\x00"},
		{"file_path": map[string]any{"p": "secrets/key"}},
		{"paths": []any{"docs/a", 1}},
	} {
		e.wantDecision("Read", args, "", gate.VerdictPending)
	}
	e.wantDecision("Read", map[string]any{"file_path": "key"}, "secrets\x00", gate.VerdictPending)
	e.wantDecision("Read", map[string]any{"path": "loop1", "file_path": "secrets/key"},
		"", gate.VerdictDeny)
}

// TestUnresolvableAfterApprovedEdit is the path the attack took: ⏱ 15 min approved
// on an Edit lets the category's calls through, but not a Read of a path the service
// cannot resolve — whatever its value's type — while one naming secrets/ in an array
// is denied.
func TestUnresolvableAfterApprovedEdit(t *testing.T) {
	e := newAPIEnv(t)
	testkit.Must(t, os.Symlink("loop2", filepath.Join(e.root, "loop1")))
	testkit.Must(t, os.Symlink("loop1", filepath.Join(e.root, "loop2")))
	agent := e.client(agentToken)
	res := e.checkCall(agent, gate.Call{ToolName: "Edit", SessionID: "s",
		Arguments: map[string]any{"file_path": "docs/a"}})
	if res.Decision != gate.VerdictPending {
		t.Fatalf("Edit: %+v, want pending", res)
	}
	e.approve(res.RequestID, 900)
	e.wantDecision("Edit", map[string]any{"file_path": "docs/b"}, "", gate.VerdictAllow)
	for _, c := range []struct {
		name string
		args map[string]any
		cwd  string
		want gate.Verdict
	}{
		{"a loop", map[string]any{"file_path": "loop1/x"}, "", gate.VerdictPending},
		{"a NUL", map[string]any{"file_path": "secrets\x00/key"}, "", gate.VerdictPending},
		{"an object", map[string]any{"file_path": map[string]any{"p": "secrets/key"}}, "",
			gate.VerdictPending},
		{"a number", map[string]any{"file_path": 5}, "", gate.VerdictPending},
		{"a boolean", map[string]any{"file_path": true}, "", gate.VerdictPending},
		{"null", map[string]any{"file_path": nil}, "", gate.VerdictPending},
		{"an array holding a number", map[string]any{"file_path": []any{"docs/a", 1}}, "",
			gate.VerdictPending},
		{"a NUL in the cwd", map[string]any{"file_path": "key"}, "secrets\x00",
			gate.VerdictPending},
		{"a loop as the cwd", map[string]any{"file_path": "x"}, "loop1", gate.VerdictPending},
		{"a name the service cannot inspect (too long)",
			map[string]any{"file_path": strings.Repeat("n", 300) + "/x"}, "",
			gate.VerdictPending},
		{"an array naming secrets/", map[string]any{"file_path": []any{"secrets/key"}}, "",
			gate.VerdictDeny},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := e.t
			e.t = t // wantDecision reports to the case
			defer func() { e.t = parent }()
			e.wantDecision("Read", c.args, c.cwd, c.want)
		})
	}
}

// TestProcSelfNotResolved: /proc/self/cwd and /dev/fd name the agent's own process, not
// the service's: under allow @fs_read for the agent, and a bypass, a human decides.
func TestProcSelfNotResolved(t *testing.T) {
	e := newAPIEnv(t)
	e.addRule(rules.Rule{ToolPattern: "@fs_read", AgentID: "bot-1",
		Action: rules.Allow, Priority: 1})
	if _, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/cwd", filepath.Join(e.root, "me")); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Read", map[string]any{"file_path": "/etc/hostname"},
		"", gate.VerdictAllow) // the rule works
	for _, p := range []string{"/proc/self/cwd/secrets/key", "/proc/thread-self/cwd/secrets/key",
		"/proc/1/cwd/secrets/key", "/dev/fd/3", "/dev/stdin", "me/secrets/key",
		"/proc//self/cwd/secrets/key", "/proc/./self/cwd/secrets/key",
		"/proc/self/../self/cwd/secrets/key", "/proc/self/root" + e.root + "/secrets/key",
		fmt.Sprintf("/proc/%d/cwd/secrets/key", os.Getpid()), "/proc/self/fd/3",
		"/dev/./fd/0", "//proc/self/cwd/secrets/key"} {
		e.wantDecision("Read", map[string]any{"file_path": p}, "", gate.VerdictPending)
	}
	e.wantDecision("Read", map[string]any{"file_path": "secrets/key"},
		"/proc/self/cwd", gate.VerdictPending)
}

// TestProcSelfUnderAnyKey: a /proc/self or /dev/fd path under a key that is no path
// key is for a human too, under allow mcp__* and a bypass of all: the tool opens it as
// itself. A /proc file of no process is only a path.
func TestProcSelfUnderAnyKey(t *testing.T) {
	e := newAPIEnv(t)
	e.allowMCP()
	for _, v := range []any{"/proc/self/cwd/secrets/key", "cat /proc/self/cwd/secrets/key",
		"/proc/self/root" + e.root + "/secrets/key", []any{"/dev/fd/3"},
		fmt.Sprintf("/proc/%d/cwd", os.Getpid())} {
		e.wantDecision("mcp__notes__get", map[string]any{"q": v}, "", gate.VerdictPending)
	}
	e.wantDecision("mcp__notes__get", map[string]any{"q": "see /proc/cpuinfo"},
		"", gate.VerdictAllow)
}

// TestCheckProjectSecrets checks through the API that a project's denied places are
// denied in every profile: the admin's call routed by cwd, and an agent token whose
// profile is fixed to default.
func TestCheckProjectSecrets(t *testing.T) {
	const defToken = "default-agent-token"
	var p2 string
	e := newAPIEnvGate(t, func(o *gate.Options) {
		p2 = filepath.Join(o.Rules.WorkspaceRoot, "proj2")
		testkit.Must(t, os.MkdirAll(filepath.Join(p2, "secrets"), 0o755))
		o.Profiles = append(o.Profiles, rules.Profile{ID: "p2", WorkspaceRoot: p2})
	}, func(o *api.Options) {
		o.AgentTokens = append(o.AgentTokens, api.AgentToken{Token: defToken, Profile: "default"})
	})
	root := e.root
	for _, c := range []struct {
		name, token, cwd, path string
	}{
		{"admin at the root, absolute", adminToken, root, p2 + "/secrets/key"},
		{"admin at the root, relative", adminToken, root, "proj2/secrets/key"},
		{"admin in the project, up", adminToken, p2, "../secrets/key"},
		{"admin in the project, root's absolute", adminToken, p2, root + "/secrets/key"},
		{"default token in the project", defToken, p2, p2 + "/secrets/key"},
		{"default token at the root", defToken, root, "proj2/secrets/key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.client(c.token).Check(context.Background(), api.CheckRequest{
				Call: gate.Call{ToolName: "Read", SessionID: "s", Cwd: c.cwd,
					Arguments: map[string]any{"file_path": c.path}}})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if res.Decision != gate.VerdictDeny {
				t.Errorf("Read %s (cwd %s) = %+v, want deny", c.path, c.cwd, res)
			}
		})
	}
}

// TestCheckProjectLink checks through the API that a project's secrets that is a
// symlink is denied by what it names in the project, in every profile, and that the
// deny follows the link when it is swapped between two checks.
func TestCheckProjectLink(t *testing.T) {
	const defToken = "default-agent-token"
	var p2 string
	e := newAPIEnvGate(t, func(o *gate.Options) {
		p2 = filepath.Join(o.Rules.WorkspaceRoot, "proj2")
		for _, d := range []string{".vault", ".vault-2"} {
			testkit.Must(t, os.MkdirAll(filepath.Join(p2, d), 0o755))
		}
		testkit.Must(t, os.Symlink(".vault", filepath.Join(p2, "secrets")))
		o.Profiles = append(o.Profiles, rules.Profile{ID: "p2", WorkspaceRoot: p2})
	}, func(o *api.Options) {
		o.AgentTokens = append(o.AgentTokens, api.AgentToken{Token: defToken, Profile: "default"})
	})
	check := func(step, token, cwd, path string, want gate.Verdict) {
		t.Helper()
		t.Run(step+": "+path, func(t *testing.T) {
			res, err := e.client(token).Check(context.Background(), api.CheckRequest{
				Call: gate.Call{ToolName: "Read", SessionID: "s", Cwd: cwd,
					Arguments: map[string]any{"file_path": path}}})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if res.Decision != want {
				t.Errorf("Read %s (cwd %s) = %+v, want %s", path, cwd, res, want)
			}
		})
	}
	check("linked, admin at the root", adminToken, e.root, "proj2/.vault/key", gate.VerdictDeny)
	check("linked, default token", defToken, e.root, p2+"/.vault/key", gate.VerdictDeny)
	check("linked, admin in the project", adminToken, p2, ".vault/key", gate.VerdictDeny)
	testkit.Must(t, os.Remove(filepath.Join(p2, "secrets")))
	testkit.Must(t, os.Symlink(".vault-2", filepath.Join(p2, "secrets")))
	check("swapped, admin at the root", adminToken, e.root, "proj2/.vault-2/key", gate.VerdictDeny)
	check("swapped, default token", defToken, e.root, p2+"/.vault-2/key", gate.VerdictDeny)
	check("swapped, admin in the project", adminToken, p2, ".vault-2/key", gate.VerdictDeny)
	check("swapped, the old target", defToken, e.root, p2+"/.vault/key", gate.VerdictAllow)
}

// TestFolderLinkHeld: docs/sx → ../secrets, as a cloned repository may have it, makes
// docs hold secrets (docs/design.md, "Protected and guarded places"): Grep, LS, Glob
// and the MCP filesystem server's directory tools on docs are for a human, although
// the profile reads docs without one and the session bypasses all; a folder whose
// link leads elsewhere stays allowed.
func TestFolderLinkHeld(t *testing.T) {
	e := newAPIEnvGate(t, func(o *gate.Options) {
		o.Profiles[0].AllowFSReads = []string{"docs", "src"}
	})
	e.allowMCP()
	testkit.Must(t, os.WriteFile(filepath.Join(e.root, "secrets", "key"), []byte("k"), 0o600))
	for _, d := range []string{"docs", "src", "notes"} {
		testkit.Must(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	testkit.Must(t, os.Symlink("../secrets", filepath.Join(e.root, "docs", "sx")))
	testkit.Must(t, os.Symlink("../notes", filepath.Join(e.root, "src", "nx")))
	for _, c := range []struct {
		tool string
		args map[string]any
		want gate.Verdict
	}{
		{"Grep", map[string]any{"path": "docs", "pattern": "x"}, gate.VerdictPending},
		{"LS", map[string]any{"path": "docs"}, gate.VerdictPending},
		{"Glob", map[string]any{"pattern": "*/key", "path": "docs"}, gate.VerdictPending},
		{"Glob", map[string]any{"pattern": "{docs,src}/*/key"}, gate.VerdictPending},
		{"mcp__filesystem__directory_tree", map[string]any{"path": "docs"}, gate.VerdictPending},
		{"mcp__filesystem__search_files", map[string]any{"path": "docs", "pattern": "key"},
			gate.VerdictPending},
		{"Grep", map[string]any{"path": "src", "pattern": "x"}, gate.VerdictAllow},
		{"Glob", map[string]any{"pattern": "*/*", "path": "src"}, gate.VerdictAllow},
	} {
		t.Run(fmt.Sprint(c.tool, " ", c.args), func(t *testing.T) {
			parent := e.t
			e.t = t // wantDecision reports to the case
			defer func() { e.t = parent }()
			e.wantDecision(c.tool, c.args, "", c.want)
		})
	}
}
