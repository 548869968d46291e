package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
)

func newExplainCmd(conn *connection) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "explain --tool NAME [--arg k=v]... [--profile P] [--cwd DIR]",
		Short: "Show which rule decides a tool call, and why each rule before it did not match",
		Long: `Asks the running server how its rules decide a tool call, registering nothing: the
rule that decided and, for every rule tried before it in evaluation order, which
filter did not match (tool pattern, agent, source, path pattern, command pattern).
The server must be running: it holds the rules, the profiles and the workspace. Session
bypasses are not looked at; the profile fast-path is. Without --cwd, the call is made
from the current directory, as the Claude Code hook's are: relative paths resolve
against it, and with no --profile it picks the project that holds it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			call, err := o.toolCall()
			if err != nil {
				return usageError{err}
			}
			if !cmd.Flags().Changed("cwd") {
				if call.Cwd, err = os.Getwd(); err != nil {
					return err
				}
			}
			return adminCall(cmd, conn, func(c *api.Client) (api.ExplainResult, error) {
				return c.Explain(cmd.Context(), call)
			}, func(ex api.ExplainResult) {
				w := cmd.OutOrStdout()
				verdict := string(ex.Decision)
				if ex.FastPath {
					verdict += ", then allow by the profile fast-path"
				}
				if ex.Locked {
					verdict += " (locked: no allow rule, bypass or fast-path lifts it)"
				}
				fmt.Fprintf(w, "%s in group %s (profile %s): %s — %s\n", shownName(call.ToolName),
					shownName(ex.Group), shownName(ex.Profile), verdict, shown(ex.Reason))
				if ex.Note != "" {
					fmt.Fprintf(w, "note: %s\n", shown(ex.Note))
				}
				if len(ex.Paths) > 0 {
					fmt.Fprintf(w, "paths: %s\n", shown(strings.Join(ex.Paths, ", ")))
				}
				if len(ex.Commands) > 0 {
					fmt.Fprintf(w, "commands: %s\n", shown(strings.Join(ex.Commands, "; ")))
				}
				printTable(w, "", "RULE\tGROUP\tPRIORITY\tRULE TEXT\tRESULT", ex.Steps,
					func(s api.ExplainStep) string {
						result := "no: " + s.Why
						switch {
						case s.Decided:
							result = "decided"
						case s.Matched:
							result = s.Why
						}
						return fmt.Sprintf("%d\t%s\t%d\t%s\t%s", s.RuleID, shownName(s.Group),
							s.Priority, shown(s.Rule), shown(result))
					})
			})
		},
	}
	f := cmd.Flags()
	o.addCallFlags(cmd)
	f.StringVar(&o.call.Cwd, "cwd", "",
		"working directory relative paths resolve against (default: the current one)")
	f.StringVar(&o.call.Group, "group", "", "permission group to evaluate in")
	f.StringVar(&o.call.Profile, "profile", "", "profile to evaluate in")
	conn.flags(cmd, true)
	return cmd
}
