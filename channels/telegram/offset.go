package telegram

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// updateRetention is how long the Bot API keeps an update nobody confirmed ("will
// not be kept on the server for more than 24 hours"). A stored offset older than
// that protects against no replay, and after a week without updates Telegram picks
// the next update_id at random, possibly below it: such an offset is not used.
const updateRetention = 24 * time.Hour

// seenTTL is how long a handled update_id is remembered: longer than Telegram keeps
// an update, so no replay outlives it.
const seenTTL = updateRetention + time.Hour

// storedOffset is the value under offsetKey.
type storedOffset struct {
	UpdateID int64     `json:"update_id"`
	At       time.Time `json:"at"`
}

// offsetKey is the meta key of the bot's offset: per bot id, so that a new token
// (another bot) does not inherit the old bot's update ids.
func (c *Channel) offsetKey() string {
	return "telegram.offset." + strconv.FormatInt(c.botID, 10)
}

// deliveryID is the key of one update among the handled deliveries.
func (c *Channel) deliveryID(updateID int64) string {
	return "telegram:" + strconv.FormatInt(c.botID, 10) + ":" + strconv.FormatInt(updateID, 10)
}

// loadOffset returns the stored last handled update_id, or 0 when there is none, it
// is unreadable (logged) or older than updateRetention.
func (c *Channel) loadOffset() (int64, error) {
	raw, err := c.store.GetMeta(c.offsetKey())
	if err != nil {
		return 0, fmt.Errorf("read the stored offset: %w", err)
	}
	if raw == nil {
		return 0, nil
	}
	var o storedOffset
	if err := json.Unmarshal(raw, &o); err != nil || o.UpdateID < 0 {
		c.log.Warn("ignoring an unreadable stored offset", "key", c.offsetKey())
		return 0, nil
	}
	if age := c.now().Sub(o.At); age > updateRetention {
		c.log.Info("stored offset is older than Telegram keeps updates; starting without it",
			"update_id", o.UpdateID, "age", age.Round(time.Second))
		return 0, nil
	}
	return o.UpdateID, nil
}

// saveOffset stores id as the last handled update_id. A failure is logged: the next
// start may then see the update again, and the handled deliveries catch it.
func (c *Channel) saveOffset(id int64) {
	raw, _ := json.Marshal(storedOffset{UpdateID: id, At: c.now().UTC()})
	if err := c.store.PutMeta(c.offsetKey(), raw); err != nil {
		c.log.Error("storing the offset", "update_id", id, "err", err)
	}
}

// firstDelivery records update id as handled and reports whether this is its first
// delivery. When the store fails it logs and answers true: the update is handled
// (at least once) rather than lost.
func (c *Channel) firstDelivery(id int64) bool {
	seen, err := c.store.SeenDelivery(c.deliveryID(id), c.now(), seenTTL)
	if err != nil {
		c.log.Error("recording a handled update", "update_id", id, "err", err)
		return true
	}
	if seen {
		c.log.Info("update delivered again; ignored", "update_id", id)
	}
	return !seen
}
