package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
)

// askOptions are the flags of `ask` (README, "Command line").
type askOptions struct {
	req  api.AskRequest
	wait time.Duration
}

func newAskCmd(conn *connection) *cobra.Command {
	var o askOptions
	cmd := &cobra.Command{
		Use: `ask "QUESTION" [--option A]... [--wait D] [flags]`,
		Short: "Ask a human a question; " +
			"print the answer (exit 0), 1 expired or cancelled, 3 pending",
		Long: `Asks a clarification: the question goes to the inbox and the chats, with a button
for each --option, and the answer is printed when a human gives it within --wait.

Exit status: 0 answered (the answer is printed); 1 expired or cancelled; 3 still
pending when --wait ran out (the id is printed on stderr); 2 an error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.req.Question = args[0]
			c, err := o.run(cmd.Context(), conn)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "skald-bot: "+oneLine(err.Error()))
				return exitError{exitFailure}
			}
			if err := conn.print(cmd.OutOrStdout(), c, func() {
				switch {
				case c.Status == store.ClarificationAnswered && c.Answer != nil:
					fmt.Fprintln(cmd.OutOrStdout(), shown(c.Answer.Text))
				case c.Status == store.ClarificationPending:
					fmt.Fprintf(cmd.ErrOrStderr(), "clarification %d: still pending\n", c.ID)
				default:
					fmt.Fprintf(cmd.ErrOrStderr(), "clarification %d: %s\n",
						c.ID, shown(string(c.Status)))
				}
			}); err != nil {
				return err
			}
			switch c.Status {
			case store.ClarificationAnswered:
				return nil
			case store.ClarificationPending:
				return exitError{exitPending}
			}
			return exitError{exitDenied}
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.req.Options, "option", nil,
		"an answer to offer as a button (repeatable, at most 10)")
	f.StringVar(&o.req.SessionID, "session", "cli", "session id")
	f.StringVar(&o.req.ClarificationID, "id", "",
		"the caller's own id of this question (makes asking again idempotent)")
	f.StringVar(&o.req.AgentID, "agent", "", "agent id")
	f.StringVar(&o.req.Source, "source", "cli", "source of the question")
	f.StringVar(&o.req.ContextLabel, "context-label", "", "context shown with the question")
	f.DurationVar(&o.wait, "wait", 5*time.Minute,
		"how long to wait for the answer (0: print pending at once)")
	conn.flags(cmd, true)
	return cmd
}

// run asks the question and polls it until it is answered or the wait runs out.
func (o askOptions) run(ctx context.Context, conn *connection) (api.Clarification, error) {
	if o.wait < 0 {
		return api.Clarification{}, fmt.Errorf("--wait %s: must not be negative", o.wait)
	}
	c, err := conn.agentClient()
	if err != nil {
		return api.Clarification{}, err
	}
	deadline := time.Now().Add(o.wait)
	req := o.req
	req.WaitSecs = int(o.wait / time.Second)
	actx, cancel := context.WithTimeout(ctx, min(o.wait, api.MaxWaitSecs*time.Second)+answerGrace)
	got, err := c.Ask(actx, req)
	cancel()
	if err != nil || got.Status != store.ClarificationPending {
		return got, err
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return c.AwaitClarification(wctx, got.ID)
}

func newAnswerCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "answer ID TEXT",
		Short: "Answer a pending clarification",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			c, err := conn.client()
			if err != nil {
				return err
			}
			got, err := c.Answer(cmd.Context(), id, api.AnswerRequest{Answer: args[1]})
			if err != nil {
				return err
			}
			return conn.print(cmd.OutOrStdout(), got, func() {
				fmt.Fprintf(cmd.OutOrStdout(), "clarification %d answered: %s\n", got.ID,
					shown(got.Answer.Text))
			})
		},
	}
	conn.flags(cmd, true)
	return cmd
}
