package rules

import (
	"cmp"
	"strings"
)

// Evaluate decides one tool call for the permission group group (docs/design.md,
// "Deciding a call"; the package doc tells how). The Decision is its strictest path's —
// deny, then a locked require, then require, then allow — or, without a path argument,
// the rules without a path filter's (a file tool is decided on its working directory).
// Path patterns are resolved as the file system is at the call. Safe for concurrent use;
// a call without a path of a tool outside the file classes reads no file and allocates
// nothing. A shell tool's call is decided command by command (EvaluateShell; package
// doc, "Shell commands").
func (s *Set) Evaluate(group string, c Call) Decision {
	if d, _, ok := s.EvaluateShell(group, c); ok {
		return d
	}
	// With a base that cannot be resolved, no path of the call can be.
	bad := strings.IndexByte(c.Cwd, 0) >= 0 || strings.IndexByte(c.WorkingDir, 0) >= 0
	for try := 0; ; try++ {
		d, v := s.evaluate(group, &c, bad)
		// The patterns must have held while the call's paths were resolved: else a
		// swap in between could pair a path with a pattern of another moment.
		if v == nil || s.unchanged(v) {
			return d
		}
		if try == 2 { // the file system keeps changing under the call: a human decides
			if d.Action == Deny {
				return d
			}
			return Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid, Paths: d.Paths}
		}
	}
}

// evaluate is Evaluate on one view of the patterns, which it returns (nil when no path
// needed one).
func (s *Set) evaluate(group string, c *Call, bad bool) (Decision, *view) {
	e := evaluation{s: s, group: group, bad: bad}
	for _, k := range s.pathKeysOf(c.Args) {
		v, ok := c.Args[k]
		if !ok || v == nil || v == "" {
			continue
		}
		switch v := v.(type) {
		case string:
			e.path(c, v)
		case []any:
			for _, el := range v {
				switch el := el.(type) {
				case nil:
				case string:
					if el != "" {
						e.path(c, el)
					}
				default:
					e.invalid(c)
				}
			}
		default:
			e.invalid(c)
		}
	}
	if key := globKey(c.Tool); key != "" {
		e.glob(c, c.Args[key])
	}
	switch {
	case e.n > 0:
		e.best.Paths = e.n
		return e.best, e.v
	case s.IsFSRead(c.Tool) || s.IsFSWrite(c.Tool):
		return s.decidePath(e.tier(), c, "."), e.v // a directory tool without a path searches its cwd
	case bad:
		return s.decide(s.view.Load().tier(group), c, "", PathInvalid), nil
	}
	return s.decide(s.view.Load().tier(group), c, "", NoPath), nil
}

// pathKeysOf returns the keys to read paths from: Options.PathArgs, or none when args
// holds none of them — found with fewer map lookups when args has fewer keys.
func (s *Set) pathKeysOf(args map[string]any) []string {
	if len(args) >= len(s.opt.PathArgs) {
		return s.opt.PathArgs
	}
	for k := range args {
		if _, ok := s.pathKeys[k]; ok {
			return s.opt.PathArgs
		}
	}
	return nil
}

// evaluation gathers the decisions of one call's paths (package doc, step 3).
type evaluation struct {
	s     *Set
	group string
	v     *view // the current view, once a path needs it
	t     *tier // the group's tier in v
	best  Decision
	n     int
	bad   bool // the call's base directory cannot be resolved
}

// tier returns the group's tier in a view whose patterns hold now (Set.current).
func (e *evaluation) tier() *tier {
	if e.t == nil {
		e.v = e.s.current()
		e.t = e.v.tier(e.group)
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
// the call's "path" when that is a string (package doc, step 1).
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
			if dir == "." {
				return // the call's "path" itself, already decided
			}
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

// decidePath decides the call for the path p (package doc, steps 1 and 2).
func (s *Set) decidePath(t *tier, c *Call, p string) Decision {
	if np, ok := s.normalize(c, p); ok {
		return s.decide(t, c, np, PathOK)
	}
	return s.decide(t, c, "", PathInvalid)
}

// decide decides the call for one of its paths (path and st; st NoPath for a call
// without one) in tier t: package doc, step 2.
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
// require that no bypass or fast-path may lift (Decision.Locked), deny (package doc, step 3).
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

// normalize normalises p as an argument of c (package doc, step 1).
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

// Visible reports whether tool is shown to an agent in group (visibility): it
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
