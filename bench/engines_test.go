package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

// handRules is a small policy written by hand to pin the rule semantics in every
// engine, independently of the generator: group tier before default, priority then id,
// exact, prefix, @fs classes, path subtrees (the directory itself, never a sibling),
// an absolute path, a path prefix, agent and source filters, the catch-all, and the
// places deny rules with a path filter deny, which guard every other tool.
func handRules() []rules.Rule {
	d, g := rules.DefaultGroup, Group
	return []rules.Rule{
		{ID: 1, GroupID: d, ToolPattern: "*", Action: rules.Require, Priority: rules.MaxPriority},
		{ID: 2, GroupID: d, ToolPattern: "Bash", Action: rules.Allow, Priority: 50},
		{ID: 3, GroupID: g, ToolPattern: "Bash", Action: rules.Deny, Priority: 60},
		{ID: 4, GroupID: d, ToolPattern: "mcp__gmail__*", Action: rules.Require, Priority: 10},
		{ID: 5, GroupID: d, ToolPattern: "mcp__gmail__send", Action: rules.Allow, Priority: 10},
		{ID: 6, GroupID: d, ToolPattern: rules.ClassFSRead, PathPattern: "secrets/*",
			Action: rules.Deny, Priority: 5},
		{ID: 7, GroupID: d, ToolPattern: rules.ClassFSAny, PathPattern: "/srv-skald-none/*",
			Action: rules.Deny, Priority: 5},
		{ID: 8, GroupID: d, ToolPattern: "Read", AgentID: "coder", PathPattern: "docs/*",
			Action: rules.Allow, Priority: 1},
		{ID: 9, GroupID: d, ToolPattern: "tool_x", Source: "cron", Action: rules.Deny,
			Priority: 20},
		{ID: 10, GroupID: d, ToolPattern: rules.ClassFSRead, PathPattern: "logs/app*",
			Action: rules.Allow, Priority: 30},
		{ID: 11, GroupID: d, ToolPattern: "mcp__notes__*", Action: rules.Allow, Priority: 40},
		{ID: 12, GroupID: d, ToolPattern: "Write", AgentID: "intern", PathPattern: "drafts/*",
			Action: rules.Deny, Priority: 2},
		{ID: 13, GroupID: g, ToolPattern: "Edit", PathPattern: "ops/*", Action: rules.Deny,
			Priority: 2},
	}
}

// orderFreeHand are the ids of handRules that form an OrderFree policy (allow and deny
// only, no two that can match one call).
var orderFreeHand = map[uint64]bool{2: true, 6: true, 7: true, 8: true, 9: true, 10: true,
	11: true, 12: true, 13: true}

func handPolicy(mix Mix) Policy {
	p := Policy{Mix: mix, Groups: []rules.Group{{ID: Group}}}
	for _, r := range handRules() {
		if mix == Ordered || orderFreeHand[r.ID] {
			r.ResolvedPathPattern = r.PathPattern
			p.Rules = append(p.Rules, r)
		}
	}
	return p
}

func TestEnginesOnHandwrittenPolicy(t *testing.T) {
	tests := []struct {
		call Call
		// want is the Ordered decision's rule; wantFree the OrderFree one's (0: require).
		want, wantFree uint64
	}{
		{Call{Group: "default", Tool: "Bash"}, 2, 2},
		// the group's tier first, whatever its priority
		{Call{Group: Group, Tool: "Bash"}, 3, 2},
		{Call{Group: "other", Tool: "Bash"}, 2, 2}, // an unknown group has only default's rules
		{Call{Group: "default", Tool: "mcp__gmail__send"}, 4, 0},
		{Call{Group: "default", Tool: "mcp__gmail__list"}, 4, 0},
		{Call{Group: "default", Tool: "mcp__gmailx__send"}, 1, 0},
		{Call{Group: "default", Tool: "read_file", Path: "secrets/key"}, 6, 6},
		{Call{Group: "default", Tool: "read_file", Path: "secrets"}, 6, 6},
		{Call{Group: "default", Tool: "read_file", Path: "secrets-old/key"}, 1, 0},
		{Call{Group: "default", Tool: "write_file", Path: "secrets/key"}, 1, 0},
		{Call{Group: "default", Tool: "Write", Path: "/srv-skald-none/db"}, 7, 7},
		{Call{Group: "default", Tool: "Read", Agent: "coder", Path: "docs/a.md"}, 8, 8},
		{Call{Group: "default", Tool: "Read", Agent: "intern", Path: "docs/a.md"}, 1, 0},
		{Call{Group: "default", Tool: "Read", Agent: "coder"}, 1, 0},
		{Call{Group: "default", Tool: "tool_x", Source: "cron"}, 9, 9},
		{Call{Group: "default", Tool: "tool_x", Source: "web"}, 1, 0},
		{Call{Group: "default", Tool: "Grep", Path: "logs/app-1.txt"}, 10, 10},
		{Call{Group: "default", Tool: "Grep", Path: "logs/other.txt"}, 1, 0},
		// A tool outside the file classes inside a place a deny rule denies, whatever
		// that rule's tool pattern: require, which no rule names when one allowed.
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "docs/a.md"}, 11, 11},
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "secrets/key"}, 0, 0},
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "secrets"}, 0, 0},
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "secrets-old/key"}, 11, 11},
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "/srv-skald-none/db"}, 0, 0},
		// a require keeps its rule
		{Call{Group: "default", Tool: "mcp__gmail__list", Path: "secrets/key"}, 4, 0},
		{Call{Group: "default", Tool: "mcp__notes__get", Agent: "intern", Path: "drafts/a"}, 0, 0},
		{Call{Group: "default", Tool: "mcp__notes__get", Agent: "coder", Path: "drafts/a"},
			11, 11},
		{Call{Group: Group, Tool: "mcp__notes__get", Path: "ops/run.sh"}, 0, 0},
		// another group's place
		{Call{Group: "default", Tool: "mcp__notes__get", Path: "ops/run.sh"}, 11, 11},
		// a file tool: the rules decide
		{Call{Group: "default", Tool: "Read", Agent: "coder", Path: "secrets/key"}, 6, 6},
	}
	actionOf := map[uint64]rules.Action{0: rules.Require}
	for _, r := range handRules() {
		actionOf[r.ID] = r.Action
	}
	ctx := context.Background()
	for _, mix := range []Mix{Ordered, OrderFree} {
		t.Run(mix.String(), func(t *testing.T) {
			p := handPolicy(mix)
			engines := []Engine{NewOurs(p, t.TempDir())}
			g, err := NewRego(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			engines = append(engines, g)
			if mix == OrderFree {
				c, err := NewCedar(p)
				if err != nil {
					t.Fatal(err)
				}
				engines = append(engines, c)
			}
			for _, tt := range tests {
				want := tt.want
				if mix == OrderFree {
					want = tt.wantFree
				}
				for _, e := range engines {
					t.Run(fmt.Sprintf("%s/%s", e.Name(), tt.call), func(t *testing.T) {
						got, err := e.Decide(ctx, tt.call)
						if err != nil {
							t.Fatal(err)
						}
						if got != (Decision{Action: actionOf[want], RuleID: want}) {
							t.Errorf("got %s (rule %d), want %s (rule %d)",
								got.Action, got.RuleID, actionOf[want], want)
						}
					})
				}
			}
		})
	}
}
