package main

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// recorder notes the order in which components start and stop.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) note(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// blocking is a component that runs until its context is done, then returns stopErr.
func blocking(r *recorder, name string, started chan<- string, stopErr error) component {
	return component{name, func(ctx context.Context) error {
		started <- name
		<-ctx.Done()
		r.note("stop " + name)
		return stopErr
	}}
}

func TestComponentsStopInReverseOrder(t *testing.T) {
	r := &recorder{}
	started := make(chan string, 3)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- runComponents(ctx, testkit.Logger(), []component{
			blocking(r, "gate", started, nil), blocking(r, "cron", started, nil),
			blocking(r, "api", started, nil),
		})
	}()
	for range 3 {
		<-started
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runComponents = %v", err)
	}
	want := []string{"stop api", "stop cron", "stop gate"}
	if got := r.get(); !reflect.DeepEqual(got, want) {
		t.Errorf("stop order %v, want %v", got, want)
	}
}

func TestComponentFailureStopsTheRest(t *testing.T) {
	r := &recorder{}
	started := make(chan string, 3)
	release := make(chan struct{})
	failing := component{"api", func(ctx context.Context) error {
		<-release
		return errors.New("listen tcp 127.0.0.1:1: bind: permission denied")
	}}
	done := make(chan error)
	go func() {
		done <- runComponents(context.Background(), testkit.Logger(), []component{
			blocking(r, "gate", started, nil),
			blocking(r, "cron", started, errors.New("run 7 left running")),
			failing,
		})
	}()
	for range 2 {
		<-started
	}
	close(release)
	err := <-done
	want := "api: listen tcp 127.0.0.1:1: bind: permission denied\ncron: run 7 left running"
	if err == nil || err.Error() != want {
		t.Fatalf("runComponents = %v, want %q", err, want)
	}
	if got, want := r.get(), []string{"stop cron", "stop gate"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stop order %v, want %v", got, want)
	}
}

func TestComponentEndingEarlyIsAnError(t *testing.T) {
	err := runComponents(context.Background(), testkit.Logger(), []component{
		{"channel", func(context.Context) error { return nil }},
	})
	if err == nil || err.Error() != "channel: stopped unexpectedly" {
		t.Fatalf("runComponents = %v", err)
	}
}
