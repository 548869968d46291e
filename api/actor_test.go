package api_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
)

// TestActorOfNonAdminIsCaller: an agent token or the local caller that sends
// X-Skald-Actor is still recorded under its own name, on the resolution and in the
// audit log; the admin's header is kept.
func TestActorOfNonAdminIsCaller(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*api.Options)
		token string
		want  string
	}{
		{"agent token", nil, agentToken, api.TokenName(agentToken)},
		{"local caller", func(o *api.Options) { o.Generated, o.AgentTokens = true, nil }, "",
			store.CallerLocal},
		{"admin", nil, adminToken, "jane"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var edits []func(*api.Options)
			if c.edit != nil {
				edits = append(edits, c.edit)
			}
			e := newAPIEnv(t, edits...)
			cl := e.client(c.token)
			cl.Actor = "jane"
			id := e.pending(cl, "s", "t1")
			q, err := cl.Cancel(context.Background(), id, "changed my mind")
			if err != nil {
				t.Fatal(err)
			}
			if q.Resolution == nil || q.Resolution.By != c.want {
				t.Errorf("resolution %+v, want by %q", q.Resolution, c.want)
			}
			stored, err := e.db.Request(id)
			if err != nil {
				t.Fatal(err)
			}
			if stored.Resolution == nil || stored.Resolution.By != c.want {
				t.Errorf("stored resolution %+v, want by %q", stored.Resolution, c.want)
			}
			audit, err := e.db.Audit(0)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, a := range audit {
				if a.RequestID != id || !strings.Contains(a.Action, "cancel") {
					continue
				}
				found = true
				if a.By != c.want {
					t.Errorf("audit %+v, want by %q", a, c.want)
				}
			}
			if !found {
				t.Errorf("no cancel entry for request %d in the audit log %+v", id, audit)
			}
		})
	}
}

// TestAllowedHostsNeedConfiguredToken: a generated admin token serves loopback only,
// so New refuses allowed hosts with it (they would make the token-less local caller
// reachable through a proxy).
func TestAllowedHostsNeedConfiguredToken(t *testing.T) {
	e := newAPIEnv(t)
	_, err := api.New(api.Options{Gate: e.gate, Store: e.db, Token: adminToken, Generated: true,
		AllowedHosts: []api.AllowedHost{{Host: "skald.example", HTTPS: true}}})
	want := "allowed hosts need a configured token"
	if !errors.Is(err, api.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want ErrInvalid naming allowed hosts", err)
	}
}
