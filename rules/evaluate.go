package rules

import "cmp"

// Evaluate decides one tool call for the permission group group (SPEC §4.1–4.7,
// §12.15, §12.25):
//
//  1. The call's path is the first non-empty string among the Options.PathArgs keys of
//     c.Args, normalised as Normalize does against c.Cwd, else c.WorkingDir, else the
//     workspace root. When there is none but a key holds something else than a string
//     (a number, an object), or when the path cannot be normalised, the path is invalid
//     and matches no path rule. Decision.PathState says which case held.
//  2. A call is denied before any rule, whatever the group, when its path — or the
//     string under any other of the PathArgs keys, since a tool may read another key
//     than the first — lies under an Options.Protected path (Reason ReasonProtected,
//     RuleID 0, Path the protected path it names).
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
	var key int
	d.Path, d.PathState, key = s.callPath(&c)
	if p, ok := s.protectedArg(&c, d.Path, d.PathState, key); ok {
		return Decision{Action: Deny, Reason: ReasonProtected, Path: p, PathState: PathOK}
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

// callPath finds and normalises the call's path argument (see Evaluate, step 1). key
// is the position in PathArgs of the key it came from, -1 when none held a string.
func (s *Set) callPath(c *Call) (path string, st PathState, key int) {
	st = NoPath
	for i, k := range s.opt.PathArgs {
		v, ok := c.Args[k]
		if !ok || v == nil {
			continue
		}
		p, ok := v.(string)
		if !ok {
			st = PathInvalid
			continue
		}
		if p == "" {
			continue
		}
		if path, ok := s.normalize(c, p); ok {
			return path, PathOK, i
		}
		return "", PathInvalid, i
	}
	return "", st, -1
}

// normalize normalises p as an argument of c (see Evaluate, step 1).
func (s *Set) normalize(c *Call, p string) (string, bool) {
	abs, problem := resolveAbs(p, cmp.Or(c.Cwd, c.WorkingDir), s.opt.WorkspaceRoot)
	if problem != "" {
		return "", false
	}
	return relTo(abs, s.opt.WorkspaceRoot), true
}

// protectedArg returns the first path among the call's path (path, st, from PathArgs
// key) and the strings under the later PathArgs keys that lies under a protected
// path, and true; or false (see Evaluate, step 2).
func (s *Set) protectedArg(c *Call, path string, st PathState, key int) (string, bool) {
	if len(s.protected) == 0 || key < 0 {
		return "", false
	}
	if st == PathOK && s.isProtected(path) {
		return path, true
	}
	for _, k := range s.opt.PathArgs[key+1:] {
		if p, ok := c.Args[k].(string); ok && p != "" {
			if n, ok := s.normalize(c, p); ok && s.isProtected(n) {
				return n, true
			}
		}
	}
	return "", false
}

func (s *Set) isProtected(path string) bool {
	for _, p := range s.protected {
		if Under(path, p) {
			return true
		}
	}
	return false
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
