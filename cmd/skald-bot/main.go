package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
)

// Exit codes of the binary (docs/cli.md): a command may end with another
// code through an error that implements exitCoder.
const (
	exitCodeOK    = 0
	exitCodeError = 1
	exitCodeUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	// After the first signal, a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args (without the program name) with the given
// standard streams and returns the process's exit code: 0 on success; for an error,
// the code its exitCoder carries (printing nothing more), else 2 for a usage error
// (cobra's, or a usageError: a bad argument), 1 for any other error a command
// returned — each printed to stderr as one line "skald-bot: …". It blocks until the
// command is done; ctx cancels it (serve stops cleanly when ctx is done).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(ctx, newRootCmd(), args, stdin, stdout, stderr)
}

// execute is run with the root command given (markRunErrors already applied).
func execute(ctx context.Context, root *cobra.Command, args []string,
	stdin io.Reader, stdout, stderr io.Writer) int {
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitCodeOK
	}
	var coded exitCoder
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	var bad usageError
	if errors.As(err, &bad) {
		fmt.Fprintf(stderr, "skald-bot: %s (see %s --help)\n",
			oneLine(bad.err.Error()), cmd.CommandPath())
		return exitCodeUsage
	}
	var failed runError
	if errors.As(err, &failed) {
		msg := oneLine(serverHint(failed.err))
		if errors.Is(err, api.ErrUnauthorized) {
			msg += " (set " + envToken +
				", or name the service's configuration with --config or $" +
				config.EnvFile + " so that its data_dir/" + config.AdminTokenFile + " is read)"
		}
		fmt.Fprintln(stderr, "skald-bot: "+msg)
		return exitCodeError
	}
	msg, suggest, _ := strings.Cut(err.Error(), "\n\nDid you mean this?\n")
	fmt.Fprintf(stderr, "skald-bot: %s (see %s --help)\n", oneLine(msg), cmd.CommandPath())
	if suggest != "" { // cobra's suggestions, each on its own line
		fmt.Fprintln(stderr, "Did you mean this?")
		for _, s := range strings.Fields(suggest) {
			fmt.Fprintln(stderr, "\t"+shown(s))
		}
	}
	return exitCodeUsage
}

// newRootCmd returns the skald-bot command with every subcommand.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "skald-bot",
		Short: "An approval gate for AI agents' tool calls",
		Long: "skald-bot checks every tool call an agent wants to make against rules:\n" +
			"allow, deny, or require a human's approval from Telegram, Slack or the command line.",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newServeCmd(), newVersionCmd(), newInitCmd(), newConfigCmd(), newDevCmd())
	addClientCommands(root)
	markRunErrors(root)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command group under c (a command with
// subcommands and nothing to run itself) refuse an unknown subcommand as cobra does
// for the root — a usage error with its suggestions — instead of printing its help and
// exiting 0. Given no argument, a group prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
		if !sub.HasSubCommands() || sub.Runnable() {
			continue
		}
		sub.Args = cobra.ArbitraryArgs
		sub.SuggestionsMinimumDistance = 2
		sub.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
			}
			return errors.New(msg)
		}
	}
}

// exitCoder is an error that sets the exit code itself (such as check's 1 and
// 3). run prints nothing for it: the command has already said what happened.
type exitCoder interface {
	error
	ExitCode() int
}

// usageError is a bad argument a command found itself (an id that is not a positive
// integer, a bad --bypass, nothing to change): it exits 2 and points at --help, as
// the usage errors cobra finds do.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with the formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// runError marks an error returned by a command's RunE, as opposed to a usage error
// cobra found before running it (unknown command or flag, bad or missing argument).
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// markRunErrors wraps the RunE of c and of every command under it so that the errors
// they return are runErrors.
func markRunErrors(c *cobra.Command) {
	if runE := c.RunE; runE != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := runE(cmd, args); err != nil {
				return runError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

// oneLine joins the lines of a multi-line message (errors.Join) with "; " and escapes
// the rest as shown does: an error may echo what a caller or the server sent.
func oneLine(s string) string {
	return shown(strings.ReplaceAll(strings.TrimSpace(s), "\n", "; "))
}
