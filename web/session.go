package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Cookie names: the session, and the sign-in form's CSRF token (before a session
// exists).
const (
	SessionCookie = "skald_session"
	signinCookie  = "skald_signin"
)

// DefaultSessionTTL is how long a session lasts when Options.SessionTTL is zero.
const DefaultSessionTTL = 12 * time.Hour

// signinTTL bounds how long a sign-in form may be left open.
const signinTTL = 10 * time.Minute

// session is one signed-in browser: its CSRF token, its expiry, and the message the
// next page shows once (a POST's outcome, after its redirect).
type session struct {
	csrf    string
	expires time.Time
	flash   string
}

// sessions are the signed-in browsers, in memory only: a restart signs everyone out.
// Keys are the SHA-256 of the cookie value, so the map holds no usable secret.
type sessions struct {
	mu  sync.Mutex // guards m
	m   map[string]*session
	ttl time.Duration
	now func() time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, ttl: ttl, now: now}
}

// randomToken returns 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (it crashes instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

func key(v string) string {
	d := sha256.Sum256([]byte(v))
	return hex.EncodeToString(d[:])
}

// open starts a session and returns its cookie value; expired sessions are dropped.
func (s *sessions) open() (value string, sess session) {
	value = randomToken()
	now := s.now()
	sess = session{csrf: randomToken(), expires: now.Add(s.ttl)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.m {
		if !now.Before(v.expires) {
			delete(s.m, k)
		}
	}
	s.m[key(value)] = &sess
	return value, sess
}

// get returns the live session of r's cookie.
func (s *sessions) get(r *http.Request) (session, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(c.Value)
	v, ok := s.m[k]
	if !ok {
		return session{}, false
	}
	if !s.now().Before(v.expires) {
		delete(s.m, k)
		return session{}, false
	}
	return *v, true
}

// flash sets (msg != "") or takes (msg == "") the one-time message of r's session.
func (s *sessions) flash(r *http.Request, msg string) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key(c.Value)]
	if !ok {
		return ""
	}
	if msg != "" {
		v.flash = msg
		return ""
	}
	msg, v.flash = v.flash, ""
	return msg
}

// close ends r's session.
func (s *sessions) close(r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.mu.Lock()
		delete(s.m, key(c.Value))
		s.mu.Unlock()
	}
}

// same reports whether a and b are equal, in constant time; "" never matches.
func same(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// cookie is a session-scoped cookie of the web inbox: HttpOnly, SameSite=Strict,
// Secure when the browser reached us over TLS; maxAge 0 or less deletes it.
func cookie(name, value string, maxAge time.Duration, secure bool) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(maxAge / time.Second)}
	if maxAge <= 0 {
		c.MaxAge, c.Value = -1, ""
	}
	return c
}
