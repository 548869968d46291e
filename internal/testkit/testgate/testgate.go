package testgate

import (
	"context"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Require checks c with g and returns the request it registered. It fails the test at
// once when Check fails or the call is not pending with a request.
func Require(t testing.TB, g *gate.Manager, c gate.Call) store.Request {
	t.Helper()
	out, err := g.Check(context.Background(), c)
	if err != nil {
		t.Fatalf("Check(%s): %v", c.ToolName, err)
	}
	if out.Decision != gate.VerdictPending || out.Request == nil {
		t.Fatalf("Check(%s) = %+v, want pending with a request", c.ToolName, out)
	}
	return *out.Request
}
