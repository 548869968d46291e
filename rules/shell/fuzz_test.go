package shell

import (
	"fmt"
	"strings"
	"testing"
)

// denyTemplates hide "rm -rf /x" in the places a script can run it.
var denyTemplates = []string{
	"git status; rm -rf /x\n%s",
	"git status | rm -rf /x\n%s",
	"git status && rm -rf /x\n%s",
	"echo $(rm -rf /x)\n%s",
	"echo `rm -rf /x`\n%s",
	"cat <(rm -rf /x)\n%s",
	"X=$(rm -rf /x) git status\n%s",
	"bash -c 'rm -rf /x'\n%s",
	"sh -c \"git status; rm -rf /x\"\n%s",
	"f() { rm -rf /x; }\n%s",
	"if true; then rm -rf /x; fi\n%s",
	"env nice timeout 5 rm -rf /x\n%s",
	"sudo rm -rf /x\n%s",
	"/bin/rm -rf /x\n%s",
	"eval 'rm -rf /x'\n%s",
	"for i in a; do rm -rf /x; done\n%s",
	"case a in a) rm -rf /x;; esac\n%s",
	"echo \"$(bash -c 'rm -rf /x')\"\n%s",
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "git status", "'", "cd data; ls *", "a=$(b) c <d >e",
		"sh -c 'sh -c \"sh -c x\"'", "{a,b}{c,d}", "cat <<EOF\nx\nEOF", "f() { g; }",
		"[[ $(x) ]]", "$((1+2))", "sudo -u x env -i y", "find . -exec a {} +", "#",
		"tar xzf a b", "tar -C", "sed -i", "sed -e", "git -c", "git -C", "git show a:b",
		"find -delete", "find . -fprintf", "curl file:", "curl -F x=@", "go -C", "go test -o",
		"awk -f", "dd of=", "cp -t", "sort -o", "gzip -c", "wget -P", "make -C", "-o=",
		"mytool -c/x", "npm --pre", "b[x]=1", "b=([x]=1)", "b[x]+=1", "HOME=/x; cd",
		"for HOME in x; do", "cd() { :; }", "function cd { :; }", "alias a=b", "${!x}",
		"${a[x]}", "${x:y}", "${x@P}", "${HOME:=/x}", "[[ x -eq 1 ]]", "declare -n x=y",
		"bash -lc x", "bash -o keyword -c x", "set -k", "grep -drecurse", "grep --recur",
		"ln -s a b/c", "echo ../s/*", "git --git-dir=x", "sed 's", "sed '\\x", "sed 'a\\'",
		`awk '"\'`, "awk 'print(>", "python3 -W", "node --require", "perl -e"} {
		f.Add(s)
	}
	deny := MustCompile("rm -rf *")
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, frag string) {
		s := Parse(frag)
		if s.Err != nil && strings.Contains(s.Err.Error(), "parser failed") {
			t.Fatalf("Parse(%q) panicked: %v", frag, s.Err)
		}
		if len(frag) < 256 {
			_, _ = s.Paths(base, base)
		}
		for _, tmpl := range denyTemplates {
			script := fmt.Sprintf(tmpl, frag)
			s := Parse(script)
			if s.Unknown() {
				continue
			}
			found := false
			for i := range s.Commands {
				if deny.Denies(&s.Commands[i]) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("%q: no command is denied by %q and none is unknown", script, deny)
			}
		}
	})
}

// riskyTemplates put an option that writes or runs before any words: the pattern of
// each, which does not spell the option, must never allow the command.
var riskyTemplates = []struct{ script, pattern string }{
	{"git log --output=x %s", "git log *"},
	{"git log --out=x %s", "git log *"},
	{"git -c core.pager=sh %s", "git *"},
	{"git --exec-path=/x %s", "git *"},
	{"go test -exec ./x %s", "go test *"},
	{"go test -toolexec=x %s", "go test *"},
	{"go test -coverprofile=c %s", "go test *"},
	{"sort -o x %s", "sort *"},
	{"sort -ro x %s", "sort *"},
	{"npm test --script-shell=sh %s", "npm test *"},
	{"npm --prefix x test %s", "npm *"},
	{"find . -delete %s", "find *"},
	{"sed -i s/a/b/ %s", "sed *"},
	{"tar -xf a %s", "tar *"},
	{"make CC=sh %s", "make *"},
	{"python3 -c x %s", "python3 *"},
	{"env timeout 5 go test -exec x %s", "go test *"},
}

func FuzzRisky(f *testing.F) {
	for _, s := range []string{"", "./...", "-v", "-- x", "a b c", "'-o' x", "--output=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frag string) {
		if strings.ContainsAny(frag, "\n;&|") {
			return // another command: the fuzz test above covers scripts
		}
		for _, tt := range riskyTemplates {
			script := fmt.Sprintf(tt.script, frag)
			s := Parse(script)
			p := MustCompile(tt.pattern)
			for i := range s.Commands {
				c := &s.Commands[i]
				if i == 0 && p.Allows(c) {
					t.Fatalf("%q: %q allows %+v", script, tt.pattern, c)
				}
			}
		}
	})
}
