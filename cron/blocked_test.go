package cron_test

import (
	"context"
	"errors"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/store"
)

// A trigger that yields to an unfinished run says which run, in the error itself, so a
// caller need not read the runs again (and race the run's end) to tell the user.
func TestBlockedErrorNamesTheRunThatBlockedTheTrigger(t *testing.T) {
	for _, tc := range []struct {
		overlap cron.Overlap
		want    error
	}{
		{cron.OverlapSkip, cron.ErrSkipped},
		{cron.OverlapQueue, cron.ErrQueued},
	} {
		t.Run(string(tc.overlap), func(t *testing.T) {
			e, r := started(t, backup("backup", tc.overlap), waitingAtStep2)

			_, err := e.eng.Fire(context.Background(), "backup", cron.TriggerManual)
			var b *cron.BlockedError
			if !errors.As(err, &b) || !errors.Is(err, tc.want) {
				t.Fatalf("Fire: %v, want a *cron.BlockedError wrapping %v", err, tc.want)
			}
			want := cron.BlockedError{Job: "backup", RunID: r.ID,
				Status: store.RunWaitingApproval, RequestID: r.RequestID, Err: tc.want}
			if *b != want || r.RequestID == 0 {
				t.Errorf("BlockedError %+v, want %+v", *b, want)
			}
		})
	}
}
