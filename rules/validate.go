package rules

import (
	"strconv"
	"strings"
)

// The file-tool classes a tool_pattern may name.
const (
	ClassFSRead  = "@fs_read"
	ClassFSWrite = "@fs_write"
	ClassFSAny   = "@fs_any"
)

// Validate checks one rule's syntax and returns nil or a *FieldError wrapping
// ErrInvalidRule that names the field and its value: GroupID [a-z0-9_-]+; ToolPattern
// "*", an exact name, "prefix*" or @fs_read, @fs_write, @fs_any, without spaces or
// control characters; PathPattern and ResolvedPathPattern empty or with a star only
// last, no NUL; Action allow, deny or require; Priority in [MinPriority, MaxPriority];
// CommandPattern and HostPattern empty or valid, on a rule with an exact tool name and
// no path filter (a HostPattern with no CommandPattern). AgentID, Source and Note are
// free text. Whether the group exists, or the tool is a shell or web tool, is checked
// elsewhere (Set.CheckShellRule, Set.CheckHostRule). Validate does no I/O.
func Validate(r Rule) error {
	if !validGroupID(r.GroupID) {
		return &FieldError{Field: "group_id", Value: r.GroupID,
			Problem: "must match [a-z0-9_-]+", quote: true}
	}
	if problem := toolPatternProblem(r.ToolPattern); problem != "" {
		return &FieldError{Field: "tool_pattern", Value: r.ToolPattern,
			Problem: problem, quote: true}
	}
	if problem := pathPatternProblem(r.PathPattern); problem != "" {
		return &FieldError{Field: "path_pattern", Value: r.PathPattern,
			Problem: problem, quote: true}
	}
	if problem := pathPatternProblem(r.ResolvedPathPattern); problem != "" {
		return &FieldError{Field: "resolved_path_pattern", Value: r.ResolvedPathPattern,
			Problem: problem, quote: true}
	}
	if r.ResolvedPathPattern != "" && r.PathPattern == "" {
		return &FieldError{Field: "resolved_path_pattern", Value: r.ResolvedPathPattern,
			Problem: "set without a path_pattern", quote: true}
	}
	if r.CommandPattern != "" {
		if err := commandPatternError(r); err != nil {
			return err
		}
	}
	if r.HostPattern != "" {
		if err := hostPatternError(r); err != nil {
			return err
		}
	}
	switch r.Action {
	case Allow, Deny, Require:
	default:
		return &FieldError{Field: "action", Value: string(r.Action),
			Problem: "must be allow, deny or require", quote: true}
	}
	if r.Priority < MinPriority || r.Priority > MaxPriority {
		return &FieldError{Field: "priority", Value: strconv.Itoa(r.Priority),
			Problem: "must be between " + strconv.Itoa(MinPriority) + " and " +
				strconv.Itoa(MaxPriority)}
	}
	return nil
}

// IsCatchAll reports whether r is an unfiltered "*" rule: tool_pattern "*" and no path,
// agent or source filter (seeding).
func IsCatchAll(r Rule) bool {
	return r.ToolPattern == "*" && r.PathPattern == "" && r.ResolvedPathPattern == "" &&
		r.AgentID == "" && r.Source == ""
}

// CheckCatchAll refuses r when it is a catch-all (IsCatchAll) and group — the rules
// stored so far; rules of another group than r.GroupID are ignored — already holds a
// catch-all with a different action, other than r itself (same ID, so an update of the
// catch-all is accepted). It returns nil or a *CatchAllError naming the existing rule,
// which matches ErrCatchAll and ErrInvalidRule ("group G already has a
// catch-all (rule N); edit that one"). A second catch-all with the same action is
// accepted.
func CheckCatchAll(group []Rule, r Rule) error {
	if !IsCatchAll(r) {
		return nil
	}
	for _, g := range group {
		if g.ID == r.ID || g.GroupID != r.GroupID || !IsCatchAll(g) || g.Action == r.Action {
			continue
		}
		return &CatchAllError{Group: r.GroupID, RuleID: g.ID}
	}
	return nil
}

func validGroupID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// toolPatternProblem says what is wrong with a tool_pattern, "" when nothing is.
func toolPatternProblem(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "must not contain spaces or control characters"
	case p[0] == '@':
		if p != ClassFSRead && p != ClassFSWrite && p != ClassFSAny {
			return "unknown class; use @fs_read, @fs_write or @fs_any"
		}
	case strings.IndexByte(p, '*') >= 0 && strings.IndexByte(p, '*') != len(p)-1:
		return "a star is only allowed at the end"
	}
	return ""
}

// pathPatternProblem says what is wrong with a path_pattern, "" when nothing is.
func pathPatternProblem(p string) string {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return "must not contain a NUL byte"
	case strings.IndexByte(p, '*') >= 0 && strings.IndexByte(p, '*') != len(p)-1:
		return `a star is only allowed as "<dir>/*" or at the end`
	}
	return ""
}
