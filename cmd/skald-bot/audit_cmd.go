package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
)

// timeLayout is how the command line shows a time: local, with its zone.
const timeLayout = "2006-01-02 15:04:05 MST"

func newAuditCmd(conn *connection) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "audit [--limit N]",
		Short: "Show the audit log, newest first: resolutions, rule and bypass changes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 || limit > api.MaxAuditLimit {
				return usagef("--limit %d: want 1 to %d", limit, api.MaxAuditLimit)
			}
			return adminCall(cmd, conn, func(c *api.Client) ([]api.AuditEntry, error) {
				return c.Audit(cmd.Context(), limit)
			}, func(es []api.AuditEntry) {
				printTable(cmd.OutOrStdout(), "no audit entries",
					"ID\tAT\tBY\tVIA\tACTION\tREQUEST\tRULE\tDETAIL", es,
					func(e api.AuditEntry) string {
						return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s", e.ID,
							e.At.Local().Format(timeLayout), shownName(e.By), shown(e.Via),
							shown(e.Action), idOrEmpty(e.RequestID), idOrEmpty(e.RuleID),
							shown(cut(e.Detail, 80)))
					})
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", api.DefaultAuditLimit, "most entries to show")
	conn.flags(cmd, true)
	return cmd
}

// idOrEmpty is id in a table cell, "" for 0 (none).
func idOrEmpty(id uint64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprint(id)
}
