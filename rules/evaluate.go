package rules

import "cmp"

// Evaluate decides one tool call for the permission group group (SPEC §4.1–4.7,
// §12.15, §12.25):
//
//  1. Every path argument counts: each Options.PathArgs key of c.Args that holds a
//     value other than null or "" is a path, normalised as Normalize does against
//     c.Cwd, else c.WorkingDir, else the workspace root. A value that is not a string
//     (a number, an object), or a string that cannot be normalised, is an invalid path:
//     it matches no path rule.
//  2. Each path is decided on its own: under an Options.Protected path it is denied
//     before any rule, whatever the group (Reason ReasonProtected, RuleID 0, Path the
//     protected path); otherwise the first matching rule of group, then of
//     DefaultGroup, each in (priority, id) order, decides (Reason ReasonRule), and when
//     none matches the answer is require (Reason ReasonNoRule). An invalid path is at
//     least require: an allow becomes require with Reason ReasonBadPath and RuleID 0.
//     A path that is not denied but contains a guarded place — it is a strict ancestor
//     of an Options.Protected path, or of the subtree (or exact path) of a deny rule
//     with a path filter that applies to this call (its tool pattern, agent and source
//     filters; group tier or DefaultGroup's), or the directory of such a rule's prefix
//     pattern — is require, whatever the rule said: Decision.Contains names the place,
//     Reason is ReasonContains + ": " + the place, RuleID 0 when the rule allowed.
//  3. The call's decision is the most restrictive of its paths' — deny, then require
//     with Contains, then require, then allow — the earliest key in PathArgs order
//     winning a tie; Decision.Path and PathState are those of the path that decided,
//     Decision.Paths counts the paths.
//  4. A call without a path argument of a file tool (@fs_read or @fs_write: the
//     Options.FSRead and FSWrite names) is decided as if its path were "." — the call's
//     Cwd, else WorkingDir, else the workspace root, normalised as in step 1 — because
//     Grep, Glob or LS without a path search that directory: Grep {"pattern":"token"}
//     in the workspace root is require with Contains, LS {} with Cwd in the data
//     directory is denied, and with no directory to resolve (no workspace root) it is an
//     invalid path. Decision.Path and PathState are that directory's, Decision.Paths
//     is 0. Any other call without a path is decided by the rules alone, as in step 2.
//
// Steps 1 and 4 are our reading of SPEC §4.4 ("the path argument is the first non-empty
// string among the keys"): a tool may act on any of the keys it is sent, so a harmless
// first key must not vouch for a second one (a decoy "path" beside a "file_path" in
// secrets/), and a file tool sent no key acts on its working directory, which must not
// go unseen. The guarded places of step 2 extend SPEC §4 and §12.25, which match only
// paths inside a place: Grep or LS on a parent folder (".", "data") reads secrets/ or
// the data directory without naming them. An unknown group has no rules of its own.
//
// Session bypasses and the profile fast-path (SPEC §4.8, §4.9) are the gate's: it
// applies them to the Decision, whose Path, PathState and Paths it can reuse, and never
// to one whose Contains is set.
//
// Evaluate reads the file system only to normalise a path (os.Lstat, os.Readlink); a
// call without a path argument of a tool that is not a file tool allocates nothing. It
// is safe for concurrent use.
func (s *Set) Evaluate(group string, c Call) Decision {
	t := s.tier(group)
	var best Decision
	n := 0
	for _, k := range s.opt.PathArgs {
		v, ok := c.Args[k]
		if !ok || v == nil || v == "" {
			continue
		}
		d := s.decidePath(t, &c, v)
		if n == 0 || severity(d) > severity(best) {
			best = d
		}
		n++
	}
	switch {
	case n > 0:
		best.Paths = n
		return best
	case s.IsFSRead(c.Tool) || s.IsFSWrite(c.Tool):
		return s.decidePath(t, &c, ".") // a directory tool without a path searches its cwd
	}
	return s.decide(t, &c, "", NoPath)
}

// decidePath decides the call for the path argument v (see Evaluate, steps 1 and 2).
func (s *Set) decidePath(t *tier, c *Call, v any) Decision {
	path, st := "", PathInvalid
	if p, ok := v.(string); ok {
		if np, ok := s.normalize(c, p); ok {
			path, st = np, PathOK
		}
	}
	return s.decide(t, c, path, st)
}

// decide decides the call for one of its paths (path and st; st NoPath for a call
// without one) in tier t: see Evaluate, step 2.
func (s *Set) decide(t *tier, c *Call, path string, st PathState) Decision {
	if st == PathOK && s.isProtected(path) {
		return Decision{Action: Deny, Reason: ReasonProtected, Path: path, PathState: PathOK}
	}
	d := Decision{Path: path, PathState: st}
	m := matcher{agent: c.AgentID, source: c.Source, path: path, pathState: st}
	r := t.first(c.Tool, &m)
	switch {
	case r == nil:
		d.Action, d.Reason = Require, ReasonNoRule
	case r.action == Allow && st == PathInvalid:
		d.Action, d.Reason = Require, ReasonBadPath
	default:
		d.Action, d.Reason, d.RuleID, d.Note = r.action, ReasonRule, r.id, r.note
	}
	if d.Action == Deny || st != PathOK {
		return d
	}
	if g := s.containing(&t.guards, c, path); g != nil {
		if d.Action == Allow {
			d.RuleID, d.Note = 0, ""
		}
		d.Action, d.Reason, d.Contains = Require, g.reason, g.name
	}
	return d
}

// severity orders decisions from the least to the most restrictive: allow, require,
// require that no bypass or fast-path may lift (Contains), deny (see Evaluate, step 3).
func severity(d Decision) int {
	switch {
	case d.Action == Deny:
		return 3
	case d.Contains != "":
		return 2
	case d.Action == Require:
		return 1
	}
	return 0
}

// tier returns the candidates of group: its own tier (its rules, then DefaultGroup's)
// when it has rules, else DefaultGroup's (SPEC §4.1, §12.15).
func (s *Set) tier(group string) *tier {
	if group != DefaultGroup {
		if t := s.groups[group]; t != nil {
			return t
		}
	}
	return s.def
}

// normalize normalises p as an argument of c (see Evaluate, step 1).
func (s *Set) normalize(c *Call, p string) (string, bool) {
	abs, problem := resolveAbs(p, cmp.Or(c.Cwd, c.WorkingDir), s.opt.WorkspaceRoot)
	if problem != "" {
		return "", false
	}
	return relTo(abs, s.opt.WorkspaceRoot), true
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
	r := s.tier(group).first(tool, &m)
	return r == nil || r.action != Deny
}
