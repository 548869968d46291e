package gate

import (
	"log/slog"
	"sync"

	"github.com/skald-circle/skald-bot/store"
)

// Event names the gate publishes. cron publishes run_started,
// run_waiting and run_finished through Publish.
const (
	EventApprovalRequested = "approval_requested"
	EventApprovalResolved  = "approval_resolved"
)

// DefaultEventBuffer is a subscriber's buffer when Subscribe is given none.
const DefaultEventBuffer = 64

// Event is one message on the in-process bus, served as Server-Sent Events: Name is the
// SSE event name, Data marshals to its JSON data.
type Event struct {
	Name string `json:"name"`
	Data any    `json:"data"`
}

// ApprovalRequested is the data of approval_requested.
type ApprovalRequested struct {
	RequestID  uint64 `json:"request_id"`
	ToolCallID string `json:"tool_call_id"`
	ToolName   string `json:"tool_name"`
}

// ApprovalResolved is the data of approval_resolved, also sent for expired and
// cancelled requests with that status.
type ApprovalResolved struct {
	RequestID  uint64       `json:"request_id"`
	ToolCallID string       `json:"tool_call_id"`
	Status     store.Status `json:"status"`
}

// bus fans events out to subscribers. Sends never block: a subscriber whose buffer is
// full is dropped and its channel closed, so the mutex is never held across a wait.
type bus struct {
	mu   sync.Mutex // guards subs
	subs map[chan Event]struct{}
}

// Subscribe returns a channel that receives every event published from now on, and a
// function that unsubscribes and closes it (safe to call more than once). buffer is
// the channel's capacity, DefaultEventBuffer when not positive. A subscriber that lets
// its buffer fill is dropped — its channel closed — rather than stall the gate, so a
// receiver must treat a closed channel as "resubscribe".
func (m *Manager) Subscribe(buffer int) (<-chan Event, func()) {
	if buffer <= 0 {
		buffer = DefaultEventBuffer
	}
	ch := make(chan Event, buffer)
	b := &m.bus
	b.mu.Lock()
	if b.subs == nil {
		b.subs = make(map[chan Event]struct{})
	}
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	}
}

// Publish sends e to every subscriber without blocking (cron's run events). Safe for
// concurrent use.
func (m *Manager) Publish(e Event) { m.bus.publish(e, m.log) }

func (b *bus) publish(e Event, log *slog.Logger) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
			delete(b.subs, ch)
			close(ch)
			log.Warn("event subscriber dropped: its buffer is full", "event", e.Name)
		}
	}
}
