package telegram

import (
	"context"
	"errors"
	"strconv"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// handle acts on one update, however it came (long polling or webhook): a callback
// query is a tap, a new message may be a command; an edited message — which never
// runs a command again — and every other kind are ignored. An update_id handled
// before is ignored too, so a replay acts once.
func (c *Channel) handle(ctx context.Context, u *models.Update) {
	if u.ID > 0 && !c.firstDelivery(u.ID) {
		return
	}
	switch {
	case u.CallbackQuery != nil:
		c.onTap(ctx, u.CallbackQuery)
	case u.Message != nil:
		c.onMessage(ctx, u.Message)
	case u.EditedMessage != nil:
		c.log.Debug("edited message ignored", "update_id", u.ID, "chat", u.EditedMessage.Chat.ID)
	default:
		c.log.Debug("update of another kind ignored", "update_id", u.ID)
	}
}

// onPolledUpdate is go-telegram/bot's default handler while long polling: it runs
// on the library's one worker, each update to its end before the next, and stores
// the offset once the update is handled.
func (c *Channel) onPolledUpdate(ctx context.Context, _ *tgbot.Bot, u *models.Update) {
	c.handle(ctx, u)
	if u.ID > 0 {
		c.saveOffset(u.ID)
	}
}

// onLibraryError logs what go-telegram/bot reports from its polling loop. A 409
// Conflict means another process polls with the same token (or set a webhook
// meanwhile): the library retries with a growing backoff (0.1 s doubling to 5 s).
func (c *Channel) onLibraryError(err error) {
	switch {
	case errors.Is(err, context.Canceled), strings.Contains(err.Error(), "ctx done"):
		c.log.Debug("polling stopped", "err", err)
	case errors.Is(err, tgbot.ErrorConflict) &&
		strings.Contains(strings.ToLower(err.Error()), "webhook"):
		c.log.Warn("409 Conflict: a webhook was set on this bot meanwhile "+
			"(another instance in webhook mode?); retrying with backoff", "err", err)
	case errors.Is(err, tgbot.ErrorConflict):
		c.log.Warn("409 Conflict: another poller is using this bot token "+
			"(a second skald-bot?); retrying with backoff", "err", err)
	case errors.Is(err, tgbot.ErrorUnauthorized):
		c.log.Error("the Bot API refused the token; retrying with backoff", "err", err)
	default:
		c.log.Warn("getUpdates failed; retrying with backoff", "err", err)
	}
}

// displayName is a user's name for the record: first and last name, else the
// username.
func displayName(u models.User) string {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	if name == "" {
		name = u.Username
	}
	return name
}

func userID(u models.User) string { return strconv.FormatInt(u.ID, 10) }
