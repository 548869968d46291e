package gate

import (
	"errors"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Sentinel errors of the gate. Every error a Manager method returns wraps one of these
// (or a store or I/O error) with the operation, so callers test them with errors.Is.
// The store's and the rule engine's sentinels are re-exported so that api and bot need
// only import gate to classify an error.
var (
	// ErrUnknownGroup: a call, rule or listing names a permission group that does not
	// exist (API 422). It is the store's sentinel, so a rule created in an
	// unknown group reports the same one.
	ErrUnknownGroup = store.ErrUnknownGroup
	// ErrUnknownProfile: a call names a profile the configuration does not define
	// (API 422).
	ErrUnknownProfile = errors.New("unknown profile")
	// ErrForbidden: the caller may not do this — an agent token or the local caller
	// resolving any request, reading or cancelling another caller's request, or using
	// a scheduled run's session (API 403).
	ErrForbidden = errors.New("forbidden")
	// ErrTooManyPending: a new request would pass a pending limit (Limits; API 429).
	ErrTooManyPending = errors.New("too many pending requests")
	// ErrInvalidScope: a bypass scope other than all, category:<c>, mcp:<server> or
	// tool:<name> (API 422).
	ErrInvalidScope = errors.New("invalid bypass scope")
	// ErrInvalidBypass: a bypass of negative length, or longer than MaxBypassSecs
	// (API 422).
	ErrInvalidBypass = errors.New("invalid bypass")
	// ErrNoSession: a bypass or a session cancellation without a session id (API 400).
	ErrNoSession = errors.New("session id is required")
	// ErrInvalidCall: a tool call without a tool name, or whose arguments cannot be
	// encoded as JSON (API 400).
	ErrInvalidCall = errors.New("invalid tool call")
	// ErrRunning: Run was called on a Manager already running.
	ErrRunning = errors.New("already running")

	// ErrNotFound: no such request, rule or group.
	ErrNotFound = store.ErrNotFound
	// ErrAlreadyResolved: the request left pending before this resolution (API
	// 409). The wrapping error says who resolved it and how.
	ErrAlreadyResolved = store.ErrAlreadyResolved
	// ErrExpired: the resolution arrived after the request's expires_at.
	ErrExpired = store.ErrExpired
	// ErrToolCallReused: a (session, tool_call_id) already registered for a call that
	// differs in any field, or by another caller (API 409).
	ErrToolCallReused = store.ErrToolCallReused
	// ErrExists: a group id already taken.
	ErrExists = store.ErrExists
	// ErrProtected: deleting group default or a group a profile uses (API
	// 409).
	ErrProtected = store.ErrProtected
	// ErrInvalid: a malformed group id, or a group name or description
	// holding a control character.
	ErrInvalid = store.ErrInvalid
	// ErrInvalidRule: a rule that fails validation — bad pattern, action or priority,
	// or a second catch-all (API 422).
	ErrInvalidRule = rules.ErrInvalidRule
)
