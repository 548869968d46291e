package ruleset

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Doc is a rules file: the groups it names, each with all of its rules.
type Doc struct {
	Groups []Group `yaml:"groups"`
}

// Group is one permission group of a Doc. Name empty means the id.
type Group struct {
	ID          string `yaml:"id"`
	Name        string `yaml:"name,omitempty"`
	Description string `yaml:"description,omitempty"`
	Rules       []Rule `yaml:"rules"`
}

// Rule is a rule of a Group, without its id (the store's). Priority absent means
// rules.DefaultPriority.
type Rule struct {
	Tool     string       `yaml:"tool"`
	Action   rules.Action `yaml:"action"`
	Path     string       `yaml:"path,omitempty"`
	Command  string       `yaml:"command,omitempty"`
	Host     string       `yaml:"host,omitempty"`
	Agent    string       `yaml:"agent,omitempty"`
	Source   string       `yaml:"source,omitempty"`
	Priority *int         `yaml:"priority,omitempty"`
	Note     string       `yaml:"note,omitempty"`
}

// ruleOf is r as a rule of group.
func (r Rule) ruleOf(group string) rules.Rule {
	p := rules.DefaultPriority
	if r.Priority != nil {
		p = *r.Priority
	}
	return rules.Rule{GroupID: group, ToolPattern: r.Tool, Action: r.Action, PathPattern: r.Path,
		CommandPattern: r.Command, HostPattern: r.Host, AgentID: r.Agent, Source: r.Source,
		Priority: p, Note: r.Note}
}

// Export writes the groups and their rules as a Doc in YAML: groups by id, each
// group's rules in evaluation order, every priority written. only, when not "",
// keeps that group alone; it must be among groups. Parse of the output and Diff
// against the same groups and rules give no change.
func Export(groups []rules.Group, rs []rules.Rule, only string) ([]byte, error) {
	var doc Doc
	for _, g := range slices.SortedFunc(slices.Values(groups), func(a, b rules.Group) int {
		return strings.Compare(a.ID, b.ID)
	}) {
		if only != "" && g.ID != only {
			continue
		}
		dg := Group{ID: g.ID, Name: g.Name, Description: g.Description, Rules: []Rule{}}
		if dg.Name == g.ID {
			dg.Name = ""
		}
		for _, r := range ordered(rs, g.ID) {
			p := r.Priority
			dg.Rules = append(dg.Rules, Rule{Tool: r.ToolPattern, Action: r.Action,
				Path: r.PathPattern, Command: r.CommandPattern, Host: r.HostPattern,
				Agent: r.AgentID, Source: r.Source, Priority: &p, Note: r.Note})
		}
		doc.Groups = append(doc.Groups, dg)
	}
	if only != "" && len(doc.Groups) == 0 {
		return nil, fmt.Errorf("ruleset: export: %w %q", store.ErrUnknownGroup, only)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("ruleset: export: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("ruleset: export: %w", err)
	}
	return b.Bytes(), nil
}

// ordered returns the rules of group in evaluation order.
func ordered(rs []rules.Rule, group string) []rules.Rule {
	var out []rules.Rule
	for _, r := range rs {
		if r.GroupID == group {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, rules.Compare)
	return out
}

// ErrInvalid marks a rules file that cannot be imported; every problem is listed.
var ErrInvalid = errors.New("invalid rules file")

// Parse reads a rules file strictly (unknown keys are refused) and checks it: group
// ids unique and valid, every rule valid (rules.Validate, rules.CheckShellRule with
// shell, nil meaning rules.DefaultShell, rules.CheckHostRule with web, nil meaning
// rules.DefaultWeb). Errors wrap ErrInvalid and list every
// problem with where it is ("groups[0].rules[2]: …").
func Parse(data []byte, shell []rules.ShellTool, web []rules.WebTool) (Doc, error) {
	var doc Doc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return Doc{}, fmt.Errorf("%w: %v", ErrInvalid, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var errs []error
	seen := map[string]bool{}
	for i, g := range doc.Groups {
		where := fmt.Sprintf("groups[%d]", i)
		switch {
		case g.ID == "":
			errs = append(errs, fmt.Errorf("%s: the group has no id", where))
		case seen[g.ID]:
			errs = append(errs, fmt.Errorf("%s: group %q is named twice", where, g.ID))
		}
		seen[g.ID] = true
		for j, r := range g.Rules {
			rr := r.ruleOf(cmp.Or(g.ID, rules.DefaultGroup))
			err := rules.Validate(rr)
			if err == nil {
				err = rules.CheckShellRule(rr, shell)
			}
			if err == nil {
				err = rules.CheckHostRule(rr, web)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.rules[%d]: %v", where, j,
					strings.TrimPrefix(err.Error(), "rules: ")))
			}
		}
	}
	if len(errs) > 0 {
		return Doc{}, fmt.Errorf("%w:\n%w", ErrInvalid, errors.Join(errs...))
	}
	return doc, nil
}

// Plan is what Diff or Merge found: the changes, and per group what they do.
type Plan struct {
	Changes store.RuleChanges
	Groups  []GroupPlan
}

// GroupPlan is the changes to one group.
type GroupPlan struct {
	ID string
	// New: the group is created; Renamed: its name or description changes.
	New, Renamed bool
	Added        []rules.Rule
	Changed      [][2]rules.Rule // the rule as stored, as it will be
	Removed      []rules.Rule
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return p.Changes.Empty() }

// Diff returns the changes that make the groups doc names hold exactly its rules,
// given the store's groups and rules: a group not in the store is created; a rule is
// kept when a rule of its group has the same fields, changed when one has the same
// tool, path, command, agent and source (the first, in evaluation order), else added;
// the group's other rules are removed. Groups doc does not name are left alone.
func Diff(doc Doc, groups []rules.Group, rs []rules.Rule) Plan {
	var p Plan
	have := map[string]rules.Group{}
	for _, g := range groups {
		have[g.ID] = g
	}
	for _, dg := range doc.Groups {
		gp := GroupPlan{ID: dg.ID}
		want := rules.Group{ID: dg.ID, Name: cmp.Or(dg.Name, dg.ID), Description: dg.Description}
		old, exists := have[dg.ID]
		switch {
		case !exists:
			gp.New = true
			p.Changes.CreateGroups = append(p.Changes.CreateGroups, want)
		case old != want:
			gp.Renamed = true
			p.Changes.UpdateGroups = append(p.Changes.UpdateGroups, want)
		}
		stored := ordered(rs, dg.ID)
		used := make([]bool, len(stored))
		wanted := make([]rules.Rule, len(dg.Rules))
		matched := make([]bool, len(dg.Rules))
		for i, r := range dg.Rules {
			wanted[i] = r.ruleOf(dg.ID)
			for j, s := range stored {
				if !used[j] && same(s, wanted[i]) {
					used[j], matched[i] = true, true
					break
				}
			}
		}
		for i, w := range wanted {
			if matched[i] {
				continue
			}
			for j, s := range stored {
				if !used[j] && key(s) == key(w) {
					used[j], matched[i] = true, true
					w.ID = s.ID
					gp.Changed = append(gp.Changed, [2]rules.Rule{s, w})
					p.Changes.UpdateRules = append(p.Changes.UpdateRules, w)
					break
				}
			}
			if !matched[i] {
				gp.Added = append(gp.Added, w)
				p.Changes.CreateRules = append(p.Changes.CreateRules, w)
			}
		}
		for j, s := range stored {
			if !used[j] {
				gp.Removed = append(gp.Removed, s)
				p.Changes.DeleteRules = append(p.Changes.DeleteRules, s.ID)
			}
		}
		if gp.New || gp.Renamed || len(gp.Added)+len(gp.Changed)+len(gp.Removed) > 0 {
			p.Groups = append(p.Groups, gp)
		}
	}
	return p
}

// Merge returns the changes that add add's rules to group — created when not among
// groups — leaving every stored rule as it is. A rule the group already has is left
// out: one that matches the same calls (tool, path, command, agent, source) with the
// same action at the same or a lower priority, which decides before it would.
func Merge(group string, add []rules.Rule, groups []rules.Group, rs []rules.Rule) Plan {
	var p Plan
	gp := GroupPlan{ID: group}
	if !slices.ContainsFunc(groups, func(g rules.Group) bool { return g.ID == group }) {
		gp.New = true
		p.Changes.CreateGroups = append(p.Changes.CreateGroups,
			rules.Group{ID: group, Name: group})
	}
	stored := ordered(rs, group)
	for _, r := range add {
		r.GroupID, r.ID = group, 0
		if slices.ContainsFunc(stored, func(s rules.Rule) bool {
			return key(s) == key(r) && s.Action == r.Action && s.Priority <= r.Priority
		}) {
			continue
		}
		stored = append(stored, r)
		gp.Added = append(gp.Added, r)
		p.Changes.CreateRules = append(p.Changes.CreateRules, r)
	}
	if gp.New || len(gp.Added) > 0 {
		p.Groups = append(p.Groups, gp)
	}
	return p
}

// Unreachable is an allow rule a Plan adds that can never decide a call: By, an
// earlier rule of its group with another action and no filter, decides every call it
// matches first (rules.Shadowing). By.ID is 0 when By is added by the plan too.
type Unreachable struct {
	Rule, By rules.Rule
}

// Unreachable returns the allow rules p adds that can never decide, in the order p adds
// them, given rs, the rules stored now. The added rules count as stored after rs, in
// the order p adds them.
func (p Plan) Unreachable(rs []rules.Rule) []Unreachable {
	var top uint64
	for _, r := range rs {
		top = max(top, r.ID)
	}
	all := slices.Clone(rs)
	for i, r := range p.Changes.CreateRules {
		r.ID = top + uint64(i) + 1
		all = append(all, r)
	}
	var out []Unreachable
	for _, r := range all[len(rs):] {
		if r.Action != rules.Allow {
			continue
		}
		if sh := rules.Shadowing(all, r); sh.First != nil {
			by := *sh.First
			if by.ID > top {
				by.ID = 0
			}
			r.ID = 0
			out = append(out, Unreachable{Rule: r, By: by})
		}
	}
	return out
}

// same reports whether two rules have the same fields, ids and resolutions aside.
func same(a, b rules.Rule) bool {
	a.ID, b.ID = 0, 0
	a.ResolvedPathPattern, b.ResolvedPathPattern = "", ""
	return a == b
}

// key is what identifies a rule in its group across a change: what it matches.
func key(r rules.Rule) [6]string {
	return [6]string{r.ToolPattern, r.PathPattern, r.CommandPattern, r.HostPattern, r.AgentID,
		r.Source}
}

// Describe is a rule in one line, in the words of the rules commands:
// `allow Bash command "npm run *" priority 100`.
func Describe(r rules.Rule) string {
	var b strings.Builder
	b.WriteString(string(r.Action) + " " + r.ToolPattern)
	for _, kv := range [][2]string{{"path", r.PathPattern}, {"command", r.CommandPattern},
		{"host", r.HostPattern}, {"agent", r.AgentID}, {"source", r.Source}} {
		if kv[1] != "" {
			b.WriteString(" " + kv[0] + " " + strconv.Quote(kv[1]))
		}
	}
	b.WriteString(" priority " + strconv.Itoa(r.Priority))
	if r.Note != "" {
		b.WriteString(" note " + strconv.Quote(r.Note))
	}
	return b.String()
}

// Write prints the plan, one line per change under a line per group, or "no changes".
func (p Plan) Write(w io.Writer) {
	if p.Empty() {
		fmt.Fprintln(w, "no changes")
		return
	}
	for _, g := range p.Groups {
		what := ""
		switch {
		case g.New:
			what = " (new)"
		case g.Renamed:
			what = " (name or description changed)"
		}
		fmt.Fprintf(w, "group %s%s: %d added, %d changed, %d removed\n", g.ID, what, len(g.Added),
			len(g.Changed), len(g.Removed))
		for _, r := range g.Added {
			fmt.Fprintf(w, "  + %s\n", Describe(r))
		}
		for _, c := range g.Changed {
			fmt.Fprintf(w, "  ~ rule %d: %s\n      → %s\n",
				c[0].ID, Describe(c[0]), Describe(c[1]))
		}
		for _, r := range g.Removed {
			fmt.Fprintf(w, "  - rule %d: %s\n", r.ID, Describe(r))
		}
	}
}
