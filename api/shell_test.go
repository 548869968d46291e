package api_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// TestShellCommandRule: a command rule added at the default priority decides before
// the seeded Bash require, so the same call goes from pending to allow; the answer
// lists every command with its decision and rule, and a request records them.
func TestShellCommandRule(t *testing.T) {
	e := newAPIEnv(t)
	if err := os.MkdirAll(filepath.Join(e.root, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := map[string]any{"command": "git status --short"}
	before := e.checkAs("Bash", call, "")
	if before.Decision != gate.VerdictPending || before.RequestID == 0 {
		t.Fatalf("before the rule: %+v, want pending", before)
	}
	r, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "git status *", Action: rules.Allow})
	if err != nil {
		t.Fatal(err)
	}
	if r.CommandPattern != "git status *" {
		t.Fatalf("stored rule %+v lost its command pattern", r)
	}
	got := e.checkAs("Bash", map[string]any{"command": "git status --short docs"}, "")
	want := []api.CommandDecision{{Command: "git status --short docs", Action: "allow",
		RuleID: r.ID, Reason: rules.ReasonRule}}
	if got.Decision != gate.VerdictAllow || got.RuleID != r.ID ||
		got.Reason != `command "git status --short docs" allowed by rule `+
			strconv.FormatUint(r.ID, 10)+` (allow Bash command="git status *")` ||
		!reflect.DeepEqual(got.Commands, want) {
		t.Fatalf("after the rule: %+v, want allow by rule %d with %+v", got, r.ID, want)
	}
	// Another command of the script still needs a human, and says which.
	res, err := e.client(agentToken).Check(ctx, api.CheckRequest{Call: gate.Call{
		ToolName: "Bash", SessionID: "s2",
		Arguments: map[string]any{"command": "git status docs && cat secrets/key"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != gate.VerdictPending || len(res.Commands) != 2 ||
		res.Commands[0].Action != "allow" || res.Commands[1].Action != "require" ||
		!strings.Contains(res.Commands[1].Reason, "denied place: secrets") {
		t.Fatalf("mixed script: %+v", res)
	}
	q, err := e.admin.Request(ctx, res.RequestID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Commands, res.Commands) {
		t.Errorf("request commands %+v, want %+v", q.Commands, res.Commands)
	}
	// A deny pattern anywhere in the script denies it.
	if _, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: rules.DefaultGroup,
		ToolPattern: "Bash", CommandPattern: "rm *", Action: rules.Deny}); err != nil {
		t.Fatal(err)
	}
	e.wantDecision("Bash", map[string]any{"command": "git status $(rm -rf ~)"}, "",
		gate.VerdictDeny)
	// The explain trace names the rule in words too, as the check does.
	ex, err := e.admin.Explain(ctx, gate.Call{ToolName: "Bash",
		Arguments: map[string]any{"command": "rm x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ex.Reason, `command "rm x" denied by rule `) ||
		!strings.HasSuffix(ex.Reason, ` (deny Bash command="rm *")`) {
		t.Errorf("explain reason %q", ex.Reason)
	}
	e.wantDecision("Bash", map[string]any{"command": `bash -c "git status; env rm -rf data"`}, "",
		gate.VerdictDeny)
}

// TestShellLinkedConfig: git run where .git is a symlink or a gitdir: file into a
// place the agent may write runs what the agent wrote, so an allow rule for it leaves
// the call pending; the reason names where the configuration resolves.
func TestShellLinkedConfig(t *testing.T) {
	e := newAPIEnv(t)
	for _, d := range []string{"data/fakegit", "src/q", "src/r", "src/ok/.git"} {
		testkit.Must(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	testkit.Must(t, os.Symlink("../../data/fakegit", filepath.Join(e.root, "src/q/.git")))
	testkit.Must(t, os.WriteFile(filepath.Join(e.root, "src/r/.git"),
		[]byte("gitdir: ../../data/fakegit\n"), 0o644))
	e.addRule(rules.Rule{ToolPattern: "Bash", CommandPattern: "git status *", Action: rules.Allow})
	for _, dir := range []string{"src/q", "src/r"} {
		t.Run(dir, func(t *testing.T) {
			res := e.checkAs("Bash", map[string]any{"command": "git status"}, dir)
			if res.Decision != gate.VerdictPending ||
				!strings.Contains(res.Reason, "data/fakegit/config, which the agent may write") {
				t.Errorf("git status in %s = %+v, want pending naming data/fakegit/config",
					dir, res)
			}
		})
	}
	e.wantDecision("Bash", map[string]any{"command": "git status"}, "src/ok", gate.VerdictAllow)
}

// TestShellGlobBudget: a glob that walks more of the file system than the budget is
// for a human under an allow rule and a bypass.
func TestShellGlobBudget(t *testing.T) {
	e := newAPIEnv(t)
	e.addRule(rules.Rule{ToolPattern: "Bash", CommandPattern: "echo *", Action: rules.Allow})
	_, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0)
	testkit.Must(t, err)
	res := e.checkAs("Bash", map[string]any{"command": "echo /**/x"}, "")
	if res.Decision != gate.VerdictPending || !strings.Contains(res.Reason, "too many paths") {
		t.Errorf("echo /**/x = %+v, want pending: too many paths", res)
	}
}

// TestShellAttacks sends each attack on command rules through the real API, beside
// its allowed neighbour: a hard link of .git/config into data/, go -overlay, git
// status -v, git log --check and git add -p in a repository holding secrets/, a
// file listing the files wc or md5sum -c reads, zip -@ reading them from its input,
// inline code (python3 -c, an awk print to a file), an assignment of PATH, a device
// node, and a $'\c…' word shown as written.
func TestShellAttacks(t *testing.T) {
	e := newAPIEnv(t)
	for _, d := range []string{".git", "src/p"} {
		testkit.Must(t, os.MkdirAll(filepath.Join(e.root, d), 0o755))
	}
	for _, p := range []string{"cp *", "go *", "git status *", "git log *", "git add *", "wc *",
		"cat *", "zip *", "md5sum *", "python3 *", "awk *"} {
		e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: "Bash", CommandPattern: p,
			Action: rules.Allow, Priority: 100})
	}
	dev := testkit.Device(t)
	parent := e.t
	for _, tt := range []struct {
		script, cwd string
		want        gate.Verdict
	}{
		{"cp -l .git/config data/gc", "", gate.VerdictPending},
		{"cp .git/config data/gc", "", gate.VerdictAllow},
		{"go test -overlay=data/ov.json ./src/p", "", gate.VerdictPending},
		{"go test -count=1 ./src/p", "", gate.VerdictAllow},
		{"git status -v", "src", gate.VerdictPending},
		{"git status -s", "src", gate.VerdictAllow},
		{"git log --check", "src", gate.VerdictPending},
		{"git log --oneline -n 5", "src", gate.VerdictAllow},
		{"git add -p", "src", gate.VerdictPending},
		{"git add p/x.go", "src", gate.VerdictAllow},
		{"wc --files0-from=data/list", "", gate.VerdictPending},
		{"wc -l data/list", "", gate.VerdictAllow},
		{"zip -@ data/a.zip < data/list", "", gate.VerdictPending},
		{"zip data/a.zip data/list", "", gate.VerdictAllow},
		{"md5sum -c data/list", "", gate.VerdictPending},
		{"md5sum data/list", "", gate.VerdictAllow},
		{"PATH=/tmp/x git status -s", "src", gate.VerdictPending},
		{"LANG=C git status -s", "src", gate.VerdictAllow},
		{"python3 -c 'import os'", "", gate.VerdictPending},
		{"python3 --version", "", gate.VerdictAllow},
		{`awk '{ print > "data/x" }' data/list`, "", gate.VerdictPending},
		{"awk '$1 > 5' data/list", "", gate.VerdictAllow},
		{"cat " + dev, "", gate.VerdictPending},
		{"cat /dev/null", "", gate.VerdictAllow},
		{`cat $'\cssecrets/key'`, "", gate.VerdictPending},
	} {
		t.Run(tt.script, func(t *testing.T) {
			e.t = t
			e.wantDecision("Bash", map[string]any{"command": tt.script}, tt.cwd, tt.want)
		})
	}
	e.t = parent
	res := e.checkAs("Bash", map[string]any{"command": `cat $'\cssecrets/key'`}, "")
	if len(res.Commands) != 1 || res.Commands[0].Command != `cat $'\cssecrets/key'` {
		t.Errorf("commands %+v, want the word as written", res.Commands)
	}
}
