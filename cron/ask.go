package cron

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// AskUserTool is the built-in step that asks a human a clarification: {question,
// options?}. It is not gated. The run waits for the answer as it waits for an approval
// (no goroutine waits), and later execute_cmd steps find the answer of step N in their
// environment as SKALD_ANSWER_N (N counted from 1, as the steps' tool call ids
// "step-N"), and the latest answer as SKALD_ANSWER. An expired question ends the run
// expired, a cancelled one cancelled.
const AskUserTool = "ask_user"

// AnswerEnv is the prefix of the variables that hand answers to later steps.
const AnswerEnv = "SKALD_ANSWER"

// checkAskUser validates ask_user's arguments: a question, and options a list of at
// most store.MaxOptions strings of 1 to store.MaxOptionLen characters.
func checkAskUser(args map[string]any) error {
	if err := checkKeys(args, "question", "options"); err != nil {
		return err
	}
	if _, err := needString(args, "question"); err != nil {
		return err
	}
	opts, err := askOptions(args)
	if err != nil {
		return err
	}
	if len(opts) > store.MaxOptions {
		return fmt.Errorf("%w: %d options, at most %d", ErrBadArgs, len(opts), store.MaxOptions)
	}
	for i, o := range opts {
		if n := utf8.RuneCountInString(o); n == 0 || n > store.MaxOptionLen {
			return fmt.Errorf("%w: option %d must have 1 to %d characters", ErrBadArgs, i+1,
				store.MaxOptionLen)
		}
		if strings.ContainsFunc(o, unicode.IsControl) {
			return fmt.Errorf("%w: option %d %q must not hold control characters", ErrBadArgs,
				i+1, o)
		}
	}
	return nil
}

// askOptions is ask_user's options argument.
func askOptions(args map[string]any) ([]string, error) {
	v, ok := args["options"]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		if ss, isStrings := v.([]string); isStrings {
			return ss, nil
		}
		return nil, fmt.Errorf("%w: options must be a list of strings", ErrBadArgs)
	}
	out := make([]string, len(list))
	for i, o := range list {
		s, ok := o.(string)
		if !ok {
			return nil, fmt.Errorf("%w: option %d must be a string", ErrBadArgs, i+1)
		}
		out[i] = s
	}
	return out, nil
}

// askStep runs ask_user step i, s, of run id: it asks (idempotently: a resumed run gets
// the same clarification), then records the answer and reports true, or parks the run
// or ends it and reports false.
func (e *Engine) askStep(j *job, s Step, id uint64, session string, i int) bool {
	question, _ := s.Args["question"].(string)
	options, err := askOptions(s.Args)
	if err == nil {
		var c store.Clarification
		c, _, err = e.gate.Ask(gate.Question{SessionID: session,
			ClarificationID: "step-" + strconv.Itoa(i+1), AgentID: j.AgentID, Source: SourceCron,
			ContextLabel: j.ContextLabel, Question: question, Options: options,
			Timeout: j.ApprovalTimeout, Caller: store.CallerCron})
		if err == nil {
			if c.Status == store.ClarificationPending {
				e.parkAsk(j, id, i, c.ID)
				return false
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.answeredLocked(j, id, i, c)
		}
	}
	e.finish(j.Name, id, store.RunFailed, fmt.Sprintf("step %d (%s): %v", i+1, AskUserTool, err),
		func(r *store.Run) {
			setStep(r, i, store.StepResult{Tool: AskUserTool, Status: string(store.RunFailed),
				ExitCode: -1, Output: err.Error()})
		})
	return false
}

// parkAsk stores run id as waiting at step i for clarification cid and returns.
func (e *Engine) parkAsk(j *job, id uint64, i int, cid uint64) {
	e.mu.Lock()
	r, err := e.updateLocked(id, func(r *store.Run) {
		r.Status, r.Step, r.RequestID, r.ClarificationID = store.RunWaitingApproval, i, 0, cid
		setStep(r, i, store.StepResult{Tool: AskUserTool, Decision: string(gate.VerdictPending),
			Status: string(store.RunWaitingApproval), ClarificationID: cid, StartedAt: e.now()})
	})
	if err == nil {
		e.log.Info("run waiting for an answer", "job", j.Name, "run_id", id, "step", i+1,
			"clarification", cid)
		e.publish(EventRunWaiting, r)
	}
	e.mu.Unlock()
	if err != nil {
		e.log.Error("storing a waiting run; it stops here",
			"job", j.Name, "run_id", id, "err", err)
		return
	}
	// An answer that came before the run was stored as waiting found no run.
	e.clarificationResolved(r.SessionID, cid)
}

// answeredLocked records the end of clarification c on step i of run id: an answer
// becomes the step's output and the run goes on (true); expired or cancelled ends
// it. e.mu must be held.
func (e *Engine) answeredLocked(j *job, id uint64, i int, c store.Clarification) bool {
	if c.Status == store.ClarificationAnswered && c.Answer != nil {
		_, err := e.updateLocked(id, func(r *store.Run) {
			r.Status, r.Step, r.ClarificationID = store.RunRunning, i, 0
			started := e.now()
			if i < len(r.Steps) && !r.Steps[i].StartedAt.IsZero() {
				started = r.Steps[i].StartedAt
			}
			setStep(r, i, store.StepResult{Tool: AskUserTool,
				Decision: string(store.ClarificationAnswered), Status: string(store.RunSucceeded),
				Output: c.Answer.Text, ClarificationID: c.ID,
				StartedAt: started, DurationMS: e.now().Sub(started).Milliseconds()})
		})
		if err != nil {
			e.log.Error("storing an answer; the run stops here",
				"job", j.Name, "run_id", id, "err", err)
			return false
		}
		return true
	}
	status := store.RunCancelled
	if c.Status == store.ClarificationExpired {
		status = store.RunExpired
	}
	msg := fmt.Sprintf("step %d: clarification %d %s", i+1, c.ID, c.Outcome())
	e.finishLocked(j.Name, id, status, msg, func(r *store.Run) {
		setStep(r, i, store.StepResult{Tool: AskUserTool, Decision: string(c.Status),
			Status: string(status), ClarificationID: c.ID})
	})
	return false
}

// clarificationResolved resumes or ends the run of session waiting on clarification
// cid once it left pending. Anything else changes nothing; safe to call any number of
// times.
func (e *Engine) clarificationResolved(sessionID string, cid uint64) {
	runID, ok := runOfSession(sessionID)
	if !ok || cid == 0 {
		return
	}
	waits := func(r store.Run) bool { return r.ClarificationID == cid }
	r, ok := e.waitingRun(e.store.Run, runID, waits,
		"reading the run of a clarification", "clarification", cid)
	if !ok {
		return
	}
	c, err := e.gate.Clarification(cid)
	if err != nil {
		e.log.Error("reading a clarification", "clarification", cid, "run_id", r.ID, "err", err)
		return
	}
	if c.Status == store.ClarificationPending {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok = e.waitingRun(e.store.Run, runID, waits, "reading a waiting run", "run_id", runID)
	if !ok {
		return // another caller got here first
	}
	j := e.jobs[r.Job]
	i := r.Step
	switch {
	case j == nil || i >= len(runSteps(j, r)):
		e.finishLocked(r.Job, r.ID, store.RunFailed,
			fmt.Sprintf("step %d answered, but job %q no longer has that step", i+1, r.Job), nil)
	case e.ctx == nil: // the service is stopping: the run goes on at the next start
	case e.answeredLocked(j, r.ID, i, c):
		r, err = e.store.Run(runID)
		if err != nil {
			e.log.Error("reading a resumed run", "run_id", runID, "err", err)
			return
		}
		e.log.Info("run resumed", "job", r.Job, "run_id", r.ID, "step", i+2)
		e.goDrive(j, r, i+1, false)
	}
}

// runOfSession is the run id of a run's session "cron:<job>:<id>".
func runOfSession(s string) (uint64, bool) {
	rest, ok := strings.CutPrefix(s, "cron:")
	if !ok {
		return 0, false
	}
	k := strings.LastIndexByte(rest, ':')
	if k < 0 {
		return 0, false
	}
	id, err := strconv.ParseUint(rest[k+1:], 10, 64)
	return id, err == nil && id != 0
}

// answerEnv is the environment that hands the answers of r's ask_user steps to a
// later step: SKALD_ANSWER_N for step N, SKALD_ANSWER for the latest.
func answerEnv(r store.Run) []string {
	var env []string
	last := ""
	for i, s := range r.Steps {
		if s.Tool == AskUserTool && s.Status == string(store.RunSucceeded) {
			env = append(env, AnswerEnv+"_"+strconv.Itoa(i+1)+"="+s.Output)
			last = s.Output
		}
	}
	if env != nil {
		env = append(env, AnswerEnv+"="+last)
	}
	return env
}
