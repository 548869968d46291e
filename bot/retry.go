package bot

import (
	"context"
	"errors"
	"time"
)

// Retry says how a Fanout retries a send or an edit that failed (docs/design.md, "Chat
// prompts"). The zero value is DefaultRetry. A failure wrapping ErrPermanent is not
// retried; a *RateLimitError waits its RetryAfter instead of the backoff and does not
// count as an attempt, up to MaxRateLimitWaits times. A send or an edit given up on
// is logged and reported to FanoutOptions.OnFailure; the next start-up's
// reconciliation tries it again, the request staying pending meanwhile.
type Retry struct {
	// Attempts is how many times a send or edit is tried in all, the first included;
	// zero means DefaultRetry.Attempts.
	Attempts int
	// Backoff is the wait before the second attempt, doubled before each next one;
	// zero means DefaultRetry.Backoff.
	Backoff time.Duration
	// MaxBackoff caps the wait between two attempts; zero means
	// DefaultRetry.MaxBackoff.
	MaxBackoff time.Duration
}

// DefaultRetry tries 8 times over about two minutes: waits of 1, 2, 4, 8, 16, 32
// and 60 seconds. Waits for a rate limit come on top, MaxRateLimitWaits at most.
var DefaultRetry = Retry{Attempts: 8, Backoff: time.Second, MaxBackoff: time.Minute}

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultRetry.Attempts
	}
	if r.Backoff <= 0 {
		r.Backoff = DefaultRetry.Backoff
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = DefaultRetry.MaxBackoff
	}
	return r
}

// delay is the wait after the fails-th failed attempt (fails ≥ 1).
func (r Retry) delay(fails int) time.Duration {
	d := r.Backoff
	for i := 1; i < fails && d < r.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, r.MaxBackoff)
}

// Failure describes a send, an edit or a notice the Fanout gave up on: a permanent
// error, or Retry.Attempts failures in a row.
type Failure struct {
	// Op is "send" (showing a prompt), "edit" (showing an outcome) or "notice" (a
	// finished run's notice, see Notices).
	Op      string
	Channel string
	Target  string
	// RequestID is the request of a send or an edit; 0 for a notice.
	RequestID uint64
	// Attempts is how many attempts failed.
	Attempts int
	Err      error
}

// task is one send or edit of one message, tried until it succeeds, fails for good,
// or its context ends.
type task struct {
	key    msgKey
	try    func(ctx context.Context) error
	fails  int           // failed attempts so far, rate limits not counted
	limits int           // rate limits waited out so far
	wait   time.Duration // before the next attempt
	// done is called once, with nil on success or the last error when given up
	// (not when the context ended first).
	done func(err error)
	// after, when set, runs once t is released (see finish).
	after func()
}

// finish releases t's key, then runs t.after.
func (f *Fanout) finish(t *task) {
	f.release(t.key)
	if t.after != nil {
		t.after()
	}
}

// attempt runs one attempt and says what next: finished (success or given up) or
// retry after t.wait.
func (f *Fanout) attempt(ctx context.Context, t *task) (finished bool, err error) {
	err = t.try(ctx)
	if err == nil {
		t.done(nil)
		return true, nil
	}
	if ctx.Err() != nil {
		return true, err
	}
	if rl, ok := errors.AsType[*RateLimitError](err); ok {
		if t.limits++; t.limits > MaxRateLimitWaits {
			f.giveUp(t, err)
			return true, err
		}
		t.wait = max(rl.RetryAfter, time.Millisecond)
		return false, err
	}
	t.fails++
	if errors.Is(err, ErrPermanent) || t.fails >= f.retry.Attempts {
		f.giveUp(t, err)
		return true, err
	}
	t.wait = f.retry.delay(t.fails)
	return false, err
}

// retryLoop retries t until it finishes or ctx ends, then releases its key.
func (f *Fanout) retryLoop(ctx context.Context, t *task) {
	defer f.finish(t)
	for {
		timer := time.NewTimer(t.wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		if finished, _ := f.attempt(ctx, t); finished {
			return
		}
	}
}
