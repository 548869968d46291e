package slack

import (
	"strconv"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// The block_id of each block of a prompt, and the action_id of each button: stable,
// so that a click names its button whatever the request.
const (
	BlockHeader    = "header"
	BlockFields    = "fields"
	BlockCommands  = "commands"
	BlockArguments = "arguments"
	BlockBypass    = "bypass"
	BlockOutcome   = "outcome"
	BlockActions   = "actions"
	BlockSpare     = "spare"
)

// maxSectionFields is how many fields Block Kit allows in one section.
const maxSectionFields = 10

// actionIDs names each button's action_id after its bot.Action.
var actionIDs = map[bot.Action]string{
	bot.ActionApprove:       "approve",
	bot.ActionReject:        "reject",
	bot.ActionBypassShort:   "bypass_short",
	bot.ActionBypassSession: "bypass_session",
}

// Blocks lays out a prompt rendered by bot.Prompt.Slack as a Block Kit message, blocks
// in the order and with the block_ids the package doc lists ("What it does"). A
// finished prompt has no actions block, so a chat.update with its blocks removes the
// buttons. Text objects are verbatim (Slack adds no links). Blocks does not validate
// m: bot keeps it within Block Kit's limits.
func Blocks(m bot.SlackMessage) []slackgo.Block {
	blocks := []slackgo.Block{
		slackgo.NewHeaderBlock(
			slackgo.NewTextBlockObject(slackgo.PlainTextType, m.Header, false, false),
			slackgo.HeaderBlockOptionBlockID(BlockHeader)),
	}
	for i := 0; i < len(m.Fields); i += maxSectionFields {
		part := m.Fields[i:min(i+maxSectionFields, len(m.Fields))]
		fields := make([]*slackgo.TextBlockObject, len(part))
		for j, f := range part {
			fields[j] = slackgo.NewTextBlockObject(slackgo.MarkdownType, f, false, true)
		}
		id := BlockFields
		if i > 0 {
			id += "_" + strconv.Itoa(i/maxSectionFields+1)
		}
		blocks = append(blocks,
			slackgo.NewSectionBlock(nil, fields, nil, slackgo.SectionBlockOptionBlockID(id)))
	}
	if m.Commands != "" {
		text := slackgo.NewTextBlockObject(slackgo.MarkdownType, m.Commands, false, true)
		id := slackgo.SectionBlockOptionBlockID(BlockCommands)
		blocks = append(blocks, slackgo.NewSectionBlock(text, nil, nil, id))
	}
	args := slackgo.NewTextBlockObject(slackgo.MarkdownType, m.Arguments, false, true)
	blocks = append(blocks,
		slackgo.NewSectionBlock(args, nil, nil, slackgo.SectionBlockOptionBlockID(BlockArguments)))
	if m.Bypass != "" {
		text := slackgo.NewTextBlockObject(slackgo.MarkdownType, m.Bypass, false, true)
		id := slackgo.SectionBlockOptionBlockID(BlockBypass)
		blocks = append(blocks, slackgo.NewSectionBlock(text, nil, nil, id))
	}
	if m.Outcome != "" {
		text := slackgo.NewTextBlockObject(slackgo.MarkdownType, m.Outcome, false, true)
		id := slackgo.SectionBlockOptionBlockID(BlockOutcome)
		blocks = append(blocks, slackgo.NewSectionBlock(text, nil, nil, id))
	}
	if m.Spare != "" {
		text := slackgo.NewTextBlockObject(slackgo.MarkdownType, m.Spare, false, true)
		blocks = append(blocks, slackgo.NewContextBlock(BlockSpare, text))
	}
	var buttons []slackgo.BlockElement
	for _, row := range m.Buttons {
		for _, b := range row {
			id, ok := actionIDs[b.Action]
			if !ok {
				id = "skald_" + string(b.Action)
			}
			label := slackgo.NewTextBlockObject(slackgo.PlainTextType, b.Label, false, false)
			e := slackgo.NewButtonBlockElement(id, b.Data, label)
			if b.Style != "" {
				e = e.WithStyle(slackgo.Style(b.Style))
			}
			buttons = append(buttons, e)
		}
	}
	if len(buttons) > 0 {
		blocks = append(blocks, slackgo.NewActionBlock(BlockActions, buttons...))
	}
	return blocks
}
