package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// Set is a compiled snapshot of every permission group and rule, built by Compile. Its
// rules do not change; their path patterns are resolved again when the file system
// under them changes (docs/design.md, "Path arguments"). Evaluation reads no store and
// takes a lock only to resolve patterns again: a Set is safe for concurrent use by any
// number of goroutines. To change the rules, compile a new Set.
type Set struct {
	opt       Options
	reads     []string            // @fs_read: Options.FSRead and the MCP filesystem tools
	writes    []string            // likewise for @fs_write
	tools     map[string]toolInfo // the names of the file, shell and glob tools
	pathKeys  map[string]struct{} // Options.PathArgs
	protected []string            // Options.Protected, normalised
	known     map[string]bool     // group ids, DefaultGroup included
	rules     map[string][]crule  // per group with rules: its unresolved rules in evaluation order
	patterns  []string            // the distinct path patterns of rules, as written
	home      string              // the service's home directory, "~" expanded; "" if none
	projects  []project           // Options.Projects, deepest first
	fold      []bool              // per root, the workspace's then each project's: it folds case
	foldAbs   bool                // "/" folds case: so do absolute paths outside every root
	mu        sync.Mutex          // serialises building a new view
	view      atomic.Pointer[view]
}

// Compile builds the immutable Set for the given groups and rules under opt. opt's
// zero fields get their defaults, and its Protected paths are normalised. A rule's path
// pattern is its PathPattern resolved as ResolvePattern does, now and whenever a
// directory it goes through changes (ResolvedPathPattern is not used); those lstat and
// readlink calls are Compile's only file system reads. DefaultGroup always exists. A
// rule Validate refuses, or one of a group not in groups, is left out. The slices passed
// in are not kept. The home directory "~" stands for in a path is os.UserHomeDir's at
// Compile.
func Compile(groups []Group, rs []Rule, opt Options) *Set {
	opt.WorkspaceRoot = cleanRoot(opt.WorkspaceRoot)
	opt.FSRead = orDefault(opt.FSRead, DefaultFSRead)
	opt.FSWrite = orDefault(opt.FSWrite, DefaultFSWrite)
	opt.PathArgs = orDefault(opt.PathArgs, DefaultPathArgs)
	opt.MCPFilesystem = orDefault(opt.MCPFilesystem, DefaultMCPFilesystem)
	if opt.Shell == nil {
		opt.Shell = DefaultShell
	}
	opt.Shell = slices.Clone(opt.Shell)
	if opt.Web == nil {
		opt.Web = DefaultWeb
	}
	opt.Web = slices.Clone(opt.Web)
	opt.Protected = slices.Clone(opt.Protected)
	opt.NeedsHuman = slices.Clone(opt.NeedsHuman)
	opt.Projects = projectRoots(opt.Projects, opt.WorkspaceRoot)
	reads, writes := slices.Clone(opt.FSRead), slices.Clone(opt.FSWrite)
	for _, srv := range opt.MCPFilesystem {
		for _, n := range MCPFSRead {
			reads = append(reads, "mcp__"+srv+"__"+n)
		}
		for _, n := range MCPFSWrite {
			writes = append(writes, "mcp__"+srv+"__"+n)
		}
	}
	home, _ := os.UserHomeDir()
	if !filepath.IsAbs(home) {
		home = ""
	}
	s := &Set{
		home:     cleanRoot(home),
		opt:      opt,
		reads:    reads,
		writes:   writes,
		tools:    toolInfos(reads, writes, opt.Shell, opt.Web),
		pathKeys: nameSet(opt.PathArgs),
		known:    map[string]bool{DefaultGroup: true},
		rules:    map[string][]crule{},
	}
	folds := opt.FoldsCase
	if folds == nil {
		folds = FoldsCase
	}
	s.fold = []bool{opt.WorkspaceRoot != "" && folds(opt.WorkspaceRoot)}
	s.foldAbs = folds("/")
	for _, p := range opt.Projects {
		s.projects = append(s.projects, project{root: p, form: s.relIn(p, 0)})
		s.fold = append(s.fold, folds(p))
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
	seen := map[string]bool{}
	for id, grs := range byGroup {
		s.rules[id] = compileRules(grs)
		for _, r := range s.rules[id] {
			if r.hasPath && !seen[r.written] {
				seen[r.written] = true
				s.patterns = append(s.patterns, r.written)
			}
		}
	}
	slices.Sort(s.patterns)
	s.view.Store(s.build(nil))
	return s
}

// projectRoots returns the distinct clean roots of list other than root, deepest
// first, or nil.
func projectRoots(list []string, root string) []string {
	var out []string
	for _, r := range list {
		if r = cleanRoot(r); filepath.IsAbs(r) && r != root && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// project is another workspace root of Options.Projects.
type project struct {
	root string // absolute
	form string // root as this Set's paths name it: relative to its root when under it
}

// orDefault returns a copy of list, or of def when list is nil.
func orDefault(list, def []string) []string {
	if list == nil {
		return slices.Clone(def)
	}
	return slices.Clone(list)
}

// toolInfo is what a Set knows of a tool name besides its rules, found with one map
// lookup per call; the zero value is a tool of no class.
type toolInfo struct {
	read, write bool
	shell       int    // 1 + the tool's index in Options.Shell; 0 when not a shell tool
	web         int    // 1 + the tool's index in Options.Web; 0 when not a web tool
	glob        string // the argument holding a glob whose literal directory is a path
}

func (ti toolInfo) file() bool { return ti.read || ti.write }

// toolInfos builds the toolInfo of every tool with a class.
func toolInfos(reads, writes []string, shells []ShellTool, webs []WebTool) map[string]toolInfo {
	m := map[string]toolInfo{}
	edit := func(name string, f func(*toolInfo)) {
		ti := m[name]
		f(&ti)
		m[name] = ti
	}
	for _, n := range reads {
		edit(n, func(ti *toolInfo) { ti.read = true })
	}
	for _, n := range writes {
		edit(n, func(ti *toolInfo) { ti.write = true })
	}
	for i := len(shells) - 1; i >= 0; i-- { // the first of a name wins, as ShellTool finds it
		edit(shells[i].Tool, func(ti *toolInfo) { ti.shell = i + 1 })
	}
	for i := len(webs) - 1; i >= 0; i-- {
		edit(webs[i].Tool, func(ti *toolInfo) { ti.web = i + 1 })
	}
	for _, tool := range []string{"Glob", "Grep"} {
		edit(tool, func(ti *toolInfo) { ti.glob = globKey(tool) })
	}
	return m
}

func nameSet(names []string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

// crule is a compiled rule: what matching needs, what a match reads first.
type crule struct {
	agent    string
	source   string
	cmd      *shell.Pattern // the command_pattern, nil when none: see matcher.command
	host     string         // the host_pattern compiled (compileHost), "" when none
	hasPath  bool
	toolKind toolKind
	path     pathPattern // written, resolved by the view that holds the rule
	id       uint64
	action   Action
	note     string
	tool     string // the exact name or prefix
	written  string // the path pattern as written
}

// compileRules sorts one group's rules into evaluation order (Compare) and compiles
// them, their path patterns as written.
func compileRules(rs []Rule) []crule {
	slices.SortStableFunc(rs, Compare)
	out := make([]crule, len(rs))
	for i, r := range rs {
		cr := crule{id: r.ID, agent: r.AgentID, source: r.Source, note: r.Note, action: r.Action}
		cr.toolKind, cr.tool = parseTool(r.ToolPattern)
		if r.PathPattern != "" {
			cr.hasPath, cr.written = true, r.PathPattern
		}
		if r.CommandPattern != "" {
			p := shell.MustCompile(r.CommandPattern) // Validate passed
			cr.cmd = &p
		}
		if r.HostPattern != "" {
			cr.host, _ = compileHost(r.HostPattern) // Validate passed
		}
		out[i] = cr
	}
	return out
}

// HasGroup reports whether id is a permission group of the Set: DefaultGroup, or one
// of the groups given to Compile.
func (s *Set) HasGroup(id string) bool { return s.known[id] }

// MatchTool reports whether the tool_pattern pattern matches the tool name:
// "*" matches every name, "prefix*" the names that start with prefix, @fs_read,
// @fs_write and @fs_any the names of this Set's file-tool lists, anything else only
// itself. A pattern Validate refuses matches as its nearest reading (an unknown class
// matches nothing). It allocates nothing; the gate uses it for tools.categories.
func (s *Set) MatchTool(pattern, tool string) bool {
	kind, name := parseTool(pattern)
	return s.toolMatches(kind, name, tool)
}

// toolMatches reports whether a parsed tool_pattern (see parseTool) matches tool.
func (s *Set) toolMatches(kind toolKind, name, tool string) bool {
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
		return s.tools[tool].file()
	}
	return false
}

// IsFSRead reports whether tool is a file-read tool (@fs_read): one of Options.FSRead,
// or a read tool of an MCP filesystem server (Options.MCPFilesystem, MCPFSRead).
func (s *Set) IsFSRead(tool string) bool { return s.tools[tool].read }

// IsFSWrite reports whether tool is a file-write tool (@fs_write): one of
// Options.FSWrite, or a write tool of an MCP filesystem server (MCPFSWrite).
func (s *Set) IsFSWrite(tool string) bool { return s.tools[tool].write }

// Options returns the Set's options with their defaults filled in and WorkspaceRoot
// cleaned; Protected and NeedsHuman are as given, not normalised. The slices are copies.
func (s *Set) Options() Options {
	o := s.opt
	o.FSRead = slices.Clone(o.FSRead)
	o.FSWrite = slices.Clone(o.FSWrite)
	o.PathArgs = slices.Clone(o.PathArgs)
	o.MCPFilesystem = slices.Clone(o.MCPFilesystem)
	o.Protected = slices.Clone(o.Protected)
	o.NeedsHuman = slices.Clone(o.NeedsHuman)
	o.Shell = slices.Clone(o.Shell)
	o.Web = slices.Clone(o.Web)
	o.Projects = slices.Clone(o.Projects)
	return o
}
