package telegramtest

import (
	"context"
	"fmt"
	"maps"
	"strings"
)

// Call is one Bot API call the server received with the right token.
type Call struct {
	// Method is the documented spelling ("sendMessage") for a method this server
	// serves, whatever case the caller used, else the name as sent.
	Method string
	// Params are the call's parameters as strings (objects such as reply_markup as
	// their JSON text), however they were encoded.
	Params map[string]string
}

// FailNext makes the next call of method (e.g. "sendMessage" or "getUpdates";
// case-insensitive, as Bot API method names are) answer e instead of being served; the call
// is still recorded and changes nothing else. Failures queue up: two FailNext calls fail
// the next two calls. Typical values: TooManyRequests(n), ErrNotModified,
// ErrTerminatedByOtherPoll, ErrWebhookActive, ErrBotBlocked, ServerError(502).
//
// It returns an error wrapping ErrUnknownMethod for a method this server does not
// serve, or ErrInvalidFailure for a Code outside 400–599 or an empty Description;
// nothing is queued then.
func (s *Server) FailNext(method string, e APIError) error {
	m, ok := methods[strings.ToLower(method)]
	if !ok {
		return fmt.Errorf("telegramtest: fail next %q: %w", method, ErrUnknownMethod)
	}
	if e.Code < 400 || e.Code > 599 || e.Description == "" {
		return fmt.Errorf("telegramtest: fail next %q with %d %q: %w",
			method, e.Code, e.Description, ErrInvalidFailure)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[m.name] = append(s.failures[m.name], e)
	return nil
}

// LoseReplyNext makes the next call of method (case-insensitive) be served as usual
// — a sendMessage posts its message — and then lose its reply: the connection is
// closed without an answer, as when the network drops after Telegram acted, so the
// client gets an EOF for a call that took effect. Lost replies queue up like
// FailNext's failures; a getUpdates that waits is never lost. It returns an error
// wrapping ErrUnknownMethod for a method this server does not serve.
func (s *Server) LoseReplyNext(method string) error {
	m, ok := methods[strings.ToLower(method)]
	if !ok {
		return fmt.Errorf("telegramtest: lose reply next %q: %w", method, ErrUnknownMethod)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost[m.name]++
	return nil
}

// Calls returns the calls of method received so far, oldest first; an empty method
// means every call. A call is recorded when the server takes it, in the same step
// that applies its effect: once sendMessage is counted, Messages shows the message.
// A getUpdates is recorded when it arrives, before it waits for updates.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, Call{Method: c.Method, Params: maps.Clone(c.Params)})
		}
	}
	return out
}

// CallCount returns how many calls of method were received (all calls for "").
func (s *Server) CallCount(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			n++
		}
	}
	return n
}

// WaitCalls blocks until at least n calls of method were received, then returns them
// all (as Calls does). It returns an error wrapping the context's error or ErrClosed
// when they do not come.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) ([]Call, error) {
	if err := s.Wait(ctx, func() bool { return s.CallCount(method) >= n }); err != nil {
		return nil, fmt.Errorf("telegramtest: wait for %d %s calls (have %d): %w",
			n, method, s.CallCount(method), err)
	}
	return s.Calls(method), nil
}
