package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// apiComponent builds the HTTP API of cfg.API (SPEC §8) over the gate and the store,
// and listens on api.listen at once, so that a port in use fails start-up; it returns
// the component, which serves until its context ends, and the address it is bound to
// (the port chosen when api.listen's is 0). jobs may be nil (no scheduler); metrics nil
// means the API's own. Errors: bad tokens (api.New), or the listen error.
func apiComponent(cfg *config.Config, gt *gate.Manager, db *store.DB, jobs api.Jobs, metrics *api.Metrics, log *slog.Logger) (component, string, error) {
	agents := make([]api.AgentToken, len(cfg.API.AgentTokens))
	for i, t := range cfg.API.AgentTokens {
		agents[i] = api.AgentToken{Token: t.Token.Reveal(), Profile: t.Profile, AgentID: t.AgentID}
	}
	srv, err := api.New(api.Options{
		Gate: gt, Store: db, Jobs: jobs, Metrics: metrics, Logger: log,
		Token: cfg.API.Token.Reveal(), AgentTokens: agents,
	})
	if err != nil {
		return component{}, "", err
	}
	ln, err := net.Listen("tcp", cfg.API.Listen)
	if err != nil {
		return component{}, "", fmt.Errorf("api: listen on %s: %w", cfg.API.Listen, err)
	}
	return component{"api", func(ctx context.Context) error { return srv.Serve(ctx, ln) }}, ln.Addr().String(), nil
}
