package api_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// TestShellAttacks sends each attack on command rules through the real API, beside
// its allowed neighbour: a hard link of .git/config into data/, go -overlay, git
// status -v, git log --check and git add -p in a repository holding secrets/, a
// file listing the files wc or md5sum -c reads, zip -@ reading them from its input,
// inline code (python3 -c, an awk print to a file), an assignment of PATH, a device
// node, and a $'\c…' word shown as written.
func TestShellAttacks(t *testing.T) {
	e := newEnv(t)
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
