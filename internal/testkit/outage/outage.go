package outage

import (
	"net/http"
)

// Kind is how a test server (telegramtest, slacktest) fails every call while it is
// down, so that a client meets a channel unreachable for real. The zero value is no
// outage.
type Kind int

// The outages.
const (
	// None serves calls as usual.
	None Kind = iota
	// Dropped closes each call's connection without an answer, as a network drop, a
	// crashed server or a restarting proxy does: the client gets an EOF or a reset.
	Dropped
	// BadGateway answers 502 with an HTML page, as a proxy in front answers while the
	// server behind it is down.
	BadGateway
)

// Kinds returns the outages, None left out, for a test that tries each.
func Kinds() []Kind { return []Kind{Dropped, BadGateway} }

// String returns "none", "dropped" or "502", a subtest's name.
func (o Kind) String() string {
	switch o {
	case Dropped:
		return "dropped"
	case BadGateway:
		return "502"
	}
	return "none"
}

// ClientError returns what the error of a Go HTTP client's call says when it meets o:
// "EOF" for Dropped, "502 Bad Gateway" for BadGateway, "" for None.
func (o Kind) ClientError() string {
	switch o {
	case Dropped:
		return "EOF"
	case BadGateway:
		return "502 Bad Gateway"
	}
	return ""
}

// Fail makes w fail the way o says and reports whether it did; false for None,
// when the caller serves the call. Dropped needs a w that can be hijacked (HTTP/1).
func (o Kind) Fail(w http.ResponseWriter) bool {
	switch o {
	case Dropped:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
			return true
		}
		fallthrough // not hijackable: a gateway's answer is the next best
	case BadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>\n"))
		return true
	}
	return false
}
