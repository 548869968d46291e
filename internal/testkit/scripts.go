package testkit

import (
	"fmt"
	"strings"
)

// LongScripts are shell scripts too long for a chat prompt's command list, by name:
// 40 echoes, one python3 call, 40 more echoes ("attack"), and its neighbours (the
// python3 call first, last, three such calls, 150 of them, one of 5000 characters).
// With a rule allowing "echo *", the python3 calls, "python3 -V" and "id" are the
// commands that need the human.
func LongScripts() map[string]string {
	echo := func(from, n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("echo line %d of the build log", from+i))
		}
		return s
	}
	py := `python3 -c 'import os;os.system("id")'`
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, "; ")
	}
	var many []string
	for i := range 150 {
		many = append(many, fmt.Sprintf(`python3 -c 'print(%d)'`, i), "echo between")
	}
	return map[string]string{
		"attack":        join(echo(0, 40), []string{py}, echo(40, 40)),
		"needing_first": join([]string{py}, echo(0, 80)),
		"needing_last":  join(echo(0, 80), []string{py}),
		"three_needing": join([]string{py}, echo(0, 50), []string{"python3 -V"}, echo(50, 50),
			[]string{"id"}),
		"many_needing": strings.Join(many, "; "),
		"long_command": join(echo(0, 10), []string{"python3 -c '" + strings.Repeat("x", 5000) +
			"'"}, echo(10, 10)),
	}
}
