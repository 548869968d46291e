package rules

import (
	"cmp"
	"strings"
)

// Compare orders two rules of one group as evaluation tries them: by Priority, then by
// ID (docs/design.md, "Rule order"). It returns -1, 0 or +1, as cmp.Compare does.
func Compare(a, b Rule) int {
	return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.ID, b.ID))
}

// Shadow tells which earlier rules decide, with another action, every call a rule can
// match; see Shadowing.
type Shadow struct {
	// First is the rule of the rule's own group that does, if any.
	First *Rule
	// Priority is the priority that would put the rule before First, -1 when none can
	// (First has MinPriority) or First is nil.
	Priority int
	// Groups are, for a rule of DefaultGroup, the first such rule of each other group
	// whose calls it decides before the default tier, in the order of all.
	Groups []Rule
}

// Shadowing reports the rules of all that make r change nothing for some calls: an
// earlier rule with another action and no agent, source or path filter whose tool
// pattern matches every tool r's matches. all are every group's rules, r may be among
// them. Tool classes are compared by name (@fs_any covers @fs_read and @fs_write), as
// their members are configured elsewhere: a shadow may be missed, never invented.
func Shadowing(all []Rule, r Rule) Shadow {
	s := Shadow{Priority: -1}
	if e, ok := firstCovering(all, r.GroupID, r); ok && e.Action != r.Action {
		s.First = &e
		if e.Priority > MinPriority {
			s.Priority = e.Priority - 1
		}
	}
	if r.GroupID != DefaultGroup {
		return s
	}
	seen := map[string]bool{DefaultGroup: true}
	for _, g := range all {
		if seen[g.GroupID] {
			continue
		}
		seen[g.GroupID] = true
		if e, ok := firstCovering(all, g.GroupID, r); ok && e.Action != r.Action {
			s.Groups = append(s.Groups, e)
		}
	}
	return s
}

// firstCovering returns the first rule of group, in evaluation order, that decides
// every call r can match. In r's own group only the rules sorting before r count.
func firstCovering(all []Rule, group string, r Rule) (Rule, bool) {
	var best Rule
	found := false
	for _, e := range all {
		if e.GroupID != group || e.ID == r.ID || !Covers(e, r) {
			continue
		}
		if group == r.GroupID && Compare(e, r) >= 0 {
			continue
		}
		if !found || Compare(e, best) < 0 {
			best, found = e, true
		}
	}
	return best, found
}

// Covers reports whether rule e, when tried, decides every call rule r can match: e has
// no agent, source, path, command or host filter and its tool pattern matches every tool
// r's matches, tool classes compared by name as in Shadowing. Groups, actions and
// priorities are not looked at.
func Covers(e, r Rule) bool {
	return e.AgentID == "" && e.Source == "" && e.PathPattern == "" &&
		e.CommandPattern == "" && e.HostPattern == "" && coversTool(e.ToolPattern, r.ToolPattern)
}

// coversTool reports whether tool pattern e matches every tool name pattern p matches.
func coversTool(e, p string) bool {
	switch {
	case e == "*" || e == p:
		return true
	case strings.HasPrefix(e, "@"):
		return e == ClassFSAny && (p == ClassFSRead || p == ClassFSWrite)
	case strings.HasSuffix(e, "*"):
		return !strings.HasPrefix(p, "@") && p != "*" &&
			strings.HasPrefix(strings.TrimSuffix(p, "*"), strings.TrimSuffix(e, "*"))
	}
	return false
}
