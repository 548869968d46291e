package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
)

func TestExplain(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	ex, err := e.admin.Explain(context.Background(), gate.Call{ToolName: "Read",
		Arguments: map[string]any{"file_path": "secrets/key"}})
	testkit.Must(t, err)
	last := ex.Steps[len(ex.Steps)-1]
	if ex.Decision != rules.Deny || ex.Group != "default" || ex.Profile != "default" ||
		len(ex.Paths) != 1 || ex.Paths[0] != "secrets/key" || !last.Decided ||
		last.RuleID != ex.RuleID || last.Rule != "deny @fs_any secrets/*" || last.Priority == 0 {
		t.Fatalf("explain: %+v", ex)
	}
	// A require is locked when nothing lifts it: a path holding the denied secrets/.
	for path, want := range map[string]bool{".": true, "notes.txt": false} {
		ex, err := e.admin.Explain(context.Background(), gate.Call{ToolName: "LS",
			Arguments: map[string]any{"path": path}})
		testkit.Must(t, err)
		if ex.Decision == rules.Deny || ex.Locked != want {
			t.Errorf("explain LS %s: %s, locked %v, want locked %v", path, ex.Decision,
				ex.Locked, want)
		}
	}
	if ex.Locked {
		t.Errorf("a deny is locked: %+v", ex)
	}
	for _, s := range ex.Steps[:len(ex.Steps)-1] {
		if s.Matched || s.Why == "" || s.Rule == "" {
			t.Errorf("step before the deciding rule: %+v", s)
		}
	}
	// Admin only; bad input is refused; nothing is registered either way.
	e.wantError("POST", "/api/approval/explain", agentToken, `{"tool_name":"Read"}`,
		http.StatusForbidden, "")
	e.wantError("POST", "/api/approval/explain", adminToken, `{"tool_name":""}`,
		http.StatusBadRequest, "tool_name is required")
	e.wantError("POST", "/api/approval/explain", adminToken, `{"tool_name":"Read","group":"nope"}`,
		http.StatusUnprocessableEntity, "unknown group")
	teststore.Unchanged(t, e.db, before)
}

func TestCheckSaysNoChannel(t *testing.T) {
	for _, c := range []struct {
		name     string
		channels []string
		want     bool
	}{
		{"none", nil, true},
		{"telegram", []string{"telegram"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newAPIEnv(t, func(o *api.Options) { o.Channels = c.channels })
			res, err := e.admin.Check(context.Background(), api.CheckRequest{Call: gate.Call{
				ToolName: "Bash", SessionID: "s", Arguments: map[string]any{"command": "make"}}})
			testkit.Must(t, err)
			if res.Decision != gate.VerdictPending || res.NoChannel != c.want {
				t.Fatalf("check: %+v, want no_channel %v", res, c.want)
			}
			res, err = e.admin.Check(context.Background(), api.CheckRequest{Call: gate.Call{
				ToolName: "TodoWrite", SessionID: "s"}})
			testkit.Must(t, err)
			if res.Decision != gate.VerdictAllow || res.NoChannel {
				t.Fatalf("an allowed check: %+v", res)
			}
		})
	}
}
