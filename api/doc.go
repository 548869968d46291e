// Package api is skald-bot's HTTP API and the Go client the command line and the Claude
// Code hook use. docs/design.md, "HTTP API", is its contract.
//
// # Server
//
// New builds a Server over a gate.Manager (checks, requests, rules, groups, bypasses,
// events), a Store (the audit log, tool-call-id lookups) and optionally Jobs (the
// scheduler). A Server is an http.Handler; Serve runs it on a listener until its
// context ends, then shuts down cleanly: no new connections, long-polls and event
// streams ended, in-flight calls given ShutdownTimeout to finish.
//
// Every /api/* call needs "Authorization: Bearer <token>", compared exactly and in
// constant time (SHA-256 digests and crypto/subtle); tokens are at least MinTokenLen
// characters. There is always an admin token (Options.Token). Agent tokens may only
// check tool calls, read and cancel the requests they made, and ask what is visible —
// always in their own profile, with their agent id, never as source cron. When the
// admin token was generated and there are no agent tokens (Options.Generated), those
// agent routes also take calls without a token, as the local caller, and Serve
// refuses to listen beyond loopback (docs/design.md, "Authentication").
//
// Before anything runs, every route refuses what a web page could send: a Host that
// is not a loopback IP, localhost or an AllowedHost (403), an Origin other than the
// service's own (403), and under /api/ a POST, PUT or DELETE body that is not
// application/json (415). Serve bounds headers, bodies, idle connections and answers
// in time and caps the open connections (Options; docs/design.md, "Timeouts and
// limits"): a slow body is answered 408 and its connection closed, a connection
// beyond the cap is answered 503 and closed at once.
//
// Errors are JSON {"error": "..."} with the statuses of docs/design.md, "HTTP API":
// 400 malformed JSON or an unknown action, 401 no or a wrong token, 403 an agent
// overstepping (or using a cron: session) or a foreign Host or Origin, 404 unknown, 408
// a body too slow, 409 already resolved, expired, tool_call_id reused, group exists or
// protected, 413 a body over 1 MiB, 415 a body that is not JSON, 422 an invalid rule or
// pattern, unknown group or profile, bad bypass scope or caller, 429 too many requests
// pending; anything else is 500 "internal error", with the whole error chain only in
// the log.
//
// A new rule (POST /api/approval/rules) without priority gets rules.DefaultPriority and
// without group_id goes to the default group; PUT /api/approval/rules/{id} merges its
// body onto the stored rule, so {"action":"deny"} changes the action only.
//
// POST /api/approval/check and GET /api/approval/requests/{id} take wait_secs (capped
// at MaxWaitSecs): they answer the moment the request is resolved, or when the wait runs
// out (then still pending), or when the client goes away. GET /api/events streams the
// gate's events as Server-Sent Events. GET /healthz and GET /metrics (Prometheus text
// format, see Metrics) need no token. The X-Skald-Actor header says who an admin's
// resolution or change is recorded as; for an agent token or the local caller it is
// ignored and the caller's name is recorded (docs/design.md, "Authentication").
//
// GET /api/backup (admin only; our addition, for operators: the service holds the
// database's lock) streams a consistent copy of the database, taken in one read
// transaction of the store while writes go on, as application/octet-stream with a file
// name skald-<UTC time>.db. A copy that fails mid-way cuts the connection, so a client
// never mistakes it for a whole one; a client that takes nothing for 30 s is cut off,
// so it cannot hold the read transaction open.
//
// # Client
//
// The answers are the API's own types (Request, Run, AuditEntry, Bypass, …), mapped
// from the store's and the gate's in answers.go, so the store's on-disk format and the
// wire format can change apart.
//
// Client has one typed method per endpoint. A server error comes back as an *Error
// carrying the status and message; errors.Is(err, ErrConflict) and the like test its
// status. Await polls a request until it is resolved, the server capping each wait.
// Backup streams the database copy into an io.Writer.
package api
