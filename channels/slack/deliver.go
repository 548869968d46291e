package slack

import (
	"context"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// handleInteraction runs a block_actions delivery: each clicked button goes to
// bot.HandleTap with the user, the channel and the message ts, and the user gets the
// tap's toast as an ephemeral message — "Not authorized" included, when nothing
// changed; a clarification's "✍️ Answer" opens the answer modal instead, and that
// modal's view_submission answers (handleAnswer). Other interaction types are
// ignored. The prompt messages are updated by the Fanout, not here.
func (c *Channel) handleInteraction(ctx context.Context, key string,
	cb slackgo.InteractionCallback) {
	if cb.Type == slackgo.InteractionTypeViewSubmission && cb.View.CallbackID == AnswerCallbackID {
		c.handleAnswer(ctx, key, cb)
		return
	}
	if cb.Type != slackgo.InteractionTypeBlockActions {
		c.log.Debug("interaction ignored", "type", string(cb.Type))
		return
	}
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	ts := cb.Container.MessageTs
	if ts == "" {
		ts = cb.Message.Timestamp
	}
	user := cb.User.ID
	if !c.firstDelivery(ctx, key, channel, user) {
		return
	}
	for _, a := range cb.ActionCallback.BlockActions {
		tap := bot.Tap{
			Channel: ChannelName, ChatID: channel, MessageRef: ts,
			UserID: user, UserName: cb.User.Name, Data: a.Value,
		}
		res, err := c.bot.HandleTap(ctx, tap)
		bot.LogTap(c.log, tap, res, err, "action_id", a.ActionID)
		if res.Ask != nil {
			c.openAnswer(ctx, cb.TriggerID, tap, res.Ask)
			continue
		}
		c.ephemeral(ctx, channel, user, res.Toast)
	}
}

// handleCommand runs a /skald delivery: its text, with Slack's &amp; &lt; &gt;
// unescaped ("help" when empty), goes to bot.Command as typed by the user, and the
// reply comes back as an ephemeral message. The command's own name is not checked:
// every slash command of the app is /skald.
func (c *Channel) handleCommand(ctx context.Context, key string, cmd slackgo.SlashCommand) {
	if !c.firstDelivery(ctx, key, cmd.ChannelID, cmd.UserID) {
		return
	}
	line := unescape(cmd.Text)
	if strings.TrimSpace(line) == "" {
		line = "help"
	}
	who := bot.Who{ID: cmd.UserID, Name: cmd.UserName, Channel: ChannelName,
		ChatID: cmd.ChannelID}
	reply := c.bot.Command(ctx, who, line)
	name := strings.Fields(line)[0]
	if reply.Err != nil {
		c.log.Info("command refused",
			"command", clipLog(name), "user_id", cmd.UserID, "err", reply.Err)
	} else {
		c.log.Info("command", "command", clipLog(name), "user_id", cmd.UserID)
	}
	c.ephemeral(ctx, cmd.ChannelID, cmd.UserID, reply.Text)
}

// firstDelivery records the delivery key in the delivery log and reports whether it
// is new. A key of "" (no id to de-duplicate by) counts as new. When the
// log cannot be written the delivery is not run, and the user is told "Internal
// error".
func (c *Channel) firstDelivery(ctx context.Context, key, channel, user string) bool {
	if key == "" {
		c.log.Warn("delivery without an id: cannot be de-duplicated")
		return true
	}
	seen, err := c.seen.SeenDelivery(key, c.now(), DeliveryTTL)
	if err != nil {
		c.log.Error("recording a delivery", "delivery", key, "err", err)
		c.ephemeral(ctx, channel, user, "Internal error")
		return false
	}
	if seen {
		c.log.Info("delivery seen before: not run again", "delivery", key)
		return false
	}
	return true
}

// ephemeral shows text to user in channel (chat.postEphemeral), as plain text. A 429
// is waited out (Retry-After, through Options.Sleep) up to bot.MaxRateLimitWaits
// times; a failure is logged.
func (c *Channel) ephemeral(ctx context.Context, channel, user, text string) {
	opts := replyOptions(text)
	err := bot.WaitRateLimits(ctx, c.log, "chat.postEphemeral", c.sleep,
		func(ctx context.Context) error {
			_, err := c.api.PostEphemeralContext(ctx, channel, user, opts...)
			return classify(err)
		})
	if err != nil {
		c.log.Warn("sending an ephemeral reply", "channel", channel, "user_id", user, "err", err)
	}
}

var unescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// unescape undoes Slack's escaping of &, < and > in a slash command's text.
func unescape(s string) string { return unescaper.Replace(s) }

// clipLog cuts a user-typed word for a log line.
func clipLog(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
