package api

import (
	"context"
	"net/http"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// longPoll waits up to wait for pending request q to leave pending, for the client of
// r, and returns the request as last seen (q at once when not pending or wait <= 0).
// A client that goes away before the wait ends is recorded as gone (gate.WaiterGone:
// its prompt says so, the request stays pending); a client waiting on a request
// marked so clears it (gate.WaiterBack). The error is the gate's, never the wait's
// end.
func (s *Server) longPoll(r *http.Request, q store.Request,
	wait time.Duration) (store.Request, error) {
	if q.Status != store.Pending || wait <= 0 {
		return q, nil
	}
	if !q.WaiterGoneAt.IsZero() {
		if err := s.gate.WaiterBack(q.ID); err != nil {
			s.log.Warn("recording a caller waiting again", "request_id", q.ID, "err", err)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	got, err := s.gate.Wait(ctx, q.ID)
	cancel()
	switch {
	case err == nil:
		return got, nil
	case ctx.Err() == nil:
		return q, err
	}
	if r.Context().Err() != nil && got.Status == store.Pending {
		s.log.Info("the caller stopped waiting", "request_id", q.ID)
		if err := s.gate.WaiterGone(q.ID); err != nil {
			s.log.Warn("recording a caller that stopped waiting", "request_id", q.ID, "err", err)
		}
	}
	return q, nil
}
