// Package cron runs skald-bot's scheduled jobs: a scheduler over
// github.com/robfig/cron/v3 v3.0.1, the durable run engine that takes each run's steps
// through the approval gate, and the built-in tools the steps call. It is the only
// importer of robfig/cron; it uses the gate and the store, and nothing else of
// skald-bot. What a run does at each step, how it parks and resumes across restarts,
// and the overlap and notify policies are told in docs/design.md, "Scheduled jobs".
//
// # Jobs and schedules
//
// cmd builds the Jobs from the configuration and calls Validate before it starts
// anything: an invalid schedule refuses start-up with an error naming the job,
// `cron: job "x": schedule "61 * * * *": end of range (61) above maximum (59): 61`.
// Parse accepts what robfig/cron's standard parser accepts — five fields, the
// descriptors (@daily, @every 1h) and a CRON_TZ=Area/City prefix — and refuses what
// v3.0.1 gets wrong (a bare CRON_TZ= panics inside it; "@every 0s" runs every second).
// The zone database is embedded (time/tzdata). Daylight saving time follows
// robfig/cron (see docs/jobs.md).
//
// # Runs
//
// Engine.Fire (robfig/cron's entry point; Trigger for manual runs) stores a run and
// starts one goroutine for its steps; a step that requires approval stores the run as
// waiting_approval and that goroutine returns. Engine.Run resumes a waiting run when
// the gate's approval_resolved event names its request, and at start-up brings the
// runs of a previous process up to date. A step's Decision is the gate's word (allow,
// deny, pending, approved, rejected, expired, cancelled), its Status a run status.
//
// A run waiting for approval counts as unfinished, which robfig/cron's own wrappers
// cannot see (and v3.0.1's SkipIfStillRunning sticks after a recovered panic), so the
// engine applies the overlap policy itself.
//
// The engine publishes run_started, run_waiting and run_finished (RunEvent) on the
// gate's bus; RunEvent.Notify carries the job's notify policy for the chat side.
//
// # Tools
//
// Builtins are execute_cmd (through /bin/sh -c, in its own process group, killed whole
// on timeout; the SKALD_* environment variables are withheld), read_file, write_file,
// list_files and http_request. Paths resolve as the rules resolve them
// (rules.Normalize); a directory named secrets is never listed, read or written.
//
// # Ownership and time
//
// Run owns every goroutine the engine starts — robfig/cron's and the runs' — and
// returns only when they have stopped; steps in flight are cancelled and end
// interrupted. robfig/cron's loop runs on a goroutine of Run's (its Run, not Start,
// whose goroutine may still log "stop" after Stop's context is done). A panic in a tool
// is recovered and recorded; robfig/cron gets cron.Recover with a slog logger too,
// since v3.0.1 does not recover by default. The engine's clock is Options.Now;
// robfig/cron takes no clock and reads time.Now, so schedules are tested through
// Schedule.Next and tests that let it fire run under testing/synctest. Retention (old
// runs dropped with store.Prune) is cmd's.
package cron
