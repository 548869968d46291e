package telegram

import (
	"context"
	"strconv"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
)

// ToastWorking answers a tap whose resolution took longer than Options.TapWait: the
// button stops spinning, and the message itself shows the outcome once it is edited.
const ToastWorking = "⏳ Working on it…"

// onTap resolves a tapped button through the Handler and answers the callback query.
func (c *Channel) onTap(ctx context.Context, q *models.CallbackQuery) {
	tap := bot.Tap{Channel: Name, UserID: userID(q.From), UserName: displayName(q.From),
		Data: q.Data}
	chatID, msgID, ok := tappedMessage(q)
	if !ok {
		// An inline message, or none: no prompt of ours (prompts are chat messages).
		c.log.Warn("tap on a message that is not a chat message", "user_id", tap.UserID)
		c.answer(ctx, q.ID, "Unknown request")
		return
	}
	tap.ChatID, tap.MessageRef = strconv.FormatInt(chatID, 10), strconv.Itoa(msgID)
	c.answer(ctx, q.ID, c.resolveTap(ctx, tap))
}

// tappedMessage returns the chat and message id of the message under the tapped
// button; a message too old for Telegram to send whole comes as an
// InaccessibleMessage, which still has both.
func tappedMessage(q *models.CallbackQuery) (chatID int64, msgID int, ok bool) {
	switch m := q.Message; {
	case m.Message != nil:
		return m.Message.Chat.ID, m.Message.ID, true
	case m.InaccessibleMessage != nil:
		return m.InaccessibleMessage.Chat.ID, m.InaccessibleMessage.MessageID, true
	}
	return 0, 0, false
}

// resolveTap runs HandleTap on a tracked goroutine and returns its toast, or
// ToastWorking when it takes longer than TapWait ("" when ctx ends first).
func (c *Channel) resolveTap(ctx context.Context, tap bot.Tap) string {
	done := make(chan string, 1)
	started := c.work.Go(func(context.Context) {
		res, err := c.handler.HandleTap(ctx, tap)
		bot.LogTap(c.log, tap, res, err)
		done <- res.Toast
		if res.Ask != nil {
			c.askForAnswer(ctx, tap, res.Ask)
		}
	})
	if !started {
		return ""
	}
	timer := time.NewTimer(c.tapWait)
	defer timer.Stop()
	select {
	case toast := <-done:
		return toast
	case <-timer.C:
		c.log.Warn("resolving a tap takes longer than the tap wait; answered before it ends",
			"tap_wait", c.tapWait, "chat", tap.ChatID, "message_id", tap.MessageRef)
		return ToastWorking
	case <-ctx.Done():
		return ""
	}
}

// answer answers callback query id with toast ("" for none), waiting out 429s
// (bot.WaitRateLimits). A failure, such as a query too old to answer, is logged.
func (c *Channel) answer(ctx context.Context, id, toast string) {
	if ctx.Err() != nil {
		return
	}
	err := c.withRetryAfter(ctx, "answerCallbackQuery", func(ctx context.Context) error {
		_, err := c.tg.AnswerCallbackQuery(ctx,
			&tgbot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: toast})
		return err
	})
	switch {
	case err == nil:
	case isBadRequest(err, "query is too old"):
		c.log.Warn("callback query answered too late", "toast", toast, "err", err)
	default:
		c.log.Warn("answering a callback query", "toast", toast, "err", err)
	}
}
