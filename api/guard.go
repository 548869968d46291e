package api

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// AllowedHost is a Host, besides loopback IPs and localhost, that the API answers to
// (docs/design.md, "Browser protection").
type AllowedHost struct {
	// Host is the name or IP, compared without regard to case; IPv6 without brackets.
	Host string
	// Port is the port the Host header must name; "" means any.
	Port string
	// HTTPS marks a TLS proxy in front: the browser origin https://Host[:Port] is
	// accepted as well.
	HTTPS bool
}

// refusal is why the guard turned a call away: its status and message.
type refusal struct {
	status int
	msg    string
}

// guard checks what a browser could forge before anything else runs: the Host (a
// rebound DNS name), the Origin (another site's page) and, for a call under /api/ that
// changes something, a body that is not JSON (a form or text/plain post needs no CORS
// preflight). It returns nil when r may go on.
func (s *Server) guard(r *http.Request) *refusal {
	if !s.hostAllowed(r.Host) {
		return &refusal{http.StatusForbidden, fmt.Sprintf(
			"forbidden: host %s is not this service "+
				"(a loopback address, localhost or api.allowed_hosts)", short(r.Host))}
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		if len(origins) > 1 || !s.originAllowed(origins[0], r.Host) {
			return &refusal{http.StatusForbidden, fmt.Sprintf(
				"forbidden: a call from origin %s is refused "+
					"(only the service's own origin may call it)", short(origins[0]))}
		}
	}
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		return nil
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch:
	default:
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if r.ContentLength == 0 && ct == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return &refusal{http.StatusUnsupportedMediaType, fmt.Sprintf(
			"unsupported media type %s: send the body as Content-Type: application/json",
			short(ct))}
	}
	return nil
}

// hostAllowed reports whether the Host header hp names this service: a loopback IP,
// localhost, or an AllowedHost.
func (s *Server) hostAllowed(hp string) bool {
	host, port := splitHost(hp)
	if host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range s.hosts {
		if a.Host == host && (a.Port == "" || a.Port == port) {
			return true
		}
	}
	return false
}

// originAllowed reports whether origin is the service's own: http:// and the very
// Host the call was sent to, or the https origin of an AllowedHost (a TLS proxy).
func (s *Server) originAllowed(origin, hostHeader string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return strings.EqualFold(u.Host, hostHeader)
	case "https":
		host, port := splitHost(u.Host)
		for _, a := range s.hosts {
			if a.HTTPS && a.Host == host && a.Port == port {
				return true
			}
		}
	}
	return false
}

// splitHost splits "host[:port]" ("[v6]:port" too), host lower case without brackets.
func splitHost(hp string) (host, port string) {
	host = hp
	if h, p, err := net.SplitHostPort(hp); err == nil {
		host, port = h, p
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(host), port
}

// short quotes a client-sent value for an error message, cut to 100 bytes.
func short(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return fmt.Sprintf("%q", s)
}
