package store

import (
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/rules"
)

// Seeds (docs/design.md, "Rule order"), all in group default.
var (
	// seedGroup is created when group default is absent.
	seedGroup = rules.Group{ID: rules.DefaultGroup, Name: "Default",
		Description: "Rules every call falls back to; always exists."}

	// seedFirstRules are stored only when there are no rules at all.
	seedFirstRules = []rules.Rule{
		// The shell requires come after command rules at the default priority
		// (docs/design.md, "Shell commands"); stores seeded earlier keep theirs at 10.
		{ToolPattern: "execute_cmd", Action: rules.Require, Priority: 1000},
		{ToolPattern: "Bash", Action: rules.Require, Priority: 1000},
		{ToolPattern: "write_todos", Action: rules.Allow, Priority: 10},
		{ToolPattern: "notify", Action: rules.Allow, Priority: 10},
		{ToolPattern: "activate_tools", Action: rules.Allow, Priority: 10},
		{ToolPattern: "show_file_to_user", Action: rules.Allow, Priority: 10},
		{ToolPattern: "image_generate", Action: rules.Allow, Priority: 10},
		{ToolPattern: "TodoWrite", Action: rules.Allow, Priority: 10},
	}

	// seedPathRules are each stored when group default has no rule with the same
	// (tool pattern, path pattern).
	seedPathRules = []rules.Rule{
		{ToolPattern: "@fs_any", PathPattern: "memory/*", Action: rules.Allow, Priority: 5},
		{ToolPattern: "@fs_any", PathPattern: "data/*", Action: rules.Allow, Priority: 5},
		{ToolPattern: "@fs_any", PathPattern: "secrets/*", Action: rules.Deny, Priority: 5},
	}

	// seedCatchAll is stored when group default has no catch-all (an unfiltered "*"
	// rule). One that exists is never touched, whatever its action.
	seedCatchAll = rules.Rule{ToolPattern: "*", Action: rules.Require, Priority: rules.MaxPriority}
)

// seed writes the seeds that are missing, each audited by "system" via
// "seed", and reports whether it wrote anything. It runs in Open's transaction, so
// seeding is idempotent and all or nothing.
func (d *DB) seed(tx *bolt.Tx) (changed bool, err error) {
	if tx.Bucket(bucketGroups).Get([]byte(rules.DefaultGroup)) == nil {
		if err := d.createGroup(tx, seedGroup, actorSeed, ""); err != nil {
			return false, err
		}
		changed = true
	}
	add := func(r rules.Rule) error {
		r.GroupID = rules.DefaultGroup
		if err := rules.Validate(r); err != nil {
			return err
		}
		_, err := d.createRule(tx, r, actorSeed)
		changed = true
		return err
	}
	if k, _ := tx.Bucket(bucketRules).Cursor().First(); k == nil {
		for _, r := range seedFirstRules {
			if err := add(r); err != nil {
				return false, err
			}
		}
	}
	existing, err := groupRules(tx, rules.DefaultGroup)
	if err != nil {
		return false, err
	}
	for _, s := range seedPathRules {
		if !slices.ContainsFunc(existing, func(r rules.Rule) bool {
			return r.ToolPattern == s.ToolPattern && r.PathPattern == s.PathPattern
		}) {
			if err := add(s); err != nil {
				return false, err
			}
		}
	}
	if !slices.ContainsFunc(existing, rules.IsCatchAll) {
		if err := add(seedCatchAll); err != nil {
			return false, err
		}
	}
	return changed, nil
}
