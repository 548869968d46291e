package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/skald-circle/skald-bot/gate"
)

// EventRunFinished is the name of the event cron publishes on the gate's bus when a
// scheduled run ends.
const EventRunFinished = "run_finished"

// noticeBuffer is the capacity of the Notices' subscription to the gate's events.
const noticeBuffer = gate.DefaultEventBuffer

// Events is what Notices needs of the gate: its event bus. *gate.Manager implements
// it: Subscribe returns a channel of every event published from now on and a function
// that ends the subscription; the channel is closed when the gate drops a slow
// subscriber.
type Events interface {
	Subscribe(buffer int) (<-chan gate.Event, func())
}

// RunFinished is the data of a run_finished event as Notices reads it: the fields of
// its JSON form, which GET /api/events serves too. cron publishes the
// event; bot reads it through that JSON form, so that it need not import cron.
type RunFinished struct {
	RunID uint64 `json:"run_id"`
	Job   string `json:"job"`
	// Status is the run's final status: succeeded, failed, denied, rejected,
	// expired, cancelled or interrupted.
	Status string `json:"status"`
	// Error says why the run did not succeed ("step 2 (execute_cmd): exit status 1");
	// empty for a success.
	Error string `json:"error"`
	// Notify is set when the job's notify policy (failure, always, never) wants the
	// chats told of this run.
	Notify bool `json:"notify"`
}

// NoticeText is the line a finished run is announced with, as plain text:
// "🗓 nightly-backup run 12: failed — step 2 (execute_cmd): exit status 1", or
// "🗓 nightly-backup run 12: succeeded" when there is no error to tell.
func NoticeText(r RunFinished) string {
	s := fmt.Sprintf("🗓 %s run %d: %s", r.Job, r.RunID, r.Status)
	if r.Error != "" {
		s += " — " + r.Error
	}
	return s
}

// NoticesOptions configure Notices.
type NoticesOptions struct {
	// Events is the gate's event bus (the *gate.Manager). Required.
	Events Events
	// Fanout holds the channels the notices go to, with their targets; its Retry and
	// OnFailure apply to the notices too. Required.
	Fanout *Fanout
	// Logger nil means slog.Default(); Notices add component=bot.
	Logger *slog.Logger
}

// Notices announces finished scheduled runs in the chats (the job's notify): for
// every run_finished event whose Notify is set, it posts NoticeText to every target
// of every channel of the Fanout with Channel.Notify. Only finished runs get a
// notice: a run waiting for approval already shows up as the request's prompt.
// Create it with NewNotices; Run does the work.
type Notices struct {
	events Events
	fan    *Fanout
	log    *slog.Logger

	mu      sync.Mutex // guards sub, release, running
	sub     <-chan gate.Event
	release func()
	running bool
}

// NewNotices returns Notices over opt and subscribes to the gate's events at once,
// so that no run finishing after NewNotices returns is missed, even before Run
// starts (up to the subscription's buffer of 64 events). It returns an error when
// opt.Events or opt.Fanout is nil.
func NewNotices(opt NoticesOptions) (*Notices, error) {
	if opt.Events == nil || opt.Fanout == nil {
		return nil, errors.New("bot: new notices: an event bus and a Fanout are required")
	}
	n := &Notices{events: opt.Events, fan: opt.Fanout, log: componentLog(opt.Logger)}
	n.sub, n.release = opt.Events.Subscribe(noticeBuffer)
	return n, nil
}

// Run reads the gate's events until ctx is done and posts a notice for each
// run_finished event that asks for one, to every (channel, target) at once, retried
// as the Fanout retries a prompt; one given up on is logged and reported to
// FanoutOptions.OnFailure with Op "notice". When the gate drops the subscription as
// slow, Run subscribes again (the runs finished in between get no notice). It blocks,
// and returns nil once ctx is done and every notice in flight has stopped; it returns
// an error only when called twice.
func (n *Notices) Run(ctx context.Context) error {
	n.mu.Lock()
	if n.running {
		n.mu.Unlock()
		return errors.New("bot: notices: Run called twice")
	}
	n.running = true
	sub, release := n.sub, n.release
	n.mu.Unlock()

	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			release()
			return nil
		case e, ok := <-sub:
			if !ok {
				release()
				n.log.Warn("the gate dropped the notices' event subscription; subscribing again")
				sub, release = n.events.Subscribe(noticeBuffer)
				continue
			}
			if r, ok := runFinished(e); ok && r.Notify {
				n.announce(ctx, &wg, NoticeText(r))
			}
		}
	}
}

// runFinished reads a run_finished event's data through its JSON form; false for
// another event, or data that is not a run.
func runFinished(e gate.Event) (RunFinished, bool) {
	if e.Name != EventRunFinished {
		return RunFinished{}, false
	}
	b, err := json.Marshal(e.Data)
	if err != nil {
		return RunFinished{}, false
	}
	var r RunFinished
	if err := json.Unmarshal(b, &r); err != nil || r.Job == "" {
		return RunFinished{}, false
	}
	return r, true
}

// announce posts text to every target of every channel, each on a goroutine of wg.
func (n *Notices) announce(ctx context.Context, wg *sync.WaitGroup, text string) {
	n.fan.mu.Lock()
	channels := slices.Clone(n.fan.channels)
	n.fan.mu.Unlock()
	for _, ch := range channels {
		for _, target := range ch.Targets() {
			wg.Go(func() { n.notify(ctx, ch, target, text) })
		}
	}
}

// notify posts one notice, retrying as the Fanout's Retry says, until it is posted,
// given up on, or ctx ends.
func (n *Notices) notify(ctx context.Context, ch Channel, target, text string) {
	retry := n.fan.retry
	for fails, limits := 0, 0; ; {
		err := ch.Notify(ctx, target, text)
		if err == nil {
			n.log.Debug("notice sent", "channel", ch.Name(), "chat", target)
			return
		}
		if ctx.Err() != nil {
			return
		}
		var wait time.Duration
		rl, limited := errors.AsType[*RateLimitError](err)
		switch {
		case limited && limits < MaxRateLimitWaits:
			limits++
			wait = max(rl.RetryAfter, time.Millisecond)
		case limited, errors.Is(err, ErrPermanent), fails+1 >= retry.Attempts:
			fails++
			n.log.Error("giving up on a notice", "channel", ch.Name(), "chat", target,
				"attempts", fails+limits, "err", err)
			if n.fan.onFailure != nil {
				n.fan.onFailure(Failure{Op: "notice", Channel: ch.Name(), Target: target,
					Attempts: fails + limits, Err: err})
			}
			return
		default:
			fails++
			wait = retry.delay(fails)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}
