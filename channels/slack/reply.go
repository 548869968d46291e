package slack

import (
	"strconv"
	"strings"
	"unicode/utf16"

	slackgo "github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/bot"
)

// maxReplyBlocks is how many plain_text sections an ephemeral reply is spread over at
// most (a message may hold 50 blocks); what does not fit is cut with a marker.
const maxReplyBlocks = 20

// replyOptions are the chat.postEphemeral options of a reply in plain text: the text
// in plain_text sections of at most bot.SlackMaxText characters each, split at line
// ends (plain_text is shown as typed, so rule patterns such as mcp__x__* are not
// taken for mrkdwn), and its first line, escaped, as the notification text.
func replyOptions(text string) []slackgo.MsgOption {
	if strings.TrimSpace(text) == "" {
		text = "(no reply)"
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	var blocks []slackgo.Block
	for _, chunk := range chunks(text, bot.SlackMaxText, maxReplyBlocks) {
		if strings.TrimSpace(chunk) == "" {
			continue // Slack refuses an empty text object
		}
		text := slackgo.NewTextBlockObject(slackgo.PlainTextType, chunk, false, false)
		blocks = append(blocks, slackgo.NewSectionBlock(text, nil, nil))
	}
	first, _, _ := strings.Cut(text, "\n")
	return []slackgo.MsgOption{
		slackgo.MsgOptionText(bot.EscapeMrkdwn(bot.Cut(first, 150)), false),
		slackgo.MsgOptionBlocks(blocks...),
	}
}

// chunks splits text at line ends into at most n pieces of at most max UTF-16 code
// units each; a line longer than max is cut (bot.Cut), and lines beyond the n-th
// piece are replaced by a last piece saying how many were left out.
func chunks(text string, max, n int) []string {
	lines := strings.Split(text, "\n")
	var out []string
	var cur strings.Builder
	curLen, has := 0, false
	for i, line := range lines {
		line = bot.Cut(line, max)
		l := units(line)
		if has && curLen+1+l > max {
			out = append(out, cur.String())
			cur.Reset()
			curLen, has = 0, false
			if len(out) == n-1 {
				return append(out, "… (cut, "+strconv.Itoa(len(lines)-i)+" more lines)")
			}
		}
		if has {
			cur.WriteByte('\n')
			curLen++
		}
		cur.WriteString(line)
		curLen, has = curLen+l, true
	}
	return append(out, cur.String())
}

// units is the length of s in UTF-16 code units, the unit of bot.SlackMaxText.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
