package rules

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A guard is a place a call's path must not contain unless a human agrees (an extension
// of SPEC §4 and §12.25): a protected path, or what a deny rule with a path filter
// denies. A directory tool (Grep, LS, Glob) given a strict ancestor of such a place
// reads inside it although no rule matches the place itself, so Evaluate turns the
// call's allow into require and marks the Decision (Decision.Contains) so that no
// session bypass or profile fast-path turns it back into allow.
type guard struct {
	place string // normalised: relative to the workspace root, or absolute
	name  string // what Decision.Contains shows: place, or the prefix pattern ("data/log*")
	// strict: only a strict ancestor of place contains it (a protected path, a subtree
	// or an exact path); otherwise place itself does too (the directory of a prefix
	// pattern: "data" holds what data/log* matches).
	strict bool
	reason string // ReasonContains + ": " + place, built once at Compile
	// The deny rule's filters; toolAny and no filters for a protected path.
	toolKind      toolKind
	tool          string
	agent, source string
}

// guards is a tier's guards, split into the relative and the absolute places, each
// sorted by place so that the places under a path are found by binary search.
type guards struct {
	rel, abs []guard
}

// newGuards builds the guards of a tier: the protected paths, for every tool, and the
// places of the tier's deny rules with a path filter, for those rules' tools, agents
// and sources. Duplicates are dropped.
func (s *Set) newGuards(rules []crule) guards {
	var all []guard
	for _, p := range s.protected {
		all = append(all, guard{place: p, strict: true, toolKind: toolAny})
	}
	for i := range rules {
		r := &rules[i]
		if r.action != Deny || !r.hasPath {
			continue
		}
		g := guard{toolKind: r.toolKind, tool: r.tool, agent: r.agent, source: r.source, strict: true, place: r.path.s}
		if r.path.kind == pathPrefix {
			g.place, g.name, g.strict = prefixDir(r.path.s), r.path.s+"*", false
		}
		all = append(all, g)
	}
	var gs guards
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
		if strings.HasPrefix(g.place, "/") {
			gs.abs = append(gs.abs, g)
		} else {
			gs.rel = append(gs.rel, g)
		}
	}
	byPlace := func(a, b guard) int { return strings.Compare(a.place, b.place) }
	slices.SortStableFunc(gs.rel, byPlace)
	slices.SortStableFunc(gs.abs, byPlace)
	return gs
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
// that the normalised path contains, or nil.
func (s *Set) containing(gs *guards, c *Call, path string) *guard {
	if path == "" {
		return nil
	}
	if path[0] != '/' {
		return s.scanGuards(gs.rel, ".", c, path)
	}
	if g := s.scanGuards(gs.abs, "/", c, path); g != nil {
		return g
	}
	// An absolute path above the workspace root holds every relative place.
	if root := s.opt.WorkspaceRoot; root != "" && len(gs.rel) > 0 && Under(root, path) {
		return s.scanGuards(gs.rel, ".", c, ".")
	}
	return nil
}

// scanGuards returns the first guard of list (sorted by place, every place relative
// when top is "." and absolute when top is "/") that applies to c and that path
// contains: a place strictly under path, or equal to it when the guard is not strict.
func (s *Set) scanGuards(list []guard, top string, c *Call, path string) *guard {
	if path == top { // every place is under the top
		for i := range list {
			if g := &list[i]; !(g.strict && g.place == top) && s.holds(g, c) {
				return g
			}
		}
		return nil
	}
	i, _ := slices.BinarySearchFunc(list, path, func(g guard, p string) int { return strings.Compare(g.place, p) })
	for ; i < len(list) && list[i].place == path; i++ {
		if g := &list[i]; !g.strict && s.holds(g, c) {
			return g
		}
	}
	i, _ = slices.BinarySearchFunc(list, path, func(g guard, p string) int { return cmpDirPrefix(g.place, p) })
	for ; i < len(list) && underStrict(list[i].place, path); i++ {
		if g := &list[i]; s.holds(g, c) {
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

// holds reports whether guard g applies to call c and its place exists on disk now: a
// folder can only hide from a directory tool what is in it, so a guarded place that
// does not exist (no secrets/ in this workspace) guards nothing until it is created.
// Only calls with a path get here, so the lstat adds to the ones normalising took.
func (s *Set) holds(g *guard, c *Call) bool {
	if !s.applies(g, c) {
		return false
	}
	place := g.place
	if !filepath.IsAbs(place) {
		place = filepath.Join(s.opt.WorkspaceRoot, place)
	}
	_, err := os.Lstat(place)
	return err == nil
}

// applies reports whether guard g holds for call c: its tool pattern matches c's tool
// and its agent and source filters, when set, equal c's (SPEC §4.2).
func (s *Set) applies(g *guard, c *Call) bool {
	return (g.agent == "" || g.agent == c.AgentID) && (g.source == "" || g.source == c.Source) &&
		s.toolMatches(g.toolKind, g.tool, c.Tool)
}
