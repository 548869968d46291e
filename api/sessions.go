package api

import (
	"fmt"
	"net/http"
)

// listBypasses is GET /api/sessions/{id}/bypass: the session's live bypasses.
func (s *Server) listBypasses(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, listOf(s.gate.Bypasses(r.PathValue("id")), bypassOf))
	return nil
}

// listAllBypasses is GET /api/bypasses: every session's live bypasses, by session.
func (s *Server) listAllBypasses(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, listOf(s.gate.AllBypasses(), bypassOf))
	return nil
}

// setBypass is POST /api/sessions/{id}/bypass with {secs, scope, caller}: secs 0 is the
// whole session; scope "" is all; caller "" is every caller. 422 for a bad scope or
// caller.
func (s *Server) setBypass(w http.ResponseWriter, r *http.Request) error {
	var b BypassRequest
	if err := decode(w, r, &b, false); err != nil {
		return err
	}
	if b.Secs == nil {
		return fmt.Errorf("%w: secs is required (0 for the whole session)", ErrBadRequest)
	}
	if *b.Secs < 0 {
		return fmt.Errorf("%w: secs must be 0 (the session) or more", ErrInvalid)
	}
	if b.Scope == "" {
		b.Scope = "all"
	}
	got, err := s.gate.SetBypass(r.PathValue("id"), b.Scope, *b.Secs, b.Caller, actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bypassOf(got))
	return nil
}

// clearBypass is DELETE /api/sessions/{id}/bypass: 204.
func (s *Server) clearBypass(w http.ResponseWriter, r *http.Request) error {
	if err := s.gate.ClearBypass(r.PathValue("id"), actor(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// cancelSession is POST /api/sessions/{id}/cancel: its pending requests become
// cancelled and its bypasses are cleared.
func (s *Server) cancelSession(w http.ResponseWriter, r *http.Request) error {
	got, err := s.gate.CancelSession(r.PathValue("id"), actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, CancelSessionResult{Cancelled: listOf(got, RequestOf)})
	return nil
}
