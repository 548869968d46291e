package api

import (
	"context"
	"net/http"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// applyRules is POST /api/approval/rules/apply with a store.RuleChanges: the changes
// in one transaction (gate.Manager.ApplyRules), 200 with the created rules. Every
// problem is listed in the error (422, 404 or 409), and nothing changes then.
func (s *Server) applyRules(w http.ResponseWriter, r *http.Request) error {
	var b store.RuleChanges
	if err := decode(w, r, &b, false); err != nil {
		return err
	}
	for i := range b.CreateRules {
		b.CreateRules[i].ResolvedPathPattern = ""
	}
	for i := range b.UpdateRules {
		b.UpdateRules[i].ResolvedPathPattern = ""
	}
	got, err := s.gate.ApplyRules(b, actor(r))
	if err != nil {
		return err
	}
	if got == nil {
		got = []rules.Rule{}
	}
	writeJSON(w, http.StatusOK, got)
	return nil
}

// ApplyRules applies c in one transaction (POST /api/approval/rules/apply) and returns
// the created rules. 404, 409, 422, with every problem listed.
func (c *Client) ApplyRules(ctx context.Context, ch store.RuleChanges) ([]rules.Rule, error) {
	var out []rules.Rule
	err := c.do(ctx, http.MethodPost, "/api/approval/rules/apply", nil, ch, &out)
	return out, err
}
