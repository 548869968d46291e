package gate

import (
	"fmt"
	"sync"

	"github.com/skald-circle/skald-bot/store"
)

// pendingCount counts the inbox items waiting for a human, per caller and in total,
// against Limits (docs/design.md, "Limits"). It is initialised from the store when the
// Manager is made — only the Manager changes a request's status, so it stays exact
// across restarts — and every kind of inbox item takes a slot before it is stored and
// gives it back when it leaves pending.
type pendingCount struct {
	mu       sync.Mutex // guards byCaller and total
	byCaller map[string]int
	total    int

	perCaller, maxTotal int // read-only after init
}

func (p *pendingCount) init(s Store, l Limits) error {
	p.perCaller, p.maxTotal = l.PendingPerCaller, l.PendingTotal
	if p.perCaller == 0 {
		p.perCaller = DefaultPendingPerCaller
	}
	if p.maxTotal == 0 {
		p.maxTotal = DefaultPendingTotal
	}
	p.byCaller = make(map[string]int)
	reqs, err := s.Pending()
	if err != nil {
		return fmt.Errorf("count the pending requests: %w", err)
	}
	for _, r := range reqs {
		p.add(r.Caller)
	}
	cs, err := s.PendingClarifications()
	if err != nil {
		return fmt.Errorf("count the pending clarifications: %w", err)
	}
	for _, c := range cs {
		p.add(callerOf(c.Caller))
	}
	return nil
}

// take reserves a slot for a new item of caller; it fails, reserving nothing, with
// ErrTooManyPending when the caller or everyone is at the limit.
func (p *pendingCount) take(caller string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.byCaller[caller] >= p.perCaller:
		return fmt.Errorf("%w: this caller already has %d waiting for a human; "+
			"resolve or cancel some first", ErrTooManyPending, p.byCaller[caller])
	case p.total >= p.maxTotal:
		return fmt.Errorf("%w: %d are waiting for a human; resolve or cancel some first",
			ErrTooManyPending, p.total)
	}
	p.byCaller[caller]++
	p.total++
	return nil
}

// add counts an item of caller without checking the limits.
func (p *pendingCount) add(caller string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byCaller[caller]++
	p.total++
}

// release gives back the slot of an item of caller that was not stored or left
// pending.
func (p *pendingCount) release(caller string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byCaller[caller] <= 1 {
		delete(p.byCaller, caller)
	} else {
		p.byCaller[caller]--
	}
	if p.total > 0 {
		p.total--
	}
}

// callerOf is the caller a request is counted under: store.CallerAdmin for "".
func callerOf(caller string) string {
	if caller == "" {
		return store.CallerAdmin
	}
	return caller
}
