package main

import (
	"context"
	"log/slog"
	"time"
)

// pruner is what the retention loop needs from the store; *store.DB implements it.
type pruner interface {
	// Prune drops finished requests, runs and audit entries older than before and
	// returns how many records it deleted.
	Prune(before time.Time) (int, error)
}

// retentionInterval is how often runRetention prunes.
const retentionInterval = time.Hour

// runRetention applies the retention (docs/design.md, "Persistence"): at
// once, then every
// retentionInterval, it drops what finished more than keep before now(). A failed
// round is logged and retried at the next. keep 0 (retention: 0 in the
// configuration) keeps everything: nothing is ever pruned. It blocks until ctx is done
// and returns nil.
func runRetention(ctx context.Context, db pruner, keep time.Duration, now func() time.Time,
	log *slog.Logger) error {
	if keep <= 0 {
		log.Info("retention: 0, nothing is pruned")
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(retentionInterval)
	defer t.Stop()
	for {
		before := now().Add(-keep)
		if n, err := db.Prune(before); err != nil {
			log.Error("retention: prune failed", "err", err)
		} else if n > 0 {
			log.Info("retention: pruned", "records", n, "before", before)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
