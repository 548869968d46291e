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

// Blocks lays out a prompt rendered by bot.Prompt.Slack as a Block Kit message
// (docs/design.md, "Chat prompts"), in this order:
//
//   - a header block (block_id "header"): "🔐 Approval needed: <tool>", plain text;
//   - sections of at most 10 fields ("fields", then "fields_2"): tool, caller, agent,
//     source, context, session, category or MCP server, request id, expiry, in mrkdwn;
//   - for a shell call, a section with its commands one per line, each marked ✓
//     (allowed) or ❓ (needs the human) ("commands");
//   - a section with the arguments in a ``` code block ("arguments"), at most 3000
//     characters, their middle cut to "…[N characters cut]…" when longer;
//   - while pending, a section saying what ⏱ and 🔄 would cover ("bypass");
//   - once finished, a section with the outcome and the note ("outcome");
//   - on a message posted without its buttons, a context block ("spare") saying
//     that a copy left without them is spare (bot.Prompt.Spare);
//   - while pending, an actions block ("actions") with the four buttons ✅ Approve
//     (style primary), ❌ Reject (danger), ⏱ <bypass_short> and 🔄 Session, whose
//     values are the callback data "a:<request id>:<ok|no|b15|bs>" (bot.Callback)
//     and whose action_ids are approve, reject, bypass_short and bypass_session.
//
// A finished prompt has no actions block, so a chat.update with these blocks removes
// the buttons. Text objects are verbatim (Slack adds no links) and plain text shows
// emoji codes as typed. Blocks does not validate m: bot keeps it within Block Kit's
// limits.
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
