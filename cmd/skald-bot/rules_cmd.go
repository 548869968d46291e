package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/rules"
)

// ruleFlags are the fields of a rule settable from the command line.
type ruleFlags struct {
	rule rules.Rule
}

// add defines the rule flags on fs. For `rules add` (forSet false) --priority and
// --group default to rules.DefaultPriority and rules.DefaultGroup, as --help shows; for
// `rules set` (forSet true) there are --action and --tool too, and no flag has a
// default: only the flags given change the rule (see apply), so --help shows none.
func (f *ruleFlags) add(fs *pflag.FlagSet, forSet bool) { f.addTo(fs, &f.rule, forSet) }

// addTo defines the rule flags on fs, setting the fields of r.
func (*ruleFlags) addTo(fs *pflag.FlagSet, r *rules.Rule, forSet bool) {
	priority, group := rules.DefaultPriority, rules.DefaultGroup
	if forSet {
		priority, group = 0, ""
		fs.StringVar((*string)(&r.Action), "action", "", "allow, deny or require")
		fs.StringVar(&r.ToolPattern, "tool", "",
			"tool pattern: *, a name, prefix*, @fs_read, @fs_write or @fs_any")
	}
	fs.StringVar(&r.PathPattern, "path", "", "path pattern: dir/* (subtree), prefix*, or exact")
	fs.StringVar(&r.CommandPattern, "command", "",
		`shell command pattern, for a shell tool only: "git status *"`)
	fs.StringVar(&r.HostPattern, "host", "",
		`URL host pattern, for a web tool only: example.com, "*.example.com" or "*"`)
	fs.StringVar(&r.AgentID, "agent", "", "only for this agent id")
	fs.StringVar(&r.Source, "source", "", "only for this source")
	fs.IntVar(&r.Priority, "priority", priority, "priority: lower is tried first")
	fs.StringVar(&r.GroupID, "group", group, "permission group")
	fs.StringVar(&r.Note, "note", "", "note shown with the decision")
}

func newRulesCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List, add, remove and change rules",
	}
	conn.flags(cmd, true)

	var group string
	list := listCmd(conn, "List the rules, of one group with --group",
		"ID\tGROUP\tPRIO\tACTION\tTOOL\tPATH\tCOMMAND\tHOST\tAGENT\tSOURCE\tNOTE",
		func(c *api.Client, ctx context.Context) ([]rules.Rule, error) {
			return c.Rules(ctx, group)
		}, func(r rules.Rule) string {
			return fmt.Sprintf("%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", r.ID,
				shownName(r.GroupID), r.Priority, shown(string(r.Action)),
				shownName(r.ToolPattern), shown(r.PathPattern),
				shown(r.CommandPattern), shown(r.HostPattern),
				shownName(r.AgentID), shownName(r.Source), shown(r.Note))
		})
	list.Flags().StringVar(&group, "group", "", "only this group's rules")

	var af ruleFlags
	add := &cobra.Command{
		Use:   "add ACTION TOOL_PATTERN [flags]",
		Short: "Add a rule: ACTION is allow, deny or require",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := af.rule
			r.Action, r.ToolPattern = rules.Action(args[0]), args[1]
			switch r.Action {
			case rules.Allow, rules.Deny, rules.Require:
			default:
				return usagef("ACTION %q: want allow, deny or require", args[0])
			}
			var all []rules.Rule
			return adminCall(cmd, conn, func(c *api.Client) (rules.Rule, error) {
				got, err := c.CreateRule(cmd.Context(), r)
				if err != nil || conn.json {
					return got, err
				}
				// For the note only: the rule is added either way, so a failed listing
				// is a warning and the command succeeds.
				if all, err = c.Rules(cmd.Context(), ""); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "skald-bot: warning: rule %d is added, "+
						"but the rules could not be listed to check its precedence: %s\n",
						got.ID, oneLine(err.Error()))
				}
				return got, nil
			}, func(got rules.Rule) {
				fmt.Fprintf(cmd.OutOrStdout(), "rule %d added\n", got.ID)
				printPrecedence(cmd, all, got)
			})
		},
	}
	af.add(add.Flags(), false)

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Remove a rule",
		Args:  cobra.ExactArgs(1),
		RunE: withID(func(cmd *cobra.Command, id uint64) error {
			return adminCall(cmd, conn, func(c *api.Client) (map[string]uint64, error) {
				return map[string]uint64{"deleted": id}, c.DeleteRule(cmd.Context(), id)
			}, func(map[string]uint64) {
				fmt.Fprintf(cmd.OutOrStdout(), "rule %d removed\n", id)
			})
		}),
	}

	var sf ruleFlags
	set := &cobra.Command{
		Use:   "set ID [flags]",
		Short: "Change the given fields of a rule",
		Args:  cobra.ExactArgs(1),
		RunE: withID(func(cmd *cobra.Command, id uint64) error {
			if sf.apply(cmd.Flags(), &rules.Rule{}) == 0 {
				return usagef("rules set %d: nothing to change: give at least one of --action, "+
					"--tool, --path, --command, --host, --agent, --source, --priority, --group, "+
					"--note", id)
			}
			var all []rules.Rule
			return adminCall(cmd, conn, func(c *api.Client) (rules.Rule, error) {
				var err error
				if all, err = c.Rules(cmd.Context(), ""); err != nil {
					return rules.Rule{}, err
				}
				i := slices.IndexFunc(all, func(r rules.Rule) bool { return r.ID == id })
				if i < 0 {
					return rules.Rule{}, fmt.Errorf("rule %d not found", id)
				}
				sf.apply(cmd.Flags(), &all[i])
				got, err := c.UpdateRule(cmd.Context(), all[i])
				if err == nil {
					all[i] = got // all now holds the rules as they are
				}
				return got, err
			}, func(got rules.Rule) {
				fmt.Fprintf(cmd.OutOrStdout(), "rule %d changed\n", got.ID)
				printPrecedence(cmd, all, got)
			})
		}),
	}
	sf.add(set.Flags(), true)

	cmd.AddCommand(list, add, rm, set)
	cmd.AddCommand(newRulesIOCmds(conn)...)
	return cmd
}

// printPrecedence prints bot.PrecedenceNote for rule r among all: which earlier rule
// already decides every call r matches, and the --priority that would put r first.
func printPrecedence(cmd *cobra.Command, all []rules.Rule, r rules.Rule) {
	if note := bot.PrecedenceNote(all, r, "--priority %d"); note != "" {
		fmt.Fprintln(cmd.OutOrStdout(), shown(note))
	}
}

// apply sets on r the fields whose rule flags were given in fs (the flags add defined
// there), and returns how many: one list of rule flags serves both, so a new flag
// needs no second place.
func (f *ruleFlags) apply(fs *pflag.FlagSet, r *rules.Rule) int {
	onto := pflag.NewFlagSet("rules set", pflag.ContinueOnError)
	kept := *r
	(&ruleFlags{}).addTo(onto, r, true) // defining a flag writes its default into r
	*r = kept
	n := 0
	fs.Visit(func(fl *pflag.Flag) {
		if onto.Lookup(fl.Name) == nil {
			return // --server, --config, --json
		}
		n++
		// fl's value came from parsing a flag of the same name and type: it parses again.
		if err := onto.Set(fl.Name, fl.Value.String()); err != nil {
			panic(fmt.Sprintf("rules set: --%s %q: %v", fl.Name, fl.Value, err))
		}
	})
	return n
}

func newGroupsCmd(conn *connection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "groups",
		Short: "List, add, duplicate, change and remove permission groups",
	}
	conn.flags(cmd, true)

	list := listCmd(conn, "List the permission groups", "ID\tNAME\tDESCRIPTION",
		(*api.Client).Groups, func(g rules.Group) string {
			return fmt.Sprintf("%s\t%s\t%s", shownName(g.ID), shown(g.Name),
				shown(g.Description))
		})

	var g rules.Group
	add := &cobra.Command{
		Use:   "add ID [flags]",
		Short: "Add an empty permission group",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.ID = args[0]
			return adminCall(cmd, conn, func(c *api.Client) (rules.Group, error) {
				return c.CreateGroup(cmd.Context(), g)
			}, func(got rules.Group) {
				fmt.Fprintf(cmd.OutOrStdout(), "group %s added\n", got.ID)
			})
		},
	}
	add.Flags().StringVar(&g.Name, "name", "", "display name")
	add.Flags().StringVar(&g.Description, "description", "", "description")

	var dupName string
	dup := &cobra.Command{
		Use:   "dup SRC NEW [flags]",
		Short: "Copy group SRC and all its rules into a new group NEW",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return adminCall(cmd, conn, func(c *api.Client) ([]rules.Rule, error) {
				return c.DuplicateGroup(cmd.Context(), args[0], args[1], dupName)
			}, func(rs []rules.Rule) {
				fmt.Fprintf(cmd.OutOrStdout(), "group %s added with %d rules of %s\n",
					args[1], len(rs), args[0])
			})
		},
	}
	dup.Flags().StringVar(&dupName, "name", "", "display name of the new group")

	var sg rules.Group
	set := &cobra.Command{
		Use:   "set ID [flags]",
		Short: "Change a group's name or description",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("name") && !cmd.Flags().Changed("description") {
				return usagef("groups set %s: nothing to change: give --name or --description",
					args[0])
			}
			return adminCall(cmd, conn, func(c *api.Client) (rules.Group, error) {
				gs, err := c.Groups(cmd.Context())
				if err != nil {
					return rules.Group{}, err
				}
				i := slices.IndexFunc(gs, func(g rules.Group) bool { return g.ID == args[0] })
				if i < 0 {
					return rules.Group{}, fmt.Errorf("group %s not found", args[0])
				}
				if cmd.Flags().Changed("name") {
					gs[i].Name = sg.Name
				}
				if cmd.Flags().Changed("description") {
					gs[i].Description = sg.Description
				}
				return c.UpdateGroup(cmd.Context(), gs[i])
			}, func(got rules.Group) {
				fmt.Fprintf(cmd.OutOrStdout(), "group %s changed\n", got.ID)
			})
		},
	}
	set.Flags().StringVar(&sg.Name, "name", "", "display name")
	set.Flags().StringVar(&sg.Description, "description", "", "description")

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Remove a permission group and its rules",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return adminCall(cmd, conn, func(c *api.Client) (map[string]string, error) {
				return map[string]string{"deleted": args[0]}, c.DeleteGroup(cmd.Context(), args[0])
			}, func(map[string]string) {
				fmt.Fprintf(cmd.OutOrStdout(), "group %s removed\n", args[0])
			})
		},
	}
	cmd.AddCommand(list, add, dup, set, rm)
	return cmd
}
