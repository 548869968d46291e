package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/skald-circle/skald-bot/store"
)

// auth holds the API's tokens as SHA-256 digests, so that comparing a presented token
// takes the same time whatever its length or content (SPEC §8). Read-only after newAuth.
type auth struct {
	admin  []byte // digest of the admin token; nil when the API is open
	agents []agent
}

// agent is one agent token: its digest, its name (a fingerprint, never the secret),
// and what it is limited to.
type agent struct {
	digest  []byte
	name    string
	profile string
	agentID string
}

// principal is who made a call: the admin (or anyone, when the API has no token), or
// an agent token.
type principal struct {
	agent *agent
}

// caller returns the store.Request.Caller of the call: the agent token's name, else
// store.CallerAdmin.
func (p principal) caller() string {
	if p.agent == nil {
		return store.CallerAdmin
	}
	return p.agent.name
}

func newAuth(token string, agents []AgentToken) (auth, error) {
	var a auth
	if token == "" && len(agents) > 0 {
		return a, fmt.Errorf("%w: agent tokens need an admin token (api.token)", ErrInvalid)
	}
	seen := map[string]bool{}
	if token != "" {
		a.admin = digest(token)
		seen[token] = true
	}
	for i, t := range agents {
		if t.Token == "" || seen[t.Token] {
			return auth{}, fmt.Errorf("%w: agent token %d is empty or repeats another token", ErrInvalid, i+1)
		}
		if t.Profile == "" {
			t.Profile = "default"
		}
		seen[t.Token] = true
		a.agents = append(a.agents, agent{digest: digest(t.Token), name: TokenName(t.Token), profile: t.Profile, agentID: t.AgentID})
	}
	return a, nil
}

// TokenName returns the name under which the API records requests made with agent
// token t (SPEC §12.2): "agent-" and the first 12 hex digits of its SHA-256, never the
// token itself.
func TokenName(t string) string {
	return "agent-" + hex.EncodeToString(digest(t)[:6])
}

func digest(s string) []byte {
	d := sha256.Sum256([]byte(s))
	return d[:]
}

// open reports whether the API takes calls without a token (single-user on loopback).
func (a auth) open() bool { return a.admin == nil }

// authenticate returns who presented r's bearer token, comparing it with every known
// token in constant time. ok is false for a missing or unknown token.
func (a auth) authenticate(r *http.Request) (p principal, ok bool) {
	if a.open() {
		return principal{}, true
	}
	h := r.Header.Get("Authorization")
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return principal{}, false
	}
	d := digest(strings.TrimSpace(tok))
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

// agentRoutes are the endpoints an agent token may call (SPEC §12.2); the handlers
// narrow them further (own requests only, the token's profile).
var agentRoutes = map[string]bool{
	"POST /api/approval/check":                true,
	"GET /api/approval/requests/{id}":         true,
	"POST /api/approval/requests/{id}/cancel": true,
	"POST /api/approval/visible":              true,
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(principalKey{}).(principal)
	return p
}
