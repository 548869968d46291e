package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
)

func newBypassCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bypass",
		Short: "List, give or clear a session's bypasses (calls let through without a prompt)",
		Long: `A bypass lets a session's calls that would need approval through without a prompt,
for a while or for the whole session (docs/design.md, "Bypasses"). Denied calls and
calls into guarded places are never bypassed.`,
	}
	conn.flags(cmd, true)

	list := &cobra.Command{
		Use:   "list [SESSION]",
		Short: "List the live bypasses of SESSION, or of every session",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return adminCall(cmd, conn, func(c *api.Client) ([]api.Bypass, error) {
					return c.AllBypasses(cmd.Context())
				}, func(bs []api.Bypass) { printAllBypasses(cmd, bs) })
			}
			return adminCall(cmd, conn, func(c *api.Client) ([]api.Bypass, error) {
				return c.Bypasses(cmd.Context(), args[0])
			}, func(bs []api.Bypass) { printBypasses(cmd, args[0], bs) })
		},
	}

	var forArg, scope, caller string
	add := &cobra.Command{
		Use:   "add SESSION [--for 15m|session] [--scope S] [--caller C]",
		Short: "Give SESSION a bypass",
		Long: `Gives SESSION a bypass: for --for (a duration, or session for the whole session), of
--scope (all, category:NAME, mcp:SERVER or tool:NAME; default all), covering the calls
of --caller (admin, local, an agent token's name) or, by default, of every caller.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secs, err := bypassSecs(forArg)
			if err != nil {
				return usagef("--for %q: want a duration such as 15m, or session", forArg)
			}
			return adminCall(cmd, conn, func(c *api.Client) (api.Bypass, error) {
				return c.SetBypass(cmd.Context(), args[0], scope, caller, secs)
			}, func(b api.Bypass) {
				fmt.Fprintf(cmd.OutOrStdout(), "session %s: bypass %s %s\n", shown(b.SessionID),
					shown(b.Scope), until(b))
			})
		},
	}
	add.Flags().StringVar(&forArg, "for", "15m", "how long: a duration (15m), or session")
	add.Flags().StringVar(&scope, "scope", "",
		"what it covers: all, category:NAME, mcp:SERVER, tool:NAME (default all)")
	add.Flags().StringVar(&caller, "caller", "", "whose calls it covers (default every caller's)")

	rm := &cobra.Command{
		Use:   "rm SESSION",
		Short: "Clear every bypass of SESSION",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return adminCall(cmd, conn, func(c *api.Client) (map[string]string, error) {
				return map[string]string{"session_id": args[0], "bypasses": "cleared"},
					c.ClearBypass(cmd.Context(), args[0])
			}, func(map[string]string) {
				fmt.Fprintf(cmd.OutOrStdout(), "session %s: bypasses cleared\n", shown(args[0]))
			})
		},
	}
	cmd.AddCommand(list, add, rm)
	return cmd
}

func printBypasses(cmd *cobra.Command, session string, bs []api.Bypass) {
	printTable(cmd.OutOrStdout(), fmt.Sprintf("session %s has no bypasses", shown(session)),
		"SCOPE\tCALLER\tUNTIL\tREQUEST", bs, bypassRow)
}

// printAllBypasses prints the bypasses of every session, a SESSION column first.
func printAllBypasses(cmd *cobra.Command, bs []api.Bypass) {
	printTable(cmd.OutOrStdout(), "no bypasses", "SESSION\tSCOPE\tCALLER\tUNTIL\tREQUEST", bs,
		func(b api.Bypass) string { return shown(b.SessionID) + "\t" + bypassRow(b) })
}

// bypassRow is b's scope, caller, end and request as tab-separated table cells.
func bypassRow(b api.Bypass) string {
	caller := b.Caller
	if caller == "" {
		caller = "every caller"
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", shown(b.Scope), shownName(caller), until(b),
		idOrEmpty(b.RequestID))
}

// until says how long bypass b lasts.
func until(b api.Bypass) string {
	if b.ExpiresAt.IsZero() {
		return "for the session"
	}
	return "until " + b.ExpiresAt.Local().Format(timeLayout)
}
