package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// errorBody is every error answer of the API.
type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client went away; nothing to do
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// statusOf classifies err into its HTTP status (docs/design.md, "HTTP API"); 500 when
// nothing matches.
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrBadRequest), errors.Is(err, gate.ErrInvalidCall),
		errors.Is(err, gate.ErrNoSession):
		return http.StatusBadRequest
	case errors.Is(err, ErrUnauthorized):
		return http.StatusUnauthorized
	case errors.Is(err, ErrForbidden), errors.Is(err, gate.ErrForbidden):
		return http.StatusForbidden
	case errors.Is(err, ErrNotFound), errors.Is(err, gate.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrConflict), errors.Is(err, gate.ErrAlreadyResolved),
		errors.Is(err, gate.ErrExpired), errors.Is(err, gate.ErrToolCallReused),
		errors.Is(err, gate.ErrExists), errors.Is(err, gate.ErrProtected):
		return http.StatusConflict
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrTooMany), errors.Is(err, gate.ErrTooManyPending):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrInvalid), errors.Is(err, rules.ErrInvalidRule),
		errors.Is(err, gate.ErrUnknownGroup), errors.Is(err, gate.ErrUnknownProfile),
		errors.Is(err, gate.ErrInvalidScope), errors.Is(err, gate.ErrInvalidBypass),
		errors.Is(err, gate.ErrInvalid):
		return http.StatusUnprocessableEntity
	case errors.Is(err, store.ErrWrite):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// msgStoreUnavailable is the 503 answer's message; the store's error is only logged.
const msgStoreUnavailable = "the store could not record this (disk full or read-only?); " +
	"nothing was changed"

// fail answers err as JSON with its status. A classified error's message is shown as
// is; anything else is "internal error" to the client and the whole chain to the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	// A body cut off by its timeout ends the call's context too; that client is
	// still there to be told.
	if r.Context().Err() != nil && !errors.Is(err, ErrTimeout) {
		s.log.Debug("client went away", "method", r.Method, "path", r.URL.Path, "err", err)
		return
	}
	status := statusOf(err)
	msg := message(err)
	switch status {
	case http.StatusInternalServerError:
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	case http.StatusServiceUnavailable:
		s.log.Error("the store could not commit", "method", r.Method, "path", r.URL.Path,
			"err", err)
		msg = msgStoreUnavailable
	default:
		s.log.Debug("refused", "method", r.Method, "path", r.URL.Path, "status", status,
			"err", err)
	}
	writeError(w, status, msg)
}

// decode reads r's JSON body into v: at most MaxBodyBytes (ErrTooLarge), within the body
// timeout (ErrTimeout), one JSON value, no unknown fields (ErrBadRequest). An empty body
// leaves v as is when optional.
func decode(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	body := http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	data, err := io.ReadAll(body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return fmt.Errorf("%w: the body is over %d bytes (1 MiB)", ErrTooLarge, MaxBodyBytes)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: the body did not arrive within the body timeout", ErrTimeout)
		}
		return fmt.Errorf("%w: read body: %v", ErrBadRequest, err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		if optional {
			return nil
		}
		return fmt.Errorf("%w: a JSON body is required", ErrBadRequest)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	dec.UseNumber() // a tool call's numbers as sent, not rounded to float64
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: malformed JSON: more than one value in the body", ErrBadRequest)
	}
	return nil
}

// pathID parses the uint64 path value name (ErrBadRequest when it is not one).
func pathID(r *http.Request, name string) (uint64, error) {
	v := r.PathValue(name)
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("%w: %s %q is not a positive integer", ErrBadRequest, name, v)
	}
	return id, nil
}

// waitParam reads the wait_secs query parameter: 0 when absent, else as waitFor;
// ErrBadRequest when it is not an integer.
func waitParam(r *http.Request) (time.Duration, error) {
	v := r.URL.Query().Get("wait_secs")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: wait_secs %q is not a non-negative integer", ErrBadRequest, v)
	}
	return waitFor(n)
}

// waitFor is the wait wait_secs n asks for, capped at MaxWaitSecs: the same for the
// check's body and the request's query. ErrBadRequest ("wait_secs -1 is not a
// non-negative integer") when n is negative.
func waitFor(n int) (time.Duration, error) {
	if n < 0 {
		return 0, fmt.Errorf("%w: wait_secs %d is not a non-negative integer", ErrBadRequest, n)
	}
	return time.Duration(min(n, MaxWaitSecs)) * time.Second, nil
}

// actor is who r acts for, with via "api". For the admin: the X-Skald-Actor header's
// value (printable, at most 64 bytes), else "api". For any other caller (an agent
// token, the local caller) the header is ignored and the caller's name is recorded,
// so an agent cannot act in a person's name.
func actor(r *http.Request) store.Actor {
	if p := principalOf(r); !p.admin() {
		return store.Actor{By: p.caller(), Via: "api"}
	}
	by := strings.TrimSpace(r.Header.Get(ActorHeader))
	if len(by) > 64 {
		by = by[:64]
	}
	by = strings.Map(func(c rune) rune {
		if c < 0x20 || c == 0x7f {
			return -1
		}
		return c
	}, by)
	if by == "" {
		by = "api"
	}
	return store.Actor{By: by, Via: "api"}
}

// jsonStatusWriter turns the mux's plain-text 404 and 405 pages into JSON errors.
type jsonStatusWriter struct {
	http.ResponseWriter
	path  string
	wrote bool
}

func (j *jsonStatusWriter) WriteHeader(code int) {
	if j.wrote {
		return
	}
	j.wrote = true
	msg := "not found: " + j.path
	if code == http.StatusMethodNotAllowed {
		msg = "method not allowed on " + j.path
	}
	j.ResponseWriter.Header().Del("X-Content-Type-Options")
	writeError(j.ResponseWriter, code, msg)
}

func (j *jsonStatusWriter) Write(b []byte) (int, error) {
	if !j.wrote {
		j.WriteHeader(http.StatusOK)
	}
	return len(b), nil
}

// message is what a client sees of a classified error: its chain without the package
// prefixes and without a step repeated by the next layer ("gate: resolve 7: store:
// resolve 7: not found" reads "resolve 7: not found").
func message(err error) string {
	var out []string
	for _, p := range strings.Split(err.Error(), ": ") {
		switch {
		case p == "gate", p == "store", p == "rules", p == "api":
		case len(out) > 0 && out[len(out)-1] == p:
		default:
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}

// ErrorOf is how the API answers err: its HTTP status and the message a client is
// shown — "internal error" for anything unclassified (status 500), whose chain only
// the log may carry. The web inbox shows gate errors with it.
func ErrorOf(err error) (status int, msg string) {
	status = statusOf(err)
	if status == http.StatusInternalServerError {
		return status, "internal error"
	}
	return status, message(err)
}
