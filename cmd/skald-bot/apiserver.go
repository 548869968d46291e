package main

import (
	"context"
	"log/slog"
	"net"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
	"github.com/skald-circle/skald-bot/web"
)

// apiComponent builds the HTTP API of cfg.API over the gate and the store, to serve on
// ln — bound by serve before anything else, so that a port in use fails start-up
// first — and returns the component, which serves until its context ends and closes
// ln. adminToken is api.token or the generated one (generated set). jobs may be nil
// (no scheduler); metrics nil means the API's own. The web inbox is mounted at /.
// Errors: bad tokens (api.New).
func apiComponent(cfg *config.Config, ln net.Listener, adminToken string, generated bool,
	gt *gate.Manager, db *store.DB, jobs api.Jobs, metrics *api.Metrics,
	log *slog.Logger) (component, error) {
	agents := make([]api.AgentToken, len(cfg.API.AgentTokens))
	for i, t := range cfg.API.AgentTokens {
		agents[i] = api.AgentToken{Token: t.Token.Reveal(), Profile: t.Profile, AgentID: t.AgentID}
	}
	var hosts []api.AllowedHost
	for _, h := range cfg.API.Hosts() {
		hosts = append(hosts, api.AllowedHost(h))
	}
	var channels []string
	if cfg.Telegram.Enabled() {
		channels = append(channels, "telegram")
	}
	if cfg.Slack.Enabled() {
		channels = append(channels, "slack")
	}
	agentTokens := make([]string, len(agents))
	for i, a := range agents {
		agentTokens[i] = a.Token
	}
	inbox, err := web.New(web.Options{
		Gate: gt, Store: db, Jobs: jobs, Token: adminToken, AgentTokens: agentTokens,
		AllowedHosts: hosts, Profiles: cfg.RulesProfiles(), BypassShort: cfg.BypassShort.Duration,
		Logger: log,
	})
	if err != nil {
		return component{}, err
	}
	srv, err := api.New(api.Options{Channels: channels,
		Gate: gt, Store: db, Jobs: jobs, Metrics: metrics, Logger: log,
		Token: adminToken, Generated: generated, AgentTokens: agents, AllowedHosts: hosts,
		Web: inbox,
	})
	if err != nil {
		return component{}, err
	}
	return component{"api", func(ctx context.Context) error { return srv.Serve(ctx, ln) }}, nil
}
