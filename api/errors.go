package api

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinel errors of the API. The server wraps a bad request in one of them to choose its
// status (docs/design.md, "HTTP API"); the Client returns an *Error whose Is reports the
// sentinel of its status, so a caller can write errors.Is(err, api.ErrNotFound) either
// side of the wire.
var (
	// ErrBadRequest is 400: malformed JSON, an unknown action, a bad id or parameter.
	ErrBadRequest = errors.New("bad request")
	// ErrUnsupportedMediaType is 415: a body under /api/ that is not application/json.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrUnauthorized is 401: no bearer token, or a wrong one.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden is 403: an agent used beyond its role, or a call from a foreign Host
	// or Origin.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound is 404: no such request, rule, group, job, run or route.
	ErrNotFound = errors.New("not found")
	// ErrConflict is 409: already resolved, expired, tool_call_id reused, group exists,
	// protected group.
	ErrConflict = errors.New("conflict")
	// ErrTooLarge is 413: a request body over MaxBodyBytes.
	ErrTooLarge = errors.New("request body too large")
	// ErrTimeout is 408: a request body that did not arrive within the body timeout.
	ErrTimeout = errors.New("request timeout")
	// ErrInvalid is 422: an invalid rule or pattern, an unknown group or profile, a bad
	// bypass scope.
	ErrInvalid = errors.New("invalid")
	// ErrTooMany is 429: a pending limit reached (gate.ErrTooManyPending); nothing
	// was stored.
	ErrTooMany = errors.New("too many pending requests")
	// ErrInternal is 500: anything the server could not classify. Its details are
	// only in the server's log.
	ErrInternal = errors.New("internal error")
	// ErrUnavailable is 503: the store could not commit (store.ErrWrite); nothing was
	// recorded and nothing allowed.
	ErrUnavailable = errors.New("store unavailable")
)

// statusSentinels maps HTTP statuses to the sentinel Error.Is reports.
var statusSentinels = map[int]error{
	http.StatusBadRequest:            ErrBadRequest,
	http.StatusUnsupportedMediaType:  ErrUnsupportedMediaType,
	http.StatusUnauthorized:          ErrUnauthorized,
	http.StatusForbidden:             ErrForbidden,
	http.StatusNotFound:              ErrNotFound,
	http.StatusConflict:              ErrConflict,
	http.StatusRequestEntityTooLarge: ErrTooLarge,
	http.StatusRequestTimeout:        ErrTimeout,
	http.StatusUnprocessableEntity:   ErrInvalid,
	http.StatusTooManyRequests:       ErrTooMany,
	http.StatusInternalServerError:   ErrInternal,
	http.StatusServiceUnavailable:    ErrUnavailable,
}

// Error is what the Client returns when the server answers with an error status: the
// status code and the server's {"error": "..."} message.
type Error struct {
	Status  int
	Message string
}

// Error returns the server's message with the status, e.g. "404: request 7 not found".
func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// Is reports whether target is the sentinel of e's status (ErrNotFound for 404, …).
func (e *Error) Is(target error) bool {
	s, ok := statusSentinels[e.Status]
	return ok && s == target
}
