package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// projectEnv is an env with two projects outside the workspace root: proj (its own
// workspace, with secrets/, data/ and src/) and proj/inner nested in it (with secrets/).
func projectEnv(t *testing.T) (*env, string, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "proj")
	inner := filepath.Join(proj, "inner")
	for _, d := range []string{"secrets", "data", "src", "inner/secrets"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, func(o *gate.Options) {
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
		{"read in the project by profile", "proj", "", proj + "/src/main.go", gate.VerdictAllow, gate.ReasonFastPath},
		{"relative read in the project", "proj", "", "src/main.go", gate.VerdictAllow, gate.ReasonFastPath},
		{"its secrets by profile", "proj", "", proj + "/secrets/key.pem", gate.VerdictDeny, rules.ReasonRule},
		{"its secrets relative", "proj", "", "secrets/key.pem", gate.VerdictDeny, rules.ReasonRule},
		{"its secrets from src", "proj", proj + "/src", "../secrets/key.pem", gate.VerdictDeny, rules.ReasonRule},
		{"its data is allowed", "proj", "", proj + "/data/out.txt", gate.VerdictAllow, rules.ReasonRule},
		{"by cwd: inside", "", proj, proj + "/src/main.go", gate.VerdictAllow, gate.ReasonFastPath},
		{"by cwd: its secrets", "", proj + "/src", proj + "/secrets/key.pem", gate.VerdictDeny, rules.ReasonRule},
		{"by cwd: deepest wins", "", inner, inner + "/secrets/a", gate.VerdictDeny, rules.ReasonRule},
		{"deepest: outer secrets are outside", "", inner, proj + "/secrets/a", gate.VerdictPending, rules.ReasonRule},
		{"by cwd: outside every project", "", e.root, proj + "/secrets/key.pem", gate.VerdictPending, rules.ReasonRule},
		{"no cwd: default", "", "", proj + "/secrets/key.pem", gate.VerdictPending, rules.ReasonRule},
		{"default keeps its workspace", "", "", "secrets/x", gate.VerdictDeny, rules.ReasonRule},
		{"a named profile is kept whatever the cwd", "default", proj, proj + "/secrets/key.pem", gate.VerdictPending, rules.ReasonRule},
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
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash", CommandPattern: "echo *",
		Action: rules.Allow, Priority: rules.DefaultPriority}, admin); err != nil {
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
	e := newEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		profiles []rules.Profile
		says     string
	}{
		{[]rules.Profile{{ID: "a", WorkspaceRoot: "rel"}}, `profile "a": workspace root "rel" is not an absolute path`},
		{[]rules.Profile{{ID: "a", WorkspaceRoot: e.root + "/src"}, {ID: "b", WorkspaceRoot: e.root + "/src/"}},
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
	e := newEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		name string
		ch   store.RuleChanges
		says []string
	}{
		{"invalid rules", store.RuleChanges{CreateRules: []rules.Rule{
			{GroupID: "default", ToolPattern: "Read", CommandPattern: "ls *", Action: rules.Allow, Priority: 1},
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
		CreateRules: []rules.Rule{{GroupID: "default", ToolPattern: "Bash", CommandPattern: "make *",
			Action: rules.Allow, Priority: rules.DefaultPriority}},
	}, admin)
	if err != nil || len(out) != 1 {
		t.Fatalf("ApplyRules = %v, %v", out, err)
	}
	if got := e.check(gate.Call{ToolName: "Bash", SessionID: "s",
		Arguments: map[string]any{"command": "make test"}}); got.Decision != gate.VerdictAllow || got.RuleID != out[0].ID {
		t.Errorf("make test after the plan: %+v", got)
	}
	if gs, err := e.m.Groups(); err != nil || len(gs) != 2 {
		t.Errorf("groups %v, %v", gs, err)
	}
}
