package rules

import (
	"fmt"
	"strings"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// Trace is how Explain found a call's decision: the Decision Evaluate gives, the
// normalised paths the rules were matched against, the shell commands of a shell
// tool's script, and the rules tried in evaluation order up to the one that decided
// (every rule of the group's tier when none did).
type Trace struct {
	Decision Decision
	Paths    []string
	Commands []string
	Steps    []TraceStep
}

// TraceStep is one rule of a Trace: whether it matched the call (for some path or
// command of it) and, when not, why.
type TraceStep struct {
	RuleID uint64
	// Group is the rule's permission group: the call's, or DefaultGroup behind it.
	Group   string
	Action  Action
	Matched bool
	// Decided is set on the rule the Decision names.
	Decided bool
	// Why says which filter did not match ("tool pattern", "agent", "source", "path
	// pattern", "command pattern", "host pattern", with the values compared), or, for a rule that
	// matched without deciding, what decided instead.
	Why string
}

// Explain evaluates c for group as Evaluate does and tells why: see Trace. It reads
// the file system as Evaluate does and is safe for concurrent use; it is for people
// (the explain command), not the hot path, and allocates freely. Evaluate does not
// call it.
func (s *Set) Explain(group string, c Call) Trace {
	tr := Trace{Decision: s.Evaluate(group, c)}
	v := s.view.Load()
	if !s.held(v) { // patterns moved since: the view Evaluate rebuilt
		v = s.view.Load()
	}
	t := v.tier(group)
	var cmds []shell.Command
	if st, ok := s.ShellTool(c.Tool); ok {
		if script, ok := c.Args[st.Arg].(string); ok {
			cmds = shell.Parse(script).Commands
			for i := range cmds {
				tr.Commands = append(tr.Commands, commandText(&cmds[i]))
			}
		}
	}
	tr.Paths = s.explainPaths(&c)
	own := map[uint64]bool{}
	if group != DefaultGroup {
		for _, r := range s.rules[group] {
			own[r.id] = true
		}
	}
	for i := range t.rules {
		r := &t.rules[i]
		st := TraceStep{RuleID: r.id, Group: DefaultGroup, Action: r.action}
		if own[r.id] {
			st.Group = group
		}
		st.Why = s.mismatch(r, &c, tr.Paths, cmds)
		st.Matched = st.Why == ""
		st.Decided = r.id == tr.Decision.RuleID
		if st.Matched && !st.Decided {
			st.Why = "matches, but " + decidedBy(tr.Decision)
		}
		tr.Steps = append(tr.Steps, st)
		if st.Decided {
			break
		}
	}
	return tr
}

// explainPaths returns every normalised form of c's path arguments (see forms), or,
// for a file tool without one, its working directory.
func (s *Set) explainPaths(c *Call) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		fs, _ := s.forms(c, p, nil)
		for _, f := range fs {
			out = appendNew(out, f.path)
		}
	}
	for _, k := range s.opt.PathArgs {
		switch v := c.Args[k].(type) {
		case string:
			add(v)
		case []any:
			for _, el := range v {
				if p, ok := el.(string); ok {
					add(p)
				}
			}
		}
	}
	if key := globKey(c.Tool); key != "" {
		if g, ok := c.Args[key].(string); ok && g != "" {
			add(globDir(g))
		}
	}
	if len(out) == 0 && (s.IsFSRead(c.Tool) || s.IsFSWrite(c.Tool)) {
		if np, ok := s.normalize(c, "."); ok {
			out = append(out, np)
		}
	}
	return out
}

// mismatch says why r does not match c, "" when it does for one of paths and cmds.
func (s *Set) mismatch(r *crule, c *Call, paths []string, cmds []shell.Command) string {
	switch {
	case !s.toolMatches(r.toolKind, r.tool, c.Tool):
		return fmt.Sprintf("tool pattern does not match %s", c.Tool)
	case r.agent != "" && r.agent != c.AgentID:
		return fmt.Sprintf("agent %q is not the rule's %q", c.AgentID, r.agent)
	case r.source != "" && r.source != c.Source:
		return fmt.Sprintf("source %q is not the rule's %q", c.Source, r.source)
	}
	if r.cmd != nil {
		if cmds == nil {
			return "command pattern: the call is not a shell tool's script"
		}
		matched := false
		for i := range cmds {
			m := matcher{cmd: &cmds[i]}
			m.allowText, m.allowable = cmds[i].AllowText()
			if m.command(r) {
				matched = true
				break
			}
		}
		if !matched {
			texts := make([]string, len(cmds))
			for i := range cmds {
				texts[i] = commandText(&cmds[i])
			}
			return fmt.Sprintf("command pattern %s matches none of: %s", r.cmd,
				strings.Join(texts, "; "))
		}
	}
	if r.host != "" {
		h, ok := s.callHost(c)
		if !ok {
			return fmt.Sprintf("host pattern %s: the call has no http(s) URL with a host",
				r.host)
		}
		if !hostMatches(r.host, h) {
			return fmt.Sprintf("host pattern %s does not match %s", r.host, h)
		}
	}
	if r.hasPath {
		if len(paths) == 0 {
			return fmt.Sprintf("path pattern %s: the call has no path", r.written)
		}
		for _, p := range paths {
			if r.path.match(p) {
				return ""
			}
		}
		return fmt.Sprintf("path pattern %s matches none of the call's paths: %s", r.written,
			strings.Join(paths, ", "))
	}
	return ""
}

// decidedBy says what decided d when its rule is not the one in question.
func decidedBy(d Decision) string {
	switch {
	case d.RuleID != 0:
		return fmt.Sprintf("rule %d decided another path or command more strictly", d.RuleID)
	case d.Reason == ReasonRule:
		return "the decision came from elsewhere"
	}
	return "the decision is " + string(d.Action) + ": " + d.Reason
}
