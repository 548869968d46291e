package bot

import (
	"testing"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestAlwaysRules(t *testing.T) {
	cmd := func(c, action, reason string) store.CommandDecision {
		return store.CommandDecision{Command: c, Action: action, Reason: reason}
	}
	risky := func(c string, opts ...string) store.CommandDecision {
		return store.CommandDecision{Command: c, Action: "require", Risky: opts}
	}
	shell := func(cs ...store.CommandDecision) store.Request {
		return store.Request{ToolName: "Bash", GroupID: "dev", Commands: cs}
	}
	cases := []struct {
		name string
		r    store.Request
		want []string // command patterns, or the tool pattern for other tools
	}{
		{"one command", shell(cmd("git status", "require", "")), []string{"git status *"}},
		{"option stops the words", shell(cmd("git status --short", "require", "")),
			[]string{"git status *"}},
		{"at most two words", shell(cmd("npm run test unit", "require", "")),
			[]string{"npm run test *"}},
		{"program alone", shell(cmd("ls -la", "require", "")), []string{"ls *"}},
		{"allowed commands need no rule",
			shell(cmd("git status", "allow", ""), cmd("rm -rf data", "require", "")),
			[]string{"rm *"}},
		{"one rule per command, no duplicates",
			shell(cmd("go test ./...", "require", ""), cmd("go test -race", "require", ""),
				cmd("make lint", "require", "")),
			[]string{"go test *", "make lint *"}},
		{"a guard: no offer",
			shell(cmd("git status", "require", ""),
				cmd("cat secrets/key", "require", "secrets/key: inside a denied place")), nil},
		{"a path as program", shell(cmd("./data/git status", "require", "")), nil},
		{"absolute program", shell(cmd("/bin/rm -rf x", "require", "")), nil},
		{"sudo", shell(cmd("sudo rm -rf /", "require", "")), nil},
		{"wrapper", shell(cmd("nice -n5 make", "require", "")), nil},
		{"eval", shell(cmd("eval rm", "require", "")), nil},
		{"xargs", shell(cmd("xargs rm", "require", "")), nil},
		{"expansion", shell(cmd("echo $HOME", "require", "")), nil},
		{"substitution", shell(cmd("git `whoami`", "require", "")), nil},
		{"glob word", shell(cmd("rm *.go", "require", "")), []string{"rm *"}},
		// An option that writes or runs: exactly the call, never a star.
		{"writing option", shell(risky("git log --output=out.txt", "--output=out.txt")),
			[]string{"git log --output=out.txt"}},
		{"running option", shell(risky("go test -exec ./x ./...", "-exec")),
			[]string{"go test -exec ./x ./..."}},
		{"risky with a star", shell(risky("sort -o x *.txt", "-o")), nil},
		{"risky beside a plain one",
			shell(cmd("git status", "require", ""), risky("tar -xf a.tar", "-x")),
			[]string{"git status *", "tar -xf a.tar"}},
		{"shell call without commands", store.Request{ToolName: "Bash"}, nil},
		{"empty command", shell(cmd("", "require", "")), nil},
		{"mcp tool", store.Request{ToolName: "mcp__notes__list"}, []string{"mcp__notes__list"}},
		{"guarded file tool",
			store.Request{ToolName: "Read", Reason: "path contains a protected place"}, nil},
		{"tool with a star", store.Request{ToolName: "mcp__x*"}, nil},
		{"non-ASCII tool", store.Request{ToolName: "mcp__nоtes"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := alwaysRules(c.r)
			if len(got) != len(c.want) {
				t.Fatalf("alwaysRules = %+v, want %q", got, c.want)
			}
			for i, r := range got {
				pat := r.CommandPattern
				if pat == "" {
					pat = r.ToolPattern
				}
				if pat != c.want[i] || r.Action != rules.Allow || r.ToolPattern != c.r.ToolName {
					t.Errorf("rule %d = %+v, want %q", i, r, c.want[i])
				}
				if want := c.r.GroupID; want != "" && r.GroupID != want {
					t.Errorf("group %q, want %q", r.GroupID, want)
				}
				if c.r.GroupID == "" && r.GroupID != rules.DefaultGroup {
					t.Errorf("group %q, want default", r.GroupID)
				}
			}
		})
	}
}

func TestAlwaysPriority(t *testing.T) {
	req := func(tool string, p int) rules.Rule {
		return rules.Rule{ToolPattern: tool, Action: rules.Require, Priority: p}
	}
	cases := []struct {
		name  string
		rules []rules.Rule
		want  int
	}{
		{"no rules", nil, rules.DefaultPriority},
		{"seeded require at 1000", []rules.Rule{req("Bash", 1000)}, rules.DefaultPriority},
		{"require at the default", []rules.Rule{req("Bash", 100)}, 99},
		{"require first", []rules.Rule{req("Bash", 10), req("*", 50)}, 9},
		{"at zero", []rules.Rule{req("Bash", 0)}, 0},
		{"other tool", []rules.Rule{req("Read", 5)}, rules.DefaultPriority},
		{"filtered require", []rules.Rule{{ToolPattern: "Bash", Action: rules.Require,
			Priority: 5, CommandPattern: "rm *"}}, rules.DefaultPriority},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := alwaysPriority("Bash", c.rules); got != c.want {
				t.Errorf("alwaysPriority = %d, want %d", got, c.want)
			}
		})
	}
}

func TestParseOfferData(t *testing.T) {
	if id, err := parseOfferData("r:42"); err != nil || id != 42 {
		t.Errorf("r:42 = %d, %v", id, err)
	}
	for _, bad := range []string{"r:", "r:0", "r:042", "r:x", "r:1:2", "a:1:ok"} {
		if _, err := parseOfferData(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
