package api_test

import (
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

func filterGroup(rs []rules.Rule, group string) []rules.Rule {
	var out []rules.Rule
	for _, r := range rs {
		if r.GroupID == group {
			out = append(out, r)
		}
	}
	return out
}

func callOf(tool string) gate.Call {
	return gate.Call{ToolName: tool, SessionID: "s", Arguments: map[string]any{}}
}
