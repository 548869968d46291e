package config_test

import (
	"fmt"

	"github.com/skald-circle/skald-bot/config"
)

func ExampleParse() {
	env := map[string]string{"SKALD_API_TOKEN": "s3cret-0123456789abcdef"}
	c, err := config.Parse([]byte(`
api:
  token: ${SKALD_API_TOKEN}
retention: 30d
jobs:
  - name: nightly-backup
    schedule: "0 2 * * *"
    steps:
      - tool: execute_cmd
        args: {cmd: "echo $${HOME}"}
`), func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("listen:", c.API.Listen, "token:", c.API.Token)
	fmt.Println("retention:", c.Retention, "approval timeout:", c.ApprovalTimeout.Hours(), "hours")
	j := c.Jobs[0]
	fmt.Println(j.Name, j.Overlap, j.Notify, j.Profile, j.Steps[0].Args["cmd"])

	_, err = config.Parse([]byte("jobs:\n  - name: Nightly Backup\n    schedule: \"@daily\"\n"+
		"    steps: [{tool: execute_cmd}]\n"), nil)
	fmt.Println(err)

	_, err = config.Parse([]byte("api: {token: ${SKALD_API_TOKEN}}\n"),
		func(string) string { return "" })
	fmt.Println(err)
	// Output:
	// listen: 127.0.0.1:8377 token: [redacted]
	// retention: 30d approval timeout: 24 hours
	// nightly-backup skip failure default echo ${HOME}
	// config: jobs[0].name "Nightly Backup": must match [a-z0-9_-]+
	// config: api.token: ${SKALD_API_TOKEN} is empty or unset (set it, or leave api.token out)
}
