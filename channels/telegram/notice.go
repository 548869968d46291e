package telegram

import (
	"context"
	"fmt"
	"strings"

	tgbot "github.com/go-telegram/bot"

	"github.com/skald-circle/skald-bot/bot"
)

// Notify posts text to chat target (a chat id in decimal) as a plain message: no
// parse mode, so nothing in it is taken for markup and nothing needs escaping; cut
// to Telegram's 4096 characters with bot.Cut; no buttons (bot.Channel: the notice of
// a finished scheduled run). It blocks for one sendMessage call.
// Errors as for Send: a *bot.RateLimitError for a 429; bot.ErrPermanent wrapped for
// what retrying cannot fix, including a target that is no chat id (also
// ErrBadTarget, and then nothing is called) and an empty text.
func (c *Channel) Notify(ctx context.Context, target, text string) error {
	chatID, err := parseChatID(target)
	if err != nil {
		return fmt.Errorf("telegram: notify %q: %w", target, err)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("telegram: notify chat %d: empty text: %w", chatID, bot.ErrPermanent)
	}
	_, err = c.tg.SendMessage(ctx, &tgbot.SendMessageParams{
		ChatID:             chatID,
		Text:               bot.Cut(text, bot.TelegramMaxText),
		LinkPreviewOptions: noPreview,
	})
	if err != nil {
		return fmt.Errorf("telegram: notify chat %d: %w", chatID, classify(err))
	}
	return nil
}
