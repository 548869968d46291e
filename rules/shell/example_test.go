package shell_test

import (
	"fmt"

	"github.com/skald-circle/skald-bot/rules/shell"
)

func ExampleParse() {
	s := shell.Parse(`git status && env rm -rf $HOME | tee log`)
	for _, c := range s.Commands {
		fmt.Printf("%q unknown=%v\n", c.Forms[0].Text, c.Unknown)
	}
	// Output:
	// "git status" unknown=false
	// "env rm -rf $HOME" unknown=true
	// "tee log" unknown=false
}

func ExamplePattern_Denies() {
	deny := shell.MustCompile("rm *")
	allow := shell.MustCompile("git status *")
	s := shell.Parse("git status; nice -n5 /bin/rm -rf /")
	for i := range s.Commands {
		c := &s.Commands[i]
		fmt.Printf("%s: denied=%v allowed=%v\n", c.Forms[0].Text, deny.Denies(c), allow.Allows(c))
	}
	// Output:
	// git status: denied=false allowed=true
	// nice -n5 /bin/rm -rf /: denied=true allowed=false
}
