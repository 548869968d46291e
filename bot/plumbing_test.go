package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// WaitRateLimits waits each 429's retry_after, at most MaxRateLimitWaits times, and
// returns at once on anything else.
func TestWaitRateLimits(t *testing.T) {
	limited := &RateLimitError{RetryAfter: 7 * time.Second, Err: errors.New("429")}
	other := errors.New("502 Bad Gateway")
	cases := []struct {
		name      string
		answers   []error // the call's answers in turn; the last one repeats
		wantCalls int
		wantWait  time.Duration
		want      error
	}{
		{"success after two 429s", []error{limited, limited, nil}, 3, 14 * time.Second, nil},
		{"another error at once", []error{other}, 1, 0, other},
		{"429 after another error is not reached", []error{other, limited}, 1, 0, other},
		{"429s past the cap", []error{limited}, MaxRateLimitWaits + 1,
			MaxRateLimitWaits * 7 * time.Second, limited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				start := time.Now()
				err := WaitRateLimits(t.Context(), testkit.Logger(), "op", Sleep,
					func(context.Context) error {
						a := tc.answers[min(calls, len(tc.answers)-1)]
						calls++
						return a
					})
				if err != tc.want {
					t.Errorf("err %v, want %v", err, tc.want)
				}
				if calls != tc.wantCalls {
					t.Errorf("%d calls, want %d", calls, tc.wantCalls)
				}
				if waited := time.Since(start); waited != tc.wantWait {
					t.Errorf("waited %v, want %v", waited, tc.wantWait)
				}
			})
		})
	}
}

// A context that ends during a wait ends WaitRateLimits with both errors.
func TestWaitRateLimitsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(3*time.Second, cancel)
		calls := 0
		err := WaitRateLimits(ctx, testkit.Logger(), "op", Sleep, func(context.Context) error {
			calls++
			return &RateLimitError{RetryAfter: time.Minute, Err: errors.New("429")}
		})
		if _, ok := errors.AsType[*RateLimitError](err); !ok || !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want the rate limit and context.Canceled", err)
		}
		if calls != 1 {
			t.Errorf("%d calls, want 1", calls)
		}
	})
}

// Workers run nothing until Open nor after Close; Close waits for the work in flight
// up to its grace, then cancels the rest and waits for it.
func TestWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w Workers
		if w.Go(func(context.Context) { t.Error("ran before Open") }) {
			t.Error("Go before Open = true")
		}
		if _, ok := w.Enter(); ok {
			t.Error("Enter before Open = true")
		}
		w.Open(t.Context())
		var mu sync.Mutex
		var ended []string
		end := func(s string) {
			mu.Lock()
			defer mu.Unlock()
			ended = append(ended, s)
		}
		if !w.Go(func(context.Context) { time.Sleep(2 * time.Second); end("quick") }) {
			t.Fatal("Go after Open = false")
		}
		w.Go(func(ctx context.Context) { <-ctx.Done(); end("cancelled") })
		ctx, ok := w.Enter()
		if !ok {
			t.Fatal("Enter after Open = false")
		}
		go func() {
			defer w.Leave()
			<-ctx.Done()
			end("delivery")
		}()
		start := time.Now()
		w.Close(5 * time.Second)
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("Close took %v, want the 5 s grace", took)
		}
		mu.Lock()
		if len(ended) != 3 || ended[0] != "quick" {
			t.Errorf("ended %v, want quick first, then the two cancelled", ended)
		}
		mu.Unlock()
		if w.Go(func(context.Context) { t.Error("ran after Close") }) {
			t.Error("Go after Close = true")
		}
	})
}

// LogTap logs each outcome of a tap at its level.
func TestLogTap(t *testing.T) {
	tap := Tap{Channel: "telegram", ChatID: "-100", MessageRef: "7", UserID: "100000001"}
	done := TapResult{Toast: "Already approved",
		Request: store.Request{ID: 4, Status: store.Approved}}
	cases := []struct {
		name string
		res  TapResult
		err  error
		want string
	}{
		{"resolved", TapResult{Toast: "Approved", Resolved: true,
			Request: store.Request{ID: 4, Status: store.Approved}}, nil,
			"INFO request resolved by a tap"},
		{"finished", done, gate.ErrAlreadyResolved,
			"INFO tap on a finished request"},
		{"refused", TapResult{Toast: "Not authorized"}, ErrNotAuthorized,
			"WARN tap refused"},
		{"internal", TapResult{Toast: "Internal error"}, ErrInternal,
			"ERROR tap failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs testkit.Logs
			LogTap(logs.Logger(), tap, tc.res, tc.err, "extra", "x")
			line := logs.All()
			for _, want := range []string{tc.want, "user_id=100000001", "chat=-100", "message=7",
				"extra=x"} {
				if !strings.Contains(line, want) {
					t.Errorf("log %q lacks %q", line, want)
				}
			}
		})
	}
}

// A prompt still rate-limited after MaxRateLimitWaits waits is given up on: the
// request stays pending, and the next sweep's reconciliation sends it.
func TestFanoutRateLimitCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := newFake("telegram", "-100")
		tg.failSends = MaxRateLimitWaits + 1
		tg.failErr = &RateLimitError{RetryAfter: 10 * time.Second, Err: errors.New("429")}
		e := runFanout(t, envOptions{}, tg)
		r := e.require("s1", "Bash", bash)
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case f := <-e.failures:
			if f.Op != "send" || f.RequestID != r.ID || f.Attempts != MaxRateLimitWaits+1 {
				t.Errorf("failure %+v, want a send of request %d after %d attempts",
					f, r.ID, MaxRateLimitWaits+1)
			}
		default:
			t.Fatal("no failure reported")
		}
		// The sweep after the give-up reconciled the outbox: sent once.
		e.wantMessages(r.ID, false, tg)
		if n := len(tg.sent()); n != 1 {
			t.Errorf("sent %d times, want once", n)
		}
	})
}
