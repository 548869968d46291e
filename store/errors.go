package store

import "errors"

// Sentinel errors. Every error a DB method returns wraps one of these (or
// rules.ErrInvalidRule / rules.ErrCatchAll for a refused rule, or an I/O error from
// the file system) with the operation and its subject, e.g.
// "store: resolve 7: request already resolved (approved by alice via telegram)".
// Test them with errors.Is.
var (
	// ErrNotFound: the request, rule, group or run does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: a group with that id already exists.
	ErrExists = errors.New("already exists")
	// ErrInvalid: the input is malformed (a bad group id or job name, a group name or
	// description with a control character, arguments that are not a JSON object or
	// exceed MaxArgumentsSize, an unknown status, a missing actor, …). Nothing was
	// written.
	ErrInvalid = errors.New("invalid input")
	// ErrUnknownGroup: a rule names a permission group that does not exist.
	ErrUnknownGroup = errors.New("unknown group")
	// ErrProtected: the group cannot be deleted (it is "default", or a profile uses it).
	ErrProtected = errors.New("group is protected")
	// ErrAlreadyResolved: the request left pending before this resolution; the method
	// also returns the stored request, whose Resolution says who won.
	ErrAlreadyResolved = errors.New("request already resolved")
	// ErrExpired: the resolution came after the request's expires_at.
	ErrExpired = errors.New("request expired")
	// ErrToolCallReused: a (session, tool call id) already registered was sent again
	// for a call that differs in any field, or by another caller (see
	// DB.CreateRequest).
	ErrToolCallReused = errors.New("tool_call_id reused for a different call")
	// ErrLocked: another process holds the database file.
	ErrLocked = errors.New("database is locked by another process (is another skald-bot running?)")
	// ErrNotOurs: the file is not a skald-bot database; it was not written.
	ErrNotOurs = errors.New("not a skald-bot database")
	// ErrSchemaVersion: the database has a schema version this build does not know
	// (written by a newer skald-bot); it was not written.
	ErrSchemaVersion = errors.New("unknown schema version")
	// ErrCorrupt: Verify found damaged pages in the file (bbolt's consistency check).
	ErrCorrupt = errors.New("database is damaged")
	// ErrClosed: the DB was closed.
	ErrClosed = errors.New("database closed")
)
