package cron

import (
	"encoding/json"
	"time"
)

// slot is a queued trigger of a job with overlap queue, kept in the store's meta
// values under queueKey so it survives a restart.
type slot struct {
	Trigger string    `json:"trigger"`
	At      time.Time `json:"at"`
}

// queueKey is the meta key of job name's queue slot.
func queueKey(name string) string { return "cron.queue." + name }

// takeSlotLocked stores a queued trigger for job name and reports true, or reports
// false when the slot is already taken. e.mu must be held.
func (e *Engine) takeSlotLocked(name, trigger string) (bool, error) {
	v, err := e.store.GetMeta(queueKey(name))
	if err != nil || v != nil {
		return false, err
	}
	b, err := json.Marshal(slot{Trigger: trigger, At: e.now()})
	if err != nil {
		return false, err
	}
	return true, e.store.PutMeta(queueKey(name), b)
}

// dequeueLocked starts job name's queued run when its slot is taken and it has no
// unfinished run, while Run runs. The slot is emptied first: a crash in between loses
// the queued trigger rather than running it twice. e.mu must be held.
func (e *Engine) dequeueLocked(name string) {
	j := e.jobs[name]
	if j == nil || j.Overlap != OverlapQueue || e.ctx == nil || len(e.active[name]) > 0 {
		return
	}
	v, err := e.store.GetMeta(queueKey(name))
	if err != nil {
		e.log.Error("reading the queue slot", "job", name, "err", err)
		return
	}
	if v == nil {
		return
	}
	var s slot
	if err := json.Unmarshal(v, &s); err != nil || s.Trigger == "" {
		s.Trigger = TriggerSchedule
	}
	if err := e.store.PutMeta(queueKey(name), nil); err != nil {
		e.log.Error("emptying the queue slot", "job", name, "err", err)
		return
	}
	if _, err := e.startLocked(j, s.Trigger); err != nil {
		e.log.Error("starting the queued run", "job", name, "err", err)
	}
}
