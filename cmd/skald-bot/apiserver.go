package main

import (
	"context"
	"log/slog"
	"net"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// apiComponent builds the HTTP API of cfg.API (SPEC §8) over the gate and the store,
// to serve on ln — bound by serve before anything else, so that a port in use fails
// start-up first — and returns the component, which serves until its context ends and
// closes ln. jobs may be nil (no scheduler); metrics nil means the API's own. Errors:
// bad tokens (api.New).
func apiComponent(cfg *config.Config, ln net.Listener, gt *gate.Manager, db *store.DB, jobs api.Jobs, metrics *api.Metrics, log *slog.Logger) (component, error) {
	agents := make([]api.AgentToken, len(cfg.API.AgentTokens))
	for i, t := range cfg.API.AgentTokens {
		agents[i] = api.AgentToken{Token: t.Token.Reveal(), Profile: t.Profile, AgentID: t.AgentID}
	}
	srv, err := api.New(api.Options{
		Gate: gt, Store: db, Jobs: jobs, Metrics: metrics, Logger: log,
		Token: cfg.API.Token.Reveal(), AgentTokens: agents,
	})
	if err != nil {
		return component{}, err
	}
	return component{"api", func(ctx context.Context) error { return srv.Serve(ctx, ln) }}, nil
}
