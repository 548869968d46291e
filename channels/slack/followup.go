package slack

import (
	"context"
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

var _ bot.Replier = (*Channel)(nil)

// BlockFollowUp is the block_id of a follow-up's text section; its button, action_id
// "always", sits in an actions block BlockActions.
const BlockFollowUp = "followup"

// followUpBlocks lays out follow-up m: its text as a mrkdwn section, escaped and in a
// code span per line where it holds formatting characters, then its buttons.
func followUpBlocks(m bot.FollowUp) (string, []slackgo.Block) {
	text := inertLines(m.Text)
	if len(text) > bot.SlackMaxText {
		text = inertLines(bot.Cut(m.Text, bot.SlackMaxText/6))
	}
	obj := slackgo.NewTextBlockObject(slackgo.MarkdownType, text, false, true)
	blocks := []slackgo.Block{slackgo.NewSectionBlock(obj, nil, nil,
		slackgo.SectionBlockOptionBlockID(BlockFollowUp))}
	var buttons []slackgo.BlockElement
	for _, row := range m.Buttons {
		for _, b := range row {
			label := slackgo.NewTextBlockObject(slackgo.PlainTextType, b.Label, false, false)
			e := slackgo.NewButtonBlockElement(string(b.Action), b.Data, label)
			if b.Style != "" {
				e = e.WithStyle(slackgo.Style(b.Style))
			}
			buttons = append(buttons, e)
		}
	}
	if len(buttons) > 0 {
		blocks = append(blocks, slackgo.NewActionBlock(BlockActions, buttons...))
	}
	return text, blocks
}

// Reply posts follow-up m to channel target in the thread of message replyTo (the
// channel itself when ""), and returns its ts (bot.Replier). It blocks for one
// chat.postMessage call. Errors as for Send.
func (c *Channel) Reply(ctx context.Context, target, replyTo string,
	m bot.FollowUp) (string, error) {
	if strings.TrimSpace(m.Text) == "" {
		return "", fmt.Errorf("slack: reply in %s: empty text: %w", target, bot.ErrPermanent)
	}
	text, blocks := followUpBlocks(m)
	opts := []slackgo.MsgOption{slackgo.MsgOptionText(text, false),
		slackgo.MsgOptionBlocks(blocks...), slackgo.MsgOptionDisableLinkUnfurl(),
		slackgo.MsgOptionDisableMediaUnfurl()}
	if replyTo != "" {
		opts = append(opts, slackgo.MsgOptionTS(replyTo))
	}
	_, ts, err := c.api.PostMessageContext(ctx, target, opts...)
	if err != nil {
		return "", fmt.Errorf("slack: reply in %s: %w", target, classify(err))
	}
	return ts, nil
}

// EditReply replaces follow-up ref of channel target with m using chat.update,
// always with its blocks (without buttons, the actions block goes). It blocks for
// one Web API call. Errors as for Edit.
func (c *Channel) EditReply(ctx context.Context, target, ref string, m bot.FollowUp) error {
	text, blocks := followUpBlocks(m)
	_, _, _, err := c.api.UpdateMessageContext(ctx, target, ref,
		slackgo.MsgOptionText(text, false), slackgo.MsgOptionBlocks(blocks...))
	if err != nil {
		return fmt.Errorf("slack: update reply %s in %s: %w", ref, target, classify(err))
	}
	return nil
}

// inertLines escapes s for mrkdwn, each line holding *, _, ~ or a backtick in a
// code span, so that a pattern's * shows as typed.
func inertLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.ContainsAny(l, "*_~`") {
			l = "`" + bot.EscapeMrkdwn(strings.ReplaceAll(l, "`", "'")) + "`"
		} else {
			l = bot.EscapeMrkdwn(l)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
