package rules

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors of the rules package. Test for them with errors.Is.
var (
	// ErrInvalidRule is wrapped by every error Validate and CheckCatchAll return
	// (a bad pattern, action, priority or group id).
	ErrInvalidRule = errors.New("invalid rule")

	// ErrCatchAll is returned (as a *CatchAllError) when a rule would give its group a
	// second unfiltered "*" rule with a different action (seeding). It also
	// matches ErrInvalidRule.
	ErrCatchAll = fmt.Errorf("%w: second catch-all", ErrInvalidRule)

	// ErrBadPath is wrapped by Normalize when a path cannot be normalised: it is empty,
	// holds a NUL byte, is relative with no absolute base, runs into a symlink loop, or
	// meets a file system error other than "does not exist" and "not a directory"
	//.
	ErrBadPath = errors.New("path cannot be normalised")
)

// FieldError is the error Validate returns: which field of a rule is wrong, its value
// as written, and why. Its message reads `rules: tool_pattern "a*b": a star is only
// allowed at the end`. It wraps ErrInvalidRule.
type FieldError struct {
	Field   string // the JSON name of the field: action, priority, tool_pattern, …
	Value   string // the bad value, as written
	Problem string
	quote   bool // whether Value is printed quoted (strings) or bare (numbers)
}

// Error returns `rules: <field> <value>: <problem>`.
func (e *FieldError) Error() string {
	v := e.Value
	if e.quote {
		v = strconv.Quote(v)
	}
	return "rules: " + e.Field + " " + v + ": " + e.Problem
}

// Unwrap returns ErrInvalidRule.
func (e *FieldError) Unwrap() error { return ErrInvalidRule }

// CatchAllError is the error CheckCatchAll returns: Group already has the unfiltered
// "*" rule RuleID with another action. Its message is exactly
// `group G already has a catch-all (rule N); edit that one`. It matches both
// ErrCatchAll and ErrInvalidRule.
type CatchAllError struct {
	Group  string
	RuleID uint64
}

// Error returns `group G already has a catch-all (rule N); edit that one`.
func (e *CatchAllError) Error() string {
	return "group " + e.Group + " already has a catch-all (rule " +
		strconv.FormatUint(e.RuleID, 10) + "); edit that one"
}

// Unwrap returns ErrCatchAll, which itself wraps ErrInvalidRule.
func (e *CatchAllError) Unwrap() error { return ErrCatchAll }
