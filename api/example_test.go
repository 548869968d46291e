package api_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// A server over a fresh store, and a client that checks two tool calls: one the seed
// rules allow, one they send for approval.
func Example() {
	dir, _ := os.MkdirTemp("", "skald-example")
	defer os.RemoveAll(dir)
	db, _ := store.Open(filepath.Join(dir, "skald.db"), store.Options{})
	defer db.Close()
	g, _ := gate.New(gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: dir},
		Logger: testkit.Logger()})
	srv, _ := api.New(api.Options{Gate: g, Store: db, Token: "s3cret-0123456789abcdef",
		Logger: testkit.Logger()})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Serve(ctx, ln) }()

	c := api.NewClient("http://"+ln.Addr().String(), "s3cret-0123456789abcdef")
	res, _ := c.Check(ctx, api.CheckRequest{
		Call: gate.Call{ToolName: "TodoWrite", SessionID: "s1"}})
	fmt.Println(res.Decision)
	res, _ = c.Check(ctx, api.CheckRequest{Call: gate.Call{ToolName: "Bash", SessionID: "s1",
		Arguments: map[string]any{"command": "rm -rf build"}}})
	fmt.Println(res.Decision, res.Reason)
	q, _ := c.Resolve(ctx, res.RequestID,
		api.ResolveRequest{Action: api.ActionApprove, Note: "fine"})
	fmt.Println(api.ResultOf(q).Reason)

	stop()
	fmt.Println(<-done)
	// Output:
	// allow
	// pending waiting for approval (request 1)
	// approved by api via the API (request 1)
	// <nil>
}
