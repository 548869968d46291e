package slack

import (
	"context"
	"sync"
	"time"
)

// workers runs the work of each delivery — a tap, a command — after it was
// acknowledged, each on its own goroutine, all owned by Run: Run opens them for
// intake and, at shutdown, stops intake, lets the work in flight finish within a
// grace period, then cancels what is left and waits for it.
type workers struct {
	mu   sync.Mutex // guards open and ctx, and orders wg.Go before wg.Wait
	open bool
	ctx  context.Context
	wg   sync.WaitGroup
}

// start opens intake; work runs under ctx.
func (w *workers) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open, w.ctx = true, ctx
}

// spawn runs f on a tracked goroutine and returns true, or returns false when intake
// is closed (Run is not running), in which case f never runs.
func (w *workers) spawn(f func(ctx context.Context)) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.open {
		return false
	}
	ctx := w.ctx
	w.wg.Go(func() { f(ctx) })
	return true
}

// stop closes intake, waits up to grace for the work in flight, then calls cancel
// (which cancels the work's context) and waits for the rest.
func (w *workers) stop(grace time.Duration, cancel context.CancelFunc) {
	w.mu.Lock()
	w.open = false
	w.mu.Unlock()
	done := make(chan struct{})
	go func() {
		w.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	cancel()
	<-done
}
