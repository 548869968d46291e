package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// component is a long-running part of the service (the gate's background work, the
// retention pruner; later the scheduler, the chat channels, the HTTP API). run blocks
// until its context is done and returns only when everything it started has stopped;
// returning before that ends the service.
type component struct {
	name string
	run  func(ctx context.Context) error
}

// runComponents starts every component in the order given, each under its own
// context (carrying ctx's values, not its cancellation), and blocks until ctx is done
// or a component returns on its own. Then it stops the components that are still
// running in reverse order, waiting for each before stopping the next, so what takes
// work in (listed last) stops before what it relies on (listed first). It returns nil
// when every component stopped cleanly after ctx was done; else the error of the
// component that ended first ("<name> stopped unexpectedly" when it returned nil)
// joined with any error returned while stopping, each prefixed with the component's
// name.
func runComponents(ctx context.Context, log *slog.Logger, comps []component) error {
	type running struct {
		cancel context.CancelFunc
		done   chan error // receives run's result, once
	}
	rs := make([]running, len(comps))
	exited := make(chan int, len(comps)) // indexes of components whose run returned
	for i, c := range comps {
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		rs[i] = running{cancel: cancel, done: make(chan error, 1)}
		go func() {
			rs[i].done <- c.run(cctx)
			exited <- i
		}()
	}
	var errs []error
	stopped := make([]bool, len(comps))
	select {
	case <-ctx.Done():
	case i := <-exited:
		err := <-rs[i].done
		stopped[i] = true
		rs[i].cancel()
		if err == nil {
			err = errors.New("stopped unexpectedly")
		}
		errs = append(errs, fmt.Errorf("%s: %w", comps[i].name, err))
		log.Error("component ended, stopping the service", "name", comps[i].name, "err", err)
	}
	for i := len(comps) - 1; i >= 0; i-- {
		if stopped[i] {
			continue
		}
		rs[i].cancel()
		if err := <-rs[i].done; err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", comps[i].name, err))
		}
		log.Debug("component stopped", "name", comps[i].name)
	}
	return errors.Join(errs...)
}
