package gate

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/skald-circle/skald-bot/rules"
)

// snapshot is one immutable view of the rules: every Check reads the current one
// without a lock and without touching the store, and every rule or group
// change replaces it whole.
type snapshot struct {
	set    *rules.Set
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
		m.log.Error("rules could not be loaded: every check requires approval until they are", "err", err)
		return &snapshot{set: rules.Compile(nil, nil, m.ropt), err: fmt.Errorf("rules unavailable: %w", err)}
	}
	byID := make(map[uint64]int, len(rs))
	for i, r := range rs {
		byID[r.ID] = i
	}
	return &snapshot{set: rules.Compile(groups, rs, m.ropt), groups: groups, rules: rs, byID: byID}
}

// rebuild replaces the snapshot with one loaded from the store. The caller holds
// rulesMu.
func (m *Manager) rebuild() { m.snap.Store(m.load()) }

// profile is a configured profile prepared for checks.
type profile struct {
	rules.Profile
	// workDir is the absolute working directory relative paths resolve against.
	workDir string
	// places are the directories and files of the fast-path, normalised as call
	// paths are: Read holds the working directory, allow_fs_reads and
	// allow_fs_writes; Write holds allow_fs_writes.
	places rules.Places
}

// loadProfiles prepares the configured profiles, adding "default" when absent.
func (m *Manager) loadProfiles(ps []rules.Profile) error {
	m.profiles = make(map[string]*profile, len(ps)+1)
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
		pp, err := m.prepareProfile(p)
		if err != nil {
			return err
		}
		m.profiles[p.ID] = pp
		if !seen[p.SecurityGroup] {
			seen[p.SecurityGroup] = true
			m.inUse = append(m.inUse, p.SecurityGroup)
		}
	}
	if m.profiles[DefaultProfile] == nil {
		pp, err := m.prepareProfile(rules.Profile{ID: DefaultProfile, SecurityGroup: rules.DefaultGroup})
		if err != nil {
			return err
		}
		m.profiles[DefaultProfile] = pp
		if !seen[rules.DefaultGroup] {
			m.inUse = append(m.inUse, rules.DefaultGroup)
		}
	}
	m.defProfile = m.profiles[DefaultProfile]
	return nil
}

// prepareProfile resolves p's directories against the workspace root.
func (m *Manager) prepareProfile(p rules.Profile) (*profile, error) {
	root := m.ropt.WorkspaceRoot
	pp := &profile{Profile: p, workDir: root}
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
// else "default". It does not allocate.
func (m *Manager) route(snap *snapshot, group, profileID string) (*profile, string, error) {
	p := m.defProfile
	if profileID != "" {
		if p = m.profiles[profileID]; p == nil {
			return nil, "", fmt.Errorf("profile %q: %w", profileID, ErrUnknownProfile)
		}
	}
	if group == "" {
		group = p.SecurityGroup
	}
	if snap.err == nil && !snap.set.HasGroup(group) {
		return nil, "", fmt.Errorf("group %q: %w", group, ErrUnknownGroup)
	}
	return p, group, nil
}

// validateCategories checks every category has a name and valid tool patterns.
func validateCategories(cs []Category) error {
	for i, c := range cs {
		if c.Name == "" {
			return fmt.Errorf("category %d has no name", i)
		}
		for _, p := range c.Tools {
			r := rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: p, Action: rules.Allow, Priority: rules.DefaultPriority}
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
