package slack

import (
	"context"
	"encoding/json"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// AnswerCallbackID is the callback_id of the modal a clarification's "✍️ Answer"
// button opens; its view_submission is the answer.
const AnswerCallbackID = "skald_answer"

// The modal's input.
const (
	answerBlockID  = "answer"
	answerActionID = "answer"
)

// answerMeta is the modal's private_metadata: the tap that opened it, so the
// submission is checked as that tap would be (its button, its message).
type answerMeta struct {
	Data    string `json:"data"`
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// openAnswer opens the answer modal for the tap t that asked for it (views.open
// with the interaction's trigger_id, valid for 3 seconds), or tells the user why not.
func (c *Channel) openAnswer(ctx context.Context, triggerID string, t bot.Tap, a *bot.AskAnswer) {
	meta, err := json.Marshal(answerMeta{Data: t.Data, Channel: t.ChatID, TS: t.MessageRef})
	if err != nil {
		return
	}
	question := bot.Cut(bot.Escape(a.Question), bot.SlackMaxText-100)
	view := slackgo.ModalViewRequest{
		Type:            slackgo.VTModal,
		CallbackID:      AnswerCallbackID,
		PrivateMetadata: string(meta),
		Title:           slackgo.NewTextBlockObject(slackgo.PlainTextType, "Answer", false, false),
		Submit:          slackgo.NewTextBlockObject(slackgo.PlainTextType, "Send", false, false),
		Close:           slackgo.NewTextBlockObject(slackgo.PlainTextType, "Cancel", false, false),
		Blocks: slackgo.Blocks{BlockSet: []slackgo.Block{
			slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.PlainTextType, question,
				false, false), nil, nil),
			slackgo.NewInputBlock(answerBlockID,
				slackgo.NewTextBlockObject(slackgo.PlainTextType, "Your answer", false, false),
				nil, &slackgo.PlainTextInputBlockElement{Type: slackgo.METPlainTextInput,
					ActionID: answerActionID, Multiline: true}),
		}},
	}
	if _, err := c.api.OpenViewContext(ctx, triggerID, view); err != nil {
		c.log.Warn("opening the answer modal", "clarification", a.ClarificationID, "err", err)
		c.ephemeral(ctx, t.ChatID, t.UserID,
			"Could not open the answer form; try again, or /skald answer <id> <text>")
	}
}

// handleAnswer runs the view_submission of an answer modal: its text answers the
// clarification, checked as the tap that opened it, and the user gets the toast.
func (c *Channel) handleAnswer(ctx context.Context, key string, cb slackgo.InteractionCallback) {
	var meta answerMeta
	err := json.Unmarshal([]byte(cb.View.PrivateMetadata), &meta)
	if err != nil || meta.Channel == "" {
		c.log.Warn("answer form without its metadata ignored", "user_id", cb.User.ID)
		return
	}
	if !c.firstDelivery(ctx, key, meta.Channel, cb.User.ID) {
		return
	}
	text := ""
	if v, ok := cb.View.State.Values[answerBlockID][answerActionID]; ok {
		text = v.Value
	}
	tap := bot.Tap{Channel: ChannelName, ChatID: meta.Channel, MessageRef: meta.TS,
		UserID: cb.User.ID, UserName: cb.User.Name, Data: meta.Data}
	res, err := c.bot.HandleAnswer(ctx, tap, text)
	bot.LogTap(c.log, tap, res, err, "via", "modal")
	c.ephemeral(ctx, meta.Channel, cb.User.ID, res.Toast)
}
