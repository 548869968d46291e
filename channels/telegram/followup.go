package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
)

var _ bot.Replier = (*Channel)(nil)

// Reply posts follow-up m to chat target as plain text (no parse mode), cut to
// Telegram's 4096 characters, with its buttons if any, as a reply to message replyTo (none
// when ""; sent anyway when that message is gone), and returns its message_id
// (bot.Replier). It blocks for one sendMessage call. Errors as for Send.
func (c *Channel) Reply(ctx context.Context, target, replyTo string,
	m bot.FollowUp) (string, error) {
	chatID, err := parseChatID(target)
	if err != nil {
		return "", fmt.Errorf("telegram: reply in %q: %w", target, err)
	}
	if strings.TrimSpace(m.Text) == "" {
		return "", fmt.Errorf("telegram: reply in chat %d: empty text: %w",
			chatID, bot.ErrPermanent)
	}
	p := &tgbot.SendMessageParams{
		ChatID:             chatID,
		Text:               bot.Cut(m.Text, bot.TelegramMaxText),
		LinkPreviewOptions: noPreview,
	}
	if len(m.Buttons) > 0 {
		p.ReplyMarkup = keyboard(m.Buttons)
	}
	if id, err := strconv.Atoi(replyTo); err == nil && id > 0 {
		p.ReplyParameters = &models.ReplyParameters{MessageID: id, AllowSendingWithoutReply: true}
	}
	msg, err := c.tg.SendMessage(ctx, p)
	if err != nil {
		return "", fmt.Errorf("telegram: reply in chat %d: %w", chatID, classify(err))
	}
	return strconv.Itoa(msg.ID), nil
}

// EditReply replaces follow-up ref of chat target with m, as plain text, and its
// keyboard with m's buttons (an empty keyboard when none, so the old ones go). It
// blocks for one editMessageText call; "message is not modified" and "message to
// edit not found" are successes. Errors as for Edit.
func (c *Channel) EditReply(ctx context.Context, target, ref string, m bot.FollowUp) error {
	_, err := c.editText(ctx, target, ref, "reply", "", &tgbot.EditMessageTextParams{
		Text:               bot.Cut(m.Text, bot.TelegramMaxText),
		LinkPreviewOptions: noPreview,
		ReplyMarkup:        keyboard(m.Buttons),
	})
	return err
}
