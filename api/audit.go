package api

import (
	"fmt"
	"net/http"
	"strconv"
)

// DefaultAuditLimit and MaxAuditLimit bound GET /api/audit?limit=N.
const (
	DefaultAuditLimit = 100
	MaxAuditLimit     = 10000
)

// audit is GET /api/audit?limit=N: newest first.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryLimit(r, DefaultAuditLimit, MaxAuditLimit)
	if err != nil {
		return err
	}
	es, err := s.store.Audit(limit)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	writeJSON(w, http.StatusOK, listOf(es, auditEntryOf))
	return nil
}

// queryLimit is the request's ?limit=N, at most max; def when there is none. Error:
// ErrBadRequest for a limit that is not a positive integer.
func queryLimit(r *http.Request, def, max int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: limit %q is not a positive integer", ErrBadRequest, v)
	}
	return min(n, max), nil
}
