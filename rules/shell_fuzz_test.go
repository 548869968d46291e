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

// FuzzEvaluateShell: a script that holds, anywhere, a command a deny pattern matches
// is never allowed — even when a command pattern allows every other command.
func FuzzEvaluateShell(f *testing.F) {
	for _, s := range []string{"", "git status", "'", "\"", "cd data; ls *", "a=$(b) c <d >e",
		"sh -c 'sh -c \"sh -c x\"'", "{a,b}{c,d}", "cat <<EOF\nx\nEOF", "f() { g; }",
		"[[ $(x) ]]", "$((1+2))", "sudo -u x env -i y", "find . -exec a {} +", "#", "\\",
		"exit", "esac", "done", "fi", "}", ")", "`", "$(", "<<", "eval", "b[x]=1", "b=([x]=1)",
		"HOME=/x; cd", "cd() { :; }", "alias a=b", "${a[x]}", "${x@P}", "[[ x -eq 1 ]]",
		"bash -lc x", "set -k", "grep -drecurse", "grep --recur", "ln -s a b/c",
		"echo ../s/*"} {
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
	f.Fuzz(func(t *testing.T, frag string) {
		if len(frag) > 512 {
			return
		}
		for _, place := range denyPlaces {
			script := fmt.Sprintf(place, frag)
			d := s.Evaluate(DefaultGroup, Call{Tool: "Bash", Args: map[string]any{"command": script}})
			if d.Action == Allow {
				t.Fatalf("script %q allowed: %+v; commands %+v", script, d, d.Script.Commands)
			}
		}
	})
}
