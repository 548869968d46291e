// Package store is skald-bot's persistence: one bbolt file (go.etcd.io/bbolt, which no
// other package imports) holding the permission groups and rules, the approval
// requests, the audit log, the catalog of tools seen, the job runs and a few small
// values that must survive a restart. What is persisted and when, and the guarantees
// that come with it, are told in docs/design.md, "Persistence".
//
// # Using it
//
// Open the file with Open, which checks it is ours, creates what is missing and seeds
// the rules (docs/design.md, "Rule order"). Every change made through the returned *DB is one
// transaction, committed and fsynced before the method returns; every method is safe
// for concurrent use. Close it last.
// Errors wrap the sentinels of errors.go (ErrNotFound, ErrAlreadyResolved, …) with the
// operation: test them with errors.Is. Bad input is refused before anything is written,
// and a failed transaction is rolled back, so an error leaves the file as it was, byte
// for byte.
//
//	db, err := store.Open("data/skald.db", store.Options{})
//	req, created, err := db.CreateRequest(store.Request{…})
//	req, err = db.Resolve(req.ID, store.Approved, store.Resolution{By: "alice", Via: "telegram"})
//
// # Opening safely
//
// bbolt's read-write open writes to a new or unsynced file, so Open first opens an
// existing non-empty file read-only and looks for the meta bucket: a file that is not
// bbolt, a bbolt file without our magic, or one with a newer schema version is refused
// (ErrNotOurs, ErrSchemaVersion) without a byte written. Both opens share one lock
// timeout, DefaultLockTimeout (900 ms) unless Options.Timeout says otherwise, so a file
// held by another skald-bot is refused (ErrLocked) within a second instead of hanging.
//
// # Backup
//
// The service holds the file's lock, so nothing else can read the file while it runs;
// DB.WriteTo writes a consistent copy of the open database to any io.Writer instead
// (the API's GET /api/backup streams it), from one read-only transaction: writers go
// on meanwhile. Verify checks a copy read-only — ours, of a known schema, whole, every
// page consistent — before anyone relies on it.
//
// # Buckets (schema version 1)
//
// Ids are 8-byte big-endian uint64 from the bucket's NextSequence, so cursors walk them
// in creation order. Composite index keys prefix each string with its length (uvarint),
// so prefix scans are exact. Values are JSON of the types in model.go and rules.Rule /
// rules.Group.
//
//	meta                   "magic" → "skald-bot"; "schema" → uint64 SchemaVersion
//	values                 key → bytes (GetMeta/PutMeta: the Telegram update offset, …)
//	groups                 group id → rules.Group
//	rules                  rule id → rules.Rule
//	rules_by_group         (group id, rule id) → ∅
//	requests               request id → Request
//	requests_by_tool_call  (tool call id, session id) → request id   (idempotency)
//	requests_pending       (expires_at ns, request id) → ∅           (pending requests, by expiry)
//	requests_unfinal       request id → ∅                             (a message not yet final)
//	audit                  audit id → AuditEntry
//	tools                  tool name → ∅
//	runs                   run id → Run
//	runs_by_job            (job, run id) → ∅
//	runs_by_status         (status, run id) → ∅
//	runs_by_request        request id → run id
//	deliveries             delivery id → uint64 first-seen ns          (replays)
//	deliveries_by_time     (first-seen ns, delivery id) → ∅
//	clarifications         clarification id → Clarification
//	clarifications_by_id   (clarification_id, session id) → id       (idempotency)
//	clarifications_pending (expires_at ns, id) → ∅                   (the pending ones, by expiry)
//	clarifications_unfinal id → ∅                                     (a message not yet final)
//	clarifications_by_reply (channel, chat, message ref) → id         (reply prompts)
//
// Every index changes in the same transaction as the record it points to. A change to
// this layout must increment SchemaVersion and migrate older files in Open; builds that
// predate it then refuse the file instead of misreading it. Buckets added beside the
// others (the clarification buckets) are no such change: Open creates them in an older
// file, and an older build never opens them.
//
// # Write costs
//
// Every transition is fsynced; there is no NoSync. The hot pair — CreateRequest and
// Resolve — goes through bbolt's db.Batch when several callers write at once, so one
// commit carries many of them (a lone caller commits at once); their transaction
// functions may run more than once and report a lost compare-and-set as a value, never
// as an error. A repeated registration
// or a resolution that cannot win is answered from a read-only transaction, and
// ExpireDue looks at the earliest expiry read-only first, so an idle service writes
// nothing. Methods that find nothing to change roll back instead of committing an
// empty transaction.
//
// # Audit
//
// Every change of a rule or group and every resolution, answer, expiry and cancellation is
// audited in the transaction that makes it (actions "rule.create", "group.delete",
// "request.approved", "request.expired", …), by the Actor given; the store's own
// changes are by "system" (via "seed", "gate" or "retention"). Other audit entries
// (denies, bypasses) come through AppendAudit.
package store
