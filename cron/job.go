package cron

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Overlap says what a trigger does while a run of its job is unfinished — running, or
// waiting for approval (docs/design.md, "Scheduled jobs").
type Overlap string

// Overlap policies.
const (
	// OverlapSkip (the default): the trigger is dropped and counted on the unfinished
	// run (skipped_triggers).
	OverlapSkip Overlap = "skip"
	// OverlapQueue: the trigger takes the job's one queue slot, kept in the store, and
	// runs when the unfinished run ends; a trigger that finds the slot taken is dropped
	// and counted like a skip.
	OverlapQueue Overlap = "queue"
	// OverlapAllow: every trigger starts a run.
	OverlapAllow Overlap = "allow"
)

// Check returns nil for a policy or "" (the default, OverlapSkip), else an error saying
// which values are allowed. config checks its jobs' overlap key with it.
func (o Overlap) Check() error { return checkPolicy(o, OverlapSkip, OverlapQueue, OverlapAllow) }

// OrDefault returns o, or OverlapSkip when o is "". config fills its jobs' overlap key
// with it, so the default is defined here only.
func (o Overlap) OrDefault() Overlap { return cmp.Or(o, OverlapSkip) }

// Notify says which run events ask for a chat notification.
type Notify string

// Notify policies.
const (
	// NotifyFailure (the default): a run that finished in any status but succeeded.
	NotifyFailure Notify = "failure"
	// NotifyAlways: every finished run.
	NotifyAlways Notify = "always"
	// NotifyNever: none.
	NotifyNever Notify = "never"
)

// Check returns nil for a policy or "" (the default, NotifyFailure), else an error
// saying which values are allowed. config checks its jobs' notify key with it.
func (n Notify) Check() error { return checkPolicy(n, NotifyFailure, NotifyAlways, NotifyNever) }

// OrDefault returns n, or NotifyFailure when n is "". config fills its jobs' notify key
// with it, so the default is defined here only.
func (n Notify) OrDefault() Notify { return cmp.Or(n, NotifyFailure) }

// checkPolicy returns nil when v is "" or one of policies (at least two), else an error
// listing them: "must be a, b or c".
func checkPolicy[T ~string](v T, policies ...T) error {
	if v == "" || slices.Contains(policies, v) {
		return nil
	}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = string(p)
	}
	last := len(names) - 1
	return errors.New("must be " + strings.Join(names[:last], ", ") + " or " + names[last])
}

// Job is a scheduled job (docs/design.md, "Scheduled jobs"). cmd builds it from the
// configuration's jobs.
type Job struct {
	// Name matches [a-z0-9_-]+ and is unique.
	Name string
	// Schedule is what Parse accepts: 5 fields, a descriptor, optionally CRON_TZ=.
	Schedule string
	// AgentID, Profile and ContextLabel go on every tool call of the job's runs.
	// Profile "" means "default"; its working directory resolves the steps' paths.
	AgentID      string
	Profile      string
	ContextLabel string
	// Overlap "" means OverlapSkip.
	Overlap Overlap
	// ApprovalTimeout is how long an approval request of this job stays pending;
	// zero means the gate's global approval_timeout.
	ApprovalTimeout time.Duration
	// Notify "" means NotifyFailure.
	Notify Notify
	// Steps run in order, each one gated; at least one.
	Steps []Step
}

// Step is one tool call of a job: a tool of the Engine (Builtins unless Options.Tools says
// otherwise) and its arguments, a JSON-like object.
type Step struct {
	Tool string
	Args map[string]any
}

// jobName is the pattern for job names, the same as for group ids.
var jobName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Validate checks jobs before anything starts: names ([a-z0-9_-]+, at most
// store.MaxNameLen bytes, unique), schedules (Parse), policies, and each step's tool
// (of tools; nil means Builtins()) and arguments. It returns nil or one error per
// problem, joined, each wrapping ErrInvalidJob and naming the job, e.g.
// `cron: job "x": schedule "61 * * * *": end of range (61) above maximum (59): 61`.
// It does no I/O.
func Validate(jobs []Job, tools map[string]Tool) error {
	if tools == nil {
		tools = Builtins()
	}
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("cron: job %q: %w", name, invalidf(format, args...)))
	}
	seen := map[string]bool{}
	for _, j := range jobs {
		switch {
		case len(j.Name) > store.MaxNameLen || !jobName.MatchString(j.Name):
			bad(j.Name, "name must match [a-z0-9_-]+ and be at most %d bytes", store.MaxNameLen)
		case seen[j.Name]:
			bad(j.Name, "defined twice")
		}
		seen[j.Name] = true
		if _, err := Parse(j.Schedule); err != nil {
			errs = append(errs, fmt.Errorf("cron: job %q: schedule %q: %w",
				j.Name, j.Schedule, err))
		}
		if err := j.Overlap.Check(); err != nil {
			bad(j.Name, "overlap %q %v", j.Overlap, err)
		}
		if err := j.Notify.Check(); err != nil {
			bad(j.Name, "notify %q %v", j.Notify, err)
		}
		if strings.ContainsFunc(j.ContextLabel, unicode.IsControl) {
			bad(j.Name, "context_label %q must not hold control characters", j.ContextLabel)
		}
		if j.ApprovalTimeout < 0 {
			bad(j.Name, "approval_timeout %s is negative", j.ApprovalTimeout)
		}
		if len(j.Steps) == 0 {
			bad(j.Name, "no steps")
		}
		for i, s := range j.Steps {
			t, ok := tools[s.Tool]
			switch {
			case s.Tool == AskUserTool:
				if err := checkAskUser(s.Args); err != nil {
					bad(j.Name, "step %d (%s): %v", i+1, s.Tool, err)
				}
			case !ok:
				bad(j.Name, "step %d: unknown tool %q (known: %s)", i+1, s.Tool,
					strings.Join(slices.Sorted(maps.Keys(tools)), ", "))
			case t.Check != nil:
				if err := t.Check(s.Args); err != nil {
					bad(j.Name, "step %d (%s): %v", i+1, s.Tool, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// withDefaults returns j with its empty policies and profile filled in.
func withDefaults(j Job) Job {
	j.Overlap = j.Overlap.OrDefault()
	j.Notify = j.Notify.OrDefault()
	j.Profile = cmp.Or(j.Profile, gate.DefaultProfile)
	return j
}

// notifies reports whether a run_finished event of a run in status s asks for a chat
// notification under policy n. Only finished runs are announced: the
// approval prompt itself already tells the chat a run waits.
func (n Notify) notifies(s store.RunStatus) bool {
	switch n {
	case NotifyAlways:
		return true
	case NotifyNever:
		return false
	}
	return s != store.RunSucceeded
}
