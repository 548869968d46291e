package telegram

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
)

// onMessage runs the admin command a new message holds, if any, and replies in the
// same chat, as plain text, to that message. Messages that are no
// command for this bot, and messages of bots, are ignored.
func (c *Channel) onMessage(ctx context.Context, m *models.Message) {
	if m.From == nil || m.From.IsBot {
		return
	}
	if c.onReply(ctx, m) {
		return
	}
	line, ok := commandLine(m.Text, c.botUsername())
	if !ok {
		return
	}
	who := bot.Who{ID: userID(*m.From), Name: displayName(*m.From), Channel: Name,
		ChatID: strconv.FormatInt(m.Chat.ID, 10)}
	reply := c.handler.Command(ctx, who, line)
	name, _, _ := strings.Cut(line, " ")
	attrs := []any{"command", name, "user_id", who.ID, "chat", m.Chat.ID}
	switch {
	case reply.Err == nil:
		c.log.Info("command", attrs...)
	case errors.Is(reply.Err, bot.ErrInternal):
		c.log.Error("command failed", append(attrs, "err", reply.Err)...)
	default:
		c.log.Info("command refused", append(attrs, "err", reply.Err)...)
	}
	c.reply(ctx, m, reply.Text)
}

// commandLine returns the command line for bot.Command from a message text:
// "/approve 42 fine" and "/approve@BotName 42 fine" give "approve 42 fine". It
// reports false for a text that is no command, or a command addressed to another
// bot ("/approve@OtherBot"). A first argument naming this bot ("/rules @BotName",
// the older way to address a bot in a group) is dropped. "/start", which a client
// sends when a user first opens the bot, is "help". username is the bot's (from
// getMe), compared without regard to case, as Telegram does.
func commandLine(text, username string) (string, bool) {
	if !strings.HasPrefix(text, "/") {
		return "", false
	}
	word, rest := firstWord(text)
	name, to, addressed := strings.Cut(word[1:], "@")
	if name == "" || addressed && (username == "" || !strings.EqualFold(to, username)) {
		return "", false
	}
	if first, after := firstWord(rest); username != "" && strings.EqualFold(first, "@"+username) {
		rest = after
	}
	if strings.EqualFold(name, "start") {
		return "help", true
	}
	if rest == "" {
		return name, true
	}
	return name + " " + rest, true
}

// firstWord splits s at its first white space: the word before, and the rest
// without its leading white space.
func firstWord(s string) (word, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeftFunc(s[i:], unicode.IsSpace)
}

// reply sends text to the chat of m as a reply to m, plain text cut to Telegram's
// 4096 characters, waiting out a 429. A failure is logged.
func (c *Channel) reply(ctx context.Context, m *models.Message, text string) {
	text = bot.Cut(text, bot.TelegramMaxText)
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	replyTo := &models.ReplyParameters{MessageID: m.ID, AllowSendingWithoutReply: true}
	params := &tgbot.SendMessageParams{
		ChatID:             m.Chat.ID,
		Text:               text,
		LinkPreviewOptions: noPreview,
		ReplyParameters:    replyTo,
	}
	if m.IsTopicMessage {
		params.MessageThreadID = m.MessageThreadID
	}
	err := c.withRetryAfter(ctx, "sendMessage", func(ctx context.Context) error {
		_, err := c.tg.SendMessage(ctx, params)
		return err
	})
	if err != nil {
		c.log.Warn("replying to a command", "chat", m.Chat.ID, "err", err)
	}
}
