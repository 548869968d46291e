package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
)

// Send posts prompt p to chat target (a chat id in decimal) in HTML parse mode with
// its inline keyboard, if any — the Fanout posts a prompt without its buttons and
// adds them with Edit once the message is recorded — and returns the new message_id
// in decimal (bot.Channel). It blocks for one sendMessage call. Errors: a
// *bot.RateLimitError for a 429 (the Fanout waits its retry_after); bot.ErrPermanent
// wrapped for what retrying cannot fix (chat not found, bot blocked or removed, a
// group upgraded to a supergroup — the error names the new id —, a malformed
// request, a target that is not a chat id: also ErrBadTarget); else the transport's
// or the Bot API's error, worth retrying.
func (c *Channel) Send(ctx context.Context, target string, p bot.Prompt) (string, error) {
	chatID, err := parseChatID(target)
	if err != nil {
		return "", fmt.Errorf("telegram: send to %q: %w", target, err)
	}
	m := p.Telegram()
	params := &tgbot.SendMessageParams{
		ChatID:             chatID,
		Text:               m.HTML,
		ParseMode:          models.ParseModeHTML,
		LinkPreviewOptions: noPreview,
	}
	if len(m.Buttons) > 0 {
		params.ReplyMarkup = keyboard(m.Buttons)
	}
	msg, err := c.tg.SendMessage(ctx, params)
	if err != nil {
		return "", fmt.Errorf("telegram: send request %d to chat %d: %w",
			p.RequestID, chatID, classify(err))
	}
	return strconv.Itoa(msg.ID), nil
}

// Edit replaces message ref of chat target with prompt p and its inline keyboard
// (bot.Channel): ✅ Approve ❌ Reject / ⏱ <bypass_short> 🔄 Session, each button's
// callback_data from bot's codec, while pending; once finished the outcome line and an
// empty inline keyboard, so the buttons go. It
// blocks for one editMessageText call. "message is not modified" is a success (the
// message already shows it), and so is "message to edit not found" (a user deleted
// the message: there is nothing left to update; logged). Errors as for Send.
func (c *Channel) Edit(ctx context.Context, target, ref string, p bot.Prompt) error {
	m := p.Telegram()
	about := fmt.Sprintf(" for request %d", p.RequestID)
	gone, err := c.editText(ctx, target, ref, "message", about,
		&tgbot.EditMessageTextParams{
			Text:               m.HTML,
			ParseMode:          models.ParseModeHTML,
			LinkPreviewOptions: noPreview,
			ReplyMarkup:        keyboard(m.Buttons),
		})
	if gone {
		c.log.Info("a prompt message to edit is gone (deleted in the chat)",
			"request_id", p.RequestID, "chat", target, "message_id", ref)
	}
	return err
}

// editText replaces message ref of chat target with the text and keyboard of params,
// whose ChatID and MessageID it sets, in one editMessageText call. "message is not
// modified" is a success, and so is "message to edit not found", reported by gone.
// A target or ref that is no id is ErrBadTarget with bot.ErrPermanent, and nothing is
// called. what names the message in the errors ("message", "reply"); about follows
// it in the error of the call (" for request 7", or "").
func (c *Channel) editText(ctx context.Context, target, ref, what, about string,
	params *tgbot.EditMessageTextParams) (gone bool, err error) {
	chatID, err := parseChatID(target)
	if err != nil {
		return false, fmt.Errorf("telegram: edit %s %q of %q: %w", what, ref, target, err)
	}
	msgID, err := strconv.Atoi(ref)
	if err != nil || msgID <= 0 {
		return false, fmt.Errorf("telegram: edit %s %q of chat %d: %w: %w",
			what, ref, chatID, ErrBadTarget, bot.ErrPermanent)
	}
	params.ChatID, params.MessageID = chatID, msgID
	_, err = c.tg.EditMessageText(ctx, params)
	switch {
	case err == nil, isBadRequest(err, "message is not modified"):
		return false, nil
	case isBadRequest(err, "message to edit not found"):
		return true, nil
	}
	return false, fmt.Errorf("telegram: edit %s %d of chat %d%s: %w",
		what, msgID, chatID, about, classify(err))
}

var noPreview = &models.LinkPreviewOptions{IsDisabled: tgbot.True()}

// keyboard is the inline keyboard of buttons; for none, an empty keyboard — never a
// missing reply_markup — so that an edit says plainly that the buttons go.
func keyboard(buttons [][]bot.Button) *models.InlineKeyboardMarkup {
	rows := make([][]models.InlineKeyboardButton, 0, len(buttons))
	for _, row := range buttons {
		r := make([]models.InlineKeyboardButton, 0, len(row))
		for _, b := range row {
			r = append(r, models.InlineKeyboardButton{Text: b.Label, CallbackData: b.Data})
		}
		rows = append(rows, r)
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

func parseChatID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("%w: %w", ErrBadTarget, bot.ErrPermanent)
	}
	return id, nil
}

// classify maps an error of go-telegram/bot onto what the Fanout acts on: a 429
// becomes a *bot.RateLimitError (found with errors.As: the library's
// IsTooManyRequestsError misses wrapped errors); 400, 401, 403 and 404 answers, and a
// group's migration to a supergroup, wrap bot.ErrPermanent; anything else (network,
// 5xx, the context) is returned as it is, to be retried.
func classify(err error) error {
	var tooMany *tgbot.TooManyRequestsError
	if errors.As(err, &tooMany) {
		return &bot.RateLimitError{RetryAfter: retryAfter(tooMany), Err: err}
	}
	var migrated *tgbot.MigrateError
	if errors.As(err, &migrated) {
		return fmt.Errorf("%w: the group is now supergroup %d; put that id in telegram.chats: %w",
			bot.ErrPermanent, migrated.MigrateToChatID, err)
	}
	permanent := []error{tgbot.ErrorBadRequest, tgbot.ErrorForbidden, tgbot.ErrorUnauthorized,
		tgbot.ErrorNotFound}
	for _, e := range permanent {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", bot.ErrPermanent, err)
		}
	}
	return err
}

// retryAfter is a 429's parameters.retry_after, at least one second.
func retryAfter(e *tgbot.TooManyRequestsError) time.Duration {
	return time.Duration(max(e.RetryAfter, 1)) * time.Second
}

// isBadRequest reports whether err is a 400 answer whose description holds what.
func isBadRequest(err error, what string) bool {
	return errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), what)
}

// withRetryAfter runs call through bot.WaitRateLimits: a 429 is waited out for its
// retry_after, bot.MaxRateLimitWaits times at most. It returns call's last error, a
// *bot.RateLimitError for a 429 past the cap, or ctx's error joined when ctx ends
// during a wait.
func (c *Channel) withRetryAfter(ctx context.Context, op string,
	call func(ctx context.Context) error) error {
	return bot.WaitRateLimits(ctx, c.log, op, c.sleep, func(ctx context.Context) error {
		err := call(ctx)
		if tooMany, ok := errors.AsType[*tgbot.TooManyRequestsError](err); ok {
			return &bot.RateLimitError{RetryAfter: retryAfter(tooMany), Err: err}
		}
		return err
	})
}
