package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/gate"
)

// checkOptions are the flags of `check` (docs/cli.md).
type checkOptions struct {
	call     gate.Call
	args     []string
	argsJSON string
	wait     time.Duration
	keep     bool
}

func newCheckCmd(conn *connection) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use: "check --tool NAME [--arg k=v]... [--args-json JSON] [flags]",
		Short: "Gate one tool call; exit 0 allow/approved, 1 deny/rejected/expired/cancelled, " +
			"3 unanswered, 2 error",
		Long: `Checks one tool call with the skald-bot server and prints the decision.
When the call needs a human, waits up to --wait for one (0: do not wait). A request
still unanswered when --wait runs out, or when check gets SIGINT or SIGTERM, is
cancelled (reason timeout or interrupted), unless --keep leaves it pending for a
later answer.

Exit status: 0 allow or approved; 1 deny, rejected, expired or cancelled; 3 no answer
within --wait; 2 an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			got, err := o.run(cmd.Context(), conn)
			if err != nil { // exit 2, as 1 means denied
				fmt.Fprintln(cmd.ErrOrStderr(), "skald-bot: "+oneLine(serverHint(err)))
				return exitError{exitFailure}
			}
			res := got.res
			if err := conn.print(cmd.OutOrStdout(), res, func() {
				text := describe(res)
				if got.unanswered && res.Decision == gate.VerdictCancelled {
					text = fmt.Sprintf("No answer within %s; request %d cancelled (%s)",
						shortDuration(o.wait), res.RequestID, res.Note)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", shown(string(res.Decision)),
					shown(text))
			}); err != nil {
				return err
			}
			if got.unanswered {
				return exitError{exitPending}
			}
			switch res.Decision {
			case gate.VerdictAllow, gate.VerdictApproved:
				return nil
			case gate.VerdictPending:
				return exitError{exitPending}
			}
			return exitError{exitDenied}
		},
	}
	f := cmd.Flags()
	o.addCallFlags(cmd)
	f.StringVar(&o.call.SessionID, "session", "cli", "session id")
	f.StringVar(&o.call.ToolCallID, "tool-call-id", "",
		"the caller's own id of this call (makes a repeated check idempotent)")
	f.StringVar(&o.call.Cwd, "cwd", "", "working directory relative paths resolve against")
	f.StringVar(&o.call.Category, "category", "",
		"category (shell, filesystem, …) when the configuration gives none")
	f.StringVar(&o.call.ContextLabel, "context-label", "",
		"context shown on the prompt, e.g. \"CronJob: Nightly backup\"")
	f.StringVar(&o.call.Group, "group", "", "permission group to check in")
	f.StringVar(&o.call.Profile, "profile", "",
		"profile to check in (else the one whose workspace holds --cwd, else default)")
	f.DurationVar(&o.wait, "wait", 30*time.Second,
		"how long to wait for a human (0: answer pending at once)")
	f.BoolVar(&o.keep, "keep", false, "leave the request pending when --wait runs out "+
		"or check is interrupted (else it is cancelled)")
	conn.flags(cmd, true)
	return cmd
}

// addCallFlags defines on cmd the flags of the call that check and explain share:
// --tool (required), --arg, --args-json (see toolCall), --agent and --source.
func (o *checkOptions) addCallFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.call.ToolName, "tool", "", "tool name (required)")
	f.StringArrayVar(&o.args, "arg", nil, "argument key=value (a string; repeatable)")
	f.StringVar(&o.argsJSON, "args-json", "",
		"arguments as a JSON object (--arg values are added to it)")
	f.StringVar(&o.call.AgentID, "agent", "", "agent id")
	f.StringVar(&o.call.Source, "source", "cli", "source of the call")
	cmd.MarkFlagRequired("tool")
}

// run checks the call the flags describe, waiting as --wait says; unanswered, the
// request is cancelled (reason timeout, or interrupted on a signal) unless --keep.
func (o checkOptions) run(ctx context.Context, conn *connection) (waited, error) {
	call, err := o.toolCall()
	if err != nil {
		return waited{}, err
	}
	c, err := conn.agentClient()
	if err != nil {
		return waited{}, err
	}
	if call.ToolCallID == "" {
		call.ToolCallID = newToolCallID() // a retried check must find its request
	}
	return awaitCall(ctx, c, call, waitOptions{wait: o.wait, endReason: timeoutReason,
		keep: o.keep})
}

// toolCall builds the call from the flags: --args-json, then each --arg k=v on top.
func (o checkOptions) toolCall() (gate.Call, error) {
	call := o.call
	call.Arguments = map[string]any{}
	if o.argsJSON != "" {
		dec := json.NewDecoder(strings.NewReader(o.argsJSON))
		dec.UseNumber()
		if err := dec.Decode(&call.Arguments); err != nil || call.Arguments == nil {
			return call, fmt.Errorf("--args-json: not a JSON object")
		}
	}
	for _, kv := range o.args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return call, fmt.Errorf("--arg %q: want key=value", kv)
		}
		call.Arguments[k] = v
	}
	if o.wait < 0 {
		return call, fmt.Errorf("--wait %s: must not be negative", o.wait)
	}
	return call, nil
}
