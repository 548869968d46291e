package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Fire starts a run of job name now, as trigger says (TriggerSchedule, TriggerManual),
// and returns it as first stored (status running, no step yet); the steps run on a
// goroutine of Run's. It does not wait for the run. robfig/cron calls it for the
// schedule; Trigger calls it for manual runs.
//
// When the job has an unfinished run its overlap policy applies (docs/design.md,
// "Scheduled jobs"): the error is a *BlockedError wrapping ErrSkipped when the trigger
// was counted on that run, ErrQueued when it took the queue slot. Other errors:
// ErrNotFound (no such job), ErrNotRunning (Run is not running), ctx's error, the
// store's error. An error means no run started.
func (e *Engine) Fire(ctx context.Context, name, trigger string) (store.Run, error) {
	j := e.jobs[name]
	if j == nil {
		return store.Run{}, fmt.Errorf("cron: trigger %q: no such job: %w", name, ErrNotFound)
	}
	if err := ctx.Err(); err != nil {
		return store.Run{}, fmt.Errorf("cron: trigger %q: %w", name, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return store.Run{}, fmt.Errorf("cron: trigger %q: %w", name, ErrNotRunning)
	}
	if busy := e.oldestActive(name); busy != 0 && j.Overlap != OverlapAllow {
		if j.Overlap == OverlapQueue {
			br, err := e.store.Run(busy)
			if err != nil {
				return store.Run{}, fmt.Errorf("cron: trigger %q: read run %d: %w",
					name, busy, err)
			}
			queued, err := e.takeSlotLocked(name, trigger)
			if err != nil {
				return store.Run{}, fmt.Errorf("cron: trigger %q: %w", name, err)
			}
			if queued {
				e.log.Info("trigger queued",
					"job", name, "trigger", trigger, "unfinished_run", busy)
				return store.Run{}, blocked(name, br, ErrQueued)
			}
		}
		br, err := e.updateLocked(busy, func(r *store.Run) { r.SkippedTriggers++ })
		if err != nil {
			return store.Run{}, fmt.Errorf(
				"cron: trigger %q: count the skipped trigger on run %d: %w", name, busy, err)
		}
		e.log.Info("trigger skipped", "job", name, "trigger", trigger, "unfinished_run", busy)
		return store.Run{}, blocked(name, br, ErrSkipped)
	}
	r, err := e.startLocked(j, trigger)
	if err != nil {
		return store.Run{}, fmt.Errorf("cron: trigger %q: %w", name, err)
	}
	return r, nil
}

// oldestActive returns the lowest id of job name's unfinished runs, 0 when none.
// e.mu must be held.
func (e *Engine) oldestActive(name string) uint64 {
	var oldest uint64
	for id := range e.active[name] {
		if oldest == 0 || id < oldest {
			oldest = id
		}
	}
	return oldest
}

// startLocked creates a run of j and starts its goroutine. e.mu must be held and
// e.ctx set.
func (e *Engine) startLocked(j *job, trigger string) (store.Run, error) {
	plan, err := planOf(j.Steps)
	if err != nil {
		return store.Run{}, err
	}
	r, err := e.store.CreateRun(store.Run{Job: j.Name, Status: store.RunRunning, Trigger: trigger,
		StartedAt: e.now(), Steps: []store.StepResult{}, Plan: plan})
	if err != nil {
		return store.Run{}, err
	}
	e.addActive(j.Name, r.ID)
	e.log.Info("run started", "job", j.Name, "run_id", r.ID, "trigger", trigger)
	e.publish(EventRunStarted, r)
	e.goDrive(j, r, 0, false)
	return r, nil
}

// goDrive starts the goroutine that runs r's steps from step from; approved says
// step from was approved already and is not checked again. e.mu must be held and
// e.ctx set.
func (e *Engine) goDrive(j *job, r store.Run, from int, approved bool) {
	ctx := e.ctx
	steps := runSteps(j, r)
	e.wg.Go(func() { e.drive(ctx, j, steps, r.ID, r.SessionID, from, approved) })
}

// planOf returns steps as a run stores them: a copy through JSON, so that a run
// started now and one resumed from the store run the same values.
func planOf(steps []Step) ([]store.PlanStep, error) {
	plan := make([]store.PlanStep, len(steps))
	for i, s := range steps {
		plan[i] = store.PlanStep{Tool: s.Tool, Args: s.Args}
	}
	b, err := json.Marshal(plan)
	if err != nil {
		return nil, fmt.Errorf("store the steps: %w", err)
	}
	var out []store.PlanStep
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers as written, as the store gives them back
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("store the steps: %w", err)
	}
	return out, nil
}

// runSteps returns the steps run r runs: its Plan, or for a run stored without one,
// the job's steps as configured now.
func runSteps(j *job, r store.Run) []Step {
	if r.Plan == nil {
		return j.Steps
	}
	steps := make([]Step, len(r.Plan))
	for i, p := range r.Plan {
		steps[i] = Step{Tool: p.Tool, Args: p.Args}
	}
	return steps
}

// planChanged reports whether j's configured steps differ from run r's Plan; false
// for a run without one.
func planChanged(j *job, r store.Run) bool {
	if r.Plan == nil {
		return false
	}
	now, err := planOf(j.Steps)
	if err != nil {
		return true
	}
	a, errA := json.Marshal(now)
	b, errB := json.Marshal(r.Plan)
	return errA != nil || errB != nil || !bytes.Equal(a, b)
}

// drive runs steps of run id from step from, storing every transition, until the run
// ends or parks waiting for approval. It never waits for a human.
func (e *Engine) drive(ctx context.Context, j *job, steps []Step, id uint64, session string,
	from int, approved bool) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("run engine panicked", "job", j.Name, "run_id", id,
				"panic", p, "stack", string(debug.Stack()))
			e.finish(j.Name, id, store.RunFailed, fmt.Sprintf("internal error: panic: %v", p), nil)
		}
	}()
	for i := from; i < len(steps); i++ {
		tool := steps[i].Tool
		if ctx.Err() != nil {
			msg := fmt.Sprintf("interrupted: the service stopped before step %d", i+1)
			e.finish(j.Name, id, store.RunInterrupted, msg, nil)
			return
		}
		if tool == AskUserTool { // not gated (docs/design.md, "Scheduled jobs")
			if !e.askStep(j, steps[i], id, session, i) {
				return
			}
			continue
		}
		decision, reqID := gate.VerdictApproved, uint64(0)
		if !approved || i != from {
			out, err := e.gate.Check(ctx, e.call(j, steps[i], session, i))
			if err != nil {
				status := store.RunFailed
				if ctx.Err() != nil {
					status = store.RunInterrupted
				}
				msg := fmt.Sprintf("step %d (%s): gate: %v", i+1, tool, err)
				e.finish(j.Name, id, status, msg, nil)
				return
			}
			decision = out.Decision
			if out.Request != nil {
				reqID = out.Request.ID
			}
			switch decision {
			case gate.VerdictAllow, gate.VerdictApproved:
			case gate.VerdictPending:
				e.park(j, steps[i], id, i, reqID)
				return
			default: // deny, or a request of this step already rejected, expired or cancelled
				status := endStatus(decision)
				msg := fmt.Sprintf("step %d (%s): %s: %s", i+1, tool, decision, out.Reason)
				e.finish(j.Name, id, status, msg, func(r *store.Run) {
					setStep(r, i, store.StepResult{Tool: tool, Decision: string(decision),
						Status: string(status), RequestID: reqID})
				})
				return
			}
		}
		if !e.runStep(ctx, j, steps[i], id, i, decision, reqID) {
			// Ended, or stopped on a store error that left it unfinished: either way no
			// later step comes, so its bypasses end too.
			e.gate.EndSession(session)
			return
		}
	}
	e.finish(j.Name, id, store.RunSucceeded, "", nil)
}

// endStatus is the run status a final decision on a step ends the run in.
func endStatus(d gate.Verdict) store.RunStatus {
	switch d {
	case gate.VerdictRejected:
		return store.RunRejected
	case gate.VerdictExpired:
		return store.RunExpired
	case gate.VerdictCancelled:
		return store.RunCancelled
	}
	return store.RunDenied
}

// call is the tool call of step i, s, of a run of j in session (docs/design.md,
// "Scheduled jobs").
func (e *Engine) call(j *job, s Step, session string, i int) gate.Call {
	return gate.Call{
		ToolName: s.Tool, Arguments: s.Args, SessionID: session,
		ToolCallID: "step-" + strconv.Itoa(i+1), AgentID: j.AgentID, Source: SourceCron,
		ContextLabel: j.ContextLabel, Profile: j.Profile, ApprovalTimeout: j.ApprovalTimeout,
		Caller: store.CallerCron,
	}
}

// runStep executes step i, s, of run id, storing it as running and then its result.
// It reports whether the run goes on; when the step failed it has ended the run.
func (e *Engine) runStep(ctx context.Context, j *job, s Step, id uint64, i int,
	decision gate.Verdict, reqID uint64) bool {
	tool := s.Tool
	start := e.now()
	run, err := e.update(id, func(r *store.Run) {
		if reqID == 0 && i < len(r.Steps) {
			reqID = r.Steps[i].RequestID // the request an approval resumed
		}
		r.Status, r.Step, r.RequestID = store.RunRunning, i, 0
		setStep(r, i, store.StepResult{Tool: tool, Decision: string(decision),
			Status: string(store.RunRunning), RequestID: reqID, StartedAt: start})
	})
	if err != nil {
		e.log.Error("storing a step's start; the run stops here",
			"job", j.Name, "run_id", id, "step", i+1, "err", err)
		return false
	}
	res, runErr := e.execute(ctx, j, s, i, answerEnv(run))
	result := func(r *store.Run, status store.RunStatus, out string) {
		if i < len(r.Steps) {
			s := &r.Steps[i]
			s.Status, s.ExitCode = string(status), res.ExitCode
			s.Output = lastBytes(out, MaxOutput)
			s.DurationMS = e.now().Sub(start).Milliseconds()
		}
	}
	if runErr == nil {
		_, err := e.update(id, func(r *store.Run) { result(r, store.RunSucceeded, res.Output) })
		if err != nil {
			e.log.Error("storing a step's result; the run stops here",
				"job", j.Name, "run_id", id, "step", i+1, "err", err)
			return false
		}
		return true
	}
	status := store.RunFailed
	if ctx.Err() != nil {
		status = store.RunInterrupted
	}
	out := res.Output
	if out != "" && out[len(out)-1] != '\n' {
		out += "\n"
	}
	out += "error: " + runErr.Error()
	msg := fmt.Sprintf("step %d (%s): %v", i+1, tool, runErr)
	e.finish(j.Name, id, status, msg, func(r *store.Run) { result(r, status, out) })
	return false
}

// execute runs step i, s, with the answers of earlier ask_user steps; a panic in it is
// recovered and returned as an error "panic: …", with the stack in the log, so the run
// fails and the engine goes on.
func (e *Engine) execute(ctx context.Context, j *job, s Step, i int,
	answers []string) (res Result, err error) {
	tool, ok := e.tools[s.Tool]
	if !ok || tool.Run == nil {
		return Result{ExitCode: -1}, fmt.Errorf("no tool %q", s.Tool)
	}
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("step panicked", "job", j.Name, "step", i+1, "tool", s.Tool,
				"panic", p, "stack", string(debug.Stack()))
			res, err = Result{ExitCode: -1}, fmt.Errorf("panic: %v", p)
		}
	}()
	env := j.env
	env.Answers = answers
	return tool.Run(ctx, env, s.Args)
}

// park stores run id as waiting for request reqID at step i and returns: no goroutine
// waits. A resolution that came before the run was stored as waiting found
// no waiting run, so park looks at the request once more.
func (e *Engine) park(j *job, s Step, id uint64, i int, reqID uint64) {
	e.mu.Lock()
	r, err := e.updateLocked(id, func(r *store.Run) {
		r.Status, r.Step, r.RequestID = store.RunWaitingApproval, i, reqID
		setStep(r, i, store.StepResult{Tool: s.Tool, Decision: string(gate.VerdictPending),
			Status: string(store.RunWaitingApproval), RequestID: reqID})
	})
	if err == nil {
		e.log.Info("run waiting for approval",
			"job", j.Name, "run_id", id, "step", i+1, "request_id", reqID)
		e.publish(EventRunWaiting, r)
	}
	e.mu.Unlock()
	if err != nil {
		e.log.Error("storing a waiting run; it stops here",
			"job", j.Name, "run_id", id, "err", err)
		return
	}
	e.requestResolved(reqID)
}

// waitingRun is the run find returns for id when it still waits on what waits
// reports (status waiting_approval); false when there is none or find failed, which
// it logs as msg with attrs.
func (e *Engine) waitingRun(find func(uint64) (store.Run, error), id uint64,
	waits func(store.Run) bool, msg string, attrs ...any) (store.Run, bool) {
	r, err := find(id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Run{}, false
	}
	if err != nil {
		e.log.Error(msg, append(attrs, "err", err)...)
		return store.Run{}, false
	}
	return r, r.Status == store.RunWaitingApproval && waits(r)
}

// requestResolved resumes or ends the run waiting on request reqID when the request
// has left pending: approved → the run goes on at that step; rejected, expired,
// cancelled → the run ends so, the step never run. A request no run waits on, or one
// still pending, changes nothing. Safe to call any number of times for one request.
func (e *Engine) requestResolved(reqID uint64) {
	if reqID == 0 {
		return
	}
	waits := func(r store.Run) bool { return r.RequestID == reqID }
	found, ok := e.waitingRun(e.store.RunByRequest, reqID, waits,
		"finding the run of a resolved request", "request_id", reqID)
	if !ok {
		return
	}
	req, err := e.gate.Request(reqID)
	if err != nil {
		e.log.Error("reading a resolved request",
			"request_id", reqID, "run_id", found.ID, "err", err)
		return
	}
	if req.Status == store.Pending {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.waitingRun(e.store.Run, found.ID, waits, "reading a waiting run",
		"run_id", found.ID)
	if !ok {
		return // another caller got here first
	}
	i := r.Step
	j := e.jobs[r.Job]
	if req.Status == store.Approved {
		switch {
		case j == nil:
			e.finishLocked(r.Job, r.ID, store.RunFailed, fmt.Sprintf(
				"step %d approved, but job %q is no longer configured", i+1, r.Job), nil)
		case i >= len(runSteps(j, r)):
			e.finishLocked(r.Job, r.ID, store.RunFailed, fmt.Sprintf(
				"step %d approved, but job %q no longer has that step", i+1, r.Job), nil)
		case e.ctx != nil: // else the service is stopping: the run resumes at the next start
			changed := planChanged(j, r)
			switch {
			case changed:
				e.log.Warn("the job's steps changed in the config while the run waited; "+
					"it runs the steps it started with", "job", r.Job, "run_id", r.ID, "step", i+1)
			case r.Plan == nil:
				e.log.Warn("run stored without its steps; "+
					"it runs the job's steps as configured now",
					"job", r.Job, "run_id", r.ID, "step", i+1)
			}
			r, err = e.updateLocked(r.ID, func(r *store.Run) {
				r.Status = store.RunRunning
				r.ConfigChanged = r.ConfigChanged || changed
				if i < len(r.Steps) {
					r.Steps[i].Decision = string(gate.VerdictApproved)
					r.Steps[i].Status = string(store.RunRunning)
				}
			})
			if err != nil {
				e.log.Error("storing a resumed run", "run_id", r.ID, "err", err)
				return
			}
			e.log.Info("run resumed",
				"job", r.Job, "run_id", r.ID, "step", i+1, "request_id", reqID)
			e.goDrive(j, r, i, true)
		}
		return
	}
	status := endStatus(gate.Verdict(req.Status))
	msg := fmt.Sprintf("step %d: approval request %d %s", i+1, reqID, req.Status)
	if res := req.Resolution; res != nil {
		msg += " by " + res.By + " via " + res.Via
		if res.Note != "" {
			msg += ": " + res.Note
		}
	}
	e.finishLocked(r.Job, r.ID, status, msg, func(r *store.Run) {
		if i < len(r.Steps) {
			r.Steps[i].Decision, r.Steps[i].Status = string(req.Status), string(status)
		}
	})
}

// finish is finishLocked under e.mu.
func (e *Engine) finish(name string, id uint64, status store.RunStatus, msg string,
	edit func(*store.Run)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finishLocked(name, id, status, msg, edit)
}

// finishLocked ends run id in final status with error message msg ("" for success),
// after applying edit (may be nil), ends the bypasses granted in its session — also
// when the end cannot be stored —, publishes run_finished, and starts the job's queued
// run when it was the job's last unfinished one. e.mu must be held.
func (e *Engine) finishLocked(name string, id uint64, status store.RunStatus, msg string,
	edit func(*store.Run)) {
	r, err := e.updateLocked(id, func(r *store.Run) {
		if edit != nil {
			edit(r)
		}
		r.Status, r.Error, r.FinishedAt = status, msg, e.now()
	})
	if err != nil {
		if old, rerr := e.store.Run(id); rerr == nil {
			e.gate.EndSession(old.SessionID)
		}
		e.log.Error("storing a finished run",
			"job", name, "run_id", id, "status", status, "err", err)
		return
	}
	e.dropActive(name, id)
	e.gate.EndSession(r.SessionID)
	level := e.log.Info
	if status != store.RunSucceeded {
		level = e.log.Warn
	}
	level("run finished", "job", name, "run_id", id, "status", status, "error", msg)
	e.publish(EventRunFinished, r)
	e.dequeueLocked(name)
}

// update is updateLocked under e.mu.
func (e *Engine) update(id uint64, f func(*store.Run)) (store.Run, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.updateLocked(id, f)
}

// updateLocked reads run id, applies f and stores it. e.mu must be held: it is what
// makes the read-modify-write of a run atomic.
func (e *Engine) updateLocked(id uint64, f func(*store.Run)) (store.Run, error) {
	r, err := e.store.Run(id)
	if err != nil {
		return store.Run{}, err
	}
	f(&r)
	if err := e.store.UpdateRun(r); err != nil {
		return store.Run{}, err
	}
	return r, nil
}

// setStep sets r.Steps[i], growing the list as needed.
func setStep(r *store.Run, i int, s store.StepResult) {
	for len(r.Steps) <= i {
		r.Steps = append(r.Steps, store.StepResult{})
	}
	r.Steps[i] = s
}
