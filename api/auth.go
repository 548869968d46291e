package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/store"
)

// MinTokenLen is the shortest admin or agent token New accepts, in characters.
const MinTokenLen = 16

// auth holds the API's tokens as SHA-256 digests, so that comparing a presented token
// takes the same time whatever its length or content. Read-only after newAuth.
type auth struct {
	admin  []byte // digest of the admin token
	agents []agent
	// local: calls without a token may use the agent routes, as store.CallerLocal
	// (no token configured at all, loopback only).
	local bool
}

// agent is one agent token: its digest, its name (a fingerprint, never the secret),
// and what it is limited to.
type agent struct {
	digest  []byte
	name    string
	profile string
	agentID string
}

// principal is who made a call: the admin, an agent token, or the token-less local
// caller.
type principal struct {
	agent *agent
	local bool
}

// admin reports whether the call was made with the admin token.
func (p principal) admin() bool { return p.agent == nil && !p.local }

// caller returns the store.Request.Caller of the call: the agent token's name,
// store.CallerLocal, or store.CallerAdmin.
func (p principal) caller() string {
	switch {
	case p.agent != nil:
		return p.agent.name
	case p.local:
		return store.CallerLocal
	}
	return store.CallerAdmin
}

func newAuth(token string, agents []AgentToken, local bool) (auth, error) {
	if problem := TokenProblem(token); problem != "" {
		return auth{}, fmt.Errorf("%w: the admin token %s", ErrInvalid, problem)
	}
	if local && len(agents) > 0 {
		return auth{}, fmt.Errorf(
			"%w: token-less local calls are for a configuration with no agent tokens", ErrInvalid)
	}
	a := auth{admin: digest(token), local: local}
	seen := map[string]bool{token: true}
	for i, t := range agents {
		if problem := TokenProblem(t.Token); problem != "" {
			return auth{}, fmt.Errorf("%w: agent token %d %s", ErrInvalid, i+1, problem)
		}
		if seen[t.Token] {
			return auth{}, fmt.Errorf("%w: agent token %d repeats another token", ErrInvalid, i+1)
		}
		if t.Profile == "" {
			t.Profile = "default"
		}
		seen[t.Token] = true
		a.agents = append(a.agents, agent{digest: digest(t.Token), name: TokenName(t.Token),
			profile: t.Profile, agentID: t.AgentID})
	}
	return a, nil
}

// TokenProblem says what makes t unusable as an admin or agent token, "" when nothing
// does: "is required", too short, white space at either end (which a header cannot
// carry) or a control character. Tokens are compared exactly. config checks its tokens
// with it.
func TokenProblem(t string) string {
	switch {
	case t == "":
		return "is required"
	case utf8.RuneCountInString(t) < MinTokenLen:
		return fmt.Sprintf("must be at least %d characters", MinTokenLen)
	case strings.TrimSpace(t) != t:
		return "must not begin or end with white space"
	case strings.ContainsFunc(t, unicode.IsControl):
		return "must not contain control characters"
	}
	return ""
}

// TokenName returns the name under which the API records requests made with agent token t
// (docs/design.md, "Callers"): "agent-" and the first 12 hex digits of its SHA-256, never
// the token itself.
func TokenName(t string) string {
	return "agent-" + hex.EncodeToString(digest(t)[:6])
}

func digest(s string) []byte {
	d := sha256.Sum256([]byte(s))
	return d[:]
}

// authenticate returns who made r: the bearer token compared exactly, in constant
// time, with every known token. A call without an Authorization header is the local
// caller when a.local and localOK (an agent route). ok is false otherwise.
func (a auth) authenticate(r *http.Request, localOK bool) (p principal, ok bool) {
	h, present := r.Header["Authorization"]
	if !present {
		return principal{local: true}, a.local && localOK
	}
	scheme, tok, found := strings.Cut(h[0], " ")
	if len(h) != 1 || !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return principal{}, false
	}
	d := digest(tok)
	admin := subtle.ConstantTimeCompare(d, a.admin) == 1
	var match *agent
	for i := range a.agents {
		if subtle.ConstantTimeCompare(d, a.agents[i].digest) == 1 {
			match = &a.agents[i]
		}
	}
	switch {
	case admin:
		return principal{}, true
	case match != nil:
		return principal{agent: match}, true
	}
	return principal{}, false
}

// agentRoutes are the endpoints an agent token and the local caller may call; the
// handlers narrow them further (own requests only, the token's profile).
var agentRoutes = map[string]bool{
	"POST /api/approval/check":                true,
	"GET /api/approval/requests/{id}":         true,
	"POST /api/approval/requests/{id}/cancel": true,
	"POST /api/approval/visible":              true,
	"POST /api/clarifications":                true,
	"GET /api/clarifications/{id}":            true,
	"POST /api/clarifications/{id}/cancel":    true,
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(principalKey{}).(principal)
	return p
}
