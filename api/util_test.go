package api_test

import (
	"io"
	"slices"
	"strings"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func has(list []string, s string) bool { return slices.Contains(list, s) }

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
