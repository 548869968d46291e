package bench_test

import (
	"context"
	"fmt"

	"github.com/skald-circle/skald-bot/bench"
	"github.com/skald-circle/skald-bot/rules"
)

// One policy, two engines that agree on it, and the Cedar text it becomes.
func Example() {
	p := bench.Policy{Mix: bench.OrderFree, Groups: []rules.Group{{ID: bench.Group}},
		Rules: []rules.Rule{
			{ID: 1, GroupID: rules.DefaultGroup, ToolPattern: "mcp__gmail__*", Source: "cron",
				Action: rules.Deny, Priority: 10},
			{ID: 2, GroupID: bench.Group, ToolPattern: rules.ClassFSRead, PathPattern: "docs/*",
				Action: rules.Allow, Priority: 20},
		}}
	text, err := bench.CedarPolicies(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)

	ctx := context.Background()
	cedar, _ := bench.NewCedar(p)
	rego, _ := bench.NewRego(ctx, p)
	ours := bench.NewOurs(p, "/nonexistent-workspace")
	calls := []bench.Call{
		{Group: bench.Group, Tool: "Read", Path: "docs/a.md"},
		{Group: rules.DefaultGroup, Tool: "Read", Path: "docs/a.md"},
		{Group: rules.DefaultGroup, Tool: "mcp__gmail__send", Source: "cron"},
	}
	fmt.Println(bench.Compare(ctx, calls, false, ours, rego, cedar))
	for _, c := range calls {
		d, _ := ours.Decide(ctx, c)
		fmt.Println(c.Group, c.Tool, "→", d.Action)
	}
	// Output:
	// // rule 1
	// forbid (principal, action == Action::"call", resource)
	// when { context.tool like "mcp__gmail__*" && context.source == "cron" };
	//
	// // rule 2
	// permit (principal, action == Action::"call", resource in ToolClass::"fs_read")
	// when { context.group == "dev" && context.has_path && (context.path == "docs" || context.path like "docs/*") };
	//
	// <nil>
	// dev Read → allow
	// default Read → require
	// default mcp__gmail__send → deny
}
