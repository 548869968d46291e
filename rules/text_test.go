package rules_test

import (
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

func TestRuleText(t *testing.T) {
	for _, c := range []struct {
		rule rules.Rule
		want string
	}{
		{rules.Rule{Action: rules.Deny, ToolPattern: "Bash"}, "deny Bash"},
		{rules.Rule{Action: rules.Deny, ToolPattern: "@fs_any", PathPattern: "secrets/*"},
			"deny @fs_any secrets/*"},
		{rules.Rule{Action: rules.Allow, ToolPattern: "Bash", CommandPattern: `git "x" *`,
			AgentID: "a1", Source: "cron", Note: "not shown"},
			`allow Bash command="git \"x\" *" agent=a1 source=cron`},
		{rules.Rule{Action: rules.Allow, ToolPattern: "WebFetch", HostPattern: "*.example.com",
			AgentID: "a1"}, `allow WebFetch host="*.example.com" agent=a1`},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := c.rule.Text(); got != c.want {
				t.Errorf("Text() = %q, want %q", got, c.want)
			}
		})
	}
}
