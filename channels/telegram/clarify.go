package telegram

import (
	"context"
	"errors"
	"strconv"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
)

// ReplyHandler is what a Handler implements, beside Handler, to take answers to
// clarifications: a reply to a force_reply prompt, and the binding of that prompt to
// the approver it asks. *bot.Bot implements it.
type ReplyHandler interface {
	HandleReply(ctx context.Context, r bot.ChatReply) (bot.TapResult, error)
	BindReply(id uint64, channel, chatID, ref, userID string) error
}

// maxAskQuestion is how much of the question a reply prompt repeats, in characters.
const maxAskQuestion = 300

// askForAnswer sends the approver who tapped "✍️ Answer" a force_reply message
// (selective: in a group only they get the reply field, as the message mentions
// them) replying to the question, and binds it to them, so that their reply to it is
// the answer (a message cannot carry both an inline keyboard and force_reply).
func (c *Channel) askForAnswer(ctx context.Context, t bot.Tap, a *bot.AskAnswer) {
	rh, ok := c.handler.(ReplyHandler)
	if !ok {
		return
	}
	chatID, err := parseChatID(t.ChatID)
	if err != nil {
		return
	}
	uid, err := strconv.ParseInt(t.UserID, 10, 64)
	if err != nil {
		return
	}
	qid, _ := strconv.Atoi(t.MessageRef)
	name := t.UserName
	if name == "" {
		name = t.UserID
	}
	html := `✍️ <a href="tg://user?id=` + strconv.FormatInt(uid, 10) + `">` +
		bot.EscapeHTML(bot.Escape(name)) + `</a>, reply to this message with your answer to ` +
		"question #" + strconv.FormatUint(a.ClarificationID, 10) + ":\n<i>" +
		bot.EscapeHTML(bot.Cut(bot.Escape(a.Question), maxAskQuestion)) + "</i>"
	params := &tgbot.SendMessageParams{
		ChatID: chatID, Text: html, ParseMode: models.ParseModeHTML,
		LinkPreviewOptions: noPreview,
		ReplyMarkup: &models.ForceReply{ForceReply: true, Selective: true,
			InputFieldPlaceholder: "Your answer"},
	}
	if qid > 0 {
		params.ReplyParameters = &models.ReplyParameters{MessageID: qid,
			AllowSendingWithoutReply: true}
	}
	var sent *models.Message
	err = c.withRetryAfter(ctx, "sendMessage", func(ctx context.Context) error {
		var err error
		sent, err = c.tg.SendMessage(ctx, params)
		return err
	})
	if err != nil {
		c.log.Warn("asking for an answer",
			"clarification", a.ClarificationID, "chat", chatID, "err", err)
		return
	}
	ref := strconv.Itoa(sent.ID)
	if err := rh.BindReply(a.ClarificationID, Name, t.ChatID, ref, t.UserID); err != nil {
		c.log.Error("binding a reply prompt", "clarification", a.ClarificationID, "err", err)
	}
}

// onReply handles a message that replies to another: the answer to a clarification
// when it replies to a reply prompt. It reports false when it is not one, so the
// message is taken as any other.
func (c *Channel) onReply(ctx context.Context, m *models.Message) bool {
	rh, ok := c.handler.(ReplyHandler)
	if !ok || m.ReplyToMessage == nil || m.From == nil {
		return false
	}
	r := bot.ChatReply{Channel: Name, ChatID: strconv.FormatInt(m.Chat.ID, 10),
		ReplyTo: strconv.Itoa(m.ReplyToMessage.ID), UserID: userID(*m.From),
		UserName: displayName(*m.From), Text: m.Text}
	if to := m.ReplyToMessage.From; to != nil && to.ID == c.botID {
		_, command := commandLine(m.Text, c.botUsername())
		r.ToBot = !command
	}
	res, err := rh.HandleReply(ctx, r)
	switch {
	case errors.Is(err, bot.ErrNotAReply) && res.Toast == "":
		return false
	case errors.Is(err, bot.ErrNotAReply):
		c.log.Info("reply to a message that waits for none", "user_id", r.UserID,
			"chat", r.ChatID)
	case err == nil:
		c.log.Info("clarification answered by a reply", "user_id", r.UserID, "chat", r.ChatID)
	case errors.Is(err, bot.ErrInternal):
		c.log.Error("answering by a reply", "user_id", r.UserID, "err", err)
	default:
		c.log.Info("reply refused", "user_id", r.UserID, "chat", r.ChatID, "err", err)
	}
	c.reply(ctx, m, res.Toast)
	return true
}
