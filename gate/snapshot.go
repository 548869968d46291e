package gate

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skald-circle/skald-bot/rules"
)

// snapshot is one immutable view of the rules: every Check reads the current one
// without a lock and without touching the store, and every rule or group
// change replaces it whole.
type snapshot struct {
	// set is compiled for the top-level workspace root; sets holds one Set per
	// workspace root, in the order of Manager.roots (docs/design.md, "Projects").
	set    *rules.Set
	sets   []*rules.Set
	groups []rules.Group
	rules  []rules.Rule // as the store returns them: by group, priority, id
	// byID indexes rules by rule id.
	byID map[uint64]int
	// err is set when the rules could not be loaded: set then holds no rule, and every
	// Check answers require (fail-closed).
	err error
}

// load reads the groups and rules from the store and compiles a snapshot; on failure it
// logs at error level and returns a fail-closed one.
func (m *Manager) load() *snapshot {
	groups, err := m.store.Groups()
	var rs []rules.Rule
	if err == nil {
		rs, err = m.store.Rules()
	}
	if err != nil {
		m.log.Error("rules could not be loaded: every check requires approval until they are",
			"err", err)
		return m.compile(&snapshot{err: fmt.Errorf("rules unavailable: %w", err)})
	}
	byID := make(map[uint64]int, len(rs))
	for i, r := range rs {
		byID[r.ID] = i
	}
	return m.compile(&snapshot{groups: groups, rules: rs, byID: byID})
}

// compile fills in snap's Sets: one for each workspace root of m (the top-level one,
// then each profile's own).
func (m *Manager) compile(snap *snapshot) *snapshot {
	snap.sets = make([]*rules.Set, len(m.roots))
	for i, root := range m.roots {
		opt := m.ropt
		opt.WorkspaceRoot = root
		opt.Projects = m.roots // every workspace's rules hold in every profile
		snap.sets[i] = rules.Compile(snap.groups, snap.rules, opt)
	}
	snap.set = snap.sets[0]
	return snap
}

// setOf returns the Set of profile p's workspace.
func (snap *snapshot) setOf(p *profile) *rules.Set { return snap.sets[p.rootIdx] }

// rebuild replaces the snapshot with one loaded from the store. The caller holds
// rulesMu.
func (m *Manager) rebuild() { m.snap.Store(m.load()) }

// profile is a configured profile prepared for checks.
type profile struct {
	rules.Profile
	// root is the profile's workspace: its own WorkspaceRoot, else the top-level one;
	// rootIdx is its index in Manager.roots.
	root    string
	rootIdx int
	// workDir is the absolute working directory relative paths resolve against.
	workDir string
	// places are the directories and files of the fast-path, normalised as call
	// paths are: Read holds the working directory, allow_fs_reads and
	// allow_fs_writes; Write holds allow_fs_writes.
	places rules.Places
}

// loadProfiles prepares the configured profiles, adding "default" when absent, and
// lists the workspace roots: the top-level one first, then each profile's own.
func (m *Manager) loadProfiles(ps []rules.Profile) error {
	m.profiles = make(map[string]*profile, len(ps)+1)
	m.roots = []string{m.ropt.WorkspaceRoot}
	owner := map[string]string{}
	seen := make(map[string]bool)
	for _, p := range ps {
		if p.ID == "" {
			return errors.New("a profile has no id")
		}
		if m.profiles[p.ID] != nil {
			return fmt.Errorf("profile %q is defined twice", p.ID)
		}
		if p.SecurityGroup == "" {
			p.SecurityGroup = rules.DefaultGroup
		}
		if r := p.WorkspaceRoot; r != "" {
			if !filepath.IsAbs(r) {
				return fmt.Errorf("profile %q: workspace root %q is not an absolute path", p.ID, r)
			}
			r = filepath.Clean(r)
			if other, dup := owner[r]; dup || r == m.ropt.WorkspaceRoot {
				if !dup {
					other = "the top-level workspace"
				}
				return fmt.Errorf("profile %q: workspace root %q is also %s's", p.ID, r, other)
			}
			owner[r], p.WorkspaceRoot = p.ID, r
			m.roots = append(m.roots, r)
		}
		pp, err := m.prepareProfile(p)
		if err != nil {
			return err
		}
		if p.WorkspaceRoot != "" {
			pp.rootIdx = len(m.roots) - 1
		}
		m.profiles[p.ID] = pp
		if p.WorkspaceRoot != "" {
			m.projects = append(m.projects, pp)
		}
		if !seen[p.SecurityGroup] {
			seen[p.SecurityGroup] = true
			m.inUse = append(m.inUse, p.SecurityGroup)
		}
	}
	if m.profiles[DefaultProfile] == nil {
		pp, err := m.prepareProfile(rules.Profile{ID: DefaultProfile,
			SecurityGroup: rules.DefaultGroup})
		if err != nil {
			return err
		}
		m.profiles[DefaultProfile] = pp
		if !seen[rules.DefaultGroup] {
			m.inUse = append(m.inUse, rules.DefaultGroup)
		}
	}
	m.defProfile = m.profiles[DefaultProfile]
	// Deepest first: a cwd takes the first project holding it.
	slices.SortFunc(m.projects, func(a, b *profile) int {
		return cmp.Compare(len(b.root), len(a.root))
	})
	return nil
}

// prepareProfile resolves p's directories against its workspace.
func (m *Manager) prepareProfile(p rules.Profile) (*profile, error) {
	root := cmp.Or(p.WorkspaceRoot, m.ropt.WorkspaceRoot)
	pp := &profile{Profile: p, root: root, workDir: root}
	if p.WorkingDirectory != "" {
		pp.workDir = p.WorkingDirectory
		if !filepath.IsAbs(pp.workDir) {
			pp.workDir = filepath.Join(root, pp.workDir)
		}
	}
	norm := func(field, dir string) (string, error) {
		n, err := rules.Normalize(dir, root, root)
		if err != nil {
			return "", fmt.Errorf("profile %q: %s %q: %w", p.ID, field, dir, err)
		}
		return n, nil
	}
	wd, err := norm("working_directory", pp.workDir)
	if err != nil {
		return nil, err
	}
	pp.places.Read = append(pp.places.Read, wd)
	for _, d := range p.AllowFSReads {
		n, err := norm("allow_fs_reads", d)
		if err != nil {
			return nil, err
		}
		pp.places.Read = append(pp.places.Read, n)
	}
	for _, d := range p.AllowFSWrites {
		n, err := norm("allow_fs_writes", d)
		if err != nil {
			return nil, err
		}
		pp.places.Read = append(pp.places.Read, n)
		pp.places.Write = append(pp.places.Write, n)
	}
	return pp, nil
}

// DefaultProfile is the profile that always exists: group default,
// working directory the workspace root, unless the configuration defines it.
const DefaultProfile = "default"

// Profile returns the configured profile id, "default" included, and
// whether it exists. It reads no store.
func (m *Manager) Profile(id string) (rules.Profile, bool) {
	p := m.profiles[id]
	if p == nil {
		return rules.Profile{}, false
	}
	return p.Profile, true
}

// route picks the profile and the permission group of a call: the call's
// group, else its profile's security group, else default; the profile is the call's,
// else the one whose own workspace is the deepest holding cwd (profileAt), else
// "default". It does not allocate when no profile has a workspace of its own.
func (m *Manager) route(snap *snapshot, group, profileID, cwd string) (*profile, string, error) {
	p := m.defProfile
	if profileID != "" {
		if p = m.profiles[profileID]; p == nil {
			return nil, "", fmt.Errorf("profile %q: %w", profileID, ErrUnknownProfile)
		}
	} else if len(m.projects) > 0 {
		p = m.profileAt(cwd)
	}
	if group == "" {
		group = p.SecurityGroup
	}
	if snap.err == nil && !snap.set.HasGroup(group) {
		return nil, "", fmt.Errorf("group %q: %w", group, ErrUnknownGroup)
	}
	return p, group, nil
}

// profileAt returns the profile whose own workspace is the deepest one holding the
// absolute directory cwd — as written, else with its symlinks resolved — or "default"
// (docs/design.md, "Projects"). A relative or empty cwd gives "default".
func (m *Manager) profileAt(cwd string) *profile {
	if !filepath.IsAbs(cwd) || strings.IndexByte(cwd, 0) >= 0 {
		return m.defProfile
	}
	cwd = filepath.Clean(cwd)
	for try := 0; try < 2; try++ {
		for _, p := range m.projects {
			if rules.Under(cwd, p.root) {
				return p
			}
		}
		resolved, err := filepath.EvalSymlinks(cwd)
		if err != nil || resolved == cwd {
			break
		}
		cwd = resolved
	}
	return m.defProfile
}

// validateCategories checks every category has a name and valid tool patterns.
func validateCategories(cs []Category) error {
	for i, c := range cs {
		if c.Name == "" {
			return fmt.Errorf("category %d has no name", i)
		}
		for _, p := range c.Tools {
			r := rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: p, Action: rules.Allow,
				Priority: rules.DefaultPriority}
			if err := rules.Validate(r); err != nil {
				return fmt.Errorf("category %q: %w", c.Name, err)
			}
		}
	}
	return nil
}

// category is a tool's category: the first entry of the configuration matching it,
// else "" — never the one a caller sent (docs/design.md, "Bypasses").
func (m *Manager) category(snap *snapshot, tool string) string {
	for _, c := range m.categories {
		for _, p := range c.Tools {
			if snap.set.MatchTool(p, tool) {
				return c.Name
			}
		}
	}
	return ""
}
