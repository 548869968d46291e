// Package gate is skald-bot's approval manager: every tool call an agent or a scheduled
// job wants to make goes through Manager.Check, and the calls that need a human go
// through register → wait → resolve. docs/design.md tells the whole design ("Deciding a
// call", "Approval requests", "Bypasses"); this comment says how the package does it.
//
// # Checking
//
// Check picks the call's permission group (its group, else its profile's security
// group, else default) and evaluates it with the rules package against an immutable
// snapshot of every rule, held in an atomic pointer. A check therefore reads no disk
// and, for a tool already seen, allocates nothing. Allow and deny are answered at once;
// a deny is written to the audit log by a background batcher. A require becomes an
// allow when the session holds a bypass covering the call (all, a category, an MCP
// server or one tool; deny is never bypassed) or when the profile fast-path applies —
// never for a locked decision (rules.Decision.Locked), which a human must approve. The
// fast-path takes a call whose every path, in every form, lies in the profile's places
// (rules.Decision.Inside), or a file tool's working directory when it sent none.
// Otherwise the call is registered as an approval request: committed to the store
// first, then shown by the Notifier (the chat channels) and announced on the event bus.
// Registration is idempotent on (session, tool_call_id): the same call of the same
// caller gets its request back, anything else ErrToolCallReused. If the rules cannot be
// loaded the gate is fail-closed: every check requires approval.
//
// Every change of a rule or group goes through the Manager (CreateRule, DeleteGroup,
// …): it is validated, written to the store, and the snapshot is rebuilt from the
// store and swapped in whole.
//
// # Waiting and resolving
//
// Wait blocks until a request leaves pending, woken — never polling — by Resolve,
// CancelRequest, CancelSession or the expiry sweeper. Resolve is one compare-and-set in
// the store, so of any number of concurrent taps exactly one wins and the others learn
// who won ("already approved by alice via telegram"). An approval may grant a session
// bypass (15 minutes, the whole session, or N seconds up to MaxBypassSecs, 366 days).
// Bypasses live in memory only.
//
// # Callers and limits
//
// Every call has a caller (Call.Caller): an agent token's name, the token-less local
// caller, the admin, or cron. A bypass granted by an approval covers only the calls of
// the request's caller, profile and agent id in its session; one an admin sets covers
// every caller unless it names one; a scheduled run's bypasses end with the run
// (EndSession). Its default scope is the category the configuration gives the tool —
// a category the caller sends is only recorded as claimed — else its MCP server, else
// the tool. Agents' callers may not use "cron:" sessions, nor resolve, nor read or
// cancel another caller's requests. Pending requests are counted per caller and in
// total against Limits, the count initialised from the store by New; past a limit a
// new request is ErrTooManyPending, while a replay still gets its request.
//
// # Background work
//
// Run owns every goroutine the gate starts: the expiry sweeper (a request pending past
// its expires_at is expired within a second), the batcher that writes deny audit
// entries and new tool names, and the goroutines that call the Notifier (never under a
// lock). Events (approval_requested, approval_resolved, and cron's run events through
// Publish) go to subscribers without blocking; a subscriber that falls behind is
// dropped.
//
// The gate depends on persistence only through the Store interface, which *store.DB
// implements; the clock is injected through Options.Now.
package gate
