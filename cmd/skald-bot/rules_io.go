package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/claudecode"
	"github.com/skald-circle/skald-bot/internal/ruleset"
	"github.com/skald-circle/skald-bot/rules"
)

// newRulesIOCmds returns `rules export` and `rules import` (with `rules import
// claude-code`): rules as code (docs/design.md, "Rules as code").
func newRulesIOCmds(conn *connection) []*cobra.Command {
	var group string
	export := &cobra.Command{
		Use:   "export [--group G]",
		Short: "Write the groups and their rules as YAML on stdout",
		Long: `Writes every permission group with its rules (or only group G) as YAML, in a stable
order: groups by id, rules in the order they are tried. "rules import" of the output
changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, gs, rs, err := loadRules(cmd.Context(), conn)
			if err != nil {
				return err
			}
			out, err := ruleset.Export(gs, rs, group)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	export.Flags().StringVar(&group, "group", "", "only this group")

	var apply bool
	imp := &cobra.Command{
		Use:   "import FILE [--apply]",
		Short: "Show, and with --apply make, the changes that give the store FILE's rules",
		Long: `Reads a rules file as "rules export" writes it and shows what would change,
per group: rules added (+), changed (~) and removed (-). Each group the file names ends
up with exactly the file's rules; groups it does not name are left alone. With --apply
the changes are made in one transaction: all of them, or none when any is refused
(every problem is listed).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			doc, err := ruleset.Parse(data, nil, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			c, gs, rs, err := loadRules(cmd.Context(), conn)
			if err != nil {
				return err
			}
			return runPlan(cmd, conn, c, ruleset.Diff(doc, gs, rs), apply)
		},
	}
	imp.Flags().BoolVar(&apply, "apply", false, "make the changes")

	var ccGroup string
	var ccApply bool
	cc := &cobra.Command{
		Use:   "claude-code FILE [--group G] [--apply]",
		Short: "Translate a Claude Code settings file's permissions into rules of a group",
		Long: `Reads permissions.allow, ask and deny of a Claude Code settings file
(.claude/settings.json, settings.local.json) and shows the rules they become in group G
(default: default): allow → allow, ask → require, deny → deny, at priorities that keep
Claude Code's order (deny, then ask, then allow). Rules the group already has are left
out; nothing is removed. Lists every permission rule that has no translation, and why,
every allow that can never decide because an earlier rule without a filter decides
every call it matches first, and every allow of a shell command that always asks at the
project's root because the command reads a directory holding a denied place ("git
status" where secrets/ lies).
With --apply the rules are added in one transaction (and the last check is made with
them).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			tr, skipped, err := claudecode.Translate(data, file, home)
			if err != nil {
				return err
			}
			c, gs, rs, err := loadRules(cmd.Context(), conn)
			if err != nil {
				return err
			}
			add := make([]rules.Rule, len(tr))
			for i, t := range tr {
				add[i] = t.Rule
			}
			w := cmd.OutOrStdout()
			if !conn.json {
				for _, t := range tr {
					fmt.Fprintf(w, "%s → %s\n", shown(t.From), shown(ruleset.Describe(t.Rule)))
				}
				if len(skipped) > 0 {
					fmt.Fprintf(w, "not translated (%d):\n", len(skipped))
					for _, s := range skipped {
						fmt.Fprintf(w, "  %s: %s\n", shown(s.From), shown(s.Reason))
					}
				}
				if ccGroup != rules.DefaultGroup && len(add) > 0 {
					fmt.Fprintf(w, "note: group %s's rules are tried before default's, "+
						"so its allow rules override default's denies (secrets/* included): "+
						"keep the denies it needs in %s\n", shownName(ccGroup), shownName(ccGroup))
				}
			}
			p := ruleset.Merge(ccGroup, add, gs, rs)
			if conn.json {
				w = cmd.ErrOrStderr()
			}
			writeUnreachable(w, tr, p.Unreachable(rs))
			if err := runPlan(cmd, conn, c, p, ccApply); err != nil {
				return err
			}
			group := ccGroup
			if !ccApply && !hasGroup(gs, group) {
				group = ""
			}
			return writeAlwaysAsks(cmd.Context(), w, c, tr, claudecode.ProjectDir(file), group)
		},
	}
	cc.Flags().StringVar(&ccGroup, "group", rules.DefaultGroup,
		"the permission group to add the rules to")
	cc.Flags().BoolVar(&ccApply, "apply", false, "add the rules")
	imp.AddCommand(cc)
	return []*cobra.Command{export, imp}
}

// writeUnreachable warns of the imported allow rules us that can never decide, each
// named by the Claude Code rule of tr it comes from.
func writeUnreachable(w io.Writer, tr []claudecode.Translated, us []ruleset.Unreachable) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintf(w, "never decides (%d): an earlier rule decides every call it matches first\n",
		len(us))
	for _, u := range us {
		from := ruleset.Describe(u.Rule)
		for _, t := range tr {
			if ruleset.Describe(t.Rule) == from {
				from = t.From
				break
			}
		}
		by := "imported " + ruleset.Describe(u.By)
		if u.By.ID != 0 {
			by = fmt.Sprintf("rule %d (%s)", u.By.ID, ruleset.Describe(u.By))
		}
		fmt.Fprintf(w, "  %s: %s comes first\n", shown(from), shown(by))
	}
}

// writeAlwaysAsks warns of the imported allow rules of tr with a command pattern whose
// command, run at the project root dir in group (the profile's when ""), needs a human
// whatever the rules say: a locked require, as `git status` at a root holding secrets/
// (docs/design.md, "Shell commands"). Each pattern is tried as its command with nothing
// after it (`git status *` as `git status`); one with another star is not tried. Errors
// are those of the explain calls.
func writeAlwaysAsks(ctx context.Context, w io.Writer, c *api.Client, tr []claudecode.Translated,
	dir, group string) error {
	var lines []string
	for _, t := range tr {
		r := t.Rule
		if r.Action != rules.Allow || r.ToolPattern != "Bash" || r.CommandPattern == "" {
			continue
		}
		command := strings.TrimSuffix(strings.TrimSuffix(r.CommandPattern, "*"), " ")
		if command == "" || strings.Contains(command, "*") {
			continue
		}
		ex, err := c.Explain(ctx, gate.Call{ToolName: r.ToolPattern, Group: group, Cwd: dir,
			Source: "cli", Arguments: map[string]any{"command": command}})
		if err != nil {
			return err
		}
		if ex.Locked {
			lines = append(lines, fmt.Sprintf("  %s: %s — %s", shown(t.From), shown(command),
				shown(ex.Reason)))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	fmt.Fprintf(w, "always asks (%d): run at the project root, these commands read a "+
		"directory holding a denied place; no allow rule lifts that\n%s\n",
		len(lines), strings.Join(lines, "\n"))
	fmt.Fprintf(w, "  to let them run: start the agent in a subdirectory of %s, or move the "+
		"denied places out of it\n", shown(dir))
	return nil
}

// hasGroup reports whether gs holds the group id.
func hasGroup(gs []rules.Group, id string) bool {
	for _, g := range gs {
		if g.ID == id {
			return true
		}
	}
	return false
}

// loadRules makes an admin client and lists the groups and rules through it.
func loadRules(ctx context.Context, conn *connection) (*api.Client, []rules.Group,
	[]rules.Rule, error) {
	c, err := conn.client()
	if err != nil {
		return nil, nil, nil, err
	}
	gs, err := c.Groups(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	rs, err := c.Rules(ctx, "")
	if err != nil {
		return nil, nil, nil, err
	}
	return c, gs, rs, nil
}

// runPlan prints p and, with apply, applies it through c.
func runPlan(cmd *cobra.Command, conn *connection, c *api.Client, p ruleset.Plan,
	apply bool) error {
	w := cmd.OutOrStdout()
	if !apply || p.Empty() {
		return conn.print(w, p.Changes, func() {
			writePlan(w, p)
			if !p.Empty() {
				fmt.Fprintln(w, "nothing changed: run again with --apply to make these changes")
			}
		})
	}
	created, err := c.ApplyRules(cmd.Context(), p.Changes)
	if err != nil {
		return err
	}
	ch := p.Changes
	return conn.print(w, created, func() {
		writePlan(w, p)
		fmt.Fprintf(w, "applied: %d groups added, %d rules added, %d changed, %d removed\n",
			len(ch.CreateGroups), len(created), len(ch.UpdateRules), len(ch.DeleteRules))
	})
}

// writePlan prints p with caller text escaped as the other listings do.
func writePlan(w io.Writer, p ruleset.Plan) {
	var b strings.Builder
	p.Write(&b)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			fmt.Fprintln(w, shown(strings.TrimSuffix(line, "\n")))
		}
	}
}
