package bot

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/store"
)

// script is a shell call's request whose commands are decided as the gate records
// them: "echo <i>" allowed by rule 7, except at the indexes in needing, which are
// "python3 -c …" commands that no rule matches.
func script(n int, needing ...int) store.Request {
	r := sampleRequest()
	var text []string
	for i := range n {
		c := store.CommandDecision{Command: fmt.Sprintf("echo line %d of the build log", i),
			Action: "allow", RuleID: 7}
		for _, k := range needing {
			if k == i {
				c = store.CommandDecision{
					Command: fmt.Sprintf(`python3 -c import os;os.system("id %d")`, i),
					Action:  "require", Reason: "no rule matches"}
			}
		}
		r.Commands = append(r.Commands, c)
		text = append(text, c.Command)
	}
	r.Arguments = mustJSON(map[string]string{"command": strings.Join(text, "; ")})
	return r
}

// scriptCases are the attacker's script — 40 allowed commands, the one that needs the
// human, 40 more — and its neighbours.
func scriptCases() map[string]store.Request {
	long := script(3, 1)
	long.Commands[1].Command = "python3 -c " + strings.Repeat("x", 5000) + " id"
	many := make([]int, 0, 200)
	for i := range 200 {
		many = append(many, i*2)
	}
	all := make([]int, 0, 300)
	for i := range 300 {
		all = append(all, i)
	}
	return map[string]store.Request{
		"attack":          script(81, 40),
		"needing_first":   script(81, 0),
		"needing_last":    script(81, 80),
		"three_needing":   script(120, 3, 60, 119),
		"many_needing":    script(400, many...),
		"all_needing":     script(300, all...),
		"long_command":    long,
		"few_all_fit":     script(4, 2),
		"unknown_action":  withAction(script(81, 40), 40, "ask"),
		"denied_and_more": withAction(script(81, 10, 70), 70, "deny"),
	}
}

func withAction(r store.Request, i int, action string) store.Request {
	r.Commands[i].Action = action
	return r
}

var elidedRE = regexp.MustCompile(`^… (\d+) allowed commands? not shown$`)
var cutRE = regexp.MustCompile(`^…\[(\d+) commands? cut, (\d+) need you\]…$`)

// checkShown checks shown, the plain text lines of a rendered command list, against
// r: every command that is not allowed is shown in script order with its mark, unless
// a cut line counts it; the allowed ones left out are counted; nothing is counted twice.
func checkShown(t *testing.T, r store.Request, shown []string) {
	t.Helper()
	all := commandLines(r.Commands)
	i, needing := 0, 0
	for _, l := range all {
		if l.Needs() {
			needing++
		}
	}
	cut := false
	for _, s := range shown {
		if m := elidedRE.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			for ; n > 0; n-- {
				if i >= len(all) || all[i].Needs() {
					t.Fatalf("%q stands for a command that is not allowed (line %d)", s, i)
				}
				i++
			}
			continue
		}
		if m := cutRE.FindStringSubmatch(s); m != nil {
			if cut {
				t.Fatalf("two cut lines")
			}
			cut = true
			n, _ := strconv.Atoi(m[1])
			k, _ := strconv.Atoi(m[2])
			for ; n > 0; n-- {
				if i >= len(all) {
					t.Fatalf("%q counts past the script's end", s)
				}
				if all[i].Needs() {
					k--
				}
				i++
			}
			if k != 0 {
				t.Fatalf("%q: the count of commands that need the human is off by %d", s, k)
			}
			continue
		}
		for i < len(all) && !all[i].Needs() && all[i].String() != s {
			t.Fatalf("allowed command %q left out with no count before %q", all[i].String(), s)
		}
		if i >= len(all) || all[i].String() != s {
			t.Fatalf("line %q is not command %d of the script", s, i)
		}
		i++
	}
	if i != len(all) {
		t.Fatalf("the lines account for %d commands of %d", i, len(all))
	}
	if !cut {
		for _, l := range all {
			if l.Needs() && !strings.Contains(strings.Join(shown, "\n"), l.String()) {
				t.Fatalf("%q is not shown", l.String())
			}
		}
	}
}

// commandsOf returns the lines of a rendered prompt's Commands part: those between
// "Commands:" and the first empty line.
func commandsOf(t *testing.T, plain string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(plain, "Commands:\n")
	if !ok {
		t.Fatalf("no commands in\n%s", plain)
	}
	rest, _, _ = strings.Cut(rest, "\n\n")
	return strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
}

// Whatever is cut, every command that is not allowed stays in the Telegram and the
// Slack prompt with its mark, in script order, and the allowed ones left out are
// counted where they were; the Script field states how many need the human and names
// the one that decided, also when the arguments are cut.
func TestPromptShowsNeedingCommands(t *testing.T) {
	for name, r := range scriptCases() {
		t.Run(name, func(t *testing.T) {
			p := NewPrompt(r, 0)
			plain := checkTelegramHTML(t, p.Telegram().HTML)
			checkShown(t, r, commandsOf(t, plain))
			if name == "attack" && !strings.Contains(plain, " characters cut]…") {
				t.Errorf("the arguments of the attack are not cut: the case lost its point")
			}
			if !strings.Contains(plain, `"command": "`+r.Commands[0].Command[:10]) {
				t.Errorf("the arguments' head is not shown")
			}
			sl := p.Slack()
			checkSlack(t, sl)
			if units(sl.Commands) > SlackMaxText {
				t.Fatalf("Slack commands are %d units", units(sl.Commands))
			}
			mrk := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "`", "", "_", "")
			var lines []string
			for _, l := range strings.Split(sl.Commands, "\n")[1:] {
				lines = append(lines, mrk.Replace(l))
			}
			checkShown(t, r, lines)

			var want string
			needing, first := 0, -1
			for i, c := range r.Commands {
				if c.Action != "allow" {
					needing++
					if first < 0 || c.Action == "deny" {
						first = i
					}
				}
			}
			want = fmt.Sprintf("%d commands need you (of %d); first: ", needing, len(r.Commands))
			if needing == 1 {
				want = fmt.Sprintf("1 command needs you (of %d): ", len(r.Commands))
			}
			want += shownValue(r.Commands[first].Command, false, MaxCommandLen)
			if f := p.Fields[1]; f.Label != "Script" || f.Value != want {
				t.Errorf("second field %+v, want Script: %s", f, want)
			}
			if !strings.Contains(plain, "\nScript: "+want+"\n") {
				t.Errorf("Telegram prompt lacks the Script line")
			}
			if !strings.Contains(sl.Fields[1], mrkdwnOf(want)) {
				t.Errorf("Slack field %q, want %q", sl.Fields[1], want)
			}
		})
	}
}

func mrkdwnOf(s string) string { return EscapeMrkdwn(s) }

// A script whose commands are all allowed (a guard asked the human) has no Script
// field; its commands are cut with a count of the allowed ones left out.
func TestPromptAllAllowed(t *testing.T) {
	r := script(200)
	r.Reason = "path contains a protected or denied place: secrets"
	p := NewPrompt(r, 0)
	for _, f := range p.Fields {
		if f.Label == "Script" {
			t.Errorf("Script field %q on a script with every command allowed", f.Value)
		}
	}
	plain := tagRE.ReplaceAllString(p.Telegram().HTML, "")
	shown := commandsOf(t, plain)
	checkShown(t, r, shown)
	if last := shown[len(shown)-1]; !elidedRE.MatchString(last) {
		t.Errorf("last line %q, want the count of allowed commands not shown", last)
	}
}

// ShownCommands keeps within any budget, down to none, and says what it left out.
func TestShownCommandsBudgets(t *testing.T) {
	for name, r := range scriptCases() {
		p := NewPrompt(r, 0)
		for _, budget := range []int{0, 1, 40, 100, 300, 1500, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				ls := p.ShownCommands(budget, nil)
				var shown []string
				n := 0
				for _, l := range ls {
					shown = append(shown, l.String())
					n += lineUnits(l)
				}
				checkShown(t, r, shown)
				if n > budget && len(ls) > 1 {
					t.Errorf("%d units over the budget %d in %d lines", n, budget, len(ls))
				}
			})
		}
	}
}

// TestCommandLineRuleReason: a command a rule decided shows that rule's id, not the
// bare reason code the gate records; other reasons are shown as they are.
func TestCommandLineRuleReason(t *testing.T) {
	tests := []struct {
		name string
		c    store.CommandDecision
		want string
	}{
		{"rule", store.CommandDecision{Command: "echo hi", Action: "require", RuleID: 1,
			Reason: "rule"}, "❓ echo hi — rule 1"},
		{"no id", store.CommandDecision{Command: "echo hi", Action: "require",
			Reason: "rule"}, "❓ echo hi"},
		{"other", store.CommandDecision{Command: "cat k", Action: "require",
			Reason: "k: inside a denied place"}, "❓ cat k — k: inside a denied place"},
		{"allowed", store.CommandDecision{Command: "ls", Action: "allow", RuleID: 7,
			Reason: "rule"}, "✓ ls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := commandLines([]store.CommandDecision{tt.c})
			if len(ls) != 1 || ls[0].String() != tt.want {
				t.Fatalf("commandLines(%+v) = %+v, want %q", tt.c, ls, tt.want)
			}
		})
	}
}
