package gate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// Audit actions the gate writes; the store writes those of requests, rules
// and groups itself.
const (
	AuditDenied           = "tool.denied"
	AuditBypassGranted    = "bypass.granted"
	AuditBypassCleared    = "bypass.cleared"
	AuditSessionCancelled = "session.cancelled"
)

// Bypass lets a session's calls that require approval through (docs/design.md,
// "Bypasses"). Bypasses live in memory only: a restart forgets them.
type Bypass struct {
	SessionID string `json:"session_id"`
	// Scope is "all", "category:<c>", "mcp:<server>" or "tool:<name>".
	Scope string `json:"scope"`
	// Caller is the only caller whose calls it covers; "" covers every caller of the
	// session (an admin's bypass naming none).
	Caller string `json:"caller,omitempty"`
	// RequestID is the request whose approval granted it, 0 when an admin set it.
	// Such a bypass covers only calls with that request's caller, profile and agent
	// id.
	RequestID uint64 `json:"request_id,omitempty"`
	Profile   string `json:"profile,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	// ExpiresAt is when it ends; zero means with the session (until the session is
	// cancelled or the service restarts).
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// MaxBypassSecs is the longest bypass accepted, in seconds: 366 days. A longer one is
// refused with ErrInvalidBypass — past it, the expiry would overflow time.Duration (a
// bypass of 2^63-1 seconds would end in the past) — and 0, the whole session, is the
// way to ask for more.
const MaxBypassSecs = 366 * 24 * 60 * 60

// checkSecs validates a bypass length in seconds: 0 (the session) up to
// MaxBypassSecs.
func checkSecs(secs int64) error {
	switch {
	case secs < 0:
		return fmt.Errorf("%w: %d seconds is negative", ErrInvalidBypass, secs)
	case secs > MaxBypassSecs:
		return fmt.Errorf("%w: %d seconds is more than %d (366 days); use 0 for the whole session",
			ErrInvalidBypass, secs, MaxBypassSecs)
	}
	return nil
}

// covers reports whether b lets through a call of that category, MCP server and tool.
func (b Bypass) covers(category, server, tool string) bool {
	kind, val, _ := strings.Cut(b.Scope, ":")
	switch kind {
	case "all":
		return true
	case "category":
		return category == val
	case "mcp":
		return server == val
	case "tool":
		return tool == val
	}
	return false
}

// appliesTo reports whether b covers calls of caller under that profile and agent id.
func (b Bypass) appliesTo(caller, profile, agentID string) bool {
	switch {
	case b.Caller == "":
		return true
	case b.RequestID == 0:
		return b.Caller == caller
	}
	return b.Caller == caller && b.Profile == profile && b.AgentID == agentID
}

// sameKey reports whether a and b cover the same calls but for their length, so that
// granting b replaces a.
func (b Bypass) sameKey(a Bypass) bool {
	return a.Scope == b.Scope && a.Caller == b.Caller &&
		(a.RequestID == 0) == (b.RequestID == 0) &&
		a.Profile == b.Profile && a.AgentID == b.AgentID
}

// live reports whether b has not expired at now.
func (b Bypass) live(now time.Time) bool { return b.ExpiresAt.IsZero() || now.Before(b.ExpiresAt) }

// checkScope validates a bypass scope: all, category:<c>, mcp:<server> or
// tool:<name>, the name not empty — the store's rule, with the gate's sentinel.
func checkScope(scope string) error {
	if store.CheckBypassScope(scope) != nil {
		return fmt.Errorf("%w %q: want all, category:<name>, mcp:<server> or tool:<name>",
			ErrInvalidScope, scope)
	}
	return nil
}

// expiry is the end of a bypass of secs seconds from now; 0 means the session.
func expiry(now time.Time, secs int64) time.Time {
	if secs == 0 {
		return time.Time{}
	}
	return now.Add(time.Duration(secs) * time.Second)
}

// bypassed reports whether an unexpired bypass of c's session covers c, of that
// category and MCP server, pruning the session's expired bypasses.
func (m *Manager) bypassed(c *Call, profile, category, server string) bool {
	now := m.now()
	m.bypassMu.Lock()
	defer m.bypassMu.Unlock()
	bs := m.pruneLocked(c.SessionID, now)
	for _, b := range bs {
		if b.covers(category, server, c.ToolName) && b.appliesTo(c.Caller, profile, c.AgentID) {
			return true
		}
	}
	return false
}

// pruneLocked drops the session's expired bypasses and returns the rest. The caller
// holds bypassMu.
func (m *Manager) pruneLocked(session string, now time.Time) []Bypass {
	bs := m.bypasses[session]
	live := bs[:0]
	for _, b := range bs {
		if b.live(now) {
			live = append(live, b)
		}
	}
	switch {
	case len(live) == 0:
		delete(m.bypasses, session)
		return nil
	case len(live) < len(bs):
		clear(bs[len(live):])
		m.bypasses[session] = live
	}
	return live
}

// grant sets a bypass, replacing the session's bypass of the same scope and callers.
func (m *Manager) grant(b Bypass) {
	m.bypassMu.Lock()
	defer m.bypassMu.Unlock()
	bs := m.bypasses[b.SessionID]
	for i := range bs {
		if bs[i].sameKey(b) {
			bs[i] = b
			return
		}
	}
	m.bypasses[b.SessionID] = append(bs, b)
}

// SetBypass grants session sessionID a bypass of scope for secs seconds, 0 meaning the
// whole session (POST /api/sessions/{id}/bypass and the bypass command). It covers
// every caller of the session, or only caller when not "" (CallerAdmin, CallerLocal,
// CallerCron or an agent token's name). It replaces a bypass of the same scope and
// caller. It is audited synchronously: when the audit entry cannot be written nothing
// is granted. Errors, after which nothing changed: ErrNoSession, ErrInvalidBypass
// (secs negative or above MaxBypassSecs, a malformed caller), ErrInvalidScope, or the
// store's error.
func (m *Manager) SetBypass(sessionID, scope string, secs int64, caller string,
	by store.Actor) (Bypass, error) {
	if sessionID == "" {
		return Bypass{}, fmt.Errorf("gate: set bypass: %w", ErrNoSession)
	}
	if err := checkSecs(secs); err != nil {
		return Bypass{}, fmt.Errorf("gate: set bypass %s: %w", sessionID, err)
	}
	if err := checkScope(scope); err != nil {
		return Bypass{}, fmt.Errorf("gate: set bypass %s: %w", sessionID, err)
	}
	if err := CheckCaller(caller); caller != "" && err != nil {
		return Bypass{}, fmt.Errorf("gate: set bypass %s: %w", sessionID, err)
	}
	now := m.now()
	b := Bypass{SessionID: sessionID, Scope: scope, Caller: caller, ExpiresAt: expiry(now, secs)}
	if err := m.auditBypass(b, secs, by, now); err != nil {
		return Bypass{}, fmt.Errorf("gate: set bypass %s: %w", sessionID, err)
	}
	m.grant(b)
	m.log.Info("bypass granted", "session_id", sessionID, "scope", scope, "caller", caller,
		"secs", secs, "by", by.By, "via", by.Via)
	return b, nil
}

// CheckCaller validates the name of a caller (store.Request.Caller): CallerAdmin,
// CallerLocal, CallerCron, or an agent token's name, "agent-" and 12 lowercase hex
// digits. Errors wrap ErrInvalidBypass.
func CheckCaller(caller string) error {
	switch caller {
	case store.CallerAdmin, store.CallerLocal, store.CallerCron:
		return nil
	}
	hex, ok := strings.CutPrefix(caller, "agent-")
	valid := ok && len(hex) == 12
	for _, c := range []byte(hex) {
		valid = valid && ('0' <= c && c <= '9' || 'a' <= c && c <= 'f')
	}
	if !valid {
		return fmt.Errorf("%w: caller %.40q: want admin, local, cron or an agent token's name "+
			"(agent- and 12 hex digits)", ErrInvalidBypass, caller)
	}
	return nil
}

// auditBypass writes the audit entry of a bypass granted, synchronously.
func (m *Manager) auditBypass(b Bypass, secs int64, by store.Actor, now time.Time) error {
	length := "the session"
	if secs > 0 {
		length = fmt.Sprintf("%d s", secs)
	}
	detail := "session " + b.SessionID + " scope " + b.Scope + " for " + length
	if b.Caller != "" {
		detail += " for caller " + b.Caller
	}
	return m.store.AppendAudit(store.AuditEntry{At: now, By: by.By, Via: by.Via,
		Action: AuditBypassGranted, Detail: detail})
}

// ClearBypass removes every bypass of the session (DELETE /api/sessions/{id}/bypass,
// the unbypass command), audited synchronously; clearing a session without bypasses
// changes and writes nothing. Errors: ErrNoSession, or the store's
// error writing the audit entry (and then nothing is cleared).
func (m *Manager) ClearBypass(sessionID string, by store.Actor) error {
	if sessionID == "" {
		return fmt.Errorf("gate: clear bypass: %w", ErrNoSession)
	}
	if len(m.Bypasses(sessionID)) == 0 {
		return nil
	}
	err := m.store.AppendAudit(store.AuditEntry{At: m.now(), By: by.By, Via: by.Via,
		Action: AuditBypassCleared, Detail: "session " + sessionID})
	if err != nil {
		return fmt.Errorf("gate: clear bypass %s: %w", sessionID, err)
	}
	m.dropBypasses(sessionID)
	m.log.Info("bypasses cleared", "session_id", sessionID, "by", by.By, "via", by.Via)
	return nil
}

// EndSession forgets every bypass of a session that has ended — a scheduled run that
// finished — and returns how many there were. It is not audited: the run's end is.
// It does not block beyond a lock.
func (m *Manager) EndSession(sessionID string) int {
	n := m.dropBypasses(sessionID)
	if n > 0 {
		m.log.Info("bypasses of an ended session dropped", "session_id", sessionID, "bypasses", n)
	}
	return n
}

// dropBypasses forgets the session's bypasses and returns how many there were.
func (m *Manager) dropBypasses(sessionID string) int {
	m.bypassMu.Lock()
	defer m.bypassMu.Unlock()
	n := len(m.bypasses[sessionID])
	delete(m.bypasses, sessionID)
	return n
}

// Bypasses returns the session's unexpired bypasses, a copy, pruning expired ones.
func (m *Manager) Bypasses(sessionID string) []Bypass {
	now := m.now()
	m.bypassMu.Lock()
	defer m.bypassMu.Unlock()
	bs := m.pruneLocked(sessionID, now)
	if len(bs) == 0 {
		return nil
	}
	return append([]Bypass(nil), bs...)
}

// AllBypasses returns every session's unexpired bypasses, a copy sorted by session id
// (in grant order within a session), pruning expired ones. It does not block beyond a
// lock.
func (m *Manager) AllBypasses() []Bypass {
	now := m.now()
	m.bypassMu.Lock()
	defer m.bypassMu.Unlock()
	sessions := make([]string, 0, len(m.bypasses))
	for s := range m.bypasses {
		sessions = append(sessions, s)
	}
	slices.Sort(sessions)
	var out []Bypass
	for _, s := range sessions {
		out = append(out, m.pruneLocked(s, now)...)
	}
	return out
}
