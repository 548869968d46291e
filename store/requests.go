package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Input limits of CreateRequest (docs/design.md, "Limits").
const (
	// MaxArgumentsSize is the largest Arguments accepted, in bytes of JSON as sent.
	MaxArgumentsSize = 1 << 20
	// MaxIDLen is the longest session id or tool call id accepted, in bytes.
	MaxIDLen = 1024
	// MaxCwdLen is the longest Cwd accepted, in bytes (Linux's PATH_MAX).
	MaxCwdLen = 4096
)

// CreateRequest stores r as a new pending request and returns it as stored (the next
// id, CreatedAt now when zero, canonical Arguments) with created=true, committed when it
// returns. A (SessionID, ToolCallID) already registered writes nothing (docs/design.md,
// "Idempotency"): the same call gets the existing request, created=false; a different
// one an error wrapping ErrToolCallReused that names the first differing field, with
// the existing request — unless it is another caller's, which gets a zero Request and
// an error naming nothing. Other errors wrap ErrInvalid and write nothing: no tool name,
// arguments not a JSON object or over MaxArgumentsSize, an id over MaxIDLen, a Cwd over
// MaxCwdLen, ExpiresAt zero or not after CreatedAt. Safe for concurrent use.
func (d *DB) CreateRequest(r Request) (req Request, created bool, err error) {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = d.now()
	}
	if err := checkNewRequest(&r); err != nil {
		return Request{}, false, fmt.Errorf("store: create request: %w", err)
	}
	var reused string
	// Fast path: a repeated call is answered from a read-only transaction, without a
	// write or an fsync.
	found := false
	err = d.view(func(tx *bolt.Tx) error {
		var err error
		req, found, reused, err = registered(tx, r)
		return err
	})
	if err == nil && !found {
		err = d.batch(func(tx *bolt.Tx) error {
			// This function may run more than once: reset what it reports.
			req, created, reused = Request{}, false, ""
			old, found, oldReused, err := registered(tx, r)
			if err != nil || found {
				req, reused = old, oldReused
				return err
			}
			n := r
			var key []byte
			if n.ToolCallID != "" {
				key = toolCallKey(n.ToolCallID, n.SessionID)
			}
			if err := requestBuckets.insert(tx, &n.ID, &n, key, n.ExpiresAt); err != nil {
				return err
			}
			req, created = n, true
			return nil
		})
	}
	switch {
	case err != nil:
		return Request{}, false, fmt.Errorf("store: create request: %w", err)
	case reused != "":
		key := fmt.Sprintf("tool call %q of session %q", r.ToolCallID, r.SessionID)
		if reused == "caller" {
			req = Request{}
		}
		return req, false, reuseError("create request", key, "request", req.ID, reused)
	}
	return req, created, nil
}

// reuseError is the error of create op whose idempotency key (key, such as `tool call
// "t" of session "s"`) names record id, a noun, unlike the new one; reused is the first
// field that differs. For "caller", another caller's record, it tells nothing of it.
func reuseError(op, key, noun string, id uint64, reused string) error {
	if reused == "caller" {
		return fmt.Errorf("store: %s: %s: %w: made by another caller", op, key, ErrToolCallReused)
	}
	return fmt.Errorf("store: %s: %s (%s %d): %w: not the same %s",
		op, key, noun, id, ErrToolCallReused, reused)
}

// registered looks up the request already registered for r's (session, tool call id):
// found is false when there is none (or r has no tool call id); reused names the first
// field that differs when it was made by another call ("caller", "tool_name",
// "arguments", …; see CreateRequest), "" when it is the same call.
func registered(tx *bolt.Tx, r Request) (old Request, found bool, reused string, err error) {
	if r.ToolCallID == "" {
		return Request{}, false, "", nil
	}
	v := tx.Bucket(bucketRequestsByTC).Get(toolCallKey(r.ToolCallID, r.SessionID))
	if v == nil {
		return Request{}, false, "", nil
	}
	old, found, err = getRequest(tx, readU64(v))
	if err != nil || !found {
		return Request{}, false, "", err
	}
	return old, true, differs(old, r), nil
}

// differs names the first field of a call in which new differs from old, "" for none.
// The caller comes first: nothing else of another caller's request is told.
func differs(old, new Request) string {
	switch {
	case old.Caller != new.Caller:
		return "caller"
	case old.ToolName != new.ToolName:
		return "tool_name"
	case !bytes.Equal(old.Arguments, new.Arguments):
		return "arguments"
	}
	for _, f := range [...]struct{ name, a, b string }{
		{"cwd", old.Cwd, new.Cwd},
		{"group", old.GroupID, new.GroupID},
		{"profile", old.Profile, new.Profile},
		{"agent_id", old.AgentID, new.AgentID},
		{"source", old.Source, new.Source},
		{"context_label", old.ContextLabel, new.ContextLabel},
		{"category", old.ClaimedCategory, new.ClaimedCategory},
	} {
		if f.a != f.b {
			return f.name
		}
	}
	return ""
}

// checkNewRequest validates r and brings it to the form it is stored in.
func checkNewRequest(r *Request) error {
	switch {
	case r.ToolName == "":
		return fmt.Errorf("%w: tool_name is required", ErrInvalid)
	case len(r.SessionID) > MaxIDLen:
		return fmt.Errorf("%w: session_id is longer than %d bytes", ErrInvalid, MaxIDLen)
	case len(r.ToolCallID) > MaxIDLen:
		return fmt.Errorf("%w: tool_call_id is longer than %d bytes", ErrInvalid, MaxIDLen)
	case len(r.Cwd) > MaxCwdLen:
		return fmt.Errorf("%w: cwd is longer than %d bytes", ErrInvalid, MaxCwdLen)
	case r.ExpiresAt.IsZero():
		return fmt.Errorf("%w: expires_at is required", ErrInvalid)
	case !r.ExpiresAt.After(r.CreatedAt):
		return fmt.Errorf("%w: expires_at %s is not after created_at %s", ErrInvalid,
			r.ExpiresAt.Format(time.RFC3339), r.CreatedAt.Format(time.RFC3339))
	}
	if err := checkLabel(r.ContextLabel); err != nil {
		return err
	}
	args, err := canonicalArgs(r.Arguments)
	if err != nil {
		return err
	}
	r.ID, r.Arguments, r.Status, r.Resolution, r.Messages = 0, args, Pending, nil, nil
	if r.Caller == "" {
		r.Caller = CallerAdmin
	}
	return nil
}

// canonicalArgs returns the canonical JSON of a call's arguments, so that two calls
// compare equal byte for byte whatever their key order and spacing (docs/design.md,
// "Idempotency"): the object decoded and encoded again by encoding/json (keys sorted, no
// space, numbers as written). Empty or null arguments are {}. Errors wrap ErrInvalid:
// more than MaxArgumentsSize bytes, not JSON, not an object, or data after the object.
func canonicalArgs(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) > MaxArgumentsSize {
		return nil, fmt.Errorf("%w: arguments are %d bytes, more than %d",
			ErrInvalid, len(raw), MaxArgumentsSize)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: arguments are not valid JSON: %v", ErrInvalid, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: arguments hold data after the JSON object", ErrInvalid)
	}
	switch v.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case map[string]any:
	default:
		return nil, fmt.Errorf("%w: arguments must be a JSON object", ErrInvalid)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: arguments: %v", ErrInvalid, err)
	}
	return out, nil
}

// toolCallKey is the key of the (tool call id, session id) index. The tool call id
// comes first so RequestsByToolCallID is a prefix scan.
func toolCallKey(toolCallID, sessionID string) []byte { return strKey(toolCallID, sessionID) }

// getRequest reads request id inside tx.
func getRequest(tx *bolt.Tx, id uint64) (Request, bool, error) {
	return getAs[Request](tx.Bucket(bucketRequests), u64(id))
}

// Request returns request id, or ErrNotFound.
func (d *DB) Request(id uint64) (Request, error) {
	r, err := viewOne(d, func(tx *bolt.Tx) (Request, bool, error) { return getRequest(tx, id) })
	if err != nil {
		return Request{}, fmt.Errorf("store: request %d: %w", id, err)
	}
	return r, nil
}

// RequestByToolCall returns the request registered for (sessionID, toolCallID), or
// ErrNotFound (also for an empty toolCallID: such requests are not indexed).
func (d *DB) RequestByToolCall(sessionID, toolCallID string) (Request, error) {
	r, err := viewOne(d, func(tx *bolt.Tx) (Request, bool, error) {
		if toolCallID == "" {
			return Request{}, false, nil
		}
		return getIndexed(tx, bucketRequestsByTC, toolCallKey(toolCallID, sessionID), getRequest)
	})
	if err != nil {
		return Request{}, fmt.Errorf("store: request of tool call %q in session %q: %w",
			toolCallID, sessionID, err)
	}
	return r, nil
}

// RequestsByToolCallID returns every request with that tool call id, across sessions,
// oldest first (for POST /api/tools/{tool_call_id}/resolve); none is an empty result,
// not an error.
func (d *DB) RequestsByToolCallID(toolCallID string) ([]Request, error) {
	var out []Request
	err := d.view(func(tx *bolt.Tx) error {
		if toolCallID == "" {
			return nil
		}
		idx := tx.Bucket(bucketRequestsByTC)
		for _, k := range prefixKeys(idx, strKey(toolCallID)) {
			r, ok, err := getRequest(tx, readU64(idx.Get(k)))
			if err != nil {
				return err
			}
			if ok {
				out = append(out, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: requests of tool call %q: %w", toolCallID, err)
	}
	slices.SortFunc(out, func(a, b Request) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Pending returns every pending request, oldest (lowest id) first. It reads the
// pending index, not every request.
func (d *DB) Pending() ([]Request, error) {
	var out []Request
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, err = pendingWhere(tx, func(Request) bool { return true })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: pending: %w", err)
	}
	return out, nil
}

// pendingBuckets are the buckets of a kind of record that waits for a human: the
// records by id, their index by the caller's own id, and their pending index.
type pendingBuckets struct{ records, byKey, pending []byte }

var (
	requestBuckets = pendingBuckets{bucketRequests, bucketRequestsByTC, bucketPending}
	clarBuckets    = pendingBuckets{bucketClars, bucketClarByCID, bucketClarPending}
)

// insert stores the new record v under the next id of b.records, which it sets
// through id first, indexes it under key in b.byKey (not for a nil key) and under
// (expires, id) in b.pending.
func (b pendingBuckets) insert(tx *bolt.Tx, id *uint64, v any, key []byte,
	expires time.Time) error {
	var err error
	if *id, err = tx.Bucket(b.records).NextSequence(); err != nil {
		return err
	}
	if err := putJSON(tx.Bucket(b.records), u64(*id), v); err != nil {
		return err
	}
	if key != nil {
		if err := tx.Bucket(b.byKey).Put(key, u64(*id)); err != nil {
			return err
		}
	}
	return tx.Bucket(b.pending).Put(timeIDKey(expires, *id), nil)
}

// pendingWhere returns the pending requests that keep accepts, by id.
func pendingWhere(tx *bolt.Tx, keep func(Request) bool) ([]Request, error) {
	return pendingIn(tx, bucketPending, getRequest, func(r Request) uint64 { return r.ID }, keep)
}

// endEach ends with end, in one transaction, every record that pending returns, and
// returns them as ended; when it returns none, nothing is written.
func endEach[T any](d *DB, pending func(*bolt.Tx) ([]T, error),
	end func(*bolt.Tx, *T) error) ([]T, error) {
	var out []T
	err := d.update(func(tx *bolt.Tx) error {
		vs, err := pending(tx)
		if err != nil {
			return err
		}
		out = vs
		if len(vs) == 0 {
			return errNoChange
		}
		for i := range out {
			if err := end(tx, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// pendingIn returns the records of a pending index bucket (keys by time, then id) that
// keep accepts, sorted by id: get reads a record (false when there is none), id
// gives its id.
func pendingIn[T any](tx *bolt.Tx, bucket []byte, get func(*bolt.Tx, uint64) (T, bool, error),
	id func(T) uint64, keep func(T) bool) ([]T, error) {
	var out []T
	c := tx.Bucket(bucket).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		r, ok, err := get(tx, idSuffix(k))
		if err != nil {
			return nil, err
		}
		if ok && keep(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(id(a), id(b)) })
	return out, nil
}

// finish moves the pending request r to status with res inside tx, drops it from the
// pending index and audits it. The caller checked r is pending.
func (d *DB) finish(tx *bolt.Tx, r *Request, status Status, res Resolution) error {
	if err := tx.Bucket(bucketPending).Delete(timeIDKey(r.ExpiresAt, r.ID)); err != nil {
		return err
	}
	r.Status, r.Resolution = status, &res
	if err := putJSON(tx.Bucket(bucketRequests), u64(r.ID), r); err != nil {
		return err
	}
	by := Actor{By: res.By, Via: res.Via}
	return d.audit(tx, by, auditResolved(status), 0, r.ID, describeResolution(*r))
}

// describeResolution is the audit detail of a finished request.
func describeResolution(r Request) string {
	var b strings.Builder
	b.WriteString(r.ToolName)
	if r.SessionID != "" {
		b.WriteString(" session=" + r.SessionID)
	}
	if res := r.Resolution; res != nil {
		if res.Note != "" {
			b.WriteString(" note=" + strconv.Quote(res.Note))
		}
		if res.Bypass != nil {
			b.WriteString(" bypass=" + res.Bypass.Scope)
			if res.Bypass.Secs == 0 {
				b.WriteString(" for the session")
			} else {
				b.WriteString(" for " + strconv.FormatInt(res.Bypass.Secs, 10) + "s")
			}
		}
	}
	return b.String()
}

// resolveOutcome is what one Resolve transaction found.
type resolveOutcome int

const (
	resolveNotFound resolveOutcome = iota
	resolveDone
	resolveLost
	resolveLate
)

// Resolve sets request id's status (Approved, Rejected or Cancelled) and res (a zero
// res.At means now) in one compare-and-set transaction with its audit entry
// ("request.approved", …) by res.By via res.Via, and returns the updated request,
// committed and fsynced (docs/design.md, "Approval requests"). Errors, each changing
// nothing: ErrAlreadyResolved (with the stored request; the message names its status
// and who resolved it); ErrExpired when res.At is after ExpiresAt (with the stored
// request); ErrNotFound; ErrInvalid for another status, an empty res.By, or a bypass
// that is not on an approval or has a bad scope or negative Secs. Safe for concurrent
// use: of concurrent resolutions exactly one wins, the others write nothing.
func (d *DB) Resolve(id uint64, status Status, res Resolution) (Request, error) {
	if res.At.IsZero() {
		res.At = d.now()
	}
	if err := checkResolution(status, res); err != nil {
		return Request{}, fmt.Errorf("store: resolve %d: %w", id, err)
	}
	var (
		out     Request
		outcome resolveOutcome
	)
	// Fast path: the losers of a race, and late or unknown ids, are answered from a
	// read-only transaction, without a write or an fsync.
	err := d.view(func(tx *bolt.Tx) error {
		var err error
		out, outcome, err = d.compareAndSet(tx, id, status, res, false)
		return err
	})
	if err == nil && outcome == resolveDone {
		err = d.batch(func(tx *bolt.Tx) error {
			// This function may run more than once: reset what it reports.
			var err error
			out, outcome, err = d.compareAndSet(tx, id, status, res, true)
			return err
		})
	}
	switch {
	case err != nil:
		return Request{}, fmt.Errorf("store: resolve %d: %w", id, err)
	case outcome == resolveNotFound:
		return Request{}, fmt.Errorf("store: resolve %d: %w", id, ErrNotFound)
	case outcome == resolveLost:
		return out, fmt.Errorf("store: resolve %d: %w (%s)",
			id, ErrAlreadyResolved, describeOutcome(out))
	case outcome == resolveLate:
		return out, fmt.Errorf("store: resolve %d: %w at %s",
			id, ErrExpired, out.ExpiresAt.Format(time.RFC3339))
	}
	return out, nil
}

// compareAndSet is Resolve's transaction: it classifies request id and, when it is
// pending and res is in time and write is set, finishes it. With write unset it only
// reports resolveDone for a request it would resolve.
func (d *DB) compareAndSet(tx *bolt.Tx, id uint64, status Status, res Resolution,
	write bool) (Request, resolveOutcome, error) {
	r, ok, err := getRequest(tx, id)
	switch {
	case err != nil:
		return Request{}, resolveNotFound, err
	case !ok:
		return Request{}, resolveNotFound, nil
	case r.Status != Pending:
		return r, resolveLost, nil
	case res.At.After(r.ExpiresAt):
		return r, resolveLate, nil
	case !write:
		return r, resolveDone, nil
	}
	if err := d.finish(tx, &r, status, res); err != nil {
		return Request{}, resolveNotFound, err
	}
	return r, resolveDone, nil
}

// describeOutcome says how a finished request ended: "approved by alice via telegram".
func describeOutcome(r Request) string {
	s := string(r.Status)
	if res := r.Resolution; res != nil {
		s += " by " + res.By
		if res.Via != "" {
			s += " via " + res.Via
		}
	}
	return s
}

// checkResolution validates a resolution to status.
func checkResolution(status Status, res Resolution) error {
	switch status {
	case Approved, Rejected, Cancelled:
	default:
		return fmt.Errorf("%w: cannot resolve to status %q (approved, rejected or cancelled)",
			ErrInvalid, status)
	}
	if res.By == "" {
		return fmt.Errorf("%w: the resolution needs who (by)", ErrInvalid)
	}
	if res.Bypass == nil {
		return nil
	}
	if status != Approved {
		return fmt.Errorf("%w: only an approval grants a bypass", ErrInvalid)
	}
	if res.Bypass.Secs < 0 {
		return fmt.Errorf("%w: bypass length %d s is negative", ErrInvalid, res.Bypass.Secs)
	}
	return CheckBypassScope(res.Bypass.Scope)
}

// CheckBypassScope checks a bypass scope (docs/design.md, "Bypasses"): "all",
// "category:<c>", "mcp:<server>" or "tool:<name>" with a non-empty name. Errors wrap
// ErrInvalid.
func CheckBypassScope(scope string) error {
	if scope == "all" {
		return nil
	}
	kind, name, ok := strings.Cut(scope, ":")
	if ok && name != "" && (kind == "category" || kind == "mcp" || kind == "tool") {
		return nil
	}
	return fmt.Errorf("%w: bypass scope %q (want all, category:<c>, mcp:<server> or tool:<name>)",
		ErrInvalid, scope)
}

// ExpireDue marks Expired, with a resolution by "system" via "gate" at now and an
// audit entry "request.expired" each, every pending request whose ExpiresAt is not
// after now, and returns them oldest first (docs/design.md, "Expiry"). When nothing is
// due it writes nothing (it looks read-only first), so it may run every second.
func (d *DB) ExpireDue(now time.Time) ([]Request, error) {
	var out []Request
	err := d.expireDue(bucketPending, now, func(tx *bolt.Tx, id uint64) (bool, error) {
		r, ok, err := getRequest(tx, id)
		if err != nil || !ok || r.Status != Pending {
			return false, err
		}
		res := Resolution{By: actorExpiry.By, Via: actorExpiry.Via, At: now}
		if err := d.finish(tx, &r, Expired, res); err != nil {
			return false, err
		}
		out = append(out, r)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: expire due: %w", err)
	}
	slices.SortFunc(out, func(a, b Request) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// expireDue calls expire, in one transaction, with the id of each entry of the pending
// index bucket (keys by time, then id) due at now, oldest first. It looks read-only
// first and writes nothing when none is due. expire reports whether the id was still
// pending; a stale entry (it cannot happen: the index changes with its record, in one
// transaction) is dropped rather than failing every sweep.
func (d *DB) expireDue(bucket []byte, now time.Time,
	expire func(tx *bolt.Tx, id uint64) (bool, error)) error {
	limit := timeNanos(now)
	due := false
	err := d.view(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucket).Cursor().First()
		due = k != nil && keyNanos(k) <= limit
		return nil
	})
	if err != nil || !due {
		return err
	}
	return d.update(func(tx *bolt.Tx) error {
		var keys [][]byte
		c := tx.Bucket(bucket).Cursor()
		for k, _ := c.First(); k != nil && keyNanos(k) <= limit; k, _ = c.Next() {
			keys = append(keys, append([]byte(nil), k...))
		}
		for _, k := range keys {
			pending, err := expire(tx, idSuffix(k))
			if err != nil {
				return err
			}
			if !pending {
				if err := tx.Bucket(bucket).Delete(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// CancelSession marks Cancelled, with res (a zero At means now) and an audit entry
// "request.cancelled" each, every pending request of the session, in one transaction, and
// returns them oldest first. None pending is an empty result and writes nothing. ErrInvalid
// when res has no By or has a bypass.
func (d *DB) CancelSession(sessionID string, res Resolution) ([]Request, error) {
	if res.At.IsZero() {
		res.At = d.now()
	}
	if err := checkResolution(Cancelled, res); err != nil {
		return nil, fmt.Errorf("store: cancel session %q: %w", sessionID, err)
	}
	out, err := endEach(d, func(tx *bolt.Tx) ([]Request, error) {
		return pendingWhere(tx, func(r Request) bool { return r.SessionID == sessionID })
	}, func(tx *bolt.Tx, r *Request) error { return d.finish(tx, r, Cancelled, res) })
	if err != nil {
		return nil, fmt.Errorf("store: cancel session %q: %w", sessionID, err)
	}
	return out, nil
}

// AddMessage records that request id is shown by chat message m (the outbox,
// docs/design.md, "Chat prompts"); a zero ShownAt is now. Adding a message already
// recorded (same channel, chat and ref) writes nothing. Messages may be added to a
// finished request too. Errors (nothing is written): ErrNotFound, ErrInvalid (empty
// channel, chat or ref).
func (d *DB) AddMessage(id uint64, m Message) error {
	m, err := d.checkMessage(m)
	if err == nil {
		err = d.updateRequest(id, func(r *Request) bool { return addMessage(&r.Messages, m) })
	}
	if err != nil {
		return fmt.Errorf("store: add message to request %d: %w", id, err)
	}
	return nil
}

// MarkMessagesFinal marks every message of request id as edited to show its outcome
// (docs/design.md, "Chat prompts"), so the outbox stops updating them. When all are already
// final it writes nothing. ErrNotFound when the request does not exist.
func (d *DB) MarkMessagesFinal(id uint64) error {
	err := d.updateRequest(id, func(r *Request) bool { return finalMessages(r.Messages) })
	if err != nil {
		return fmt.Errorf("store: mark messages of request %d final: %w", id, err)
	}
	return nil
}

// checkMessage returns m, a zero ShownAt made now, for a request's or a clarification's
// messages; ErrInvalid when its channel, chat or ref is empty.
func (d *DB) checkMessage(m Message) (Message, error) {
	if m.Channel == "" || m.ChatID == "" || m.Ref == "" {
		return m, fmt.Errorf("%w: channel, chat_id and ref are required", ErrInvalid)
	}
	if m.ShownAt.IsZero() {
		m.ShownAt = d.now()
	}
	return m, nil
}

// sameMessage reports whether a and b are the same chat message: channel, chat and ref.
func sameMessage(a, b Message) bool {
	return a.Channel == b.Channel && a.ChatID == b.ChatID && a.Ref == b.Ref
}

// addMessage appends m to *ms unless the same message is there; it reports whether it
// did.
func addMessage(ms *[]Message, m Message) bool {
	if slices.ContainsFunc(*ms, func(o Message) bool { return sameMessage(o, m) }) {
		return false
	}
	*ms = append(*ms, m)
	return true
}

// finalMessages marks every message of ms final; it reports whether one was not.
func finalMessages(ms []Message) bool {
	changed := false
	for i := range ms {
		if !ms[i].Final {
			ms[i].Final, changed = true, true
		}
	}
	return changed
}

// finalMessage marks message m of ms final; it reports whether it was there and not
// final.
func finalMessage(ms []Message, m Message) bool {
	for i, o := range ms {
		if sameMessage(o, m) && !o.Final {
			ms[i].Final = true
			return true
		}
	}
	return false
}

// updateRequest applies change to request id in one transaction and writes it, with
// its requests_unfinal entry, when change reports a change.
func (d *DB) updateRequest(id uint64, change func(*Request) bool) error {
	return d.update(func(tx *bolt.Tx) error {
		r, ok, err := getRequest(tx, id)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		if !change(&r) {
			return errNoChange
		}
		if err := putJSON(tx.Bucket(bucketRequests), u64(id), r); err != nil {
			return err
		}
		return markUnfinal(tx, bucketUnfinal, r.ID, r.Messages)
	})
}

// markUnfinal keeps the entry of record id in an unfinal index (requests_unfinal,
// clarifications_unfinal) true: present exactly when one of its messages ms is not
// final.
func markUnfinal(tx *bolt.Tx, index []byte, id uint64, ms []Message) error {
	b := tx.Bucket(index)
	if slices.ContainsFunc(ms, func(m Message) bool { return !m.Final }) {
		return b.Put(u64(id), nil)
	}
	return b.Delete(u64(id))
}

// unfinalized returns the records an unfinal index names that are no longer pending,
// read with get, by id: the messages the outbox must update at start-up.
func unfinalized[T any](d *DB, index []byte, get func(*bolt.Tx, uint64) (T, bool, error),
	pending func(T) bool) ([]T, error) {
	var out []T
	err := d.view(func(tx *bolt.Tx) error {
		return tx.Bucket(index).ForEach(func(k, _ []byte) error {
			v, ok, err := get(tx, readU64(k))
			if err != nil || !ok || pending(v) {
				return err
			}
			out = append(out, v)
			return nil
		})
	})
	return out, err
}

// Unfinalized returns every finished (not pending) request that still has a chat
// message not edited to its outcome, oldest first: the messages the outbox must update
// at start-up (docs/design.md, "Chat prompts"). It reads only those requests, through the
// requests_unfinal index.
func (d *DB) Unfinalized() ([]Request, error) {
	out, err := unfinalized(d, bucketUnfinal, getRequest,
		func(r Request) bool { return r.Status == Pending })
	if err != nil {
		return nil, fmt.Errorf("store: unfinalized requests: %w", err)
	}
	return out, nil
}

// pruneRequests deletes the finished requests that finished before before, with their
// tool call index entries.
func pruneRequests(tx *bolt.Tx, before time.Time) (int, error) {
	b := tx.Bucket(bucketRequests)
	doomed, err := prunable(b, before, func(r Request) time.Time { return r.CreatedAt },
		func(r Request) bool {
			return r.Status != Pending && r.Resolution != nil && r.Resolution.At.Before(before)
		})
	if err != nil {
		return 0, err
	}
	idx := tx.Bucket(bucketRequestsByTC)
	for _, r := range doomed {
		if err := b.Delete(u64(r.ID)); err != nil {
			return 0, err
		}
		if err := tx.Bucket(bucketUnfinal).Delete(u64(r.ID)); err != nil {
			return 0, err
		}
		if r.ToolCallID == "" {
			continue
		}
		k := toolCallKey(r.ToolCallID, r.SessionID)
		if readU64(idx.Get(k)) == r.ID {
			if err := idx.Delete(k); err != nil {
				return 0, err
			}
		}
	}
	return len(doomed), nil
}
