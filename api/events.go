package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/skald-circle/skald-bot/gate"
)

// EventBuffer is how many events a Server-Sent Events client may fall behind before
// the gate drops it (its stream then ends; the client reconnects).
const EventBuffer = 64

// heartbeat is how often an idle event stream sends a comment line, so proxies and
// clients see it is alive.
const heartbeat = 25 * time.Second

// events is GET /api/events: the gate's bus as Server-Sent Events (docs/design.md,
// "Approval requests"), one "event: <name>\ndata: <json>\n\n" per event, flushed at once.
// The subscription is released when the client leaves, the server stops, or the gate
// drops a slow client.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-cache")
	return StreamEvents(w, r, s.gate, s.log, ": skald-bot events\n\n", s.limits.write, nil)
}

// StreamEvents writes g's events that keep accepts (every one when keep is nil) to w
// as Server-Sent Events: first the comment hello, then "event: <name>\ndata: <json>\n\n"
// per event and a ": ping" comment when idle for 25s, each flushed at once and given
// write to leave. It blocks until the client leaves, the gate drops it as slow, or a
// write fails, and then returns nil; an error only when w cannot flush (nothing is
// written then).
func StreamEvents(w http.ResponseWriter, r *http.Request, g *gate.Manager, log *slog.Logger,
	hello string, write time.Duration, keep func(event string) bool) error {
	fl, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("events: the response writer cannot flush")
	}
	// A client that stops reading is cut off after the write timeout, not held.
	w = deadlineWriter{w, http.NewResponseController(w), write}
	ch, release := g.Subscribe(EventBuffer)
	defer release()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, hello); err != nil {
		return nil
	}
	fl.Flush()

	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return nil
			}
		case e, ok := <-ch:
			if !ok {
				return nil // dropped as slow
			}
			if keep != nil && !keep(e.Name) {
				continue
			}
			data, err := json.Marshal(e.Data)
			if err != nil {
				log.Error("events: encode", "event", e.Name, "err", err)
				continue
			}
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Name, data); err != nil {
				return nil
			}
		}
		fl.Flush()
	}
}

// deadlineWriter gives each write of an event stream d to leave.
type deadlineWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w deadlineWriter) Write(p []byte) (int, error) {
	err := w.rc.SetWriteDeadline(time.Now().Add(w.d))
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return w.ResponseWriter.Write(p)
}
