package config

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

func TestShellTools(t *testing.T) {
	c, err := Parse([]byte(`tools: {shell: [{tool: run, arg: script, cwd_arg: dir}]}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	opt := c.RulesOptions()
	want := []rules.ShellTool{{Tool: "run", Arg: "script", CwdArg: "dir"}}
	if !slices.Equal(opt.Shell, want) {
		t.Errorf("RulesOptions().Shell = %+v, want %+v", opt.Shell, want)
	}
	if home, err := os.UserHomeDir(); err == nil && opt.Home != home {
		t.Errorf("RulesOptions().Home = %q, want %q", opt.Home, home)
	}
	c, err = Parse([]byte(`tools: {}`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if opt := c.RulesOptions(); opt.Shell != nil {
		t.Errorf("default Shell = %+v, want nil (rules.DefaultShell)", opt.Shell)
	}
	_, err = Parse([]byte(`tools: {shell: [{tool: run, arg: s, dir: d}]}`), noEnv)
	if err == nil || !strings.Contains(err.Error(), "dir") {
		t.Errorf("an unknown key of a shell tool: %v, want an error naming it", err)
	}
}
