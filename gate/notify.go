package gate

import (
	"context"
	"log/slog"
	"sync"

	"github.com/skald-circle/skald-bot/store"
)

// notifier runs the Notifier's calls on goroutines Run owns, never under a gate lock.
// Callers ask only after the store committed the change. An Update waits for the Show
// of the same request still in flight, so a request resolved at once is never shown
// after its outcome.
type notifier struct {
	n   Notifier // nil: no chat channel, every call is a no-op
	log *slog.Logger

	mu      sync.Mutex      // guards ctx, queued, stopped and shows
	ctx     context.Context // Run's; nil until Run starts
	queued  []func(context.Context)
	stopped bool
	// shows maps a request to the done channel of its Show still in flight.
	shows map[uint64]chan struct{}
	// clarShows is shows for clarifications (their ids are another sequence).
	clarShows map[uint64]chan struct{}
	wg        sync.WaitGroup // the goroutines started
}

func (q *notifier) init(n Notifier, log *slog.Logger) {
	q.n, q.log = n, log
	q.shows, q.clarShows = make(map[uint64]chan struct{}), make(map[uint64]chan struct{})
}

// goLocked runs f on a tracked goroutine, or queues it until Run starts; after Run
// stopped it drops f and returns false. The caller holds mu.
func (q *notifier) goLocked(f func(context.Context)) bool {
	switch {
	case q.stopped:
		return false
	case q.ctx == nil:
		q.queued = append(q.queued, f)
	default:
		ctx := q.ctx
		q.wg.Go(func() { f(ctx) })
	}
	return true
}

// show asks the notifier to show a new pending request.
func (q *notifier) show(r store.Request) {
	if q.n == nil {
		return
	}
	q.goShow(q.shows, r.ID, func(ctx context.Context) {
		if err := q.n.Show(ctx, r); err != nil {
			q.log.Error("showing a request", "request_id", r.ID, "err", err)
		}
	})
}

// goShow runs show on a tracked goroutine (goLocked), with a done channel in
// shows[id] until it returns. It takes mu.
func (q *notifier) goShow(shows map[uint64]chan struct{}, id uint64,
	show func(context.Context)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	done := make(chan struct{})
	shows[id] = done
	finish := func() {
		q.mu.Lock()
		if shows[id] == done {
			delete(shows, id)
		}
		q.mu.Unlock()
		close(done)
	}
	if !q.goLocked(func(ctx context.Context) {
		defer finish()
		show(ctx)
	}) {
		delete(shows, id)
		close(done)
	}
}

// goAfterShow runs f on a tracked goroutine (goLocked) once the show in flight in
// shows[id], if any, returned; f does not run when the context ends first. It takes
// mu.
func (q *notifier) goAfterShow(shows map[uint64]chan struct{}, id uint64,
	f func(context.Context)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	shown := shows[id]
	q.goLocked(func(ctx context.Context) {
		if shown != nil {
			select {
			case <-shown:
			case <-ctx.Done():
				return
			}
		}
		f(ctx)
	})
}

// update asks the notifier to show a request's outcome, after its Show if that is
// still in flight.
func (q *notifier) update(r store.Request) {
	if q.n == nil {
		return
	}
	q.goAfterShow(q.shows, r.ID, func(ctx context.Context) {
		if err := q.n.Update(ctx, r); err != nil {
			q.log.Error("updating the messages of a request", "request_id", r.ID,
				"status", r.Status, "err", err)
		}
	})
}

// start runs the queued calls and every later one with ctx.
func (q *notifier) start(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ctx = ctx
	for _, f := range q.queued {
		q.wg.Go(func() { f(ctx) })
	}
	q.queued = nil
}

// stop refuses new calls and waits for the running ones, which see ctx done.
func (q *notifier) stop() {
	q.mu.Lock()
	q.stopped = true
	q.queued = nil
	q.mu.Unlock()
	q.wg.Wait()
}
