package bot

import (
	"strconv"

	"github.com/skald-circle/skald-bot/store"
)

// Limits of the Commands part of a prompt, in UTF-16 code units: each command and
// each reason is cut in the middle to its limit, and lines stop once the whole would
// pass MaxCommandsLen, the rest counted in a last line.
const (
	MaxCommandLen  = 120
	MaxReasonLen   = 100
	MaxCommandsLen = 1500
)

// Command marks: the command was allowed, needs the human, or was denied (a denied
// command denies the call, so it never reaches a prompt).
const (
	MarkAllowed  = "✓"
	MarkRequired = "❓"
	MarkDenied   = "✗"
)

// CommandLine is one command of a shell call's script as a prompt shows it (docs/design.md,
// "Chat prompts"): "✓ git status", "❓ cat secrets/key — secrets/key: inside a denied
// place".
type CommandLine struct {
	Mark string // MarkAllowed, MarkRequired or MarkDenied
	// Text and Reason are escaped (Escape) one-line text, cut to MaxCommandLen and
	// MaxReasonLen; Reason is "" when none.
	Text   string
	Reason string
}

// commandLines returns the lines of r's commands, and how many did not fit
// MaxCommandsLen. The reason is shown for the commands that need the human.
func commandLines(cs []store.CommandDecision) (lines []CommandLine, more int) {
	n := 0
	for i, c := range cs {
		l := CommandLine{Mark: MarkRequired, Text: shownValue(c.Command, false, MaxCommandLen)}
		switch c.Action {
		case "allow":
			l.Mark = MarkAllowed
		case "deny":
			l.Mark = MarkDenied
		}
		if l.Mark != MarkAllowed && c.Reason != "" {
			l.Reason = shownValue(c.Reason, false, MaxReasonLen)
		}
		size := units(l.Mark) + 1 + units(l.Text) + units(l.Reason) + 4
		if n+size > MaxCommandsLen {
			return lines, len(cs) - i
		}
		n += size
		lines = append(lines, l)
	}
	return lines, 0
}

// String is the line as plain text: "❓ rm -rf data — why".
func (l CommandLine) String() string {
	s := l.Mark + " " + l.Text
	if l.Reason != "" {
		s += " — " + l.Reason
	}
	return s
}

// moreCommands is the last line of a cut command list.
func moreCommands(n int) string {
	if n == 1 {
		return "… 1 more command"
	}
	return "… " + strconv.Itoa(n) + " more commands"
}
