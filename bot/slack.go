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
// adapter puts them into blocks (SPEC §6, issue 5): a header block, a section with
// the fields, a section with the arguments, the outcome once finished, and an actions
// block with the buttons while pending.
type SlackMessage struct {
	// Text is the message's top-level text, the notification fallback (mrkdwn,
	// escaped): the title and request id, and the outcome once finished.
	Text string
	// Header is plain_text for a header block, at most SlackMaxHeader (not escaped:
	// plain_text is not parsed).
	Header string
	// Fields are mrkdwn section fields ("*Tool:*\n`Bash`"), escaped, at most
	// SlackMaxField each and never more than 10 (a prompt with more shows its last
	// two in one).
	Fields []string
	// Arguments is mrkdwn for one section: the arguments in a ``` code block,
	// followed by "_… (cut, N more characters)_" when cut; at most SlackMaxText.
	Arguments string
	// Outcome is mrkdwn for one section — the outcome line in bold, then the note —
	// or "" while the request is pending; at most SlackMaxText.
	Outcome string
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

// defuseFences breaks up runs of three backticks with zero-width spaces, so text
// inside a ``` code block cannot close it.
func defuseFences(s string) string {
	return strings.ReplaceAll(s, "```", "`\u200b`\u200b`")
}

// Slack renders p for Block Kit (SPEC §6, issue 5).
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
		v := EscapeMrkdwn(f.Value)
		if f.Code && !strings.Contains(f.Value, "`") {
			v = "`" + v + "`"
		}
		m.Fields = append(m.Fields, "*"+EscapeMrkdwn(f.Label)+":*\n"+v)
	}
	// A section holds at most 10 fields: past that, the last two (the request id and
	// the expiry) share one.
	for n := len(m.Fields); n > 10; n-- {
		m.Fields = append(m.Fields[:n-2], m.Fields[n-2]+"\n"+m.Fields[n-1])
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
	const open, close = "```\n", "\n```"
	// One more unit for the newline before the marker, two for its underscores.
	args, cut := fit(defuseFences(p.Arguments), SlackMaxText-len(open)-len(close)-3, mrkdwnUnits)
	m.Arguments = open + EscapeMrkdwn(args) + close
	if cut > 0 {
		m.Arguments += "\n_" + cutMarker(cut) + "_"
	}
	return m
}
