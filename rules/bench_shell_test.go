package rules

import (
	"fmt"
	"testing"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// benchScript is a 5-command script every command of which shellBenchRules allow.
const benchScript = "cd docs && git status --short | grep -v vendor > /dev/null; " +
	"go test ./... 2>&1 | tail -n 20"

// shellBenchRules are 1,000 rules: 900 of the realistic mix (its Bash and
// execute_cmd requires at priority 1000, as new stores seed them) and 100 command
// rules.
func shellBenchRules() []Rule {
	rs := mixRules(900)
	for i := range rs {
		if rs[i].ToolPattern == "Bash" || rs[i].ToolPattern == "execute_cmd" {
			rs[i].Priority = 1000
		}
	}
	for i := range 95 {
		rs = append(rs, Rule{ID: uint64(5000 + i), GroupID: DefaultGroup, ToolPattern: "Bash",
			CommandPattern: fmt.Sprintf("tool%d sub%d *", i, i), Action: Allow, Priority: 100})
	}
	for i, p := range []string{"git status *", "grep *", "go test *", "tail *", "cd *"} {
		rs = append(rs, Rule{ID: uint64(6000 + i), GroupID: DefaultGroup, ToolPattern: "Bash",
			CommandPattern: p, Action: Allow, Priority: 100})
	}
	return rs
}

// BenchmarkEvaluateShell decides a 5-command Bash script at 1,000 rules: the
// realistic mix plus 100 command rules.
func BenchmarkEvaluateShell(b *testing.B) {
	root := workspace(b)
	s := Compile([]Group{{ID: "dev", Name: "dev"}}, shellBenchRules(), seedOptions(root))
	c := Call{Tool: "Bash", Args: map[string]any{"command": benchScript}}
	if d, _, _ := s.EvaluateShell(DefaultGroup, c); d.Action != Allow {
		b.Fatalf("decision %+v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.EvaluateShell(DefaultGroup, c)
	}
}

// BenchmarkDecideScript is BenchmarkEvaluateShell without the paths: parsing the
// script and deciding its commands at 1,000 rules.
func BenchmarkDecideScript(b *testing.B) {
	root := workspace(b)
	s := Compile([]Group{{ID: "dev", Name: "dev"}}, shellBenchRules(), seedOptions(root))
	c := Call{Tool: "Bash"}
	t := s.view.Load().tier(DefaultGroup)
	b.ReportAllocs()
	for b.Loop() {
		sc := shell.Parse(benchScript)
		if d := s.decideScript(t, &c, &sc); d.Action != Allow {
			b.Fatalf("decision %+v", d)
		}
	}
}
