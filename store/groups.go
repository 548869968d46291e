package store

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/rules"
)

// MaxNameLen is the longest group id or job name accepted, in bytes.
const MaxNameLen = 64

// namePattern is what group ids and job names match.
var namePattern = regexp.MustCompile(`^[a-z0-9_-]+$`)

// checkName checks a group id or job name (kind says which, for the message).
func checkName(kind, s string) error {
	if len(s) > MaxNameLen || !namePattern.MatchString(s) {
		return fmt.Errorf("%w: %s %q must match [a-z0-9_-]+ and be at most %d bytes",
			ErrInvalid, kind, s, MaxNameLen)
	}
	return nil
}

// Group returns group id, or ErrNotFound.
func (d *DB) Group(id string) (rules.Group, error) {
	g, err := viewOne(d, func(tx *bolt.Tx) (rules.Group, bool, error) {
		return getAs[rules.Group](tx.Bucket(bucketGroups), []byte(id))
	})
	if err != nil {
		return rules.Group{}, fmt.Errorf("store: group %q: %w", id, err)
	}
	return g, nil
}

// Groups returns every permission group, sorted by id.
func (d *DB) Groups() ([]rules.Group, error) {
	var out []rules.Group
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = allAs[rules.Group](tx.Bucket(bucketGroups))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	return out, nil // bbolt keeps keys sorted
}

// CreateGroup stores a new permission group, empty, and audits "group.create". An
// empty Name is set to the id. Errors (nothing is written): ErrInvalid (an id not
// matching [a-z0-9_-]+ or longer than MaxNameLen, a name or description that holds a
// control character or is not UTF-8 — see checkGroupText —, no actor), ErrExists.
func (d *DB) CreateGroup(g rules.Group, by Actor) error {
	if g.Name == "" {
		g.Name = g.ID
	}
	if err := checkGroup(g, by); err != nil {
		return fmt.Errorf("store: create group %q: %w", g.ID, err)
	}
	err := d.update(func(tx *bolt.Tx) error { return d.createGroup(tx, g, by, "") })
	if err != nil {
		return fmt.Errorf("store: create group %q: %w", g.ID, err)
	}
	return nil
}

func checkGroup(g rules.Group, by Actor) error {
	if err := checkActor(by); err != nil {
		return err
	}
	if err := checkName("group id", g.ID); err != nil {
		return err
	}
	return checkGroupText(g)
}

// checkGroupText refuses a group name or description that holds a control character
// (a NUL byte, a newline, a tab, …) or is not valid UTF-8: chat messages, the audit log
// and listings show them on one line. Markup such as HTML is accepted: the channels
// escape it.
func checkGroupText(g rules.Group) error {
	fields := []struct{ field, v string }{{"name", g.Name}, {"description", g.Description}}
	for _, f := range fields {
		switch {
		case !utf8.ValidString(f.v):
			return fmt.Errorf("%w: group %s %q is not valid UTF-8", ErrInvalid, f.field, f.v)
		case strings.ContainsFunc(f.v, unicode.IsControl):
			return fmt.Errorf("%w: group %s %q must not hold control characters "+
				"(newline, tab, NUL, …)", ErrInvalid, f.field, f.v)
		}
	}
	return nil
}

// createGroup stores g, which must not exist, and audits it with detail.
func (d *DB) createGroup(tx *bolt.Tx, g rules.Group, by Actor, detail string) error {
	b := tx.Bucket(bucketGroups)
	if b.Get([]byte(g.ID)) != nil {
		return ErrExists
	}
	if err := putJSON(b, []byte(g.ID), g); err != nil {
		return err
	}
	return d.audit(tx, by, AuditGroupCreate, 0, 0, strings.TrimSpace(describeGroup(g)+" "+detail))
}

// UpdateGroup replaces the name and description of group g.ID (an empty Name is set to
// the id) and audits "group.update". An update that changes nothing writes nothing.
// Errors (nothing is written): ErrNotFound, ErrInvalid (a name or description that
// holds a control character or is not UTF-8, no actor).
func (d *DB) UpdateGroup(g rules.Group, by Actor) error {
	if g.Name == "" {
		g.Name = g.ID
	}
	if err := checkActor(by); err != nil {
		return fmt.Errorf("store: update group %q: %w", g.ID, err)
	}
	if err := checkGroupText(g); err != nil {
		return fmt.Errorf("store: update group %q: %w", g.ID, err)
	}
	err := d.update(func(tx *bolt.Tx) error { return d.updateGroup(tx, g, by) })
	if err != nil {
		return fmt.Errorf("store: update group %q: %w", g.ID, err)
	}
	return nil
}

// updateGroup is UpdateGroup inside tx; g is checked. A group that does not change
// returns errNoChange and writes nothing.
func (d *DB) updateGroup(tx *bolt.Tx, g rules.Group, by Actor) error {
	var old rules.Group
	ok, err := getJSON(tx.Bucket(bucketGroups), []byte(g.ID), &old)
	switch {
	case err != nil:
		return err
	case !ok:
		return ErrNotFound
	case old == g:
		return errNoChange
	}
	if err := putJSON(tx.Bucket(bucketGroups), []byte(g.ID), g); err != nil {
		return err
	}
	return d.audit(tx, by, AuditGroupUpdate, 0, 0, describeGroup(old)+" → "+describeGroup(g))
}

// DeleteGroup deletes group id and all its rules in one transaction, and audits
// "group.delete" naming the rules it deleted.
// Errors (nothing is written): ErrProtected for rules.DefaultGroup or a group listed
// in inUse (the groups the configured profiles use), ErrNotFound, ErrInvalid (no
// actor).
func (d *DB) DeleteGroup(id string, inUse []string, by Actor) error {
	err := checkActor(by)
	switch {
	case err != nil:
	case id == rules.DefaultGroup:
		err = fmt.Errorf("%w: the default group cannot be deleted", ErrProtected)
	case slices.Contains(inUse, id):
		err = fmt.Errorf("%w: a profile uses it", ErrProtected)
	}
	if err != nil {
		return fmt.Errorf("store: delete group %q: %w", id, err)
	}
	err = d.update(func(tx *bolt.Tx) error {
		var g rules.Group
		ok, err := getJSON(tx.Bucket(bucketGroups), []byte(id), &g)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		rs, err := groupRules(tx, id)
		if err != nil {
			return err
		}
		ids := make([]string, len(rs))
		for i, r := range rs {
			if err := deleteRule(tx, r); err != nil {
				return err
			}
			ids[i] = "#" + strconv.FormatUint(r.ID, 10)
		}
		if err := tx.Bucket(bucketGroups).Delete([]byte(id)); err != nil {
			return err
		}
		detail := fmt.Sprintf("%s with %d rules", describeGroup(g), len(rs))
		if len(ids) > 0 {
			detail += " (" + strings.Join(ids, " ") + ")"
		}
		return d.audit(tx, by, AuditGroupDelete, 0, 0, detail)
	})
	if err != nil {
		return fmt.Errorf("store: delete group %q: %w", id, err)
	}
	return nil
}

// DuplicateGroup creates group g with a copy of every rule of group src, under new rule
// ids in the order of the originals, all in one transaction, audited as one
// "group.duplicate". An empty Name is set to the id. Returns the new rules, in id order.
// Errors (nothing is written): ErrNotFound (src), ErrExists (g.ID), ErrInvalid (a bad
// id, a name or description with a control character, no actor).
func (d *DB) DuplicateGroup(src string, g rules.Group, by Actor) ([]rules.Rule, error) {
	if g.Name == "" {
		g.Name = g.ID
	}
	if err := checkGroup(g, by); err != nil {
		return nil, fmt.Errorf("store: duplicate group %q as %q: %w", src, g.ID, err)
	}
	var out []rules.Rule
	err := d.update(func(tx *bolt.Tx) error {
		out = nil
		if tx.Bucket(bucketGroups).Get([]byte(src)) == nil {
			return fmt.Errorf("group %q: %w", src, ErrNotFound)
		}
		b := tx.Bucket(bucketGroups)
		if b.Get([]byte(g.ID)) != nil {
			return fmt.Errorf("group %q: %w", g.ID, ErrExists)
		}
		if err := putJSON(b, []byte(g.ID), g); err != nil {
			return err
		}
		rs, err := groupRules(tx, src)
		if err != nil {
			return err
		}
		for _, r := range rs {
			r.GroupID = g.ID
			if r.ID, err = tx.Bucket(bucketRules).NextSequence(); err != nil {
				return err
			}
			if err := putRule(tx, r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return d.audit(tx, by, AuditGroupDuplicate, 0, 0,
			fmt.Sprintf("%s from group %s with %d rules", describeGroup(g), src, len(out)))
	})
	if err != nil {
		return nil, fmt.Errorf("store: duplicate group %q as %q: %w", src, g.ID, err)
	}
	return out, nil
}

// EnsureGroups creates, empty and each audited "group.create", every group of ids that
// does not exist (the groups the configuration's profiles name), in one
// transaction. It returns the ids it created, in the order given; when all exist it
// writes nothing. Errors (nothing is written): ErrInvalid (a bad id, no actor).
func (d *DB) EnsureGroups(ids []string, by Actor) (created []string, err error) {
	if err := checkActor(by); err != nil {
		return nil, fmt.Errorf("store: ensure groups: %w", err)
	}
	for _, id := range ids {
		if err := checkName("group id", id); err != nil {
			return nil, fmt.Errorf("store: ensure groups: %w", err)
		}
	}
	err = d.update(func(tx *bolt.Tx) error {
		created = nil
		for _, id := range ids {
			if tx.Bucket(bucketGroups).Get([]byte(id)) != nil {
				continue
			}
			g := rules.Group{ID: id, Name: id}
			if err := d.createGroup(tx, g, by, "(named by the configuration)"); err != nil {
				return err
			}
			created = append(created, id)
		}
		if len(created) == 0 {
			return errNoChange
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: ensure groups: %w", err)
	}
	return created, nil
}

// describeGroup is a group in a few words for the audit log.
func describeGroup(g rules.Group) string {
	s := g.ID
	if g.Name != "" && g.Name != g.ID {
		s += " " + strconv.Quote(g.Name)
	}
	return s
}
