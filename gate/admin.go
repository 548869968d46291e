package gate

import (
	"errors"
	"fmt"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Rules returns the rules of group, or of every group when group is "", from the
// snapshot (no store read), ordered by group, priority, id. Errors: ErrUnknownGroup,
// or the load error while the gate runs fail-closed.
func (m *Manager) Rules(group string) ([]rules.Rule, error) {
	snap := m.snap.Load()
	if snap.err != nil {
		return nil, fmt.Errorf("gate: rules: %w", snap.err)
	}
	if group == "" {
		return append([]rules.Rule(nil), snap.rules...), nil
	}
	if !snap.set.HasGroup(group) {
		return nil, fmt.Errorf("gate: rules: group %q: %w", group, ErrUnknownGroup)
	}
	var out []rules.Rule
	for _, r := range snap.rules {
		if r.GroupID == group {
			out = append(out, r)
		}
	}
	return out, nil
}

// Rule returns rule id from the in-memory snapshot, reading no store and copying no
// other rule, so it is cheap enough for every check's answer. Errors: ErrNotFound when
// no rule has that id; the load error while the gate runs fail-closed.
func (m *Manager) Rule(id uint64) (rules.Rule, error) {
	snap := m.snap.Load()
	if snap.err != nil {
		return rules.Rule{}, fmt.Errorf("gate: rule %d: %w", id, snap.err)
	}
	i, ok := snap.byID[id]
	if !ok {
		return rules.Rule{}, fmt.Errorf("gate: rule %d: %w", id, ErrNotFound)
	}
	return snap.rules[i], nil
}

// Groups returns every permission group, sorted by id, from the snapshot. Errors: the
// load error while the gate runs fail-closed.
func (m *Manager) Groups() ([]rules.Group, error) {
	snap := m.snap.Load()
	if snap.err != nil {
		return nil, fmt.Errorf("gate: groups: %w", snap.err)
	}
	return append([]rules.Group(nil), snap.groups...), nil
}

// prepare validates r (priority range) and resolves its path pattern's
// existing prefix through symlinks, before the store sees it.
func (m *Manager) prepare(r rules.Rule) (rules.Rule, error) {
	if err := rules.Validate(r); err != nil {
		return rules.Rule{}, err
	}
	if err := rules.CheckShellRule(r, m.ropt.Shell); err != nil {
		return rules.Rule{}, err
	}
	if err := rules.CheckHostRule(r, m.ropt.Web); err != nil {
		return rules.Rule{}, err
	}
	r.ResolvedPathPattern = ""
	if r.PathPattern != "" {
		r.ResolvedPathPattern = rules.ResolvePattern(r.PathPattern, m.ropt.WorkspaceRoot)
	}
	return r, nil
}

// change runs one store change under rulesMu and, when it succeeds, rebuilds the
// snapshot from the store. A failed change leaves store and snapshot as they were.
func (m *Manager) change(f func() error) error {
	m.rulesMu.Lock()
	defer m.rulesMu.Unlock()
	if err := f(); err != nil {
		return err
	}
	m.rebuild()
	return nil
}

// CreateRule validates r, resolves its path pattern, stores it with the
// next id (audited by the store) and rebuilds the snapshot, so the next Check sees it.
// r.ID is ignored. It returns the stored rule. Errors, after which nothing changed:
// ErrInvalidRule (bad pattern, action or priority; a second catch-all, whose message is
// "group G already has a catch-all (rule N); edit that one"), ErrUnknownGroup, or the
// store's error.
func (m *Manager) CreateRule(r rules.Rule, by store.Actor) (rules.Rule, error) {
	p, err := m.prepare(r)
	if err != nil {
		return rules.Rule{}, fmt.Errorf("gate: create rule: %w", err)
	}
	var out rules.Rule
	err = m.change(func() (err error) { out, err = m.store.CreateRule(p, by); return err })
	if err != nil {
		return rules.Rule{}, fmt.Errorf("gate: create rule: %w", err)
	}
	return out, nil
}

// UpdateRule replaces rule r.ID with r, with CreateRule's checks, and rebuilds the
// snapshot. Errors: those of CreateRule, and ErrNotFound.
func (m *Manager) UpdateRule(r rules.Rule, by store.Actor) (rules.Rule, error) {
	p, err := m.prepare(r)
	if err != nil {
		return rules.Rule{}, fmt.Errorf("gate: update rule %d: %w", r.ID, err)
	}
	var out rules.Rule
	err = m.change(func() (err error) { out, err = m.store.UpdateRule(p, by); return err })
	if err != nil {
		return rules.Rule{}, fmt.Errorf("gate: update rule %d: %w", r.ID, err)
	}
	return out, nil
}

// DeleteRule deletes rule id (audited) and rebuilds the snapshot. Errors: ErrNotFound,
// or the store's error.
func (m *Manager) DeleteRule(id uint64, by store.Actor) error {
	if err := m.change(func() error { return m.store.DeleteRule(id, by) }); err != nil {
		return fmt.Errorf("gate: delete rule %d: %w", id, err)
	}
	return nil
}

// CreateGroup creates an empty permission group (audited) and rebuilds the snapshot.
// Errors: ErrInvalid (id not [a-z0-9_-]+, a name or description holding a control
// character), ErrExists, or the store's error.
func (m *Manager) CreateGroup(g rules.Group, by store.Actor) error {
	if err := m.change(func() error { return m.store.CreateGroup(g, by) }); err != nil {
		return fmt.Errorf("gate: create group %q: %w", g.ID, err)
	}
	return nil
}

// UpdateGroup changes a group's name and description (audited). Errors: ErrNotFound,
// ErrInvalid (a name or description holding a control character), or the store's
// error.
func (m *Manager) UpdateGroup(g rules.Group, by store.Actor) error {
	if err := m.change(func() error { return m.store.UpdateGroup(g, by) }); err != nil {
		return fmt.Errorf("gate: update group %q: %w", g.ID, err)
	}
	return nil
}

// DeleteGroup deletes group id and its rules in one transaction (audited) and rebuilds
// the snapshot. Errors: ErrProtected for "default" and for a group a profile uses,
// ErrNotFound, or the store's error.
func (m *Manager) DeleteGroup(id string, by store.Actor) error {
	if err := m.change(func() error { return m.store.DeleteGroup(id, m.inUse, by) }); err != nil {
		return fmt.Errorf("gate: delete group %q: %w", id, err)
	}
	return nil
}

// DuplicateGroup creates group g holding a copy of every rule of src, in one
// transaction (audited), rebuilds the snapshot and returns the new rules. Errors:
// ErrNotFound (src), ErrExists, ErrInvalid (bad id), or the store's error.
func (m *Manager) DuplicateGroup(src string, g rules.Group, by store.Actor) ([]rules.Rule, error) {
	var out []rules.Rule
	err := m.change(func() (err error) {
		out, err = m.store.DuplicateGroup(src, g, by)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gate: duplicate group %q as %q: %w", src, g.ID, err)
	}
	return out, nil
}

// Visible splits tools into those an agent may see and those hidden from it (POST
// /api/approval/visible), in the group group names, else profile's, with the agent and
// source filters applied when given. Errors: ErrUnknownProfile, ErrUnknownGroup, or the
// load error while the gate runs fail-closed.
func (m *Manager) Visible(group, profile, agentID, source string,
	tools []string) (visible, hidden []string, err error) {
	snap := m.snap.Load()
	if snap.err != nil {
		return nil, nil, fmt.Errorf("gate: visible: %w", snap.err)
	}
	_, group, err = m.route(snap, group, profile, "")
	if err != nil {
		return nil, nil, fmt.Errorf("gate: visible: %w", err)
	}
	visible, hidden = []string{}, []string{}
	for _, t := range tools {
		if snap.set.Visible(group, agentID, source, t) {
			visible = append(visible, t)
		} else {
			hidden = append(hidden, t)
		}
	}
	return visible, hidden, nil
}

// Category returns tool's category as the configuration's tools.categories give it,
// "" when none matches (docs/design.md, "Bypasses"); it reads no store.
func (m *Manager) Category(tool string) string { return m.category(m.snap.Load(), tool) }

// WebHost reports whether tool is one of the configured web tools and returns the
// host of its call with args that host patterns match, "" when none (rules.WebHost);
// it reads no store.
func (m *Manager) WebHost(tool string, args map[string]any) (host string, web bool) {
	return rules.WebHost(m.ropt.Web, tool, args)
}

// ApplyRules applies c in one store transaction (store.DB.ApplyRules) after preparing
// every rule it writes as CreateRule does, then rebuilds the snapshot; it returns the
// created rules. Errors, after which nothing changed: every problem found, joined —
// ErrInvalidRule for a rule's fields, and those of store.DB.ApplyRules.
func (m *Manager) ApplyRules(c store.RuleChanges, by store.Actor) ([]rules.Rule, error) {
	var errs []error
	prep := func(what string, rs []rules.Rule) []rules.Rule {
		out := make([]rules.Rule, len(rs))
		for i, r := range rs {
			if r.GroupID == "" {
				r.GroupID = rules.DefaultGroup
			}
			p, err := m.prepare(r)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s %s %s: %w", what, r.Action, r.ToolPattern, err))
			}
			out[i] = p
		}
		return out
	}
	c.UpdateRules = prep("update rule", c.UpdateRules)
	c.CreateRules = prep("create rule", c.CreateRules)
	if len(errs) > 0 {
		return nil, fmt.Errorf("gate: apply rules: %w", errors.Join(errs...))
	}
	var out []rules.Rule
	err := m.change(func() (err error) { out, err = m.store.ApplyRules(c, by); return err })
	if err != nil {
		return nil, fmt.Errorf("gate: apply rules: %w", err)
	}
	return out, nil
}
