package rules

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// commandPatternError returns the *FieldError for a rule whose command_pattern does
// not compile, or sits on a rule without an exact tool name or with a path filter.
func commandPatternError(r Rule) error {
	if _, err := shell.Compile(r.CommandPattern); err != nil {
		problem := err.Error()
		if i := strings.Index(problem, "\": "); i >= 0 {
			problem = problem[i+3:]
		}
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: problem, quote: true}
	}
	if kind, _ := parseTool(r.ToolPattern); kind != toolExact {
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: fmt.Sprintf("needs a tool_pattern naming a shell tool, not %q",
				r.ToolPattern), quote: true}
	}
	if r.PathPattern != "" {
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: "cannot be combined with a path_pattern", quote: true}
	}
	return nil
}

// CheckShellRule returns nil when r has no command pattern or its tool pattern names
// one of the Set's shell tools (Options.Shell), else a *FieldError wrapping
// ErrInvalidRule that names the shell tools. It assumes Validate passed.
func (s *Set) CheckShellRule(r Rule) error {
	if r.CommandPattern == "" {
		return nil
	}
	if _, ok := s.ShellTool(r.ToolPattern); ok {
		return nil
	}
	names := make([]string, len(s.opt.Shell))
	for i, st := range s.opt.Shell {
		names[i] = st.Tool
	}
	return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
		Problem: fmt.Sprintf("only applies to the shell tools (%s), not %q",
			strings.Join(names, ", "), r.ToolPattern), quote: true}
}

// ShellTool returns the shell tool of Options.Shell named tool, and whether there
// is one.
func (s *Set) ShellTool(tool string) (ShellTool, bool) {
	for _, st := range s.opt.Shell {
		if st.Tool == tool {
			return st, true
		}
	}
	return ShellTool{}, false
}

// command reports whether the command pattern of r matches m.cmd: a deny or require
// rule any form of it, an allow rule the form allow patterns decide.
func (m *matcher) command(r *crule) bool {
	if m.cmd == nil {
		return false
	}
	if r.action == Allow {
		return r.cmd.Allows(m.cmd)
	}
	return r.cmd.Denies(m.cmd)
}

// CommandDecision is how one command of a script was decided.
type CommandDecision struct {
	Text      string // the command's full form; the script when it does not parse
	Action    Action
	RuleID    uint64 // the rule that matched, 0 when none did
	Delegated bool   // decided by other commands unless denied (shell.Command.Delegated)
	Why       string // why no command pattern may allow it, when that is so
}

// ScriptDecision is how a shell script was decided: deny if any command is denied,
// allow only if every command is allowed, else require.
type ScriptDecision struct {
	Action Action
	// RuleID is the rule of the command that decided (the first denied, else the
	// first not allowed, else the first allowed); 0 when no rule matched it.
	RuleID uint64
	// Reason names the command that decided and its rule.
	Reason   string
	Commands []CommandDecision
}

// decideScript decides the commands of sc, a script sent to the shell tool c.Tool,
// in tier t: each command by the first rule, in the usual order, whose filters
// match it (a rule without a command pattern matches every command). A delegated
// command counts only when denied. A script without commands is decided by the
// rules without a command pattern alone. It reads no file.
func (s *Set) decideScript(t *tier, c *Call, sc *shell.Script) ScriptDecision {
	if len(sc.Commands) == 0 {
		m := matcher{agent: c.AgentID, source: c.Source}
		d := ScriptDecision{Action: Require, Reason: "empty script: " + ReasonNoRule}
		if r := t.first(c.Tool, &m); r != nil {
			d.Action, d.RuleID, d.Reason = r.action, r.id, "empty script: "+ReasonRule
		}
		return d
	}
	out := ScriptDecision{Commands: make([]CommandDecision, len(sc.Commands))}
	deny, req, allow := -1, -1, -1
	for i := range sc.Commands {
		cmd := &sc.Commands[i]
		m := matcher{agent: c.AgentID, source: c.Source, cmd: cmd}
		cd := CommandDecision{Text: commandText(cmd), Action: Require,
			Delegated: cmd.Delegated}
		if cmd.Unknown {
			cd.Why = cmd.Why
		}
		if r := t.first(c.Tool, &m); r != nil {
			cd.Action, cd.RuleID = r.action, r.id
		}
		if cmd.Delegated && cd.Action != Deny {
			cd.Action = Allow
		}
		out.Commands[i] = cd
		switch {
		case cd.Action == Deny && deny < 0:
			deny = i
		case cd.Action == Require && req < 0:
			req = i
		case cd.Action == Allow && allow < 0 && !cd.Delegated:
			allow = i
		}
	}
	at := allow
	switch {
	case deny >= 0:
		out.Action, at = Deny, deny
	case req >= 0:
		out.Action, at = Require, req
	default:
		out.Action = Allow
	}
	if at < 0 {
		at = 0
	}
	cd := out.Commands[at]
	out.RuleID = cd.RuleID
	verb := map[Action]string{Allow: "allowed", Deny: "denied", Require: "needs a human"}[cd.Action]
	switch {
	case cd.RuleID != 0:
		out.Reason = fmt.Sprintf("command %q %s by rule %d", cd.Text, verb, cd.RuleID)
	default:
		out.Reason = fmt.Sprintf("command %q: %s", cd.Text, ReasonNoRule)
	}
	if out.Action == Allow && len(out.Commands) > 1 {
		out.Reason = fmt.Sprintf("all %d commands allowed; first %s", len(out.Commands),
			out.Reason)
	}
	if out.Action != Allow && cd.Why != "" && cd.Action == Require {
		out.Reason += " (" + cd.Why + ")"
	}
	return out
}

// commandText is how a decision names a command: its full form, or its words when
// it has none (a script that does not parse, a redirect alone).
func commandText(c *shell.Command) string {
	if len(c.Forms) > 0 {
		return c.Forms[0].Text
	}
	if len(c.Words) > 0 {
		return strings.Join(c.Words, " ")
	}
	if len(c.Redirects) > 0 {
		return c.Redirects[0].Op + " " + c.Redirects[0].Target
	}
	return ""
}

// shellRedirects decides the redirect targets of sc as file calls — a write by
// fsWrite, a read by fsRead, the tool names Options.FSWrite[0] and FSRead[0] — and
// returns the strictest decision, or a require when Paths could not list every
// path; ok is false when the script names no redirect and Paths had no error. base
// is the absolute directory the script starts in, home the user's home.
func (s *Set) shellRedirects(group string, c *Call, sc *shell.Script,
	base, home string) (d Decision, ok bool) {
	paths, err := sc.Paths(base, home)
	if err != nil {
		reason := "paths of the script cannot all be listed"
		switch {
		case errors.Is(err, shell.ErrTooManyMatches):
			reason = "globs of the script match too many paths"
		case errors.Is(err, shell.ErrUnknownDir):
			reason = "a command runs in a directory the script does not name"
		case errors.Is(err, shell.ErrUnknownPath):
			reason = "a redirect target is not literal"
		}
		d, ok = Decision{Action: Require, Reason: reason}, true
	}
	for _, p := range paths {
		if p.Access == shell.Arg {
			continue
		}
		tool := s.opt.FSRead[0]
		if p.Access == shell.Write {
			tool = s.opt.FSWrite[0]
		}
		fc := Call{Tool: tool, AgentID: c.AgentID, Source: c.Source,
			Args: map[string]any{s.opt.PathArgs[0]: filepath.FromSlash(p.Abs())}}
		pd := s.Evaluate(group, fc)
		if !ok || severity(pd) > severity(d) {
			d, ok = pd, true
		}
	}
	return d, ok
}
