package rules

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A guard is a place a call's path must not contain unless a human agrees
// (docs/design.md, "Protected and guarded places"): a protected path, or what a deny
// rule with a path filter denies. A directory tool (Grep, LS, Glob) given a strict
// ancestor of such a place reads inside it although no rule matches the place itself,
// so Evaluate turns the call's allow into require and marks the Decision
// (Decision.Contains) so that no session bypass or profile fast-path turns it back into
// allow.
type guard struct {
	place string // normalised: relative to the workspace root, or absolute
	name  string // what Decision.Contains shows: place, or the prefix pattern ("data/log*")
	// strict: only a strict ancestor of place contains it (a protected path, a subtree
	// or an exact path); otherwise place itself does too (the directory of a prefix
	// pattern: "data" holds what data/log* matches).
	strict bool
	reason string // ReasonContains + ": " + name, built once at Compile
	// rule: a deny rule's place, whose pattern pat tells what lies in it; reasonIn is
	// ReasonDenied + ": " + name. A protected path has neither.
	rule     bool
	pat      pathPattern
	reasonIn string
	// The deny rule's filters; toolAny and no filters for a protected path.
	toolKind      toolKind
	tool          string
	agent, source string
	// at is, for a guard of another project (guards.projects), the absolute place in
	// that project; name and reason then name it as the call's paths do
	// ("src/p/secrets").
	at string
}

// guards is a tier's guards, split into the relative and the absolute places, each
// sorted by place so that the places under a path are found by binary search.
type guards struct {
	rel, abs []guard
	// projects are, for a tier of the workspace and each other project (Set.projects,
	// in that order), the guards a path holding the project holds (outerGuards).
	projects [][]guard
	// root is the tier's: its relative places are relative to it. project: the tier
	// is another project's, whose places count only when they exist in it.
	root    string
	project bool
}

// newGuards builds the guards of a tier: the protected paths, for every tool, and the
// places of the tier's deny rules with a path filter, for those rules' tools, agents
// and sources. Duplicates are dropped. For a tier of the workspace, ptiers are the
// group's tiers in projects, whose places a path holding a project holds.
func newGuards(rules []crule, protected []string, projects []project, ptiers []*tier) guards {
	var all []guard
	for _, p := range protected {
		all = append(all, guard{place: p, strict: true, toolKind: toolAny})
	}
	for i := range rules {
		if r := &rules[i]; r.action == Deny && r.hasPath {
			all = append(all, ruleGuard(r, r.path))
		}
	}
	var gs guards
	for _, g := range named(all) {
		if strings.HasPrefix(g.place, "/") {
			gs.abs = append(gs.abs, g)
		} else {
			gs.rel = append(gs.rel, g)
		}
	}
	byPlace := func(a, b guard) int { return strings.Compare(a.place, b.place) }
	slices.SortStableFunc(gs.rel, byPlace)
	slices.SortStableFunc(gs.abs, byPlace)
	if ptiers == nil {
		return gs
	}
	gs.projects = make([][]guard, len(projects))
	for i, p := range projects {
		gs.projects[i] = outerGuards(ptiers[i], p)
	}
	return gs
}

// ruleGuard is the guard of the deny rule r whose pattern, resolved, is pat.
func ruleGuard(r *crule, pat pathPattern) guard {
	g := guard{toolKind: r.toolKind, tool: r.tool, agent: r.agent, source: r.source,
		strict: true, place: pat.s, rule: true, pat: pat}
	if pat.kind == pathPrefix {
		g.place, g.name, g.strict = prefixDir(pat.s), pat.s+"*", false
	}
	return g
}

// named returns the distinct guards of all with their names and reasons.
func named(all []guard) []guard {
	var out []guard
	seen := map[guard]bool{}
	for _, g := range all {
		if seen[g] {
			continue
		}
		seen[g] = true
		if g.name == "" {
			g.name = g.place
		}
		g.reason = ReasonContains + ": " + g.name
		if g.rule {
			g.reasonIn = ReasonDenied + ": " + g.name
		} else {
			g.reasonIn = ReasonInProtected + ": " + g.name
		}
		out = append(out, g)
	}
	return out
}

// outerGuards returns the guards a path holding the project p holds, pt being the
// group's tier there: the relative places of pt, resolved in p, and the places its
// deny rules' relative patterns name as written (a name in p may be a link to a place
// outside it), each at its absolute place in p and named as the call's paths name it
// ("src/p/secrets").
func outerGuards(pt *tier, p project) []guard {
	list := slices.Clone(pt.guards.rel)
	var written []guard
	for i := range pt.rules {
		r := &pt.rules[i]
		if r.action == Deny && r.hasPath && !filepath.IsAbs(r.written) {
			written = append(written, ruleGuard(r, parsePath(resolvePattern(r.written, "", nil))))
		}
	}
	list = append(list, named(written)...)
	var out []guard
	seen := map[guard]bool{}
	for _, g := range list {
		g.at = filepath.Join(p.root, g.place)
		if g.name == "." {
			g.name = p.form
		} else {
			g.name = p.form + "/" + g.name
		}
		g.reason = ReasonContains + ": " + g.name
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// foreignPlaces returns the absolute places of the deny rules' guards of gs, a tier
// of the project at root, that no form relative to that project reaches: outside
// root, or under a project nested in it (see tier.foreign).
func (s *Set) foreignPlaces(gs *guards, root string) []string {
	var out []string
	for _, list := range [2][]guard{gs.rel, gs.abs} {
		for _, g := range list {
			at := g.place
			if !filepath.IsAbs(at) {
				at = filepath.Join(root, at)
			}
			if !g.rule || slices.Contains(out, at) {
				continue
			}
			if f, ok := s.projectRel(at); !Under(at, root) ||
				ok && s.projects[f.proj].root != root {
				out = append(out, at)
			}
		}
	}
	return out
}

// outward decides the form f of a call's path, once more, in the tier of each other
// project that has a foreign place (tier.foreign) the path lies in or holds, relative
// to that project, and returns the strictest of those decisions and d. t is the
// workspace's tier. Allocates only when some project has a foreign place.
func (s *Set) outward(t *tier, c *Call, f form, d Decision,
	decide func(pt *tier, path string) Decision) Decision {
	if !t.outward {
		return d
	}
	abs := f.path
	switch {
	case f.proj >= 0:
		abs = filepath.Join(s.projects[f.proj].root, f.path)
	case !filepath.IsAbs(abs):
		abs = filepath.Join(s.opt.WorkspaceRoot, abs)
	}
	for i, pt := range t.projects {
		if i == f.proj || !slices.ContainsFunc(pt.foreign, func(p string) bool {
			return Under(abs, p) || Under(p, abs)
		}) {
			continue
		}
		if pd := decide(pt, s.relIn(abs, i+1)); severity(pd) > severity(d) {
			d = pd
		}
	}
	return d
}

// prefixDir is the directory that holds every path a prefix pattern matches: "data"
// for data/log, "." for log, "/" for /x.
func prefixDir(prefix string) string {
	i := strings.LastIndexByte(prefix, '/')
	switch {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	}
	return prefix[:i]
}

// containing returns the first guard of gs, in order of place, that applies to c and
// that the normalised path contains, or nil. file: c's tool is a file tool, so a
// guard applies only to the tools of its tool pattern. own: path is relative to the
// workspace root or absolute, not a form relative to another project (appendForms);
// then a guard of another project that path holds counts too.
func (s *Set) containing(gs *guards, c *Call, path string, file, own bool) *guard {
	if path == "" {
		return nil
	}
	sc := guardScan{s: s, c: c, gs: gs, any: !file}
	var g *guard
	if path[0] != '/' {
		g = sc.scan(gs.rel, ".", path)
	} else if g = sc.scan(gs.abs, "/", path); g == nil {
		// An absolute path above the workspace root holds every relative place.
		if root := gs.root; root != "" && len(gs.rel) > 0 && Under(root, path) {
			g = sc.scan(gs.rel, ".", ".")
		}
	}
	if g == nil && own {
		g = sc.projects(gs, path)
	}
	return g
}

// projects returns the first guard of another project that path holds, or nil: a path
// that is a strict ancestor of a project's root holds every place in it, although
// none of its forms lies in the project ("src" holds src/p/secrets when src/p is a
// project with a secrets/ it denies).
func (sc *guardScan) projects(gs *guards, path string) *guard {
	for i, p := range sc.s.projects {
		if i >= len(gs.projects) || path == p.form || !Under(p.form, path) {
			continue
		}
		for j := range gs.projects[i] {
			g := &gs.projects[i][j]
			if sc.s.applies(g, sc.c, sc.any) && exists(g.at) {
				return g
			}
		}
	}
	return nil
}

// inDenied returns a deny rule's guard of gs whose filters other than the tool pattern
// apply to c and whose pattern matches the normalised path, or nil: what a tool
// outside the file classes may not reach without a human.
func (s *Set) inDenied(gs *guards, c *Call, path string) *guard {
	return s.inGuards(gs, c, path, false, true)
}

// inGuard is inDenied for the strings of a call's arguments: a protected place counts
// as well, and a guard of gs whose place the normalised path lies in is returned.
func (s *Set) inGuard(gs *guards, c *Call, path string) *guard {
	return s.inGuards(gs, c, path, true, true)
}

// inGuards returns a guard of gs whose place the normalised path lies in, or nil (for
// an empty path too): a deny rule's whose pattern matches path, or, when protected, a
// protected path's; its agent and source filters apply to c, and its tool pattern
// unless anyTool.
func (s *Set) inGuards(gs *guards, c *Call, path string, protected, anyTool bool) *guard {
	list, top := gs.rel, "."
	if path != "" && path[0] == '/' {
		list, top = gs.abs, "/"
	}
	if path == "" || len(list) == 0 {
		return nil
	}
	for dir := path; ; dir = parentDir(dir, top) {
		i, _ := slices.BinarySearchFunc(list, dir, func(g guard, p string) int {
			return strings.Compare(g.place, p)
		})
		for ; i < len(list) && list[i].place == dir; i++ {
			g := &list[i]
			if (g.rule && g.pat.match(path) || protected && !g.rule) && s.applies(g, c, anyTool) {
				return g
			}
		}
		if dir == top {
			return nil
		}
	}
}

// parentDir is the directory that holds the normalised path p: top ("." or "/") for a
// path of one component.
func parentDir(p, top string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return top
	}
	return p[:i]
}

// guardScan looks for the guards of gs a path contains (see containing).
type guardScan struct {
	s   *Set
	c   *Call
	gs  *guards
	any bool
}

// scan returns the first guard of list (sorted by place, every place relative when
// top is "." and absolute when top is "/") that applies to the call and that path
// contains: a place strictly under path, or equal to it when the guard is not strict.
func (sc *guardScan) scan(list []guard, top string, path string) *guard {
	s, c, gs := sc.s, sc.c, sc.gs
	if path == top { // every place is under the top
		for i := range list {
			if g := &list[i]; !(g.strict && g.place == top) && s.holds(gs, g, c, sc.any) {
				return g
			}
		}
		return nil
	}
	i, _ := slices.BinarySearchFunc(list, path, func(g guard, p string) int {
		return strings.Compare(g.place, p)
	})
	for ; i < len(list) && list[i].place == path; i++ {
		if g := &list[i]; !g.strict && s.holds(gs, g, c, sc.any) {
			return g
		}
	}
	i, _ = slices.BinarySearchFunc(list, path, func(g guard, p string) int {
		return cmpDirPrefix(g.place, p)
	})
	for ; i < len(list) && underStrict(list[i].place, path); i++ {
		if g := &list[i]; s.holds(gs, g, c, sc.any) {
			return g
		}
	}
	return nil
}

// cmpDirPrefix compares s with dir+"/" without building that string.
func cmpDirPrefix(s, dir string) int {
	n := min(len(s), len(dir))
	if c := strings.Compare(s[:n], dir[:n]); c != 0 {
		return c
	}
	if len(s) <= len(dir) {
		return -1
	}
	return cmp.Compare(s[len(dir)], '/')
}

// underStrict reports whether place lies below dir/ (neither being a top "." or "/").
func underStrict(place, dir string) bool {
	return len(place) > len(dir) && place[len(dir)] == '/' && place[:len(dir)] == dir
}

// holds reports whether guard g of gs applies to call c and its place exists on disk
// now: a folder can only hide from a directory tool what is in it, so a guarded place
// that does not exist (no secrets/ in this workspace) guards nothing until it is
// created. A relative place of the workspace's tier counts when it exists in the
// workspace or in another project, one of a project's tier when it exists in that
// project. Only calls with a path get here, so the lstat adds to the ones normalising
// took. anyTool: the guard's tool pattern is not looked at.
func (s *Set) holds(gs *guards, g *guard, c *Call, anyTool bool) bool {
	if !s.applies(g, c, anyTool) {
		return false
	}
	if filepath.IsAbs(g.place) {
		return exists(g.place)
	}
	if exists(filepath.Join(gs.root, g.place)) {
		return true
	}
	if gs.project {
		return false
	}
	for _, p := range s.projects {
		if exists(filepath.Join(p.root, g.place)) {
			return true
		}
	}
	return false
}

// applies reports whether guard g applies to call c: its agent and source filters,
// and its tool pattern unless anyTool.
func (s *Set) applies(g *guard, c *Call, anyTool bool) bool {
	return g.filtersApply(c) && (anyTool || s.toolMatches(g.toolKind, g.tool, c.Tool))
}

// exists reports whether the absolute path names an entry, a dangling symlink
// included.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// filtersApply reports whether the agent and source filters of guard g, when set,
// equal call c's.
func (g *guard) filtersApply(c *Call) bool {
	return (g.agent == "" || g.agent == c.AgentID) && (g.source == "" || g.source == c.Source)
}
