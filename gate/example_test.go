package gate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// An agent's tool calls go through Check; one that requires approval is registered,
// and the agent waits while a human resolves it.
func Example() {
	dir, err := os.MkdirTemp("", "skald-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	root, _ := filepath.EvalSymlinks(dir)
	// Open seeds the default rules.
	db, err := store.Open(filepath.Join(dir, "skald.db"), store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	m, err := gate.New(gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: root},
		Logger: testkit.Logger()})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	defer func() { stop(); <-done }()

	out, _ := m.Check(ctx, gate.Call{ToolName: "write_todos", SessionID: "s1"})
	fmt.Println("write_todos:", out.Decision)
	out, _ = m.Check(ctx, gate.Call{ToolName: "read_file", SessionID: "s1",
		Arguments: map[string]any{"path": "secrets/token"}})
	fmt.Println("read_file secrets/token:", out.Decision)

	out, _ = m.Check(ctx, gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "call-1",
		Arguments: map[string]any{"command": "make deploy"}})
	fmt.Println("Bash:", out.Decision, "category", out.Request.Category)
	id := out.Request.ID

	resolved := make(chan store.Request)
	go func() {
		r, _ := m.Wait(ctx, id) // blocks until someone resolves the request
		resolved <- r
	}()
	bypass := int64(15 * 60)
	a := gate.Answer{Approve: true, By: "alice", Via: "telegram", BypassSecs: &bypass}
	if _, err := m.Resolve(ctx, id, a); err != nil {
		log.Fatal(err)
	}
	r := <-resolved
	fmt.Println("request:", r.Status, "by", r.Resolution.By)

	_, err = m.Resolve(ctx, id, gate.Answer{Approve: false, By: "bob", Via: "slack"})
	fmt.Println(err)

	out, _ = m.Check(ctx, gate.Call{ToolName: "execute_cmd", SessionID: "s1"})
	fmt.Println("execute_cmd:", out.Decision, "by", out.Reason)
	// Output:
	// write_todos: allow
	// read_file secrets/token: deny
	// Bash: pending category shell
	// request: approved by alice
	// gate: resolve 1: already approved by alice via telegram: request already resolved
	// execute_cmd: allow by session bypass
}

// An MCP tool's server is what a bypass scope "mcp:<server>" names.
func ExampleMCPServer() {
	for _, tool := range []string{"mcp__notes__read", "mcp__notes", "Bash"} {
		fmt.Printf("%q\n", gate.MCPServer(tool))
	}
	// Output:
	// "notes"
	// ""
	// ""
}
