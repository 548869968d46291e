package store

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/rules"
)

// Rule returns rule id, or ErrNotFound.
func (d *DB) Rule(id uint64) (rules.Rule, error) {
	r, err := viewOne(d, func(tx *bolt.Tx) (rules.Rule, bool, error) {
		return getAs[rules.Rule](tx.Bucket(bucketRules), u64(id))
	})
	if err != nil {
		return rules.Rule{}, fmt.Errorf("store: rule %d: %w", id, err)
	}
	return r, nil
}

// Rules returns every rule of every group, sorted by (group, priority, id): within a
// group, the order evaluation tries them in (docs/design.md, "Rule order").
func (d *DB) Rules() ([]rules.Rule, error) {
	var out []rules.Rule
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = allAs[rules.Rule](tx.Bucket(bucketRules))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: rules: %w", err)
	}
	slices.SortFunc(out, func(a, b rules.Rule) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), rules.Compare(a, b))
	})
	return out, nil
}

// CreateRule stores a new rule and returns it with its id, the next rule id (r.ID is
// ignored). An empty GroupID means rules.DefaultGroup; the priority is stored as given
// (0 is a valid priority: callers apply rules.DefaultPriority). In one transaction it
// checks the group exists, refuses a second catch-all with another action
// (rules.CheckCatchAll), stores the rule and appends an audit entry
// "rule.create" by by.
//
// Errors (nothing is written): rules.ErrInvalidRule (rules.Validate: pattern syntax,
// action, priority range), rules.ErrCatchAll ("group G already has a catch-all (rule
// N); edit that one"), ErrUnknownGroup, ErrInvalid (no actor).
func (d *DB) CreateRule(r rules.Rule, by Actor) (rules.Rule, error) {
	r.ID = 0
	if r.GroupID == "" {
		r.GroupID = rules.DefaultGroup
	}
	if err := checkRule(r, by); err != nil {
		return rules.Rule{}, fmt.Errorf("store: create rule: %w", err)
	}
	err := d.update(func(tx *bolt.Tx) error {
		var err error
		r, err = d.createRule(tx, r, by)
		return err
	})
	if err != nil {
		return rules.Rule{}, fmt.Errorf("store: create rule: %w", err)
	}
	return r, nil
}

// checkRule runs the checks that need no transaction.
func checkRule(r rules.Rule, by Actor) error {
	if err := checkActor(by); err != nil {
		return err
	}
	return rules.Validate(r)
}

// createRule checks r against its group (it must exist; no second catch-all), assigns
// the next rule id, stores r and audits it. r is already validated.
func (d *DB) createRule(tx *bolt.Tx, r rules.Rule, by Actor) (rules.Rule, error) {
	if err := checkGroupRules(tx, r); err != nil {
		return rules.Rule{}, err
	}
	id, err := tx.Bucket(bucketRules).NextSequence()
	if err != nil {
		return rules.Rule{}, err
	}
	r.ID = id
	if err := putRule(tx, r); err != nil {
		return rules.Rule{}, err
	}
	return r, d.audit(tx, by, AuditRuleCreate, r.ID, 0, describeRule(r))
}

// checkGroupRules checks that r's group exists and that r would not give it a second
// catch-all with another action. A rule with r.ID already in the group (an update) is
// left out of the comparison.
func checkGroupRules(tx *bolt.Tx, r rules.Rule) error {
	if tx.Bucket(bucketGroups).Get([]byte(r.GroupID)) == nil {
		return fmt.Errorf("%w %q", ErrUnknownGroup, r.GroupID)
	}
	others, err := groupRules(tx, r.GroupID)
	if err != nil {
		return err
	}
	others = slices.DeleteFunc(others, func(o rules.Rule) bool { return o.ID == r.ID })
	return rules.CheckCatchAll(others, r)
}

// groupRules returns the rules of group id, in id order.
func groupRules(tx *bolt.Tx, id string) ([]rules.Rule, error) {
	b := tx.Bucket(bucketRules)
	var out []rules.Rule
	for _, k := range prefixKeys(tx.Bucket(bucketRulesByGroup), strKey(id)) {
		var r rules.Rule
		ok, err := getJSON(b, u64(idSuffix(k)), &r)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// putRule stores r and its entry in the group index.
func putRule(tx *bolt.Tx, r rules.Rule) error {
	if err := putJSON(tx.Bucket(bucketRules), u64(r.ID), r); err != nil {
		return err
	}
	return tx.Bucket(bucketRulesByGroup).Put(strIDKey(r.GroupID, r.ID), nil)
}

// deleteRule deletes r and its entry in the group index.
func deleteRule(tx *bolt.Tx, r rules.Rule) error {
	if err := tx.Bucket(bucketRules).Delete(u64(r.ID)); err != nil {
		return err
	}
	return tx.Bucket(bucketRulesByGroup).Delete(strIDKey(r.GroupID, r.ID))
}

// UpdateRule replaces rule r.ID with r and returns it as stored. An empty GroupID
// means rules.DefaultGroup; a rule may move to another group. It runs the checks of
// CreateRule (the rule itself left out of the catch-all comparison, so the catch-all
// may change its action) and audits "rule.update" with the old and new rule. An update
// that changes nothing writes nothing.
//
// Errors (nothing is written): ErrNotFound, and those of CreateRule.
func (d *DB) UpdateRule(r rules.Rule, by Actor) (rules.Rule, error) {
	if r.GroupID == "" {
		r.GroupID = rules.DefaultGroup
	}
	if err := checkRule(r, by); err != nil {
		return rules.Rule{}, fmt.Errorf("store: update rule %d: %w", r.ID, err)
	}
	err := d.update(func(tx *bolt.Tx) error { return d.updateRuleTx(tx, r, by) })
	if err != nil {
		return rules.Rule{}, fmt.Errorf("store: update rule %d: %w", r.ID, err)
	}
	return r, nil
}

// DeleteRule deletes rule id and audits "rule.delete" with the rule it deleted.
// Deleting a seeded rule is allowed; the next Open may seed it again (docs/design.md,
// "Rule order").
// Errors (nothing is written): ErrNotFound, ErrInvalid (no actor).
func (d *DB) DeleteRule(id uint64, by Actor) error {
	if err := checkActor(by); err != nil {
		return fmt.Errorf("store: delete rule %d: %w", id, err)
	}
	err := d.update(func(tx *bolt.Tx) error { return d.deleteRuleTx(tx, id, by) })
	if err != nil {
		return fmt.Errorf("store: delete rule %d: %w", id, err)
	}
	return nil
}

// updateRuleTx is UpdateRule inside tx; r is checked. A rule that does not change
// returns errNoChange and writes nothing.
func (d *DB) updateRuleTx(tx *bolt.Tx, r rules.Rule, by Actor) error {
	var old rules.Rule
	ok, err := getJSON(tx.Bucket(bucketRules), u64(r.ID), &old)
	switch {
	case err != nil:
		return err
	case !ok:
		return ErrNotFound
	case old == r:
		return errNoChange
	}
	if err := checkGroupRules(tx, r); err != nil {
		return err
	}
	if err := deleteRule(tx, old); err != nil {
		return err
	}
	if err := putRule(tx, r); err != nil {
		return err
	}
	return d.audit(tx, by, AuditRuleUpdate, r.ID, 0, describeRule(old)+" → "+describeRule(r))
}

// deleteRuleTx is DeleteRule inside tx.
func (d *DB) deleteRuleTx(tx *bolt.Tx, id uint64, by Actor) error {
	var r rules.Rule
	ok, err := getJSON(tx.Bucket(bucketRules), u64(id), &r)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	if err := deleteRule(tx, r); err != nil {
		return err
	}
	return d.audit(tx, by, AuditRuleDelete, id, 0, describeRule(r))
}

// describeRule is a rule in one line for the audit log, in the syntax of the chat
// commands: "#12 require * priority=999999 group=default".
func describeRule(r rules.Rule) string {
	var b strings.Builder
	b.WriteString("#" + strconv.FormatUint(r.ID, 10) + " " + string(r.Action) + " " +
		r.ToolPattern)
	filters := [][2]string{{"path", r.PathPattern}, {"agent", r.AgentID}, {"source", r.Source}}
	for _, kv := range filters {
		if kv[1] != "" {
			b.WriteString(" " + kv[0] + "=" + kv[1])
		}
		if kv[0] == "path" && r.CommandPattern != "" {
			b.WriteString(" command=" + strconv.Quote(r.CommandPattern))
		}
		if kv[0] == "path" && r.HostPattern != "" {
			b.WriteString(" host=" + strconv.Quote(r.HostPattern))
		}
	}
	b.WriteString(" priority=" + strconv.Itoa(r.Priority) + " group=" + r.GroupID)
	if r.Note != "" {
		b.WriteString(" note=" + strconv.Quote(r.Note))
	}
	return b.String()
}

// checkActor requires the actor of a change to name who made it.
func checkActor(by Actor) error {
	if by.By == "" {
		return fmt.Errorf("%w: the actor (by) is required", ErrInvalid)
	}
	return nil
}
