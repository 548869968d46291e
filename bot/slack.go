package bot

import (
	"strings"
)

// Slack Block Kit limits the renderer keeps to (docs.slack.dev/reference/block-kit):
// a section's text, a header's plain text, a section field. Lengths are counted in
// UTF-16 code units of the escaped text, a safe upper bound for Slack's characters.
const (
	SlackMaxText   = 3000
	SlackMaxHeader = 150
	SlackMaxField  = 2000
)

// SlackMessage is a prompt rendered as the pieces of a Block Kit message; the Slack
// adapter puts them into blocks: a header block, sections with the fields, a section
// with the arguments, while pending one saying what the bypass buttons cover and an
// actions block with the buttons, once finished the outcome.
type SlackMessage struct {
	// Text is the message's top-level text, the notification fallback (mrkdwn,
	// escaped): the title and request id, and the outcome once finished.
	Text string
	// Header is plain_text for a header block, at most SlackMaxHeader (not escaped:
	// plain_text is not parsed).
	Header string
	// Fields are mrkdwn section fields ("*Tool:*\n`Bash`"), escaped, at most
	// SlackMaxField each; there may be more than a section's 10.
	Fields []string
	// Commands is mrkdwn for one section, a shell call's commands one per line with
	// their marks ("*Commands:*\n✓ `git status`\n❓ `rm -rf data`"), at most
	// SlackMaxText; "" for other tools.
	Commands string
	// Arguments is mrkdwn for one section: the arguments in a ``` code block,
	// escaped (Escape), their middle cut to "…[N characters cut]…" when the whole
	// would pass SlackMaxText.
	Arguments string
	// Bypass is mrkdwn for one section, what the ⏱ and 🔄 buttons cover ("*⏱ 15 min
	// / 🔄 Session cover:* every call of category shell (any command or arguments, …"),
	// "" once the request is finished.
	Bypass string
	// Outcome is mrkdwn for one section — the outcome line in bold, then the note —
	// or "" while the request is pending; at most SlackMaxText.
	Outcome string
	// Spare is mrkdwn for a context block, Prompt.Spare in italics; "" when none.
	Spare string
	// Buttons are the actions: each Button's Data is the button's value, its Style
	// the button style; nil once finished (a chat.update must then send the blocks
	// without the actions block).
	Buttons [][]Button
}

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeMrkdwn escapes &, < and > as Slack's mrkdwn requires (the only three
// characters Slack asks apps to escape).
func EscapeMrkdwn(s string) string { return mrkdwnEscaper.Replace(s) }

// mrkdwnUnits is the length of a rune once escaped for mrkdwn.
func mrkdwnUnits(r rune) int {
	switch r {
	case '&':
		return len("&amp;")
	case '<', '>':
		return len("&lt;")
	}
	return runeUnits(r)
}

// inert is v as mrkdwn that Slack shows as it is: escaped, and in inline code when code
// is set or v holds a formatting character (*, _, ~ or a backtick, which becomes \u0060
// so it cannot end the code span).
func inert(v string, code bool) string {
	if !code && !strings.ContainsAny(v, "*_~`") {
		return EscapeMrkdwn(v)
	}
	return "`" + EscapeMrkdwn(strings.ReplaceAll(v, "`", `\u0060`)) + "`"
}

// defuseFences breaks up runs of three backticks with zero-width spaces, so text
// inside a ``` code block cannot close it.
func defuseFences(s string) string {
	return strings.ReplaceAll(s, "```", "`\u200b`\u200b`")
}

// Slack renders p for Block Kit: the fields, the arguments, what the bypass buttons
// cover while pending, the outcome once finished, each within Slack's limits.
func (p Prompt) Slack() SlackMessage {
	m := SlackMessage{
		Header:  clip(p.Title, SlackMaxHeader),
		Outcome: "",
		Buttons: p.Buttons,
	}
	m.Text = EscapeMrkdwn(p.Title)
	for _, f := range p.Fields {
		if f.Label == "Request" {
			m.Text += " (request " + EscapeMrkdwn(f.Value) + ")"
		}
		m.Fields = append(m.Fields, "*"+EscapeMrkdwn(f.Label)+":*\n"+inert(f.Value, f.Code))
	}
	if len(p.Commands) > 0 {
		m.Commands = slackCommands(p)
	}
	if p.Bypass.Label != "" {
		m.Bypass = "*" + EscapeMrkdwn(p.Bypass.Label) + ":* " + inert(p.Bypass.Value, false)
	}
	var outcome string
	if p.Outcome != "" {
		outcome = "*" + p.Outcome + "*"
		m.Text += " — " + EscapeMrkdwn(p.Outcome)
	}
	if p.Note != "" {
		if outcome != "" {
			outcome += "\n"
		}
		outcome += "Note: " + p.Note
	}
	// The outcome, the resolver's name, the bypass scope and the note can each hold
	// a few hundred characters, five times as long once escaped.
	if shown, cut := fit(outcome, SlackMaxText, mrkdwnUnits); cut > 0 {
		outcome = shown + "…"
	}
	m.Outcome = EscapeMrkdwn(outcome)
	if p.Spare != "" {
		m.Spare = "_" + EscapeMrkdwn(p.Spare) + "_"
	}
	const open, close = "```\n", "\n```"
	ps, _ := pieces(defuseFences(p.Arguments), escText)
	args, _ := cutMiddle(ps, SlackMaxText-len(open)-len(close), mrkdwnUnits)
	m.Arguments = open + EscapeMrkdwn(args) + close
	return m
}

// slackCommands is the Commands section of p: the lines that fit within
// MaxCommandsLen (Prompt.ShownCommands), escaped, well within SlackMaxText.
func slackCommands(p Prompt) string {
	s := "*Commands:*"
	for _, l := range p.ShownCommands(MaxCommandsLen, func(l CommandLine) int {
		return units(slackLine(l))
	}) {
		s += slackLine(l)
	}
	return s
}

// slackLine is l as a line of the Commands section, with the line break before it.
func slackLine(l CommandLine) string {
	if l.Mark == MarkElided {
		return "\n_" + EscapeMrkdwn(l.String()) + "_"
	}
	line := "\n" + l.Mark + " " + inert(l.Text, true)
	if l.Reason != "" {
		line += " — " + inert(l.Reason, false)
	}
	return line
}
