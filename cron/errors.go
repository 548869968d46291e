package cron

import (
	"errors"
	"fmt"

	"github.com/skald-circle/skald-bot/store"
)

// Sentinel errors of the cron package. Every error it returns wraps one of these (or a
// store or gate error) with the operation and its subject, e.g.
// `cron: job "backup": schedule "61 * * * *": end of range (61) above maximum (59): 61`;
// test them with errors.Is.
var (
	// ErrInvalidJob: a job definition is refused — a bad name, an invalid schedule, an
	// unknown overlap or notify policy, no steps, an unknown tool, bad step arguments,
	// an unknown profile. Start-up must stop.
	ErrInvalidJob = errors.New("invalid job")
	// ErrNotFound: no job of that name, or no run of that id. It is the store's
	// sentinel (and so gate.ErrNotFound), so the API answers 404 for both.
	ErrNotFound = store.ErrNotFound
	// ErrSkipped: a trigger was not run because a run of the job is unfinished (running
	// or waiting for approval) and its overlap policy is skip, or queue with the slot
	// already taken. It was counted on that run (skipped_triggers). It comes inside a
	// *BlockedError naming that run.
	ErrSkipped = errors.New("trigger skipped: the job has an unfinished run")
	// ErrQueued: a trigger of a job with overlap queue found a run unfinished and took
	// the job's one queue slot; the run starts when the unfinished one ends. It comes
	// inside a *BlockedError naming the unfinished run.
	ErrQueued = errors.New("trigger queued: the job has an unfinished run")
	// ErrNotRunning: a trigger arrived while the Engine is not running (before Run, or
	// after it returned).
	ErrNotRunning = errors.New("the scheduler is not running")
	// ErrRunning: Run was called on an Engine that already ran.
	ErrRunning = errors.New("already running")
	// ErrBadArgs: a step's arguments are missing, of the wrong type or malformed.
	ErrBadArgs = errors.New("bad step arguments")
	// ErrSecrets: a built-in file tool was asked to read, list or write inside a
	// directory named secrets, directly or through a symlink.
	ErrSecrets = errors.New("a secrets directory is never listed, read or written")
	// ErrTimeout: a step ran past its timeout and was stopped (execute_cmd kills the
	// whole process group).
	ErrTimeout = errors.New("timed out")
)

// BlockedError is the error of a trigger that started no run because a run of its job
// is unfinished. It wraps Err: ErrSkipped (the trigger was counted on that run) or
// ErrQueued (it took the job's queue slot). RunID, Status and RequestID are that run's
// as the trigger found it: running, or waiting_approval for request RequestID.
type BlockedError struct {
	Job       string
	RunID     uint64
	Status    store.RunStatus
	RequestID uint64
	Err       error
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("cron: trigger %q: run %d is unfinished: %v", e.Job, e.RunID, e.Err)
}

func (e *BlockedError) Unwrap() error { return e.Err }

// blocked returns the BlockedError of a trigger of job that run r blocked with err.
func blocked(job string, r store.Run, err error) *BlockedError {
	return &BlockedError{Job: job, RunID: r.ID, Status: r.Status, RequestID: r.RequestID, Err: err}
}

// invalid is an error whose message is only its text and which wraps ErrInvalidJob, so
// messages read `cron: job "x": schedule "…": <parser error>` without a sentinel's text
// tacked on.
type invalid string

func (e invalid) Error() string { return string(e) }
func (e invalid) Unwrap() error { return ErrInvalidJob }

// invalidf formats an invalid.
func invalidf(format string, args ...any) error { return invalid(fmt.Sprintf(format, args...)) }
