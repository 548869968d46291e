package bot

import (
	"context"
	"sync"
	"time"
)

// Workers tracks the goroutines and in-flight deliveries of an adapter's Run, so that
// Run returns only once they have stopped. The zero value is closed: nothing runs
// until Open. Its methods are safe for concurrent use.
type Workers struct {
	mu     sync.Mutex // guards open, ctx and cancel, and orders wg.Add before wg.Wait
	open   bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open starts intake; the work then runs under a context derived from ctx, which
// Close cancels.
func (w *Workers) Open(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.open = true
}

// Go runs f on a tracked goroutine with the work context and returns true, or
// returns false without running f when intake is closed.
func (w *Workers) Go(f func(ctx context.Context)) bool {
	ctx, ok := w.Enter()
	if !ok {
		return false
	}
	go func() {
		defer w.Leave()
		f(ctx)
	}()
	return true
}

// Enter counts in one piece of work done by the caller's own goroutine (a webhook
// delivery) and returns the work context; false when intake is closed. After true,
// the caller must call Leave.
func (w *Workers) Enter() (context.Context, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.open {
		return nil, false
	}
	w.wg.Add(1)
	return w.ctx, true
}

// Leave counts out work counted in by Enter.
func (w *Workers) Leave() { w.wg.Done() }

// Close stops intake, waits up to grace for the work in flight, then cancels the
// work context and waits for the rest. It blocks; a Close without Open returns at
// once.
func (w *Workers) Close(grace time.Duration) {
	w.mu.Lock()
	w.open = false
	cancel := w.cancel
	w.mu.Unlock()
	if cancel == nil {
		return
	}
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
