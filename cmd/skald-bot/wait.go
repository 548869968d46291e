package main

import (
	"context"
	"crypto/rand"
	"errors"
	"syscall"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// The reasons a client cancels the request it made with (docs/design.md, "Waiting
// for an answer").
const (
	// terminalReason: the terminal prompt takes over (the hook).
	terminalReason = "terminal"
	// timeoutReason: check's --wait ran out.
	timeoutReason = "timeout"
	// interruptedReason: the client got SIGINT or SIGTERM.
	interruptedReason = "interrupted"
)

// Bounds of a client's wait: answerGrace is how far past its wait a client waits
// for a server that accepts but does not answer, and how long it gives the
// cancellation of its request; checkTimeout bounds one check (sent with wait_secs 0,
// so a server answers at once); retryMax caps the backoff between attempts after a
// lost connection.
const (
	answerGrace  = 3 * time.Second
	checkTimeout = 10 * time.Second
	retryMin     = 100 * time.Millisecond
	retryMax     = 2 * time.Second
)

// waitOptions say how awaitCall waits.
type waitOptions struct {
	wait time.Duration
	// handOff: a request pending with no chat channel to prompt (CheckResult.NoChannel)
	// is cancelled with reason terminal at once.
	handOff bool
	// endReason is the reason the request is cancelled with when wait runs out.
	endReason string
	// keep leaves the request pending when the wait ends unanswered or is interrupted.
	keep bool
}

// waited is what awaitCall found.
type waited struct {
	res api.CheckResult
	// unanswered: no one answered within the wait (or it was interrupted); res is
	// then pending (kept, or the cancellation failed) or this client's cancellation.
	unanswered bool
}

// awaitCall checks call and waits up to o.wait for its request's answer, polling the
// server (docs/design.md, "Waiting for an answer"). It blocks at most o.wait plus a
// few seconds (twice answerGrace), however the server behaves; ctx's end (a signal)
// ends the wait at once, and the request is cancelled then too. A connection lost
// after the first one was accepted is retried with backoff within the wait (the check
// with the same tool_call_id, so a replay finds the request).
// Errors: the server's *api.Error; a refused first connection (isRefused); a
// transport error when the wait ran out before any check was answered.
func awaitCall(ctx context.Context, c *api.Client, call gate.Call, o waitOptions) (waited, error) {
	deadline := time.Now().Add(o.wait)
	hard, cancel := context.WithDeadline(ctx, deadline.Add(answerGrace))
	defer cancel()
	res, err := checkRetry(hard, c, call, deadline.Add(answerGrace))
	if err != nil {
		return waited{}, err
	}
	if res.Final() {
		return waited{res: res}, nil
	}
	if o.handOff && res.NoChannel && ctx.Err() == nil {
		w := cancelRequest(ctx, c, res, terminalReason)
		w.res.NoChannel = true
		return w, nil
	}
	back := retryMin
poll:
	for ctx.Err() == nil {
		left := time.Until(deadline)
		secs := min(int(left/time.Second), api.MaxWaitSecs)
		if secs <= 0 {
			break poll
		}
		rctx, rcancel := context.WithTimeout(hard, time.Duration(secs)*time.Second+answerGrace)
		q, err := c.Request(rctx, res.RequestID, secs)
		rcancel()
		var apiErr *api.Error
		switch {
		case err == nil && q.Status != store.Pending:
			return waited{res: api.ResultOf(q)}, nil
		case err == nil:
			back = retryMin
		case errors.As(err, &apiErr):
			return waited{}, err
		case ctx.Err() == nil: // a lost connection: the server may be restarting
			if !pause(hard, back) {
				break poll
			}
			back = min(2*back, retryMax)
		}
	}
	reason := o.endReason
	if ctx.Err() != nil {
		reason = interruptedReason
	}
	if o.keep {
		return waited{res: res, unanswered: true}, nil
	}
	return cancelRequest(ctx, c, res, reason), nil
}

// checkRetry sends the check with wait_secs 0 and retries a lost connection, with
// backoff, until ctx ends; a first connection refused is returned at once (no
// server), as is the server's own error. An attempt under way when ctx ends goes on
// until its answer or until the hard deadline, so that the caller learns of the
// request it made and can cancel it.
func checkRetry(ctx context.Context, c *api.Client, call gate.Call,
	hard time.Time) (api.CheckResult, error) {
	back := retryMin
	for try := 0; ; try++ {
		end := time.Now().Add(checkTimeout)
		if hard.Before(end) {
			end = hard
		}
		cctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), end)
		res, err := c.Check(cctx, api.CheckRequest{Call: call})
		cancel()
		var apiErr *api.Error
		switch {
		case err == nil:
			return res, nil
		case errors.As(err, &apiErr), try == 0 && isRefused(err), call.ToolCallID == "":
			return res, err
		}
		if !pause(ctx, back) {
			return res, err
		}
		back = min(2*back, retryMax)
	}
}

// cancelRequest cancels the pending request of res with reason and returns the
// outcome: the cancellation, or the answer someone gave meanwhile, or res still
// pending when the server cannot be reached.
func cancelRequest(ctx context.Context, c *api.Client, res api.CheckResult, reason string) waited {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerGrace)
	defer cancel()
	q, err := c.Cancel(cctx, res.RequestID, reason)
	if errors.Is(err, api.ErrConflict) { // resolved meanwhile: that answer stands
		if q, err = c.Request(cctx, res.RequestID, 0); err == nil {
			return waited{res: api.ResultOf(q)}
		}
	}
	if err != nil {
		return waited{res: res, unanswered: true}
	}
	return waited{res: api.ResultOf(q), unanswered: true}
}

// pause waits d, reporting false when ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// isRefused reports whether err is a refused connection: no server listens there.
func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// newToolCallID returns a random tool call id for a check that names none, so that
// a check retried after a lost connection finds its request instead of making
// another.
func newToolCallID() string { return "cli-" + rand.Text() }
