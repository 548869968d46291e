package gate

import (
	"fmt"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// waiterStore is the store's record of a caller that stopped waiting; *store.DB has
// it. A Store without it records nothing.
type waiterStore interface {
	SetWaiterGone(id uint64, at time.Time) (store.Request, bool, error)
}

// WaiterGone records that the caller waiting on request id stopped waiting (its
// connection closed during a long poll) and has its prompts edited to say so. The
// request stays pending and resolvable; one that left pending is left alone. Errors:
// ErrNotFound, the store's.
func (m *Manager) WaiterGone(id uint64) error { return m.setWaiter(id, m.now()) }

// WaiterBack clears what WaiterGone recorded, when a caller waits on request id
// again, and has its prompts edited back. Errors as WaiterGone's.
func (m *Manager) WaiterBack(id uint64) error { return m.setWaiter(id, time.Time{}) }

func (m *Manager) setWaiter(id uint64, at time.Time) error {
	ws, ok := m.store.(waiterStore)
	if !ok {
		return nil
	}
	r, changed, err := ws.SetWaiterGone(id, at)
	if err != nil {
		return fmt.Errorf("gate: waiter of request %d: %w", id, err)
	}
	if changed {
		if at.IsZero() {
			m.log.Info("the caller waits on its request again", "request_id", id)
		} else {
			m.log.Info("the caller stopped waiting on its request", "request_id", id)
		}
		m.notes.update(r)
	}
	return nil
}
