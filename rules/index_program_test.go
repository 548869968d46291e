package rules

import (
	"fmt"
	"testing"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// TestProgramIndex checks that listing command rules by program word (see tier)
// finds, for every command of many scripts, the rule a scan of every rule in order
// finds: patterns with and without a program word, of every action, under wrappers.
func TestProgramIndex(t *testing.T) {
	patterns := []string{"git status *", "git *", "git*", "rm *", "rm -rf *", "*", "* -rf *",
		"sudo *", "sudo rm *", "nice *", "env *", "make", "ma*", "go test *", "cat *", "ls *"}
	var rs []Rule
	for i, p := range patterns {
		for j, a := range []Action{Allow, Deny, Require} {
			rs = append(rs,
				Rule{ID: uint64(10*i + j + 1), GroupID: DefaultGroup, ToolPattern: "Bash",
					CommandPattern: p, Action: a, Priority: 100 + (i*7+j*13)%40})
		}
	}
	rs = append(rs, Rule{ID: 900, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Require,
		Priority: 120})
	s := Compile(nil, rs, Options{WorkspaceRoot: "/w"})
	tr := s.view.Load().tier(DefaultGroup)
	scripts := []string{"git status", "git status --short", "gitx", "git", "rm -rf /",
		"/bin/rm -rf /", "sudo rm -rf /", "nice -n5 rm -rf /", "env A=1 git status",
		"sudo -u bob make", "make", "makefile", "go test ./...", "cat x | grep y",
		"ls; rm -rf x", "bash -c 'git status'", "echo hi", "x -rf y", "eval ls"}
	for _, script := range scripts {
		sc := shell.Parse(script)
		for i := range sc.Commands {
			cmd := &sc.Commands[i]
			t.Run(fmt.Sprintf("%s/%d", script, i), func(t *testing.T) {
				m := matcher{cmd: cmd}
				m.allowText, m.allowable = cmd.AllowText()
				var want *crule
				for j := range tr.rules {
					r := &tr.rules[j]
					if s.toolMatches(r.toolKind, r.tool, "Bash") && m.match(r) {
						want = r
						break
					}
				}
				if got := tr.first("Bash", &m); got != want {
					t.Errorf("first = %v, want %v", ruleID(got), ruleID(want))
				}
			})
		}
	}
}

func ruleID(r *crule) uint64 {
	if r == nil {
		return 0
	}
	return r.id
}
