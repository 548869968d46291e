package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
)

func newPendingCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pending",
		Short: "List the approval requests and questions waiting for a human",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return adminCall(cmd, conn, func(c *api.Client) (api.Inbox, error) {
				return c.Inbox(cmd.Context())
			}, func(in api.Inbox) {
				out := cmd.OutOrStdout()
				printTable(out, "no pending requests",
					"ID\tTOOL\tCALLER\tAGENT\tSOURCE\tSESSION\tEXPIRES\tARGUMENTS", in.Approvals,
					func(q api.Request) string {
						return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s", q.ID,
							shownName(q.ToolName), shownName(q.Caller), shownName(q.AgentID),
							shownName(q.Source), shown(q.SessionID),
							q.ExpiresAt.Local().Format(timeLayout),
							shown(cut(string(unescapeHTML(q.Arguments)), 60)))
					})
				if len(in.Clarifications) == 0 {
					return
				}
				// Questions have ids of their own: `skald-bot answer ID TEXT`.
				fmt.Fprintln(out, "\nquestions (skald-bot answer ID TEXT):")
				printTable(out, "", "ID\tCALLER\tAGENT\tSESSION\tEXPIRES\tOPTIONS\tQUESTION",
					in.Clarifications, func(q api.Clarification) string {
						return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s", q.ID, shownName(q.Caller),
							shownName(q.AgentID), shown(q.SessionID),
							q.ExpiresAt.Local().Format(timeLayout),
							shown(cut(strings.Join(q.Options, " | "), 40)),
							shown(cut(q.Question, 60)))
					})
			})
		},
	}
	conn.flags(cmd, true)
	return cmd
}

func newResolveCmd(conn *connection, action string) *cobra.Command {
	var note, bypass string
	cmd := &cobra.Command{
		Use: action + " ID",
		Short: map[string]string{
			api.ActionApprove: "Approve a pending request",
			api.ActionReject:  "Reject a pending request",
		}[action],
		Args: cobra.ExactArgs(1),
		RunE: withID(func(cmd *cobra.Command, id uint64) error {
			req := api.ResolveRequest{Action: action, Note: note}
			if bypass != "" {
				secs, err := bypassSecs(bypass)
				if err != nil {
					return err
				}
				req.BypassSecs = &secs
			}
			return adminCall(cmd, conn, func(c *api.Client) (api.Request, error) {
				return c.Resolve(cmd.Context(), id, req)
			}, func(q api.Request) { printStatus(cmd, q) })
		}),
	}
	cmd.Flags().StringVar(&note, "note", "", "a note for the agent (shown with the decision)")
	if action == api.ActionApprove {
		cmd.Flags().StringVar(&bypass, "bypass", "", "also let through the same kind of call "+
			"in this session: a duration (15m) or session")
	}
	conn.flags(cmd, true)
	return cmd
}

func newCancelCmd(conn *connection) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a pending request: the agent's call is refused, as if rejected",
		Long: `Cancels pending request ID: it leaves the pending list, its chat prompts say it was
cancelled and lose their buttons, and the agent waiting on it gets "cancelled", which
it treats as a refusal. The reason, if given, is stored with it.

Exit status: 0 cancelled; 1 an error (no such request, or it is no longer pending);
2 a usage error.`,
		Args: cobra.ExactArgs(1),
		RunE: withID(func(cmd *cobra.Command, id uint64) error {
			return adminCall(cmd, conn, func(c *api.Client) (api.Request, error) {
				return c.Cancel(cmd.Context(), id, reason)
			}, func(q api.Request) { printStatus(cmd, q) })
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, stored with the request")
	conn.flags(cmd, true)
	return cmd
}

// printStatus prints the line of a resolved or cancelled request q.
func printStatus(cmd *cobra.Command, q api.Request) {
	fmt.Fprintf(cmd.OutOrStdout(), "request %d %s\n", q.ID, shown(string(q.Status)))
}

// bypassSecs reads --bypass: "session" is 0 (the whole session), a duration
// ("15m") its length in seconds; anything else a usageError.
func bypassSecs(s string) (int64, error) {
	if s == "session" {
		return 0, nil
	}
	d, err := config.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, usagef("--bypass %q: want a duration such as 15m, or session", s)
	}
	return int64(d / time.Second), nil
}

// parseID reads an ID argument; a usageError when it is not a positive integer.
func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, usagef("id %q: want a positive integer", s)
	}
	return id, nil
}

// withID is the RunE of a command whose one argument is an ID: run gets it parsed, and
// is not called (a usageError) when it is not a positive integer.
func withID(run func(cmd *cobra.Command, id uint64) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		id, err := parseID(args[0])
		if err != nil {
			return err
		}
		return run(cmd, id)
	}
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
