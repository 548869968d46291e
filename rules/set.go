package rules

import (
	"cmp"
	"slices"
	"strings"
)

// Set is an immutable, compiled snapshot of every permission group and rule, built by
// Compile. Evaluation reads no store and takes no lock: a Set is safe for concurrent
// use by any number of goroutines. To change the rules, compile a new Set.
type Set struct {
	opt       Options
	fsRead    map[string]struct{}
	fsWrite   map[string]struct{}
	protected []string         // Options.Protected, normalised
	known     map[string]bool  // group ids, DefaultGroup included
	groups    map[string]*tier // the rules of each group other than DefaultGroup
	def       *tier            // the rules of DefaultGroup
}

// tier is the rules of one group in evaluation order, with two indexes by tool name:
// one over every rule (for calls with a path) and one over the rules without a path
// filter (for calls without a path, and for visibility), which no path rule can slow.
type tier struct {
	rules  []crule
	all    index
	noPath index
}

// index lists, for each way a tool name can match, the positions in tier.rules of the
// rules that match it that way, ascending.
type index struct {
	exact      map[string][]int32 // exact names, and @fs classes expanded to their names
	prefix     map[string][]int32 // prefix patterns, by prefix
	prefixLens []int              // the distinct lengths of prefix's keys, ascending
	star       []int32            // "*" rules
}

// crule is a compiled rule: what matching needs beyond the tool name.
type crule struct {
	id      uint64
	agent   string
	source  string
	note    string
	action  Action
	hasPath bool
	path    pathPattern
}

// Compile builds the immutable Set for the given groups and rules under opt.
//
// opt's zero fields get their defaults (DefaultFSRead, DefaultFSWrite,
// DefaultPathArgs); opt.WorkspaceRoot is cleaned, and every opt.Protected path is
// normalised as Normalize would (a protected directory reached through a symlink is
// still protected). A rule's path pattern is its ResolvedPathPattern, or when that is
// empty its PathPattern resolved now with ResolvePattern (SPEC §12.14). These are the
// only file system reads (os.Lstat, os.Readlink); Compile writes nothing.
//
// DefaultGroup always exists. Rules are expected to be valid: a rule Validate refuses,
// or one of a group not in groups (other than DefaultGroup), is left out. The slices
// passed in are not kept.
func Compile(groups []Group, rs []Rule, opt Options) *Set {
	opt.WorkspaceRoot = cleanRoot(opt.WorkspaceRoot)
	opt.FSRead = orDefault(opt.FSRead, DefaultFSRead)
	opt.FSWrite = orDefault(opt.FSWrite, DefaultFSWrite)
	opt.PathArgs = orDefault(opt.PathArgs, DefaultPathArgs)
	opt.Protected = slices.Clone(opt.Protected)
	s := &Set{
		opt:     opt,
		fsRead:  nameSet(opt.FSRead),
		fsWrite: nameSet(opt.FSWrite),
		known:   map[string]bool{DefaultGroup: true},
		groups:  map[string]*tier{},
	}
	for _, p := range opt.Protected {
		s.protected = append(s.protected, normOrClean(p, opt.WorkspaceRoot))
	}
	for _, g := range groups {
		s.known[g.ID] = true
	}
	byGroup := map[string][]Rule{}
	for _, r := range rs {
		if s.known[r.GroupID] && Validate(r) == nil {
			byGroup[r.GroupID] = append(byGroup[r.GroupID], r)
		}
	}
	s.def = s.compileTier(byGroup[DefaultGroup])
	for id, tr := range byGroup {
		if id != DefaultGroup {
			s.groups[id] = s.compileTier(tr)
		}
	}
	return s
}

// orDefault returns a copy of list, or of def when list is nil.
func orDefault(list, def []string) []string {
	if list == nil {
		return slices.Clone(def)
	}
	return slices.Clone(list)
}

func nameSet(names []string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

// compileTier sorts one group's rules into evaluation order — priority, then id (SPEC
// §4.1) — and indexes them by tool name.
func (s *Set) compileTier(rs []Rule) *tier {
	slices.SortStableFunc(rs, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.ID, b.ID))
	})
	t := &tier{rules: make([]crule, len(rs))}
	t.all.init()
	t.noPath.init()
	for i, r := range rs {
		cr := crule{id: r.ID, agent: r.AgentID, source: r.Source, note: r.Note, action: r.Action}
		if r.PathPattern != "" {
			pat := r.ResolvedPathPattern
			if pat == "" {
				pat = ResolvePattern(r.PathPattern, s.opt.WorkspaceRoot)
			}
			cr.hasPath, cr.path = true, parsePath(pat)
		}
		t.rules[i] = cr
		kind, name := parseTool(r.ToolPattern)
		s.add(&t.all, kind, name, int32(i))
		if !cr.hasPath {
			s.add(&t.noPath, kind, name, int32(i))
		}
	}
	t.all.finish()
	t.noPath.finish()
	return t
}

func (ix *index) init() {
	ix.exact = map[string][]int32{}
	ix.prefix = map[string][]int32{}
}

// add puts rule i, of the given tool pattern, in the index. Rules are added in
// evaluation order, so every list stays ascending.
func (s *Set) add(ix *index, kind toolKind, name string, i int32) {
	addExact := func(n string) {
		l := ix.exact[n]
		if len(l) == 0 || l[len(l)-1] != i { // @fs_any names a tool of both lists once
			ix.exact[n] = append(l, i)
		}
	}
	switch kind {
	case toolAny:
		ix.star = append(ix.star, i)
	case toolExact:
		addExact(name)
	case toolPrefix:
		ix.prefix[name] = append(ix.prefix[name], i)
	case toolFSRead, toolFSWrite, toolFSAny:
		if kind != toolFSWrite {
			for _, n := range s.opt.FSRead {
				addExact(n)
			}
		}
		if kind != toolFSRead {
			for _, n := range s.opt.FSWrite {
				addExact(n)
			}
		}
	}
}

func (ix *index) finish() {
	for p := range ix.prefix {
		if !slices.Contains(ix.prefixLens, len(p)) {
			ix.prefixLens = append(ix.prefixLens, len(p))
		}
	}
	slices.Sort(ix.prefixLens)
}

// matcher holds what a rule's filters are compared with (SPEC §4.2).
type matcher struct {
	agent, source string
	path          string
	pathState     PathState
	// visibility: an empty agent or source names no one, so rules filtered on one are
	// not excluded by it (SPEC §4, visibility).
	visibility bool
}

func (m *matcher) match(r *crule) bool {
	if r.agent != "" && r.agent != m.agent && !(m.visibility && m.agent == "") {
		return false
	}
	if r.source != "" && r.source != m.source && !(m.visibility && m.source == "") {
		return false
	}
	return !r.hasPath || m.pathState == PathOK && r.path.match(m.path)
}

// first returns the first rule of the tier, in evaluation order, that matches tool and
// m, or nil. It is the minimum over the lists that can hold the tool (exact name,
// each matching prefix, "*") of each list's first match; each list is scanned only up
// to the best match found so far. It allocates nothing.
func (t *tier) first(tool string, m *matcher) *crule {
	ix := &t.noPath
	if m.pathState == PathOK {
		ix = &t.all
	}
	best := t.scan(ix.exact[tool], int32(len(t.rules)), m)
	for _, n := range ix.prefixLens {
		if n > len(tool) {
			break
		}
		if l, ok := ix.prefix[tool[:n]]; ok {
			best = t.scan(l, best, m)
		}
	}
	best = t.scan(ix.star, best, m)
	if int(best) == len(t.rules) {
		return nil
	}
	return &t.rules[best]
}

func (t *tier) scan(list []int32, best int32, m *matcher) int32 {
	for _, i := range list {
		if i >= best {
			break
		}
		if m.match(&t.rules[i]) {
			return i
		}
	}
	return best
}

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

// lookup returns the first rule matching tool and m in group's tier, then in the
// default tier (SPEC §4.1, §12.15), or nil.
func (s *Set) lookup(group, tool string, m *matcher) *crule {
	if group != DefaultGroup {
		if t := s.groups[group]; t != nil {
			if r := t.first(tool, m); r != nil {
				return r
			}
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

// HasGroup reports whether id is a permission group of the Set: DefaultGroup, or one
// of the groups given to Compile.
func (s *Set) HasGroup(id string) bool { return s.known[id] }

// MatchTool reports whether the tool_pattern pattern matches the tool name (SPEC §4.3):
// "*" matches every name, "prefix*" the names that start with prefix, @fs_read,
// @fs_write and @fs_any the names of this Set's file-tool lists, anything else only
// itself. A pattern Validate refuses matches as its nearest reading (an unknown class
// matches nothing). It allocates nothing; the gate uses it for tools.categories.
func (s *Set) MatchTool(pattern, tool string) bool {
	kind, name := parseTool(pattern)
	switch kind {
	case toolAny:
		return true
	case toolExact:
		return name == tool
	case toolPrefix:
		return strings.HasPrefix(tool, name)
	case toolFSRead:
		return s.IsFSRead(tool)
	case toolFSWrite:
		return s.IsFSWrite(tool)
	case toolFSAny:
		return s.IsFSRead(tool) || s.IsFSWrite(tool)
	}
	return false
}

// IsFSRead reports whether tool is a file-read tool (@fs_read, Options.FSRead).
func (s *Set) IsFSRead(tool string) bool { _, ok := s.fsRead[tool]; return ok }

// IsFSWrite reports whether tool is a file-write tool (@fs_write, Options.FSWrite).
func (s *Set) IsFSWrite(tool string) bool { _, ok := s.fsWrite[tool]; return ok }

// Options returns the Set's options with their defaults filled in and WorkspaceRoot
// cleaned; Protected is as given, not normalised. The slices are copies.
func (s *Set) Options() Options {
	o := s.opt
	o.FSRead = slices.Clone(o.FSRead)
	o.FSWrite = slices.Clone(o.FSWrite)
	o.PathArgs = slices.Clone(o.PathArgs)
	o.Protected = slices.Clone(o.Protected)
	return o
}
