package rules

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// shellRules are the seeded shell requires at priority 1000, command rules before
// them, file rules for data/ and secrets/, and two groups.
func shellRules() ([]Group, []Rule) {
	rs := []Rule{
		{ID: 1, ToolPattern: "execute_cmd", Action: Require, Priority: 1000},
		{ID: 2, ToolPattern: "Bash", Action: Require, Priority: 1000},
		{ID: 3, ToolPattern: "Bash", CommandPattern: "git status *", Action: Allow, Priority: 100},
		{ID: 4, ToolPattern: "Bash", CommandPattern: "rm *", Action: Deny, Priority: 100},
		{ID: 5, ToolPattern: "Bash", CommandPattern: "echo *", Action: Allow, Priority: 100},
		{ID: 6, ToolPattern: "Bash", CommandPattern: "cat *", Action: Allow, Priority: 100},
		{ID: 7, ToolPattern: "Bash", CommandPattern: "sudo systemctl restart *", Action: Allow,
			Priority: 100},
		{ID: 8, ToolPattern: "Bash", CommandPattern: "curl *", Action: Deny, Priority: 100},
		{ID: 9, ToolPattern: "execute_cmd", CommandPattern: "cat *", Action: Allow, Priority: 100},
		{ID: 10, ToolPattern: "Bash", CommandPattern: "ls *", AgentID: "a1", Action: Allow,
			Priority: 100},
		{ID: 11, ToolPattern: "@fs_any", PathPattern: "data/*", Action: Allow, Priority: 5},
		{ID: 12, ToolPattern: "@fs_any", PathPattern: "secrets/*", Action: Deny, Priority: 5},
		{ID: 13, ToolPattern: "Bash", CommandPattern: "git push --force *", Action: Require,
			Priority: 50},
		{ID: 14, ToolPattern: "Bash", CommandPattern: "git *", Action: Allow, Priority: 200},
		{ID: 20, GroupID: "ci", ToolPattern: "Bash", CommandPattern: "go test *",
			Action: Allow, Priority: 100},
		{ID: 30, GroupID: "open", ToolPattern: "Bash", Action: Allow, Priority: 500},
	}
	for i := range rs {
		if rs[i].GroupID == "" {
			rs[i].GroupID = DefaultGroup
		}
	}
	return []Group{{ID: "ci", Name: "CI"}, {ID: "open", Name: "Open"}}, rs
}

func TestDecideScript(t *testing.T) {
	groups, rs := shellRules()
	s := Compile(groups, rs, Options{WorkspaceRoot: "/w"})
	tests := []struct {
		name, group, tool, agent, script string
		want                             Action
		rule                             uint64
		reason                           string   // a part of the Reason
		cmds                             []Action // each command's action; nil: not checked
	}{
		{"allowed", "", "Bash", "", "git status", Allow, 3, `"git status" allowed by rule 3`,
			[]Action{Allow}},
		{"allowed with options", "", "Bash", "", "git status --short", Allow, 3, "", nil},
		{"longer word falls to a wider rule", "", "Bash", "", "git statusx", Allow, 14, "", nil},
		{"other program", "", "Bash", "", "make", Require, 2, `"make" needs a human by rule 2`,
			nil},
		{"denied anywhere", "", "Bash", "", "git status; curl x | sh", Deny, 8,
			`"curl x" denied by rule 8`, []Action{Allow, Deny, Require}},
		{"denied on a later line", "", "Bash", "", "git status\nrm -rf data", Deny, 4, "", nil},
		{"substitution", "", "Bash", "", "git status $(rm -rf ~)", Deny, 4, "", nil},
		{"substitution never allowed", "", "Bash", "", "git status $(echo x)", Require, 2,
			"a word is not literal", []Action{Allow, Require}},
		{"bin path", "", "Bash", "", "/bin/rm -rf /", Deny, 4, "", nil},
		{"wrapped deny", "", "Bash", "", "nice -n5 rm -rf /", Deny, 4, "", nil},
		{"env deny", "", "Bash", "", "env rm -rf /", Deny, 4, "", nil},
		{"wrapped allow", "", "Bash", "", "timeout 5 git status", Allow, 3, "", nil},
		{"sh -c allowed inside", "", "Bash", "", `bash -c "git status"`, Allow, 3, "",
			[]Action{Allow, Allow}},
		{"sh -c denied inside", "", "Bash", "", `sh -c 'echo; rm -rf /'`, Deny, 4, "", nil},
		{"sudo denied", "", "Bash", "", "sudo rm -rf /", Deny, 4, "", nil},
		{"sudo needs its full form", "", "Bash", "", "sudo cat x", Require, 2, "", nil},
		{"sudo full form allowed", "", "Bash", "", "sudo systemctl restart nginx", Allow, 7, "",
			nil},
		{"other path program", "", "Bash", "", "./data/git status", Require, 2, "", nil},
		{"eval", "", "Bash", "", `eval "rm -rf /"`, Deny, 4, "", nil},
		{"eval harmless", "", "Bash", "", `eval "git status"`, Require, 2, "eval", nil},
		{"xargs", "", "Bash", "", "ls | xargs rm", Deny, 4, "", nil},
		{"assignment substitution", "", "Bash", "", "LANG=$(cat secrets/key) git status",
			Require, 2, "assigns LANG a value that is not literal", nil},
		{"assignment harmless", "", "Bash", "", "LANG=C git status", Allow, 3, "", nil},
		{"unterminated quote", "", "Bash", "", "echo 'x", Require, 2, "does not parse", nil},
		{"rm -fr is not denied literally", "", "Bash", "", "rm -fr /", Deny, 4, "", nil},
		{"require before allow", "", "Bash", "", "git push --force origin", Require, 13, "", nil},
		{"agent filter applies", "", "Bash", "a1", "ls -la", Allow, 10, "", nil},
		{"agent filter excludes", "", "Bash", "a2", "ls -la", Require, 2, "", nil},
		{"group rule", "ci", "Bash", "", "go test ./... && git status", Allow, 20, "", nil},
		{"group rule elsewhere", "", "Bash", "", "go test ./...", Require, 2, "", nil},
		{"plain allow matches every command", "open", "Bash", "", "make; eval x", Allow, 30, "",
			nil},
		{"group rules come before default's", "open", "Bash", "", "make; rm -rf /", Allow, 30,
			"", nil},
		{"other shell tool", "", "execute_cmd", "", "cat key", Allow, 9, "", nil},
		{"other shell tool's rules", "", "execute_cmd", "", "git status", Require, 1, "", nil},
		{"empty script", "", "Bash", "", "", Require, 2, "empty script", nil},
		{"comment only", "", "Bash", "", "# hi", Require, 2, "empty script", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group := cmpOr(tt.group, DefaultGroup)
			sc := shell.Parse(tt.script)
			c := Call{Tool: tt.tool, AgentID: tt.agent}
			d := s.decideScript(s.view.Load().tier(group), &c, &sc)
			if d.Action != tt.want || d.RuleID != tt.rule {
				t.Errorf("decideScript(%q) = %s by rule %d, want %s by rule %d; %s; %+v",
					tt.script, d.Action, d.RuleID, tt.want, tt.rule, d.Reason, d.Commands)
			}
			if !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to hold %q", d.Reason, tt.reason)
			}
			if tt.cmds != nil {
				var got []Action
				for _, cd := range d.Commands {
					got = append(got, cd.Action)
				}
				if !slices.Equal(got, tt.cmds) {
					t.Errorf("command actions = %v, want %v", got, tt.cmds)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestEvaluateDecidesScripts: Evaluate decides a shell call command by command, a
// shell call without a script by the rules without a command pattern, so "allow git
// status *" cannot allow all of Bash, and one whose script is not a string as an
// unresolvable path.
func TestEvaluateDecidesScripts(t *testing.T) {
	groups, rs := shellRules()
	s := Compile(groups, rs, Options{WorkspaceRoot: "/w"})
	d := s.Evaluate(DefaultGroup,
		Call{Tool: "Bash", Args: map[string]any{"command": "git status"}})
	if d.Action != Allow || d.RuleID != 3 || d.Script == nil || len(d.Script.Commands) != 1 ||
		d.Script.Commands[0].Text != "git status" {
		t.Errorf("Evaluate = %+v, want allow by rule 3 with its command", d)
	}
	for _, args := range []map[string]any{nil, {"command": nil}, {"cmd": "git status"}} {
		d := s.Evaluate(DefaultGroup, Call{Tool: "Bash", Args: args})
		if d.Action != Require || d.RuleID != 2 || d.Script != nil {
			t.Errorf("Evaluate(Bash %v) = %+v, want require by rule 2", args, d)
		}
	}
	d = s.Evaluate(DefaultGroup, Call{Tool: "Bash", Args: map[string]any{"command": 3}})
	if d.Action != Require || !d.Locked() || d.Reason != "command is not a string" {
		t.Errorf("Evaluate(Bash command 3) = %+v, want a locked require", d)
	}
	if s.Visible(DefaultGroup, "", "", "Bash") != true {
		t.Error("Bash is hidden: a command deny rule must not hide the tool")
	}
}

func TestValidateCommandPattern(t *testing.T) {
	base := Rule{GroupID: DefaultGroup, ToolPattern: "Bash", Action: Allow, Priority: 100}
	tests := []struct {
		name string
		edit func(*Rule)
		want string
	}{
		{"bad pattern", func(r *Rule) { r.CommandPattern = "git  status" },
			`rules: command_pattern "git  status": has two spaces in a row`},
		{"control character", func(r *Rule) { r.CommandPattern = "git\nrm" },
			`rules: command_pattern "git\nrm": holds a control character`},
		{"blank", func(r *Rule) { r.CommandPattern = " " },
			`rules: command_pattern " ": is empty`},
		{"star tool", func(r *Rule) { r.ToolPattern, r.CommandPattern = "*", "git *" },
			`rules: command_pattern "git *": needs a tool_pattern naming a shell tool, not "*"`},
		{"prefix tool", func(r *Rule) { r.ToolPattern, r.CommandPattern = "Ba*", "git *" },
			`not "Ba*"`},
		{"class tool", func(r *Rule) { r.ToolPattern, r.CommandPattern = "@fs_any", "git *" },
			`not "@fs_any"`},
		{"with a path", func(r *Rule) { r.CommandPattern, r.PathPattern = "git *", "data/*" },
			`rules: command_pattern "git *": cannot be combined with a path_pattern`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			err := Validate(r)
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidRule) ||
				!strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want a FieldError holding %q", err, tt.want)
			}
			// Compile leaves an invalid rule out: Bash stays at its require.
			s := Compile(nil, []Rule{r, {ID: 2, GroupID: DefaultGroup, ToolPattern: "Bash",
				Action: Require, Priority: 1000}}, Options{})
			sc := shell.Parse("git status")
			c := Call{Tool: "Bash"}
			if d := s.decideScript(s.view.Load().def, &c, &sc); d.Action != Require ||
				d.RuleID != 2 {
				t.Errorf("after Compile: %+v, want require by rule 2", d)
			}
		})
	}
	ok := base
	ok.CommandPattern = "npm run test:*"
	if err := Validate(ok); err != nil {
		t.Errorf("Validate(%+v) = %v", ok, err)
	}
}

func TestCheckShellRule(t *testing.T) {
	def := Compile(nil, nil, Options{})
	custom := Compile(nil, nil, Options{Shell: []ShellTool{{Tool: "run", Arg: "script"}}})
	tests := []struct {
		name string
		set  *Set
		rule Rule
		want string // "" for no error
	}{
		{"no pattern", def, Rule{ToolPattern: "Read"}, ""},
		{"Bash", def, Rule{ToolPattern: "Bash", CommandPattern: "ls *"}, ""},
		{"execute_cmd", def, Rule{ToolPattern: "execute_cmd", CommandPattern: "ls *"}, ""},
		{"not a shell tool", def, Rule{ToolPattern: "Read", CommandPattern: "ls *"},
			`rules: command_pattern "ls *": only applies to the shell tools ` +
				`(Bash, execute_cmd), not "Read"`},
		{"custom shell tool", custom, Rule{ToolPattern: "run", CommandPattern: "ls *"}, ""},
		{"default tool under custom", custom, Rule{ToolPattern: "Bash", CommandPattern: "ls *"},
			`only applies to the shell tools (run), not "Bash"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set.CheckShellRule(tt.rule)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckShellRule = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckShellRule = %v, want %q", err, tt.want)
			}
		})
	}
	st, ok := def.ShellTool("execute_cmd")
	if !ok || st != (ShellTool{Tool: "execute_cmd", Arg: "cmd", CwdArg: "cwd"}) {
		t.Errorf("ShellTool(execute_cmd) = %+v, %v", st, ok)
	}
	if _, ok := def.ShellTool("Read"); ok {
		t.Error("Read is a shell tool")
	}
}

func TestEvaluateShell(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"data/x", "secrets/key", "state/db", "src/main.go"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	groups, rs := shellRules()
	rs = append(rs, Rule{ID: 40, GroupID: DefaultGroup, ToolPattern: "*", Action: Require,
		Priority: 999999})
	s := Compile(groups, rs, Options{WorkspaceRoot: root, Home: "/home/u",
		Protected: []string{filepath.Join(root, "state")}})
	bash := func(script string) Call {
		return Call{Tool: "Bash", Args: map[string]any{"command": script}}
	}
	exec := func(script string, cwd any) Call {
		return Call{Tool: "execute_cmd", Args: map[string]any{"cmd": script, "cwd": cwd}}
	}
	tests := []struct {
		name     string
		call     Call
		want     Action
		rule     uint64
		reason   string // a part of the Reason
		contains string
	}{
		{"allowed", Call{Tool: "Bash", Cwd: "src", Args: map[string]any{"command": "git status"}},
			Allow, 3, "allowed by rule 3", ""},
		{"git reads the root", bash("git status"), Require, 0,
			`"." of command "git status" holds secrets`,
			"secrets"},
		{"write denied", bash("echo hi > secrets/x"), Deny, 12, `write "secrets/x"`, ""},
		{"write allowed", bash("echo hi > data/x"), Allow, 5, "", ""},
		{"write elsewhere needs a human", bash("echo hi > src/x"), Require, 40, "write", ""},
		{"read denied", bash("cat < secrets/key"), Deny, 12, "", ""},
		{"argument in a denied place", bash("cat secrets/key"), Require, 0,
			`argument "secrets/key" of command "cat secrets/key" is inside a denied place`,
			"secrets"},
		{"directory in a denied place", bash("ls secrets"), Require, 0, "", "secrets"},
		{"glob into a denied place", bash("cat secre*/key"), Require, 0, "", "secrets"},
		{"argument holding a denied place", bash("cat . data"), Require, 0, "holds", "secrets"},
		{"protected", bash("cat state/db"), Deny, 0, "is a protected path", ""},
		{"dev null", Call{Tool: "Bash", Cwd: "src",
			Args: map[string]any{"command": "git status > /dev/null 2>&1"}}, Allow, 3, "", ""},
		{"redirect not literal", bash(`echo hi > "$F"`), Require, 0,
			"a redirect target is not literal", ""},
		{"cd into a denied place", bash("cd secrets && cat key"), Require, 0, "", "secrets"},
		{"command deny wins", bash("cat secrets/key; rm -rf /"), Deny, 4, "", ""},
		{"cwd argument", exec("cat key", "secrets"), Require, 0, "working directory",
			"secrets"},
		{"cwd elsewhere", exec("cat x", "data"), Allow, 9, "", ""},
		{"cwd not a string", exec("cat x", 3), Require, 0, "cwd is not a string", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, sd, ok := s.EvaluateShell(DefaultGroup, tt.call)
			if !ok {
				t.Fatal("EvaluateShell: not a shell call")
			}
			if d.Action != tt.want || d.RuleID != tt.rule ||
				!strings.Contains(d.Reason, tt.reason) || d.Contains != tt.contains {
				t.Errorf("EvaluateShell = %+v\nwant %s by rule %d, reason with %q, "+
					"contains %q; %+v",
					d, tt.want, tt.rule, tt.reason, tt.contains, sd.Commands)
			}
		})
	}
	for _, c := range []Call{{Tool: "Read", Args: map[string]any{"path": "x"}},
		{Tool: "Bash"}} {
		if _, _, ok := s.EvaluateShell(DefaultGroup, c); ok {
			t.Errorf("EvaluateShell(%+v): ok, want not a shell call", c)
		}
	}
}

// TestShellDecisionNote: a script's decision carries the note of the deciding
// command's rule.
func TestShellDecisionNote(t *testing.T) {
	s := Compile(nil, []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Require, Priority: 1000},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "Bash", CommandPattern: "curl *",
			Action: Deny, Note: "no network"},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "Bash", CommandPattern: "ls *",
			Action: Allow, Note: "listing is fine"},
	}, Options{WorkspaceRoot: "/w"})
	for script, want := range map[string]string{
		"ls; curl x": "no network",
		"ls":         "listing is fine",
		"make":       "",
	} {
		d := s.Evaluate(DefaultGroup, Call{Tool: "Bash", Args: map[string]any{"command": script}})
		if d.Note != want {
			t.Errorf("Evaluate(%q) = %+v, want note %q", script, d, want)
		}
	}
}
