package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// projectEnv is an env with two projects outside the workspace root: proj (its own
// workspace, with secrets/, data/ and src/) and proj/inner nested in it (with secrets/).
func projectEnv(t *testing.T) (*env, string, string) {
	t.Helper()
	base := testkit.Dir(t, "proj/secrets", "proj/data", "proj/src", "proj/inner/secrets")
	proj := filepath.Join(base, "proj")
	inner := filepath.Join(proj, "inner")
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{
			{ID: "proj", SecurityGroup: "default", WorkspaceRoot: proj},
			{ID: "inner", SecurityGroup: "default", WorkspaceRoot: inner},
		}
	})
	return e, proj, inner
}

// TestProjectWorkspace checks that a profile's own workspace is what its calls' paths
// and the seeded patterns are relative to, and that the profile is chosen by cwd when
// the call names none.
func TestProjectWorkspace(t *testing.T) {
	e, proj, inner := projectEnv(t)
	e.run()
	read := func(profile, cwd, path string) gate.Outcome {
		return e.check(gate.Call{ToolName: "Read", SessionID: "s", Profile: profile, Cwd: cwd,
			Arguments: map[string]any{"file_path": path}})
	}
	for _, c := range []struct {
		name, profile, cwd, path string
		want                     gate.Verdict
		reason                   string
	}{
		{"read in the project by profile", "proj", "", proj + "/src/main.go",
			gate.VerdictAllow, gate.ReasonFastPath},
		{"relative read in the project", "proj", "", "src/main.go",
			gate.VerdictAllow, gate.ReasonFastPath},
		{"its secrets by profile", "proj", "", proj + "/secrets/key.pem",
			gate.VerdictDeny, rules.ReasonRule},
		{"its secrets relative", "proj", "", "secrets/key.pem",
			gate.VerdictDeny, rules.ReasonRule},
		{"its secrets from src", "proj", proj + "/src", "../secrets/key.pem",
			gate.VerdictDeny, rules.ReasonRule},
		{"its data is allowed", "proj", "", proj + "/data/out.txt",
			gate.VerdictAllow, rules.ReasonRule},
		{"by cwd: inside", "", proj, proj + "/src/main.go",
			gate.VerdictAllow, gate.ReasonFastPath},
		{"by cwd: its secrets", "", proj + "/src", proj + "/secrets/key.pem",
			gate.VerdictDeny, rules.ReasonRule},
		{"by cwd: deepest wins", "", inner, inner + "/secrets/a",
			gate.VerdictDeny, rules.ReasonRule},
		{"deepest: outer secrets are denied too", "", inner, proj + "/secrets/a",
			gate.VerdictDeny, rules.ReasonRule},
		{"by cwd: outside every project", "", e.root, proj + "/secrets/key.pem",
			gate.VerdictDeny, rules.ReasonRule},
		{"no cwd: default", "", "", proj + "/secrets/key.pem", gate.VerdictDeny, rules.ReasonRule},
		{"default keeps its workspace", "", "", "secrets/x", gate.VerdictDeny, rules.ReasonRule},
		{"a named profile is kept whatever the cwd", "default", proj, proj + "/src/main.go",
			gate.VerdictPending, rules.ReasonRule},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := read(c.profile, c.cwd, c.path)
			if out.Decision != c.want || out.Reason != c.reason {
				t.Errorf("Read %s (profile %q, cwd %q) = %s (%s), want %s (%s)", c.path, c.profile,
					c.cwd, out.Decision, out.Reason, c.want, c.reason)
			}
		})
	}
	// The request records the profile the cwd chose.
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s2", Cwd: proj + "/src",
		Arguments: map[string]any{"command": "make"}})
	if r.Profile != "proj" {
		t.Errorf("request profile %q, want proj", r.Profile)
	}
}

// TestProjectShell checks a shell script's paths and cwd are taken in the project's
// workspace: a redirect into its secrets/ is denied, its data/ allowed.
func TestProjectShell(t *testing.T) {
	e, proj, _ := projectEnv(t)
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
		CommandPattern: "echo *", Action: rules.Allow, Priority: rules.DefaultPriority},
		admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd  string
		want gate.Verdict
	}{
		{"echo hi > secrets/x", gate.VerdictDeny},
		{"echo hi > data/x", gate.VerdictAllow},
		{"cd src && echo hi > ../secrets/x", gate.VerdictDeny},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: "Bash", SessionID: "s", Cwd: proj,
				Arguments: map[string]any{"command": c.cmd}})
			if out.Decision != c.want {
				t.Errorf("Bash %q in proj = %+v, want %s", c.cmd, out, c.want)
			}
		})
	}
}

func TestProjectRefusals(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		profiles []rules.Profile
		says     string
	}{
		{[]rules.Profile{{ID: "a", WorkspaceRoot: "rel"}},
			`profile "a": workspace root "rel" is not an absolute path`},
		{[]rules.Profile{{ID: "a", WorkspaceRoot: e.root + "/src"},
			{ID: "b", WorkspaceRoot: e.root + "/src/"}},
			`profile "b": workspace root "` + e.root + `/src" is also a's`},
		{[]rules.Profile{{ID: "a", WorkspaceRoot: e.root}}, "is also the top-level workspace's"},
	} {
		t.Run(c.says, func(t *testing.T) {
			opt := e.opt
			opt.Profiles = c.profiles
			m, err := gate.New(opt)
			if err == nil || m != nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("New = %v, want an error saying %q", err, c.says)
			}
		})
	}
	teststore.Unchanged(t, e.db, before)
}

// TestApplyRules checks a plan is applied whole and seen by the next Check, and that a
// refused plan lists every problem and changes nothing.
func TestApplyRules(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		name string
		ch   store.RuleChanges
		says []string
	}{
		{"invalid rules", store.RuleChanges{CreateRules: []rules.Rule{
			{GroupID: "default", ToolPattern: "Read", CommandPattern: "ls *", Action: rules.Allow,
				Priority: 1},
			{GroupID: "default", ToolPattern: "a*b", Action: rules.Allow, Priority: 1},
		}}, []string{"command_pattern", `tool_pattern "a*b"`}},
		{"a second catch-all", store.RuleChanges{CreateRules: []rules.Rule{
			{GroupID: "default", ToolPattern: "*", Action: rules.Allow, Priority: 1},
		}}, []string{"already has a catch-all"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.m.ApplyRules(c.ch, admin)
			if err == nil || !strings.HasPrefix(err.Error(), "gate: apply rules: ") {
				t.Fatalf("ApplyRules = %v", err)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			teststore.Unchanged(t, e.db, before)
		})
	}
	out, err := e.m.ApplyRules(store.RuleChanges{
		CreateGroups: []rules.Group{{ID: "ops"}},
		CreateRules: []rules.Rule{{GroupID: "default", ToolPattern: "Bash",
			CommandPattern: "make *", Action: rules.Allow, Priority: rules.DefaultPriority}},
	}, admin)
	if err != nil || len(out) != 1 {
		t.Fatalf("ApplyRules = %v, %v", out, err)
	}
	got := e.check(gate.Call{ToolName: "Bash", SessionID: "s",
		Arguments: map[string]any{"command": "make test"}})
	if got.Decision != gate.VerdictAllow || got.RuleID != out[0].ID {
		t.Errorf("make test after the plan: %+v", got)
	}
	if gs, err := e.m.Groups(); err != nil || len(gs) != 2 {
		t.Errorf("groups %v, %v", gs, err)
	}
}

// TestProjectRulesHoldEverywhere checks that a project's denied places are denied in
// every profile: from the default profile into a project inside its workspace, from a
// project out into the top-level workspace, and across nested projects, for file
// tools, shell commands and other tools alike.
func TestProjectRulesHoldEverywhere(t *testing.T) {
	var p2, inner string
	e := newGateEnv(t, func(o *gate.Options) {
		root := o.Rules.WorkspaceRoot
		p2 = filepath.Join(root, "proj2")
		inner = filepath.Join(p2, "inner")
		testkit.Files(t, root, "proj2/secrets/key", "proj2/src/a.go", "proj2/inner/secrets/key",
			"secrets/key")
		o.Profiles = []rules.Profile{
			{ID: "p2", SecurityGroup: "default", WorkspaceRoot: p2},
			{ID: "inner", SecurityGroup: "default", WorkspaceRoot: inner},
		}
	})
	for _, p := range []string{"cat *", "grep *"} {
		if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
			CommandPattern: p, Action: rules.Allow, Priority: rules.DefaultPriority},
			admin); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "mcp__notes__*",
		Action: rules.Allow, Priority: rules.DefaultPriority}, admin); err != nil {
		t.Fatal(err)
	}
	e.run()
	args := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	locked := gate.Verdict("locked") // pending, for a guarded place
	for _, c := range []struct {
		name, profile, cwd, tool string
		args                     map[string]any
		want                     gate.Verdict
	}{
		{"default: Read absolute", "", e.root, "Read",
			args("file_path", p2+"/secrets/key"), gate.VerdictDeny},
		{"default: Read relative", "", e.root, "Read",
			args("file_path", "proj2/secrets/key"), gate.VerdictDeny},
		{"default: Read no cwd", "", "", "Read",
			args("file_path", "proj2/secrets/key"), gate.VerdictDeny},
		{"default: cat its own secrets", "", e.root, "Bash",
			args("command", "cat secrets/key"), locked},
		{"default: cat", "", e.root, "Bash", args("command", "cat proj2/secrets/key"), locked},
		{"default: cd and cat", "", e.root, "Bash",
			args("command", "cd proj2 && cat secrets/key"), locked},
		{"default: redirect into it", "", e.root, "Bash",
			args("command", "cat src > proj2/secrets/k"), gate.VerdictDeny},
		{"default: grep -r into it", "", e.root, "Bash",
			args("command", "grep -r x proj2"), locked},
		{"default: Grep its secrets", "", e.root, "Grep",
			args("pattern", "x", "path", "proj2/secrets"), gate.VerdictDeny},
		{"default: Grep the project", "", e.root, "Grep",
			args("pattern", "x", "path", "proj2"), locked},
		{"default: Glob its secrets", "", e.root, "Glob",
			args("pattern", "proj2/secrets/*"), gate.VerdictDeny},
		{"default: MCP filesystem", "", e.root, "mcp__filesystem__read_file",
			args("path", p2+"/secrets/key"), gate.VerdictDeny},
		{"default: other MCP tool", "", e.root, "mcp__notes__get",
			args("path", "proj2/secrets/key"), locked},
		{"default: other MCP tool, inner", "", e.root, "mcp__notes__get",
			args("path", "proj2/inner/secrets/key"), locked},
		{"default: its code by fast-path", "", e.root, "Read",
			args("file_path", "proj2/src/a.go"), gate.VerdictAllow},
		{"agent token fixed to default", "default", p2, "Read",
			args("file_path", p2+"/secrets/key"), gate.VerdictDeny},
		{"agent token, relative", "default", p2, "Read",
			args("file_path", "secrets/key"), gate.VerdictDeny},
		{"agent token, Grep without a path", "default", p2, "Grep", args("pattern", "x"), locked},
		{"agent token, Grep inside the project", "default", p2 + "/src", "Grep",
			args("pattern", "x"), gate.VerdictAllow},
		{"p2 by cwd: ../secrets", "", p2, "Bash", args("command", "cat ../secrets/key"), locked},
		{"p2 by cwd: absolute root secrets", "", p2, "Bash",
			args("command", "cat "+e.root+"/secrets/key"), locked},
		{"p2 by cwd: Read ../secrets", "", p2, "Read",
			args("file_path", "../secrets/key"), gate.VerdictDeny},
		{"p2 named: Read absolute", "p2", "", "Read",
			args("file_path", e.root+"/secrets/key"), gate.VerdictDeny},
		{"p2: grep -r the root", "p2", "", "Bash", args("command", "grep -r x "+e.root), locked},
		{"p2: other MCP tool", "p2", "", "mcp__notes__get",
			args("path", "../secrets/key"), locked},
		{"p2: nested project's secrets", "p2", "", "Read",
			args("file_path", "inner/secrets/key"), gate.VerdictDeny},
		{"p2: nested, cat", "p2", "", "Bash", args("command", "cat inner/secrets/key"), locked},
		{"p2: own code", "p2", "", "Read", args("file_path", "src/a.go"), gate.VerdictAllow},
		{"default: nested in nested", "", e.root, "Read",
			args("file_path", "proj2/inner/secrets/key"), gate.VerdictDeny},
		{"inner by cwd: outer project", "", inner, "Bash",
			args("command", "cat ../secrets/key"), locked},
		{"inner by cwd: top level", "", inner, "Read",
			args("file_path", "../../secrets/key"), gate.VerdictDeny},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: c.tool, SessionID: "s-" + c.name,
				Profile: c.profile, Cwd: c.cwd, Arguments: c.args})
			got := out.Decision
			if got == gate.VerdictPending && (strings.Contains(out.Reason, rules.ReasonContains) ||
				strings.Contains(out.Reason, rules.ReasonDenied) ||
				strings.Contains(out.Reason, "holds ") ||
				strings.Contains(out.Reason, "inside a denied place")) {
				got = locked
			}
			if got != c.want {
				t.Errorf("%s %v (profile %q, cwd %q) = %s (%s), want %s",
					c.tool, c.args, c.profile, c.cwd, out.Decision, out.Reason, c.want)
			}
		})
	}
}

// TestProjectHeldFromOutside checks that a read of a directory holding a project,
// without lying in it, needs a human whatever tool makes it: the project's denied
// secrets/ lies under the directory read, although no form of its path is in the
// project. The reason names the place as the call's paths do. A read inside the
// project that holds none of its guarded places is not locked.
func TestProjectHeldFromOutside(t *testing.T) {
	var p, deep, sib string
	e := newGateEnv(t, func(o *gate.Options) {
		root := o.Rules.WorkspaceRoot
		p = filepath.Join(root, "src/p")               // a project in the workspace
		deep = filepath.Join(root, "src/p/lib/r")      // a project nested in it
		sib = filepath.Join(filepath.Dir(root), "q/s") // a project beside the workspace
		testkit.Files(t, root, "src/p/secrets/key", "src/p/src/a.go", "src/p/lib/r/secrets/key",
			"src/p/lib/b.go", "../q/s/secrets/key", "../q/c.go")
		testkit.Must(t, os.RemoveAll(filepath.Join(root, "secrets"))) // the workspace's own
		o.Profiles = []rules.Profile{
			{ID: "p", SecurityGroup: "default", WorkspaceRoot: p},
			{ID: "r", SecurityGroup: "default", WorkspaceRoot: deep},
			{ID: "s", SecurityGroup: "default", WorkspaceRoot: sib},
		}
	})
	for _, tp := range []string{"mcp__filesystem__*", "@fs_read"} {
		if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: tp,
			Action: rules.Allow, Priority: rules.DefaultPriority}, admin); err != nil {
			t.Fatal(err)
		}
	}
	for _, cp := range []string{"grep *", "ls *", "find *"} {
		if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
			CommandPattern: cp, Action: rules.Allow, Priority: rules.DefaultPriority},
			admin); err != nil {
			t.Fatal(err)
		}
	}
	e.run()
	q := filepath.Dir(sib)
	for _, c := range []struct {
		name, profile, cwd, tool string
		args                     map[string]any
		place                    string // "" for allowed; with both: "src/p/…"
	}{
		{"Grep", "", e.root, "Grep", map[string]any{"pattern": "x", "path": "src"}, "src/p/…"},
		{"Grep absolute", "", "", "Grep",
			map[string]any{"pattern": "x", "path": e.root + "/src"}, "src/p/…"},
		{"Grep without a path", "default", e.root + "/src", "Grep",
			map[string]any{"pattern": "x"}, "src/p/…"},
		{"grep -r", "", e.root, "Bash", map[string]any{"command": "grep -r x src"}, "src/p/…"},
		{"ls -R", "", e.root, "Bash", map[string]any{"command": "ls -R src"}, "src/p/…"},
		{"find", "", e.root, "Bash", map[string]any{"command": "find src"}, "src/p/…"},
		{"cd and grep -r", "", e.root, "Bash",
			map[string]any{"command": "cd src && grep -r x ."}, "src/p/…"},
		{"Glob", "", e.root, "Glob", map[string]any{"pattern": "src/**"}, "src/p/…"},
		{"directory_tree", "", e.root, "mcp__filesystem__directory_tree",
			map[string]any{"path": "src"}, "src/p/…"},
		{"nested project", "", e.root, "Grep",
			map[string]any{"pattern": "x", "path": "src/p/lib"}, "src/p/lib/r/secrets"},
		{"nested, from the project", "p", "", "Bash",
			map[string]any{"command": "ls -R lib"}, "lib/r/secrets"},
		{"beside the workspace", "", e.root, "Grep",
			map[string]any{"pattern": "x", "path": q}, sib + "/secrets"},
		{"beside, from a project", "p", "", "Glob",
			map[string]any{"pattern": q + "/**"}, sib + "/secrets"},
		{"inside the project, holding nothing", "", e.root, "Grep",
			map[string]any{"pattern": "x", "path": "src/p/src"}, ""},
		{"the project's own src", "p", "", "Grep",
			map[string]any{"pattern": "x", "path": "src"}, ""},
		{"beside the project", "", e.root, "Bash",
			map[string]any{"command": "ls -R src/p/lib/b.go"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: c.tool, SessionID: "s-" + c.name,
				Profile: c.profile, Cwd: c.cwd, Arguments: c.args})
			if c.place == "" {
				if out.Decision != gate.VerdictAllow {
					t.Errorf("%s %v = %s (%s), want allow",
						c.tool, c.args, out.Decision, out.Reason)
				}
				return
			}
			named := strings.HasSuffix(out.Reason, " "+c.place)
			if c.place == "src/p/…" { // src holds both projects' secrets/
				named = strings.HasSuffix(out.Reason, " src/p/secrets") ||
					strings.HasSuffix(out.Reason, " src/p/lib/r/secrets")
			}
			if out.Decision != gate.VerdictPending || !named {
				t.Fatalf("%s %v = %s (%s), want pending naming %s", c.tool, c.args, out.Decision,
					out.Reason, c.place)
			}
			// Nothing lifts it: a bypass of the whole session leaves it to a human.
			if _, err := e.m.SetBypass("s-"+c.name, "all", 0, "", admin); err != nil {
				t.Fatal(err)
			}
			again := e.check(gate.Call{ToolName: c.tool, SessionID: "s-" + c.name,
				Profile: c.profile, Cwd: c.cwd, Arguments: c.args})
			if again.Decision != gate.VerdictPending {
				t.Errorf("under a bypass: %s (%s), want pending", again.Decision, again.Reason)
			}
		})
	}
}

// TestProjectLinkFollowsName gives a project a secrets that is a symlink to .vault,
// then swaps it for one to .vault-2 while the gate runs: the project's secrets/* deny
// covers what its secrets names in the project, from the top-level profile as from the
// project's own, by the link and by its target, and follows the link at the next
// check. Project q's secrets links out of it, to src/shared: that is denied from
// every profile too.
func TestProjectLinkFollowsName(t *testing.T) {
	var p, shared string
	e := newGateEnv(t, func(o *gate.Options) {
		root := o.Rules.WorkspaceRoot
		p = filepath.Join(root, "src/p")
		shared = filepath.Join(root, "src/shared")
		testkit.Files(t, root, "src/p/.vault/key", "src/p/.vault-2/key", "src/p/lib/a.go",
			"src/shared/key", "src/q/a.go")
		testkit.Must(t, os.Symlink(".vault", filepath.Join(p, "secrets")))
		testkit.Must(t, os.Symlink("../shared", filepath.Join(root, "src/q/secrets")))
		o.Profiles = []rules.Profile{{ID: "p", SecurityGroup: "default", WorkspaceRoot: p},
			{ID: "q", SecurityGroup: "default", WorkspaceRoot: filepath.Join(root, "src/q")}}
	})
	for _, tp := range []string{"@fs_read", "mcp__notes__*"} {
		if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: tp,
			Action: rules.Allow, Priority: rules.DefaultPriority}, admin); err != nil {
			t.Fatal(err)
		}
	}
	e.run()
	type check struct {
		name, profile, tool, key, path string
		want                           gate.Verdict
	}
	run := func(step string, cases []check) {
		t.Helper()
		for _, c := range cases {
			t.Run(step+": "+c.name, func(t *testing.T) {
				cwd := e.root
				if c.profile == "p" {
					cwd = p
				}
				out := e.check(gate.Call{ToolName: c.tool, SessionID: "s", Profile: c.profile,
					Cwd: cwd, Arguments: map[string]any{c.key: c.path}})
				if out.Decision != c.want {
					t.Errorf("%s %s (profile %q) = %s (%s), want %s", c.tool, c.path, c.profile,
						out.Decision, out.Reason, c.want)
				}
			})
		}
	}
	run("linked", []check{
		{"top: by the link", "", "Read", "file_path", "src/p/secrets/key", gate.VerdictDeny},
		{"top: by the target", "", "Read", "file_path", "src/p/.vault/key", gate.VerdictDeny},
		{"top: absolute target", "", "Read", "file_path", p + "/.vault/key", gate.VerdictDeny},
		{"top: other tool", "", "mcp__notes__get",
			"path", "src/p/.vault/key", gate.VerdictPending},
		{"top: its code", "", "Read", "file_path", "src/p/lib/a.go", gate.VerdictAllow},
		{"top: the next target", "", "Read", "file_path", "src/p/.vault-2/key", gate.VerdictAllow},
		{"own: by the link", "p", "Read", "file_path", "secrets/key", gate.VerdictDeny},
		{"own: by the target", "p", "Read", "file_path", p + "/.vault/key", gate.VerdictDeny},
		{"top: q's link out", "", "Read", "file_path", "src/shared/key", gate.VerdictDeny},
		{"top: q's link out, other tool", "", "mcp__notes__get",
			"path", "src/shared/key", gate.VerdictPending},
		{"p: q's link out", "p", "Read", "file_path", shared + "/key", gate.VerdictDeny},
	})
	testkit.Must(t, os.Remove(filepath.Join(p, "secrets")))
	testkit.Must(t, os.Symlink(".vault-2", filepath.Join(p, "secrets")))
	run("swapped", []check{
		{"top: by the link", "", "Read", "file_path", "src/p/secrets/key", gate.VerdictDeny},
		{"top: by the new target", "", "Read",
			"file_path", "src/p/.vault-2/key", gate.VerdictDeny},
		{"top: other tool", "", "mcp__notes__get",
			"path", "src/p/.vault-2/key", gate.VerdictPending},
		{"top: the old target", "", "Read", "file_path", "src/p/.vault/key", gate.VerdictAllow},
		{"own: by the new target", "p", "Read",
			"file_path", p + "/.vault-2/key", gate.VerdictDeny},
		{"own: the old target", "p", "Read", "file_path", p + "/.vault/key", gate.VerdictAllow},
	})
}
