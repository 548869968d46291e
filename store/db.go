package store

import (
	"time"

	"github.com/skald-circle/skald-bot/rules"
)

// Options configure Open. The zero value is usable.
type Options struct {
	// Timeout is how long Open waits for the file lock held by another process;
	// zero means DefaultLockTimeout (just under 1 s, SPEC §11, §12.24).
	Timeout time.Duration
	// Now is the clock used for created/resolved/audit times; nil means time.Now.
	Now func() time.Time
	// FSRead, FSWrite and WorkspaceRoot are not needed by the store; seeding writes
	// the seed rules of SPEC §4 as plain rules.
}

// DefaultLockTimeout is Open's wait for a locked file when Options.Timeout is zero.
const DefaultLockTimeout = 900 * time.Millisecond

// DB is the skald-bot database: one bbolt file holding groups, rules, approval
// requests, the audit log, the tool catalog, job runs and small meta values. It is
// safe for concurrent use. Every method is one transaction, committed before it returns.
type DB struct{}

// Open opens (creating when absent) the database at path, checks it is ours and of a
// known schema version — opening it read-only first, so a foreign or newer file is never
// written — creates the buckets, and seeds it as SPEC §4 says (group default; the first
// rules only when there are none; the three path rules and the catch-all when absent).
// Errors: ErrLocked (another process holds it, after opt.Timeout), ErrNotOurs,
// ErrSchemaVersion, or an I/O error, each naming the path.
func Open(path string, opt Options) (*DB, error) { panic("todo") }

// Close closes the file; it waits for running transactions.
func (d *DB) Close() error { panic("todo") }

// Groups returns every permission group, sorted by id.
func (d *DB) Groups() ([]rules.Group, error) { panic("todo") }

// Rules returns every rule of every group, sorted by (group, priority, id).
func (d *DB) Rules() ([]rules.Rule, error) { panic("todo") }

// CreateRule validates r (rules.Validate), checks its group exists (ErrUnknownGroup),
// refuses a second catch-all with another action (rules.CheckCatchAll), assigns the
// next rule id and stores it with an audit entry, all in one transaction. r.ID is
// ignored. Returns the stored rule. Errors wrap rules.ErrInvalidRule or ErrUnknownGroup.
func (d *DB) CreateRule(r rules.Rule, by Actor) (rules.Rule, error) { panic("todo") }

// UpdateRule replaces rule r.ID (ErrNotFound when absent) with the same checks as
// CreateRule, and audits it. Returns the stored rule.
func (d *DB) UpdateRule(r rules.Rule, by Actor) (rules.Rule, error) { panic("todo") }

// DeleteRule deletes rule id and audits it. ErrNotFound when absent.
func (d *DB) DeleteRule(id uint64, by Actor) error { panic("todo") }

// CreateGroup stores a new group (id must match [a-z0-9_-]+: ErrInvalid; ErrExists when
// taken) and audits it.
func (d *DB) CreateGroup(g rules.Group, by Actor) error { panic("todo") }

// UpdateGroup changes a group's name and description. ErrNotFound when absent.
func (d *DB) UpdateGroup(g rules.Group, by Actor) error { panic("todo") }

// DeleteGroup deletes a group and all its rules in one transaction, audited.
// ErrProtected for "default" or a group listed in inUse (used by a profile, SPEC
// §12.16); ErrNotFound when absent.
func (d *DB) DeleteGroup(id string, inUse []string, by Actor) error { panic("todo") }

// DuplicateGroup creates group g with a copy of every rule of src (new ids), in one
// transaction, audited. Returns the new rules. ErrNotFound (src), ErrExists (g.ID),
// ErrInvalid (bad id).
func (d *DB) DuplicateGroup(src string, g rules.Group, by Actor) ([]rules.Rule, error) {
	panic("todo")
}

// EnsureGroups creates, empty and audited, each listed group that does not exist
// (SPEC §12.26) and returns the ids it created.
func (d *DB) EnsureGroups(ids []string, by Actor) (created []string, err error) { panic("todo") }

// CreateRequest stores a new pending approval request with the next request id. When
// r.ToolCallID is not empty and (r.SessionID, r.ToolCallID) is already registered, it
// stores nothing and returns the existing request with created=false — or
// ErrToolCallReused when its tool name or arguments (canonical JSON bytes) differ
// (SPEC §12.5). The lookup and the insert are one transaction.
func (d *DB) CreateRequest(r Request) (req Request, created bool, err error) { panic("todo") }

// Request returns request id, or ErrNotFound.
func (d *DB) Request(id uint64) (Request, error) { panic("todo") }

// RequestByToolCall returns the request registered for (sessionID, toolCallID), or
// ErrNotFound.
func (d *DB) RequestByToolCall(sessionID, toolCallID string) (Request, error) {
	panic("todo")
}

// RequestsByToolCallID returns every request with that tool call id, across sessions,
// oldest first (for POST /api/tools/{tool_call_id}/resolve).
func (d *DB) RequestsByToolCallID(toolCallID string) ([]Request, error) { panic("todo") }

// Pending returns every pending request, oldest first.
func (d *DB) Pending() ([]Request, error) { panic("todo") }

// Resolve is the compare-and-set of SPEC §5: in one transaction, when request id is
// pending and res.At is not after its ExpiresAt, it sets status (Approved, Rejected or
// Cancelled) and res, appends the audit entry, and returns the updated request. When the
// request already left pending it changes nothing and returns the stored request with
// ErrAlreadyResolved; past its expiry, ErrExpired (and changes nothing); ErrNotFound.
// Concurrent resolutions may be grouped with db.Batch; a lost compare-and-set is a
// returned value inside the batch, never an error that re-runs the batch (SPEC §12.20).
func (d *DB) Resolve(id uint64, status Status, res Resolution) (Request, error) {
	panic("todo")
}

// ExpireDue marks Expired, audited, every pending request whose ExpiresAt is not after
// now, and returns them.
func (d *DB) ExpireDue(now time.Time) ([]Request, error) { panic("todo") }

// CancelSession marks Cancelled, with res, audited, every pending request of the
// session, and returns them.
func (d *DB) CancelSession(sessionID string, res Resolution) ([]Request, error) {
	panic("todo")
}

// AddMessage records that request id is shown by chat message m (SPEC §12.6). Adding
// the same (channel, chat, ref) twice stores it once. ErrNotFound when absent.
func (d *DB) AddMessage(id uint64, m Message) error { panic("todo") }

// MarkMessagesFinal marks every message of request id as edited to its outcome.
func (d *DB) MarkMessagesFinal(id uint64) error { panic("todo") }

// AppendAudit appends entries to the audit log, assigning ids; a zero At is set to now.
func (d *DB) AppendAudit(entries ...AuditEntry) error { panic("todo") }

// Audit returns at most limit audit entries, newest first.
func (d *DB) Audit(limit int) ([]AuditEntry, error) { panic("todo") }

// AddTools adds tool names to the catalog of tools seen; known ones are ignored.
func (d *DB) AddTools(names []string) error { panic("todo") }

// Tools returns every tool name seen, sorted.
func (d *DB) Tools() ([]string, error) { panic("todo") }
