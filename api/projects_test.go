package api_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// TestCheckProjectSecrets checks through the API that a project's denied places are
// denied in every profile: the admin's call routed by cwd, and an agent token whose
// profile is fixed to default.
func TestCheckProjectSecrets(t *testing.T) {
	const defToken = "default-agent-token"
	var p2 string
	e := newEnvGate(t, func(o *gate.Options) {
		p2 = filepath.Join(o.Rules.WorkspaceRoot, "proj2")
		testkit.Must(t, os.MkdirAll(filepath.Join(p2, "secrets"), 0o755))
		o.Profiles = append(o.Profiles, rules.Profile{ID: "p2", WorkspaceRoot: p2})
	}, func(o *api.Options) {
		o.AgentTokens = append(o.AgentTokens, api.AgentToken{Token: defToken, Profile: "default"})
	})
	root := e.root
	for _, c := range []struct {
		name, token, cwd, path string
	}{
		{"admin at the root, absolute", adminToken, root, p2 + "/secrets/key"},
		{"admin at the root, relative", adminToken, root, "proj2/secrets/key"},
		{"admin in the project, up", adminToken, p2, "../secrets/key"},
		{"admin in the project, root's absolute", adminToken, p2, root + "/secrets/key"},
		{"default token in the project", defToken, p2, p2 + "/secrets/key"},
		{"default token at the root", defToken, root, "proj2/secrets/key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.client(c.token).Check(context.Background(), api.CheckRequest{Call: gate.Call{
				ToolName: "Read", SessionID: "s", Cwd: c.cwd,
				Arguments: map[string]any{"file_path": c.path}}})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			if res.Decision != gate.VerdictDeny {
				t.Errorf("Read %s (cwd %s) = %+v, want deny", c.path, c.cwd, res)
			}
		})
	}
}
