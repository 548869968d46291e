package rules

import (
	"slices"
	"strings"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// tier is the candidates of one permission group in evaluation order — the group's
// rules, then those of DefaultGroup, so that one search covers both
// — indexed so that a search reads only the rules that can match:
//   - noPath holds the rules without a path filter, by tool name; a call without a path
//     (and Visible) searches only these, so no path rule can slow it;
//   - the rules with a path filter are split by the first component of their pattern
//     (byDir: "secrets" for secrets/*, "/etc" for /etc/passwd), or anyDir when the
//     pattern has none ("log*", "./*"); a call with a path searches noPath, the byDir
//     entry of its path's first component, and anyDir;
//   - a rule with a command pattern whose texts all start with one program word
//     (shell.Pattern.Program: "git" for "git status *") is listed by tool and that
//     word, apart from the other rules of its tool; a command of a script searches the
//     lists of its forms' first words, so a command is compared with the patterns of
//     its own programs only.
type tier struct {
	rules  []crule
	noPath index
	byDir  map[string]*index
	anyDir index
	// guards are the places a call's path must not contain without a human: the
	// protected paths and the places of the tier's deny rules with a path filter.
	guards guards
	// protected are Options.Protected, normalised.
	protected []string
	// needs are Options.NeedsHuman, normalised.
	needs []string
	// root is the directory the tier's relative patterns are resolved in: the
	// workspace root, or another project's. projects are, for a tier of the
	// workspace, the same group's tier in each other project (Set.projects, in that
	// order), which decides a form relative to that project; nil in a project's tier.
	root     string
	projects []*tier
	// foreign are, for a project's tier, the absolute places its deny rules deny that
	// no form relative to the project reaches: outside it, or in a project nested in
	// it (a link out of the project). outward: some tier of projects has foreign.
	foreign []string
	outward bool
	// probes keeps writableConfig's answers, which depend on the rules only.
	probes answers[probeKey, bool]
	// trees keeps writableTree's answers; targets writableTarget's, configs
	// writableConfig's.
	trees   answers[probeKey, string]
	targets answers[targetKey, derivedAnswer]
	configs answers[configKey, derivedAnswer]
}

// index lists, for each way a tool name can match, the positions in tier.rules of the
// rules that match it that way, ascending.
type index struct {
	exact      map[string][]int32 // exact names, and @fs classes expanded to their names
	prefix     map[string][]int32 // prefix patterns, by prefix
	prefixLens []int              // the distinct lengths of prefix's keys, ascending
	star       []int32            // "*" rules
	// program holds the exact-name rules with a command pattern of one program word.
	program map[programKey][]int32
}

// programKey is a tool name and the first word of a command text (shell.FirstWord).
type programKey struct{ tool, word string }

// newTier indexes rules, which are in evaluation order and whose path patterns are
// resolved in root; protected are the protected paths normalised there. projects are
// the group's tiers in the other projects, for a tier of the workspace (see tier).
func (s *Set) newTier(rules []crule, protected []string, root string, projects []*tier) *tier {
	t := &tier{rules: rules, byDir: map[string]*index{}, protected: protected, root: root,
		projects: projects}
	t.guards = newGuards(rules, protected, s.projects, projects)
	t.guards.root, t.guards.project = root, root != s.opt.WorkspaceRoot
	if t.guards.project {
		t.foreign = s.foreignPlaces(&t.guards, root)
	}
	for _, pt := range projects {
		t.outward = t.outward || len(pt.foreign) > 0
	}
	for i := range rules {
		r := &rules[i]
		ix := &t.noPath
		if r.hasPath {
			ix = &t.anyDir
			if dir, ok := r.path.firstDir(); ok {
				if ix = t.byDir[dir]; ix == nil {
					ix = &index{}
					t.byDir[dir] = ix
				}
			}
		}
		if word, ok := r.program(); ok {
			if ix.program == nil {
				ix.program = map[programKey][]int32{}
			}
			k := programKey{r.tool, word}
			ix.program[k] = append(ix.program[k], int32(i))
			continue
		}
		s.add(ix, r.toolKind, r.tool, int32(i))
	}
	t.noPath.finish()
	t.anyDir.finish()
	for _, ix := range t.byDir {
		ix.finish()
	}
	return t
}

// add puts rule i, of the given tool pattern, in the index. Rules are added in
// evaluation order, so every list stays ascending.
func (s *Set) add(ix *index, kind toolKind, name string, i int32) {
	if ix.exact == nil {
		ix.exact, ix.prefix = map[string][]int32{}, map[string][]int32{}
	}
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
			for _, n := range s.reads {
				addExact(n)
			}
		}
		if kind != toolFSRead {
			for _, n := range s.writes {
				addExact(n)
			}
		}
	}
}

// at returns the tier a form relative to the project s.projects[proj] is decided in,
// or t for a form of the workspace (proj < 0).
func (t *tier) at(proj int) *tier {
	if proj < 0 {
		return t
	}
	return t.projects[proj]
}

func (ix *index) finish() {
	for p := range ix.prefix {
		if !slices.Contains(ix.prefixLens, len(p)) {
			ix.prefixLens = append(ix.prefixLens, len(p))
		}
	}
	slices.Sort(ix.prefixLens)
}

// firstDir returns the first component of a normalised path: "secrets" of
// "secrets/x", "/etc" of "/etc/passwd", "/" of "/".
func firstDir(p string) string {
	start := 0
	if strings.HasPrefix(p, "/") {
		start = 1
	}
	if i := strings.IndexByte(p[start:], '/'); i >= 0 {
		return p[:start+i]
	}
	return p
}

// firstDir returns the first component every path the pattern matches starts with, or
// false when they need not share one (a prefix within the first component, or the
// subtree of the root "." or of "/").
func (p pathPattern) firstDir() (string, bool) {
	switch p.kind {
	case pathSubtree:
		if p.s == "." || p.s == "/" {
			return "", false
		}
	case pathPrefix:
		start := 0
		if strings.HasPrefix(p.s, "/") {
			start = 1
		}
		if strings.IndexByte(p.s[start:], '/') < 0 {
			return "", false
		}
	}
	return firstDir(p.s), true
}

// matcher holds what a rule's filters are compared with.
type matcher struct {
	agent, source string
	path          string
	pathState     PathState
	// visibility: an empty agent or source names no one, so rules filtered on one are
	// not excluded by it (visibility).
	visibility bool
	// cmd is the shell command being decided; rules with a command pattern match
	// nothing without one. allowText is its shell.Command.AllowText.
	cmd       *shell.Command
	allowText string
	allowable bool
	// host is the call's URL host (urlHost) when hostOK; rules with a host pattern
	// match nothing without one.
	host   string
	hostOK bool
}

func (m *matcher) match(r *crule) bool {
	if r.agent != "" && r.agent != m.agent && !(m.visibility && m.agent == "") {
		return false
	}
	if r.source != "" && r.source != m.source && !(m.visibility && m.source == "") {
		return false
	}
	if r.cmd != nil && !m.command(r) {
		return false
	}
	if r.host != "" && !(m.hostOK && hostMatches(r.host, m.host)) {
		return false
	}
	return !r.hasPath || m.pathState == PathOK && r.path.match(m.path)
}

// first returns the first rule of the tier, in evaluation order, that matches tool and
// m, or nil. It is the minimum over the lists that can hold the call (see tier) of each
// list's first match; each list is scanned only up to the best match found so far. It
// allocates nothing.
func (t *tier) first(tool string, m *matcher) *crule {
	best := t.search(&t.noPath, tool, int32(len(t.rules)), m)
	if m.pathState == PathOK {
		if ix := t.byDir[firstDir(m.path)]; ix != nil {
			best = t.search(ix, tool, best, m)
		}
		best = t.search(&t.anyDir, tool, best, m)
	}
	if int(best) == len(t.rules) {
		return nil
	}
	return &t.rules[best]
}

// search returns the position of the first rule of ix before best that matches tool
// and m, or best.
func (t *tier) search(ix *index, tool string, best int32, m *matcher) int32 {
	best = t.scan(ix.exact[tool], best, m)
	if m.cmd != nil && len(ix.program) > 0 {
		forms := m.cmd.Forms
		for i := range forms {
			w := shell.FirstWord(forms[i].Text)
			if !seenWord(forms[:i], w) {
				best = t.scan(ix.program[programKey{tool, w}], best, m)
			}
		}
	}
	for _, n := range ix.prefixLens {
		if n > len(tool) {
			break
		}
		if l, ok := ix.prefix[tool[:n]]; ok {
			best = t.scan(l, best, m)
		}
	}
	return t.scan(ix.star, best, m)
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

// seenWord reports whether one of forms has the first word w.
func seenWord(forms []shell.Form, w string) bool {
	for i := range forms {
		if shell.FirstWord(forms[i].Text) == w {
			return true
		}
	}
	return false
}

// program returns the program word every command r's pattern matches starts with,
// and false when r has no command pattern, one of several program words, or a tool
// pattern that is not an exact name.
func (r *crule) program() (string, bool) {
	if r.cmd == nil || r.toolKind != toolExact {
		return "", false
	}
	return r.cmd.Program()
}
