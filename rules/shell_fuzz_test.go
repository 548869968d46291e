package rules

import (
	"fmt"
	"testing"
)

// denyPlaces hide "rm -rf /x" in the places a script can run it: %s is the fuzzed
// fragment, after it, where it cannot turn it into a comment or a here-document.
var denyPlaces = []string{
	"git status; rm -rf /x\n%s",
	"git status | rm -rf /x | %s",
	"true && rm -rf /x && %s",
	"echo $(rm -rf /x) %s",
	"echo `rm -rf /x` %s",
	"cat <(rm -rf /x) %s",
	"X=$(rm -rf /x) %s",
	"bash -c 'rm -rf /x'\n%s",
	"sh -c \"git status; rm -rf /x\"\n%s",
	"f() { rm -rf /x; }\n%s",
	"if true; then rm -rf /x; fi; %s",
	"env nice timeout 5 rm -rf /x %s",
	"sudo rm -rf /x %s",
	"/bin/rm -rf /x %s",
	"for i in a; do rm -rf /x; done %s",
	"case a in a) rm -rf /x;; esac\n%s",
	"echo \"$(bash -c 'rm -rf /x')\" %s",
	"ls | xargs rm -rf /x; %s",
}

// guardPlaces hide a path in the denied secrets/ in the places a script names
// one, %s as in denyPlaces.
var guardPlaces = []string{
	"cat secrets/key\n%s",
	"cat secrets/key %s",
	"cat data/../secrets/key\n%s",
	"cat < secrets/key %s",
	"echo hi > secrets/x %s",
	"ls secrets\n%s",
	"cd secrets && cat key\n%s",
	"X=$(cat secrets/key) %s",
	"echo $(cat secrets/key) %s",
	"bash -c 'cat secrets/key'\n%s",
	"bash -c 'cat secrets/key %s'",
	"sh -c \"sh -c 'cat secrets/key'\"\n%s",
	"eval 'cat secrets/key'\n%s",
	"f() { cat secrets/key; }\n%s",
	"env nice cat secrets/key\n%s",
	"sudo cat secrets/key\n%s",
	"find secrets -name k\n%s",
}

// FuzzEvaluateShell: a script that holds, anywhere, a command a deny pattern matches
// is never allowed — even when a command pattern allows every other command; and one
// that names a path in a denied place is never allowed, even under a tool-wide allow
// of the shell tool or of every tool, whatever the fragment does to the parse.
func FuzzEvaluateShell(f *testing.F) {
	for _, s := range []string{"", "git status", "'", "\"", "cd data; ls *", "a=$(b) c <d >e",
		"sh -c 'sh -c \"sh -c x\"'", "{a,b}{c,d}", "cat <<EOF\nx\nEOF", "f() { g; }",
		"[[ $(x) ]]", "$((1+2))", "sudo -u x env -i y", "find . -exec a {} +", "#", "\\",
		"exit", "esac", "done", "fi", "}", ")", "`", "$(", "<<", "eval", "b[x]=1", "b=([x]=1)",
		"HOME=/x; cd", "cd() { :; }", "alias a=b", "${a[x]}", "${x@P}", "[[ x -eq 1 ]]",
		"bash -lc x", "set -k", "grep -drecurse", "grep --recur", "ln -s a b/c",
		"echo ../s/*", "\xe0", "$'\\xe0'", "'; #", "<<X", "$X", "| xargs cat", "((x))",
		"| bash", "bash -c \"$X\""} {
		f.Add(s)
	}
	root := f.TempDir()
	rs := []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Require, Priority: 1000},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "Bash", CommandPattern: "rm -rf *",
			Action: Deny, Priority: 100},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "Bash", CommandPattern: "*",
			Action: Allow, Priority: 500},
		{ID: 4, GroupID: DefaultGroup, ToolPattern: "*", Action: Allow, Priority: MaxPriority},
	}
	s := Compile(nil, rs, Options{WorkspaceRoot: root})
	guarded := workspace(f)
	var tools []*Set
	for _, tool := range []string{"Bash", "*"} {
		rs := append(seedRules(), Rule{ID: 100, GroupID: DefaultGroup, ToolPattern: tool,
			Action: Allow, Priority: 1})
		tools = append(tools, Compile(nil, rs, seedOptions(guarded)))
	}
	f.Fuzz(func(t *testing.T, frag string) {
		if len(frag) > 512 {
			return
		}
		for _, place := range denyPlaces {
			script := fmt.Sprintf(place, frag)
			d := s.Evaluate(DefaultGroup,
				Call{Tool: "Bash", Args: map[string]any{"command": script}})
			if d.Action == Allow {
				t.Fatalf("script %q allowed: %+v; commands %+v", script, d, d.Script.Commands)
			}
		}
		for _, place := range guardPlaces {
			script := fmt.Sprintf(place, frag)
			for _, s := range tools {
				d := s.Evaluate(DefaultGroup, Call{Tool: "Bash",
					Args: map[string]any{"command": script}})
				if d.Action == Allow {
					t.Fatalf("script %q allowed: %+v; commands %+v", script, d,
						d.Script.Commands)
				}
			}
		}
	})
}
