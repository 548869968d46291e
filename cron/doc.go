// Package cron runs skald-bot's scheduled jobs (SPEC §7): a scheduler over
// github.com/robfig/cron/v3 v3.0.1, the durable run engine that takes each run's steps
// through the approval gate, and the built-in tools the steps call. It is the only
// importer of robfig/cron; it uses the gate and the store, and nothing else of
// skald-bot.
//
// # Jobs and schedules
//
// A Job names a schedule, the agent, profile and context label its tool calls carry,
// an overlap and a notify policy, an optional approval timeout and its steps. cmd
// builds the jobs from the configuration and calls Validate before it starts
// anything: an invalid schedule refuses start-up with an error naming the job,
// `cron: job "x": schedule "61 * * * *": end of range (61) above maximum (59): 61`.
// Parse accepts what robfig/cron's standard parser accepts — five fields, the
// descriptors (@daily, @every 1h) and a CRON_TZ=Area/City prefix — and refuses what
// v3.0.1 gets wrong (a bare CRON_TZ= panics inside it; "@every 0s" runs every second).
// The zone database is embedded (time/tzdata), so zones work on a machine without one.
// robfig/cron takes no clock, so schedules are tested through Schedule.Next;
// daylight saving time follows robfig/cron (see the README).
//
// # Runs
//
// A run is a headless session "cron:<job>:<run_id>" with source cron. Engine.Fire
// (robfig/cron's entry point; Trigger for manual runs) stores the run as running and
// starts one goroutine that takes the steps in order, each through gate.Check:
//
//   - allow → the tool runs; its decision, status, exit code, last 16 KiB of output
//     and duration are stored; a failing step ends the run failed;
//   - deny → the run ends denied;
//   - require → the run is stored waiting_approval with the request's id, and the
//     goroutine returns. Nothing waits for the human.
//
// A step's Decision is the gate's word (allow, deny, pending while it waits, then
// approved, rejected, expired or cancelled) and its Status a run status word (running,
// waiting_approval, succeeded, failed, denied, rejected, expired, cancelled,
// interrupted).
//
// Engine.Run subscribes to the gate's events: when approval_resolved names a request a
// run waits on, the run is resumed at that step (approved: the step runs without a
// second check, then the next steps) or ended rejected, expired or cancelled — the
// step never ran. Every transition is written to the store before anyone hears of
// it, so a restart loses nothing: at start-up, runs found running ended with the
// previous process and are marked interrupted, runs whose request was resolved while
// the service was down are resumed or ended, and the others keep waiting. A panic in
// a tool is recovered and recorded (the run fails, the scheduler goes on); robfig/cron
// gets cron.Recover with a slog logger too, since v3.0.1 does not recover by default.
//
// # Overlap
//
// A run waiting for approval counts as unfinished, which robfig/cron's own wrappers
// cannot see (and v3.0.1's SkipIfStillRunning sticks after a recovered panic), so the
// engine applies the overlap policy itself: skip (the default) counts the trigger on
// the unfinished run (skipped_triggers) instead of storing a run; queue keeps one
// trigger in the store and starts it when the unfinished run ends, counting any
// further trigger like skip; allow starts every trigger.
//
// # Events
//
// The engine publishes run_started, run_waiting and run_finished on the gate's bus
// (RunEvent: run_id, job, status, request_id, trigger, error, notify). notify says
// whether the job's notify policy wants the chat told — only for run_finished: always,
// every status but succeeded (failure, the default), or never. The chat side (bot)
// announces those; the approval prompt of a waiting run is the gate's.
//
// # Tools
//
// Builtins are execute_cmd (through /bin/sh -c, in its own process group, killed whole
// on timeout; the SKALD_* environment variables are withheld), read_file, write_file,
// list_files and http_request. Paths resolve against the profile's working directory
// and through symlinks as the rules resolve them (rules.Normalize); a directory named
// secrets is never listed, read or written, also through a symlink or "..".
//
// # Ownership and time
//
// Run owns every goroutine the engine starts — robfig/cron's and the runs' — and
// returns only when they have stopped; steps in flight are cancelled and end
// interrupted. robfig/cron's loop runs on a goroutine of Run's (its Run, not Start,
// whose goroutine may still log "stop" after Stop's context is done), so nothing of it
// outlives Engine.Run. The engine's clock is Options.Now; robfig/cron reads time.Now, so tests
// that let it fire run under testing/synctest. The retention of SPEC §12.19 (old runs
// dropped with store.Prune) is cmd's, which prunes requests and audit entries too.
package cron
