package bench

import "errors"

// Sentinel errors of the bench package, wrapped with the operation and tested with
// errors.Is.
var (
	// ErrMismatch: two engines decided one call differently (Compare).
	ErrMismatch = errors.New("engines disagree")
	// ErrNotOrderFree: a policy holds a rule Cedar cannot express without ordering — a
	// require rule, or any rule of an Ordered mix (NewCedar, CedarPolicies).
	ErrNotOrderFree = errors.New("policy depends on rule order")
	// ErrEngine: an engine failed to answer (an OPA evaluation error, a Cedar
	// evaluation error, an answer of an unexpected shape).
	ErrEngine = errors.New("engine failed")
)
