package main

import (
	"strings"

	"github.com/skald-circle/skald-bot/bot"
)

// shown returns text a caller controls (an argument, a session id, a label, a note, a
// message from the server) as the CLI prints it: the chat prompts' escaping
// (bot.Escape), with newlines escaped too, so that nothing in it can move the cursor,
// rewrite or reorder a line, or break a table's columns.
func shown(s string) string {
	return strings.ReplaceAll(bot.Escape(s), "\n", `\u000A`)
}

// shownName is shown for a name a person decides by (a tool, an agent id, a source, a
// caller): every character outside ASCII is escaped as well (bot.EscapeName), and the
// name is then followed by bot.NonASCIIFlag, so a look-alike cannot pass for another.
func shownName(s string) string {
	n, nonASCII := bot.EscapeName(s)
	if nonASCII {
		n += " " + bot.NonASCIIFlag
	}
	return n
}
