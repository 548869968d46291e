package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/internal/claudecode"
)

// hookTimeoutMargin is how much longer than --wait Claude Code gives the hook before
// it kills it: the hook cancels its request and answers in that time.
const hookTimeoutMargin = 60 * time.Second

// settingsFile is where Claude Code reads a project's shared settings, under its
// directory.
var settingsFile = claudecode.ProjectSettings[0]

// newHookInstallCmds returns `hook install` and `hook uninstall`; conn holds the
// --server and --config of the hook command.
func newHookInstallCmds(conn *connection) []*cobra.Command {
	var o hookOptions
	var dir string
	install := &cobra.Command{
		Use:   "install [--profile P] [--dir DIR] [--wait D]",
		Short: "Add skald-bot's PreToolUse hook to DIR/" + settingsFile,
		Long: `Writes the PreToolUse entry that runs "skald-bot hook claude-code" for every tool
into DIR/.claude/settings.json (DIR: the current directory), with the flags given here
and a timeout 60 s above --wait. Everything else in the file is kept; installing again
changes nothing. Prints added, updated or already installed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			command, err := hookCommand(cmd, conn, o, dir)
			if err != nil {
				return err
			}
			path, err := settingsPath(dir)
			if err != nil {
				return err
			}
			timeout := int((o.wait + hookTimeoutMargin + time.Second - 1) / time.Second)
			ch, err := claudecode.InstallHook(path,
				claudecode.Hook{Command: command, Timeout: timeout})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: hook %s: %s (timeout %ds)\n", shown(path), ch,
				shown(command), timeout)
			return nil
		},
	}
	f := install.Flags()
	f.StringVar(&dir, "dir", "", "the project's directory (else the current one)")
	f.DurationVar(&o.wait, "wait", defaultHookWait,
		"the hook's --wait: how long it waits for a human")
	f.StringVar(&o.group, "group", "", "the hook's --group")
	f.StringVar(&o.profile, "profile", "", "the hook's --profile: the project's profile")
	f.StringVar(&o.agent, "agent", "claude-code", "the hook's --agent")

	var udir string
	uninstall := &cobra.Command{
		Use:   "uninstall [--dir DIR]",
		Short: "Remove skald-bot's PreToolUse hook from DIR/" + settingsFile,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := settingsPath(udir)
			if err != nil {
				return err
			}
			ch, err := claudecode.UninstallHook(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: hook %s\n", shown(path), ch)
			return nil
		},
	}
	uninstall.Flags().StringVar(&udir, "dir", "", "the project's directory (else the current one)")
	return []*cobra.Command{install, uninstall}
}

// settingsPath is the absolute path of dir's settings file; dir "" is the current
// directory. The directory must exist.
func settingsPath(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", usagef("--dir %s: not a directory", dir)
	}
	return filepath.Join(abs, filepath.FromSlash(settingsFile)), nil
}

// hookCommand is the shell command Claude Code runs: this binary's absolute path, then
// `hook claude-code` and the flags given to install (--server, and --config made
// absolute). With neither --server, --config nor $SKALD_URL given, the configuration
// install finds ($SKALD_CONFIG, else dir's skald.yaml, else ./skald.yaml) is written
// as --config, so that the hook finds the service from any directory Claude Code runs
// it in.
func hookCommand(cmd *cobra.Command, conn *connection, o hookOptions, dir string) (string, error) {
	if o.wait <= 0 {
		return "", usagef("--wait %s: must be positive", o.wait)
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path: %w", err)
	}
	words := []string{exe, "hook", "claude-code"}
	fl := cmd.Flags()
	if o.profile != "" {
		words = append(words, "--profile", o.profile)
	}
	if o.group != "" {
		words = append(words, "--group", o.group)
	}
	if fl.Changed("agent") {
		words = append(words, "--agent", o.agent)
	}
	if fl.Changed("wait") {
		words = append(words, "--wait", shortDuration(o.wait))
	}
	if conn.server != "" {
		words = append(words, "--server", conn.server)
	}
	cfg := conn.config
	if cfg == "" && conn.server == "" && conn.getenv(envURL) == "" {
		cfg = projectConfig(conn, dir)
	}
	if cfg != "" {
		abs, err := filepath.Abs(cfg)
		if err != nil {
			return "", err
		}
		words = append(words, "--config", abs)
		if err := knownProfile(abs, o.profile); err != nil {
			return "", err
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", usagef("%q cannot be written in a shell command: %v", w, err)
		}
		quoted[i] = q
	}
	return strings.Join(quoted, " "), nil
}

// knownProfile refuses a profile the configuration at path does not define, so that a
// typo shows now rather than as every call's 422. A configuration that does not load
// (an unset ${VAR}) is left to serve to report.
func knownProfile(path, profile string) error {
	if profile == "" {
		return nil
	}
	c, err := config.Load(path)
	if err != nil {
		return nil
	}
	if _, ok := c.Profile(profile); ok {
		return nil
	}
	ids := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		ids[i] = p.ID
	}
	return usagef("--profile %s: %s defines no such profile (it has %s)", profile, shown(path),
		strings.Join(ids, ", "))
}

// projectConfig is the configuration file hook install records when none was named:
// $SKALD_CONFIG, else skald.yaml in dir (the current directory when ""), else
// ./skald.yaml; "" when there is none.
func projectConfig(conn *connection, dir string) string {
	if path, named := config.Locate("", conn.getenv); named {
		return path
	}
	for _, d := range []string{dir, "."} {
		path := filepath.Join(cmp.Or(d, "."), config.DefaultFile)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path
		}
	}
	return ""
}
