package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// fakePruner records the cut-off of each Prune call and fails when told to.
type fakePruner struct {
	mu      sync.Mutex
	befores []time.Time
	fail    bool
}

func (p *fakePruner) Prune(before time.Time) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.befores = append(p.befores, before)
	if p.fail {
		return 0, errors.New("disk full")
	}
	return 1, nil
}

func (p *fakePruner) calls() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.befores...)
}

// TestRetention checks pruning happens at start and every hour, with the cut-off
// retention before now, that a failure is retried, and that the loop stops with ctx.
func TestRetention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePruner{fail: true}
		keep := 90 * 24 * time.Hour
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- runRetention(ctx, p, keep, time.Now, testkit.Logger()) }()

		synctest.Wait()
		if got := p.calls(); len(got) != 1 || !got[0].Equal(start.Add(-keep)) {
			t.Fatalf("first round: %v", got)
		}
		p.mu.Lock()
		p.fail = false
		p.mu.Unlock()
		time.Sleep(retentionInterval) // fake time: the ticker fires
		synctest.Wait()
		if got := p.calls(); len(got) != 2 || !got[1].Equal(start.Add(retentionInterval-keep)) {
			t.Fatalf("after an hour: %v", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("runRetention = %v", err)
		}
		if got := p.calls(); len(got) != 2 {
			t.Errorf("pruned after stop: %v", got)
		}
	})
}

// TestRetentionZeroKeepsEverything checks retention 0 never prunes, however long the
// service runs, and still stops with ctx.
func TestRetentionZeroKeepsEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePruner{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- runRetention(ctx, p, 0, time.Now, testkit.Logger()) }()
		synctest.Wait()
		time.Sleep(3 * retentionInterval) // fake time
		synctest.Wait()
		if got := p.calls(); len(got) != 0 {
			t.Fatalf("retention 0 pruned: %v", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("runRetention = %v", err)
		}
	})
}
