package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/cron"
)

// starterConfig is what `skald-bot init` writes: a configuration that serves at once,
// with the chat channels ready to be turned on by environment variables.
const starterConfig = `# skald-bot configuration, written by "skald-bot init".
# Every key is in docs/configuration.md of the skald-bot repository.
# Start the service:   skald-bot serve            (reads ./skald.yaml)
# Check this file:     skald-bot config check
#
# ${NAME} is replaced by the environment variable NAME; an unset one gives "".
# Unknown keys are errors. Durations: 90s, 15m, 24h, 90d.

# The database and the generated admin token (admin.token). Agents can never read or
# write it, nor this file.
data_dir: ./skald-data
# Relative paths of tool calls, and the path patterns of rules ("secrets/*"), are
# relative to this directory: your project.
workspace_root: .
# How long an approval request waits for a human before it expires.
approval_timeout: 24h

log:
  level: info        # debug | info | warn | error

api:
  listen: 127.0.0.1:8377   # loopback: the agent routes need no token, the admin
                           # commands read data_dir/admin.token

# Prompts on your phone. An empty token turns a channel off; with no channel, the
# Claude Code hook hands a call that needs approval to the terminal at once.
telegram:
  token: ${SKALD_TELEGRAM_TOKEN}        # from @BotFather
  chats: [${SKALD_TELEGRAM_CHAT}]       # chat ids that get the prompts
  approvers: [${SKALD_TELEGRAM_USER}]   # user ids that may approve (send /whoami to the bot)
  admins: [${SKALD_TELEGRAM_USER}]      # user ids that may also change rules

# slack:
#   bot_token: ${SKALD_SLACK_BOT_TOKEN}   # xoxb-…
#   app_token: ${SKALD_SLACK_APP_TOKEN}   # xapp-…: Socket Mode
#   channels: [${SKALD_SLACK_CHANNEL}]
#   approvers: [${SKALD_SLACK_USER}]

# Run contexts; "default" always exists. A profile may have a workspace of its own.
# profiles:
#   - id: reader
#     security_group: default
#     allow_fs_reads: [docs]   # read without approval under these paths
`

func newInitCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "init [--dir DIR]",
		Short: "Write a commented starter skald.yaml (never overwriting one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := filepath.Join(dir, config.DefaultFile)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("init: %s exists; nothing written (check it with "+
					"`skald-bot config check --config %s`)", path, path)
			}
			if err != nil {
				return fmt.Errorf("init: %w", err)
			}
			_, err = f.WriteString(starterConfig)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(path) // no half-written file
				return fmt.Errorf("init: %w", err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s\n\nNext:\n", path)
			if dir != "." {
				fmt.Fprintf(w, "  cd %s\n", dir)
			}
			fmt.Fprintln(w, "  skald-bot config check      # validate it")
			fmt.Fprintln(w, "  skald-bot serve             # run the gate (Ctrl-C stops it)")
			fmt.Fprintln(w, "  skald-bot hook install      # gate Claude Code in this project")
			fmt.Fprintln(w, "For prompts on your phone, set SKALD_TELEGRAM_TOKEN, "+
				"SKALD_TELEGRAM_CHAT and SKALD_TELEGRAM_USER first "+
				"(README, \"The phone prompt\").")
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "directory to write skald.yaml in")
	return cmd
}

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Work with the configuration file",
	}
	var file string
	check := &cobra.Command{
		Use: "check [--config FILE]",
		Short: "Validate the configuration without starting; " +
			"exit 0 valid, 1 with every problem listed",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, _ := config.Locate(file, os.Getenv)
			problems := configProblems(path)
			if len(problems) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: valid\n", path)
				return nil
			}
			w := cmd.ErrOrStderr()
			noun := "problems"
			if len(problems) == 1 {
				noun = "problem"
			}
			fmt.Fprintf(w, "%s: %d %s\n", shown(path), len(problems), noun)
			for _, p := range problems {
				fmt.Fprintf(w, "  %s\n", oneLine(p.Error()))
			}
			return exitError{exitCodeError}
		},
	}
	check.Flags().StringVar(&file, "config", "", configFlagHelp)
	cmd.AddCommand(check)
	return cmd
}

// configProblems lists every problem of the configuration at path in one pass: the
// file's own (values, then paths and profiles on disk) and the schedules of the jobs
// the file has no problem with — a job with one is left to it, so nothing is said
// twice.
func configProblems(path string) []error {
	cfg, err := config.Check(path)
	problems := config.Problems(err)
	if cfg == nil {
		return problems
	}
	badJob := map[int]bool{}
	for _, p := range problems {
		var fe *config.FieldError
		var i int
		if errors.As(p, &fe) {
			if _, serr := fmt.Sscanf(fe.Key, "jobs[%d]", &i); serr == nil {
				badJob[i] = true
			}
		}
	}
	var jobs []cron.Job
	for i, j := range cronJobs(cfg) {
		if !badJob[i] {
			jobs = append(jobs, j)
		}
	}
	return append(problems, config.Problems(cron.Validate(jobs, nil))...)
}
