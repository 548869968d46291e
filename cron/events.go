package cron

import (
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Run event names, published on the gate's bus and served as Server-Sent Events
// (docs/design.md, "Scheduled jobs").
const (
	EventRunStarted  = "run_started"
	EventRunWaiting  = "run_waiting"
	EventRunFinished = "run_finished"
)

// RunEvent is the data of run_started, run_waiting and run_finished.
type RunEvent struct {
	RunID  uint64          `json:"run_id"`
	Job    string          `json:"job"`
	Status store.RunStatus `json:"status"`
	// RequestID is the approval request a waiting run waits on, or the one that
	// rejected, expired or cancelled a finished run; 0 (left out) otherwise.
	RequestID uint64 `json:"request_id,omitempty"`
	Trigger   string `json:"trigger,omitempty"`
	// Error says why a run did not succeed (run_finished only).
	Error string `json:"error,omitempty"`
	// Notify says whether the job's notify policy wants this event announced in chat;
	// always false but for run_finished.
	Notify bool `json:"notify"`
}

// publish sends a run event for r on the gate's bus; it never blocks.
func (e *Engine) publish(name string, r store.Run) {
	policy := NotifyFailure
	if j := e.jobs[r.Job]; j != nil {
		policy = j.Notify
	}
	e.gate.Publish(gate.Event{Name: name, Data: RunEvent{
		RunID: r.ID, Job: r.Job, Status: r.Status, RequestID: r.RequestID, Trigger: r.Trigger,
		Error: r.Error, Notify: name == EventRunFinished && policy.notifies(r.Status),
	}})
}
