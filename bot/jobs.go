package bot

import (
	"context"

	"github.com/skald-circle/skald-bot/store"
)

// Jobs is what the job commands (jobs, run, runs) need of the scheduler. The cron
// package implements it and cmd/skald-bot wires it in; it uses only store types, so
// cron need not import bot. Implementations must be safe for
// concurrent use. The messages of the errors Trigger and Runs return are shown to the
// admin as they are, so they must be short and hold no secret.
type Jobs interface {
	// List returns the names of the configured jobs, sorted.
	List() []string
	// Trigger starts a manual run of job name now and returns it as stored. It does
	// not wait for the run to finish. An error says why no run started (the job is
	// running and its overlap policy is skip, the store failed, …).
	Trigger(ctx context.Context, name string) (store.Run, error)
	// Runs returns at most limit runs of job name, newest first.
	Runs(name string, limit int) ([]store.Run, error)
}
