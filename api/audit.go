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
	limit := DefaultAuditLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%w: limit %q is not a positive integer", ErrBadRequest, v)
		}
		limit = min(n, MaxAuditLimit)
	}
	es, err := s.store.Audit(limit)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	writeJSON(w, http.StatusOK, listOf(es, auditEntryOf))
	return nil
}
