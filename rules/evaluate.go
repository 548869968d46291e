package rules

import (
	"cmp"
	"strings"
)

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
	// With a base that cannot be resolved, no path of the call can be.
	bad := strings.IndexByte(c.Cwd, 0) >= 0 || strings.IndexByte(c.WorkingDir, 0) >= 0
	e := evaluation{s: s, group: group, bad: bad}
	for _, k := range s.opt.PathArgs {
		v, ok := c.Args[k]
		if !ok || v == nil || v == "" {
			continue
		}
		switch v := v.(type) {
		case string:
			e.path(&c, v)
		case []any:
			for _, el := range v {
				switch el := el.(type) {
				case nil:
				case string:
					if el != "" {
						e.path(&c, el)
					}
				default:
					e.invalid(&c)
				}
			}
		default:
			e.invalid(&c)
		}
	}
	if key := globKey(c.Tool); key != "" {
		e.glob(&c, c.Args[key])
	}
	switch {
	case e.n > 0:
		e.best.Paths = e.n
		return e.best
	case s.IsFSRead(c.Tool) || s.IsFSWrite(c.Tool):
		return s.decidePath(e.tier(), &c, ".") // a directory tool without a path searches its cwd
	case bad:
		return s.decide(s.view.Load().tier(group), &c, "", PathInvalid)
	}
	return s.decide(s.view.Load().tier(group), &c, "", NoPath)
}

// evaluation gathers the decisions of one call's paths (see Evaluate, step 3).
type evaluation struct {
	s     *Set
	group string
	t     *tier // the group's tier in the current view, once a path needs it
	best  Decision
	n     int
	bad   bool // the call's base directory cannot be resolved
}

// tier returns the group's tier in a view whose patterns hold now (Set.current).
func (e *evaluation) tier() *tier {
	if e.t == nil {
		e.t = e.s.current().tier(e.group)
	}
	return e.t
}

func (e *evaluation) add(d Decision) {
	if e.n == 0 || severity(d) > severity(e.best) {
		e.best = d
	}
	e.n++
}

func (e *evaluation) path(c *Call, p string) {
	if e.bad {
		e.invalid(c)
		return
	}
	e.add(e.s.decidePath(e.tier(), c, p))
}

func (e *evaluation) invalid(c *Call) { e.add(e.s.decide(e.tier(), c, "", PathInvalid)) }

// glob adds the literal directory of a Glob pattern or Grep glob v, taken relative to
// the call's "path" when that is a string (see Evaluate, step 1).
func (e *evaluation) glob(c *Call, v any) {
	switch v := v.(type) {
	case nil:
		return
	case string:
		if v == "" {
			return
		}
		dir := globDir(v)
		if base, ok := c.Args["path"].(string); ok && base != "" && dir[0] != '/' {
			dir = base + "/" + dir
		}
		e.path(c, dir)
	default:
		e.invalid(c)
	}
}

// globKey is the argument of tool that holds a glob whose literal directory is a path
// of the call: Glob's "pattern", Grep's "glob"; "" for other tools.
func globKey(tool string) string {
	switch tool {
	case "Glob":
		return "pattern"
	case "Grep":
		return "glob"
	}
	return ""
}

// globDir is the literal directory of a glob: up to the last "/" before the first
// wildcard or escape ("../secrets" of "../secrets/*", "." of "**/*.go", "/" of "/*"),
// or the whole glob when it has none.
func globDir(g string) string {
	i := strings.IndexAny(g, "*?[{\\")
	if i < 0 {
		return g
	}
	j := strings.LastIndexByte(g[:i], '/')
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return g[:j]
}

// decidePath decides the call for the path p (see Evaluate, steps 1 and 2).
func (s *Set) decidePath(t *tier, c *Call, p string) Decision {
	if np, ok := s.normalize(c, p); ok {
		return s.decide(t, c, np, PathOK)
	}
	return s.decide(t, c, "", PathInvalid)
}

// decide decides the call for one of its paths (path and st; st NoPath for a call
// without one) in tier t: see Evaluate, step 2.
func (s *Set) decide(t *tier, c *Call, path string, st PathState) Decision {
	if st == PathOK && t.isProtected(path) {
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
	file := s.IsFSRead(c.Tool) || s.IsFSWrite(c.Tool)
	g := (*guard)(nil)
	reason := ""
	if !file {
		if g = s.inDenied(&t.guards, c, path); g != nil {
			reason = g.reasonIn
		}
	}
	if g == nil {
		if g = s.containing(&t.guards, c, path, file); g != nil {
			reason = g.reason
		}
	}
	if g != nil {
		if d.Action == Allow {
			d.RuleID, d.Note = 0, ""
		}
		d.Action, d.Reason, d.Contains = Require, reason, g.name
	}
	return d
}

// severity orders decisions from the least to the most restrictive: allow, require,
// require that no bypass or fast-path may lift (Decision.Locked), deny (see Evaluate, step 3).
func severity(d Decision) int {
	switch {
	case d.Action == Deny:
		return 3
	case d.Contains != "" || d.PathState == PathInvalid:
		return 2
	case d.Action == Require:
		return 1
	}
	return 0
}

// normalize normalises p as an argument of c (see Evaluate, step 1).
func (s *Set) normalize(c *Call, p string) (string, bool) {
	abs, problem := resolveAbs(p, cmp.Or(c.Cwd, c.WorkingDir), s.opt.WorkspaceRoot, nil)
	if problem != "" {
		return "", false
	}
	return relTo(abs, s.opt.WorkspaceRoot), true
}

func (t *tier) isProtected(path string) bool {
	for _, p := range t.protected {
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
	r := s.view.Load().tier(group).first(tool, &m)
	return r == nil || r.action != Deny
}
