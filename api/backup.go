package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"sync/atomic"
	"time"
)

// backupContentType is the media type of GET /api/backup's answer: the bytes of a
// skald-bot database file.
const backupContentType = "application/octet-stream"

// defaultBackupStall is how long GET /api/backup waits for the client to take the
// next part of the copy before it gives up and ends the copy's read transaction, which
// a client that stopped reading would otherwise hold open (see store.DB.WriteTo).
const defaultBackupStall = 30 * time.Second

// backupStall is defaultBackupStall, in nanoseconds; the tests shorten it.
var backupStall atomic.Int64

func init() { backupStall.Store(int64(defaultBackupStall)) }

// backupFileName is the file name GET /api/backup suggests for a copy taken at t:
// "skald-" and t in UTC as 20060102T150405Z, then ".db" (skald-20261129T030000Z.db).
func backupFileName(t time.Time) string {
	return "skald-" + t.UTC().Format("20060102T150405Z") + ".db"
}

// backup is GET /api/backup (admin only; not in agentRoutes): a consistent copy of the
// database, streamed from one read transaction of the store, as backupContentType with
// a Content-Disposition file name. An error before the first byte is an ordinary JSON
// error; after it the connection is cut (http.ErrAbortHandler), so the client sees a
// copy cut short, never a complete-looking one.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", backupContentType)
	name := map[string]string{"filename": backupFileName(s.now())}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", name))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		return nil
	}
	sw := &stallWriter{w: w, rc: http.NewResponseController(w),
		stall: time.Duration(backupStall.Load())}
	defer sw.rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // best effort: the copy is done
	n, err := s.store.WriteTo(sw)
	switch {
	case err == nil:
		s.log.Info("backup sent", "bytes", n, "by", actor(r).By)
		return nil
	case !sw.started:
		h.Del("Content-Disposition")
		return err
	}
	s.log.Warn("backup cut short", "bytes", n, "by", actor(r).By, "err", err)
	panic(http.ErrAbortHandler)
}

// stallWriter writes to an http.ResponseWriter, giving each write at most stall to
// leave (a write deadline on the connection, renewed before every write).
type stallWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	stall   time.Duration
	started bool // a write was attempted: the status line may be on the wire
}

func (s *stallWriter) Write(p []byte) (int, error) {
	s.started = true
	// The network's deadline is wall-clock time, whatever the Server's clock says.
	err := s.rc.SetWriteDeadline(time.Now().Add(s.stall))
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return s.w.Write(p)
}
