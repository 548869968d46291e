package rules

import "cmp"

// Evaluate decides one tool call for the permission group group (SPEC §4.1–4.7,
// §12.15, §12.25):
//
//  1. The call's path is the first non-empty string among the Options.PathArgs keys of
//     c.Args, normalised as Normalize does against c.Cwd, else c.WorkingDir, else the
//     workspace root. A value under one of those keys that is neither a string nor null
//     makes the path invalid, as does a path that cannot be normalised; an invalid path
//     matches no path rule (Decision.PathState says which case held).
//  2. A path under an Options.Protected path is denied before any rule, whatever the
//     group (Reason ReasonProtected, RuleID 0).
//  3. The first matching rule of group, then of DefaultGroup, each in (priority, id)
//     order, decides (Reason ReasonRule). An unknown group has no rules of its own.
//  4. No rule matches: require (Reason ReasonNoRule).
//
// Session bypasses and the profile fast-path (SPEC §4.8, §4.9) are the gate's: it
// applies them to the Decision, whose Path and PathState it can reuse.
//
// Evaluate reads the file system only to normalise a path (os.Lstat, os.Readlink); a
// call without a path argument allocates nothing. It is safe for concurrent use.
func (s *Set) Evaluate(group string, c Call) Decision {
	var d Decision
	d.Path, d.PathState = s.callPath(&c)
	if d.PathState == PathOK {
		for _, p := range s.protected {
			if Under(d.Path, p) {
				d.Action, d.Reason = Deny, ReasonProtected
				return d
			}
		}
	}
	m := matcher{agent: c.AgentID, source: c.Source, path: d.Path, pathState: d.PathState}
	r := s.lookup(group, c.Tool, &m)
	if r == nil {
		d.Action, d.Reason = Require, ReasonNoRule
		return d
	}
	d.Action, d.Reason, d.RuleID, d.Note = r.action, ReasonRule, r.id, r.note
	return d
}

// lookup returns the first rule matching tool and m among group's rules, then
// DefaultGroup's (SPEC §4.1, §12.15), or nil.
func (s *Set) lookup(group, tool string, m *matcher) *crule {
	if group != DefaultGroup {
		if t := s.groups[group]; t != nil {
			return t.first(tool, m)
		}
	}
	return s.def.first(tool, m)
}

// callPath finds and normalises the call's path argument (see Evaluate, step 1).
func (s *Set) callPath(c *Call) (string, PathState) {
	for _, k := range s.opt.PathArgs {
		v, ok := c.Args[k]
		if !ok || v == nil {
			continue
		}
		p, ok := v.(string)
		if !ok {
			return "", PathInvalid
		}
		if p == "" {
			continue
		}
		base := cmp.Or(c.Cwd, c.WorkingDir)
		abs, problem := resolveAbs(p, base, s.opt.WorkspaceRoot)
		if problem != "" {
			return "", PathInvalid
		}
		return relTo(abs, s.opt.WorkspaceRoot), PathOK
	}
	return "", NoPath
}

// Visible reports whether tool is shown to an agent in group (SPEC §4, visibility): it
// is hidden when the first rule without a path_pattern whose tool_pattern matches it —
// group tier, then DefaultGroup, in (priority, id) order — is a deny. The agent and
// source filters are applied only when agentID / source is not empty: with an empty
// agentID a rule filtered on an agent is not excluded by that filter. A tool no rule
// matches is visible. Safe for concurrent use; allocates nothing.
func (s *Set) Visible(group, agentID, source, tool string) bool {
	m := matcher{agent: agentID, source: source, pathState: NoPath, visibility: true}
	r := s.lookup(group, tool, &m)
	return r == nil || r.action != Deny
}
