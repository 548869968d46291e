package store

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/rules"
)

// RuleChanges are changes to groups and rules applied together (ApplyRules): a plan
// of `rules import`, for example.
type RuleChanges struct {
	// CreateGroups are new groups, empty until CreateRules fills them; an empty Name is
	// set to the id.
	CreateGroups []rules.Group `json:"create_groups,omitempty"`
	// UpdateGroups replace the name and description of existing groups.
	UpdateGroups []rules.Group `json:"update_groups,omitempty"`
	// DeleteRules are the ids of rules to delete.
	DeleteRules []uint64 `json:"delete_rules,omitempty"`
	// UpdateRules replace existing rules, by ID.
	UpdateRules []rules.Rule `json:"update_rules,omitempty"`
	// CreateRules are new rules (ID ignored); an empty GroupID means the default group.
	CreateRules []rules.Rule `json:"create_rules,omitempty"`
}

// Empty reports whether c changes nothing.
func (c RuleChanges) Empty() bool {
	return len(c.CreateGroups)+len(c.UpdateGroups)+len(c.DeleteRules)+len(c.UpdateRules)+
		len(c.CreateRules) == 0
}

// ApplyRules applies c in one transaction, in the order of its fields — groups created
// and updated, rules deleted, updated, then created — each change checked and audited
// as the method for that change alone does it, against the state the earlier changes
// left (so a catch-all may be deleted and another created). It returns the created
// rules with their ids, in c's order. Errors: every problem found, joined — those of
// CreateGroup, UpdateGroup, DeleteRule, UpdateRule and CreateRule, each naming what it is
// about — after which nothing is written.
func (d *DB) ApplyRules(c RuleChanges, by Actor) ([]rules.Rule, error) {
	if err := checkActor(by); err != nil {
		return nil, fmt.Errorf("store: apply rules: %w", err)
	}
	var errs []error
	for i := range c.CreateGroups {
		g := &c.CreateGroups[i]
		if g.Name == "" {
			g.Name = g.ID
		}
		if err := checkGroup(*g, by); err != nil {
			errs = append(errs, fmt.Errorf("create group %q: %w", g.ID, err))
		}
	}
	for i := range c.UpdateGroups {
		g := &c.UpdateGroups[i]
		if g.Name == "" {
			g.Name = g.ID
		}
		if err := checkGroupText(*g); err != nil {
			errs = append(errs, fmt.Errorf("update group %q: %w", g.ID, err))
		}
	}
	for i := range c.UpdateRules {
		r := &c.UpdateRules[i]
		if r.GroupID == "" {
			r.GroupID = rules.DefaultGroup
		}
		if err := rules.Validate(*r); err != nil {
			errs = append(errs, fmt.Errorf("update rule %d: %w", r.ID, err))
		}
	}
	for i := range c.CreateRules {
		r := &c.CreateRules[i]
		r.ID = 0
		if r.GroupID == "" {
			r.GroupID = rules.DefaultGroup
		}
		if err := rules.Validate(*r); err != nil {
			errs = append(errs, fmt.Errorf("create rule %s: %w", describeRule(*r), err))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("store: apply rules: %w", errors.Join(errs...))
	}
	var out []rules.Rule
	err := d.update(func(tx *bolt.Tx) error {
		out = nil
		var errs []error
		fail := func(err error) { errs = append(errs, err) }
		for _, g := range c.CreateGroups {
			if err := d.createGroup(tx, g, by, ""); err != nil {
				fail(fmt.Errorf("create group %q: %w", g.ID, err))
			}
		}
		for _, g := range c.UpdateGroups {
			if err := d.updateGroup(tx, g, by); err != nil && !errors.Is(err, errNoChange) {
				fail(fmt.Errorf("update group %q: %w", g.ID, err))
			}
		}
		for _, id := range c.DeleteRules {
			if err := d.deleteRuleTx(tx, id, by); err != nil {
				fail(fmt.Errorf("delete rule %d: %w", id, err))
			}
		}
		for _, r := range c.UpdateRules {
			if err := d.updateRuleTx(tx, r, by); err != nil && !errors.Is(err, errNoChange) {
				fail(fmt.Errorf("update rule %d: %w", r.ID, err))
			}
		}
		for _, r := range c.CreateRules {
			got, err := d.createRule(tx, r, by)
			if err != nil {
				fail(fmt.Errorf("create rule %s: %w", describeRule(r), err))
				continue
			}
			out = append(out, got)
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		if c.Empty() {
			return errNoChange
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: apply rules: %w", err)
	}
	return out, nil
}
