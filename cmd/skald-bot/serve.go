package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/claudecode"
	"github.com/skald-circle/skald-bot/store"
)

// newServeCmd returns `skald-bot serve [--config FILE]`.
func newServeCmd() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the approval gate until SIGINT or SIGTERM",
		Long: "serve opens (creating and seeding) the database in data_dir and runs the gate\n" +
			"until SIGINT or SIGTERM, then stops cleanly.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, named := config.Locate(file, os.Getenv)
			cfg, err := config.Load(path)
			if errors.Is(err, config.ErrNotFound) && !named {
				return fmt.Errorf("%w (name one with --config FILE or $%s)", err, config.EnvFile)
			}
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, newLogger(cfg.Log, cmd.ErrOrStderr()))
		},
	}
	cmd.Flags().StringVar(&file, "config", "", configFlagHelp)
	return cmd
}

// newLogger returns the service's logger as the configuration's log section says:
// text or JSON lines on w, at its level.
func newLogger(c config.Log, w io.Writer) *slog.Logger {
	opt := &slog.HandlerOptions{Level: c.SlogLevel()}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opt))
	}
	return slog.New(slog.NewTextHandler(w, opt))
}

// serve runs the service of cfg until ctx is done, then stops its components in
// reverse order, closes the store last and logs "stopped" (the package doc tells the
// start-up). It returns nil after a clean stop, else the first error: an invalid job
// or a busy port (then nothing was created or logged), a store locked by another
// process, a component that failed.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger) (err error) {
	svcLog := log.With("component", "serve")
	// Invalid jobs (a bad schedule, an unknown tool) refuse start-up before anything
	// is created.
	if err := cron.Validate(cronJobs(cfg), nil); err != nil {
		return err
	}
	// So does a busy port: the listener is the API's from here on (its Serve closes
	// it); closing it again at the end is harmless and covers a failed start.
	ln, err := net.Listen("tcp", cfg.API.Listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("api: %w (is another skald-bot serve running? stop it, or set "+
			"api.listen to a free port)", err)
	}
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	defer ln.Close()
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("serve: create data_dir: %w", err)
	}
	db, err := store.Open(filepath.Join(cfg.DataDir, config.DBFile), store.Options{})
	if err != nil {
		return err
	}
	serving := false
	defer func() {
		if cerr := db.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("serve: close the store: %w", cerr))
		}
		if serving {
			svcLog.Info("stopped")
		}
	}()

	// One set of metrics: the API serves them, the chat channels count their
	// failed sends in them.
	metrics := api.NewMetrics()
	fan := newFanout(cfg, db, metrics, log)
	gopt := gateOptions(cfg, db, log)
	gopt.Notifier = fan
	gt, err := gate.New(gopt)
	if err != nil {
		return err
	}
	sched, err := newScheduler(cfg, gt, db, log)
	if err != nil {
		return err
	}
	// Listed in start order; they stop in reverse: what takes work in (the
	// scheduler, the chat channels, the HTTP API, in that order) goes after the gate
	// and the pruner.
	comps := []component{
		{"gate", gt.Run},
		{"retention", func(ctx context.Context) error {
			return runRetention(ctx, db, cfg.Retention.Duration, time.Now, svcLog)
		}},
		{"scheduler", sched.Run},
	}
	chat, err := chatComponents(cfg, gt, db, fan, sched, log)
	if err != nil {
		return err
	}
	comps = append(comps, chat...)
	adminToken, generated := cfg.API.Token.Reveal(), false
	if adminToken == "" {
		var created bool
		if adminToken, created, err = ensureAdminToken(cfg.DataDir); err != nil {
			return err
		}
		generated = true
		svcLog.Info("admin token", "file", adminTokenPath(cfg.DataDir), "created", created)
	}
	apiComp, err := apiComponent(cfg, ln, adminToken, generated, gt, db, apiJobs{sched},
		metrics, log)
	if err != nil {
		return err
	}
	comps = append(comps, apiComp)
	serving = true
	svcLog.Info("serving", "config", cfg.File, "data_dir", cfg.DataDir,
		"workspace_root", cfg.WorkspaceRoot, "jobs", len(cfg.Jobs), "api", ln.Addr().String(),
		"telegram", channelState(cfg.Telegram.Enabled(), "telegram.token"),
		"slack", channelState(cfg.Slack.Enabled(), "slack.bot_token"))
	svcLog.Debug("configuration", "config", cfg)
	return runComponents(ctx, svcLog, comps)
}

// channelState is a chat channel as the "serving" line shows it: "true", or "false"
// with the key whose empty value turns it off, so a token variable left unset shows.
func channelState(on bool, key string) string {
	if on {
		return "true"
	}
	return "false (no " + key + ")"
}

// gateOptions maps the configuration onto the gate's options: rules options with
// data_dir and the config file protected and the gate's own wiring needing a human
// (needsHuman; docs/design.md, "Protected and guarded places"), the profiles, the tool
// categories (nil keeps the gate's default), the approval timeout and the limits.
func gateOptions(cfg *config.Config, db gate.Store, log *slog.Logger) gate.Options {
	var cats []gate.Category
	if cfg.Tools.Categories != nil {
		cats = make([]gate.Category, len(cfg.Tools.Categories))
		for i, c := range cfg.Tools.Categories {
			cats[i] = gate.Category(c)
		}
	}
	perCaller, total := cfg.Limits.Values()
	ro := cfg.RulesOptions()
	ro.NeedsHuman = needsHuman(cfg, ro.Home)
	return gate.Options{
		Store:           db,
		Rules:           ro,
		Profiles:        cfg.RulesProfiles(),
		Categories:      cats,
		ApprovalTimeout: cfg.ApprovalTimeout.Duration,
		Limits:          gate.Limits{PendingPerCaller: perCaller, PendingTotal: total},
		Logger:          log,
	}
}

// needsHuman returns the places whose rewrite would switch the gate off, so a write to
// one needs a human (rules.Options.NeedsHuman): Claude Code's settings files of the
// workspace and of each profile's workspace, of the user under home and the managed
// one, the files that start its MCP servers (claudecode.CommandFiles), the programs their skald-bot hooks run (as the files say at start-up; a name
// the hook finds on the PATH is looked up on the service's) and the service's
// executable, resolved through symlinks when they can be, and the config's
// tools.needs_human (a relative one in every workspace).
func needsHuman(cfg *config.Config, home string) []string {
	roots := []string{cfg.WorkspaceRoot}
	for _, p := range cfg.Profiles {
		if p.WorkspaceRoot != "" && !slices.Contains(roots, p.WorkspaceRoot) {
			roots = append(roots, p.WorkspaceRoot)
		}
	}
	out := claudecode.SettingsFiles(roots, home)
	// The programs the hooks run: removing or rewriting one lets every call through, as
	// Claude Code goes on when a hook fails. A file that cannot be read names none.
	var progs []string
	for _, f := range out {
		ps, _ := claudecode.HookPrograms(f)
		for _, p := range ps {
			if !filepath.IsAbs(p) {
				if p, _ = exec.LookPath(p); !filepath.IsAbs(p) {
					continue
				}
			}
			progs = append(progs, resolved(p))
		}
	}
	out = append(out, progs...)
	out = append(out, claudecode.CommandFiles(roots, home)...)
	for _, n := range cfg.Tools.NeedsHuman {
		switch {
		case strings.HasPrefix(n, "~/"):
			if home != "" {
				out = append(out, filepath.Join(home, n[2:]))
			}
		case filepath.IsAbs(n):
			out = append(out, filepath.Clean(n))
		default:
			for _, r := range roots {
				out = append(out, filepath.Join(r, n))
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		out = append(out, resolved(exe))
	}
	return out
}

// resolved returns the file p names resolved through symlinks, else p.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
