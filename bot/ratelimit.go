package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// MaxRateLimitWaits is how many rate limits in a row one send, edit, notice, answer or
// reply waits out before it is given up on. The Fanout and the adapters share it.
const MaxRateLimitWaits = 5

// WaitRateLimits runs call until it returns anything but a *RateLimitError, sleeping
// each one's RetryAfter (at least a millisecond) through sleep in between; op names the
// call in the log. It returns call's last error: nil, an error that is no rate limit,
// or the *RateLimitError that came after MaxRateLimitWaits waits. When ctx ends during
// a wait it returns the *RateLimitError joined with sleep's error. It blocks.
func WaitRateLimits(ctx context.Context, log *slog.Logger, op string,
	sleep func(ctx context.Context, d time.Duration) error,
	call func(ctx context.Context) error) error {
	for waits := 0; ; waits++ {
		err := call(ctx)
		rl, ok := errors.AsType[*RateLimitError](err)
		if !ok || waits == MaxRateLimitWaits {
			return err
		}
		wait := max(rl.RetryAfter, time.Millisecond)
		log.Warn("rate limited (429): waiting retry_after", "op", op, "retry_after", wait)
		if serr := sleep(ctx, wait); serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// Sleep waits d, or until ctx is done and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
