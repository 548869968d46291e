package bot

import "strings"

// TelegramMaxText is the longest text of a Telegram message, after entity parsing
// (sendMessage / editMessageText: "1-4096 characters after entities parsing"). The
// renderer counts UTF-16 code units, as Telegram does.
const TelegramMaxText = 4096

// TelegramMessage is a prompt rendered for the Telegram Bot API in HTML parse mode.
type TelegramMessage struct {
	// HTML is the text for parse_mode "HTML": every <, > and & of the content is
	// escaped, and the text after entity parsing is at most TelegramMaxText.
	HTML string
	// Buttons is the inline keyboard (each Button's Data is its callback_data), nil
	// once the request is finished: an edit must then send an empty keyboard so the
	// old buttons go away.
	Buttons [][]Button
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeHTML escapes <, > and & as Telegram's HTML parse mode requires; nothing else
// needs escaping outside tags.
func EscapeHTML(s string) string { return htmlEscaper.Replace(s) }

// htmlText builds Telegram HTML and counts its visible length (after entity parsing)
// in UTF-16 code units.
type htmlText struct {
	b strings.Builder
	n int
}

func (h *htmlText) tag(s string)  { h.b.WriteString(s) }
func (h *htmlText) text(s string) { h.b.WriteString(EscapeHTML(s)); h.n += units(s) }

// in writes text s inside the element tag: in("b", s) is <b>s</b>.
func (h *htmlText) in(tag, s string) {
	h.tag("<" + tag + ">")
	h.text(s)
	h.tag("</" + tag + ">")
}

// Telegram renders p: the title in bold, one "Label: value" line per field, a
// shell call's commands one per line with their marks, the arguments as a JSON
// code block, escaped (Escape), their middle cut to
// "…[N characters cut]…" when the whole would pass TelegramMaxText, then while
// pending what the bypass buttons cover, once finished the outcome and the note.
func (p Prompt) Telegram() TelegramMessage {
	var head, tail htmlText
	head.in("b", p.Title)
	head.text("\n\n")
	for _, f := range p.Fields {
		head.in("b", f.Label+":")
		head.text(" ")
		if f.Code {
			head.in("code", f.Value)
		} else {
			head.text(f.Value)
		}
		head.text("\n")
	}
	if p.Bypass.Label != "" {
		tail.text("\n\n")
		tail.in("b", p.Bypass.Label+":")
		tail.text(" " + p.Bypass.Value)
	}
	if p.Outcome != "" {
		tail.text("\n\n")
		tail.in("b", p.Outcome)
	}
	if p.Note != "" {
		tail.text("\n")
		tail.in("i", "Note: "+p.Note)
	}
	if p.Spare != "" {
		tail.text("\n\n")
		tail.in("i", p.Spare)
	}
	telegramCommands(&head, p, TelegramMaxText-tail.n-minArgsShown)
	head.text("\n")
	ps, _ := pieces(p.Arguments, escText)
	args, _ := cutMiddle(ps, TelegramMaxText-head.n-tail.n, runeUnits)
	head.tag(`<pre><code class="language-json">`)
	head.text(args)
	head.tag("</code></pre>")
	head.tag(tail.b.String())
	return TelegramMessage{HTML: head.b.String(), Buttons: p.Buttons}
}

// Cut returns plain text s cut to at most max UTF-16 code units, ending in a line
// "… (cut, N more characters)" when it was cut: for command replies, which adapters
// send as plain text (Telegram: TelegramMaxText; Slack: SlackMaxText per block).
func Cut(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if units(s) <= max {
		return s
	}
	shown, cut := fit(s, max-1, runeUnits)
	return shown + "\n" + cutMarker(cut)
}

// minArgsShown is how much of the arguments a Telegram prompt keeps room for, in
// UTF-16 code units, however many commands the script has.
const minArgsShown = 600

// telegramCommands writes p's commands to head, one per line, those that fit within
// budget for head, MaxCommandsLen at most (Prompt.ShownCommands).
func telegramCommands(head *htmlText, p Prompt, budget int) {
	if len(p.Commands) == 0 {
		return
	}
	head.in("b", "Commands:")
	head.text("\n")
	room := min(MaxCommandsLen, budget-head.n)
	for _, l := range p.ShownCommands(room, lineUnits) {
		if l.Mark == MarkElided {
			head.in("i", l.String())
			head.text("\n")
			continue
		}
		head.text(l.Mark + " ")
		head.in("code", l.Text)
		if l.Reason != "" {
			head.text(" — ")
			head.in("i", l.Reason)
		}
		head.text("\n")
	}
}
