package bot

import (
	"fmt"
	"strconv"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// Limits of the Commands part of a prompt, in UTF-16 code units: each command and
// each reason is cut in the middle to its limit, and a renderer shows at most
// MaxCommandsLen of lines (Prompt.ShownCommands).
const (
	MaxCommandLen  = 120
	MaxReasonLen   = 100
	MaxCommandsLen = 1500
)

// Command marks: the command was allowed, needs the human, or was denied (a denied
// command denies the call, so it rarely reaches a prompt); MarkElided starts a line
// that stands for commands left out.
const (
	MarkAllowed  = "✓"
	MarkRequired = "❓"
	MarkDenied   = "✗"
	MarkElided   = "…"
)

// CommandLine is one command of a shell call's script as a prompt shows it (docs/design.md,
// "Chat prompts"): "✓ git status", "❓ cat secrets/key — secrets/key: inside a denied
// place"; or, with Mark MarkElided, the commands a renderer left out at that place:
// "… 27 allowed commands not shown".
type CommandLine struct {
	Mark string // MarkAllowed, MarkRequired, MarkDenied or MarkElided
	// Text and Reason are escaped (Escape) one-line text, cut to MaxCommandLen and
	// MaxReasonLen; Reason is "" when none. Both are "" on a MarkElided line.
	Text   string
	Reason string
	// Elided, on a MarkElided line, counts the commands it stands for; Needing how
	// many of them are not allowed (0 unless those alone did not fit).
	Elided, Needing int
}

// Needs reports whether l is a command that is not allowed: the ones a prompt always
// shows.
func (l CommandLine) Needs() bool { return l.Mark != MarkAllowed && l.Mark != MarkElided }

// commandLines returns the lines of a script's commands, in script order, each cut to
// its limits. The reason is shown for the commands that are not allowed, a rule's
// match as "rule N"; an action other than allow and deny is marked as needing the human.
func commandLines(cs []store.CommandDecision) []CommandLine {
	var lines []CommandLine
	for _, c := range cs {
		l := CommandLine{Mark: MarkRequired, Text: shownValue(c.Command, false, MaxCommandLen)}
		switch c.Action {
		case "allow":
			l.Mark = MarkAllowed
		case "deny":
			l.Mark = MarkDenied
		}
		reason := c.Reason
		if reason == rules.ReasonRule { // the code alone: say which rule
			reason = ""
			if c.RuleID != 0 {
				reason = "rule " + strconv.FormatUint(c.RuleID, 10)
			}
		}
		if l.Mark != MarkAllowed && reason != "" {
			l.Reason = shownValue(reason, false, MaxReasonLen)
		}
		lines = append(lines, l)
	}
	return lines
}

// scriptField is the value of a prompt's "Script" field: how many of cs are not
// allowed, of how many, and the one that decided (the first denied, else the first
// not allowed); "" when every command is allowed.
func scriptField(cs []store.CommandDecision) string {
	n, first := 0, -1
	for i, c := range cs {
		if c.Action == "allow" {
			continue
		}
		n++
		if first < 0 || c.Action == "deny" && cs[first].Action != "deny" {
			first = i
		}
	}
	if n == 0 {
		return ""
	}
	cmd := shownValue(cs[first].Command, false, MaxCommandLen)
	if n == 1 {
		return fmt.Sprintf("1 command needs you (of %d): %s", len(cs), cmd)
	}
	return fmt.Sprintf("%d commands need you (of %d); first: %s", n, len(cs), cmd)
}

// String is the line as plain text: "❓ rm -rf data — why", "… 27 allowed commands
// not shown", "…[40 commands cut, 38 need you]…".
func (l CommandLine) String() string {
	if l.Mark == MarkElided {
		return elidedText(l.Elided, l.Needing)
	}
	s := l.Mark + " " + l.Text
	if l.Reason != "" {
		s += " — " + l.Reason
	}
	return s
}

func elidedText(n, needing int) string {
	if needing > 0 {
		return "…[" + plural(n, "command") + " cut, " + strconv.Itoa(needing) + " need you]…"
	}
	return "… " + plural(n, "allowed command") + " not shown"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// lineUnits is the cost of a line rendered as plain text with its line break.
func lineUnits(l CommandLine) int { return units(l.String()) + 1 }

// ShownCommands returns the lines of p.Commands a renderer with budget for them
// shows, in script order: all of them when their cost fits; else every command that is
// not allowed, and the allowed ones from the start of the script while they fit, each
// run of allowed ones left out replaced by a MarkElided line. When the commands that
// are not allowed do not fit on their own, their head and tail are kept around a
// MarkElided line counting the commands cut and how many of those need the human.
// cost is the length of a rendered line, nil meaning its plain text and a line break.
func (p Prompt) ShownCommands(budget int, cost func(CommandLine) int) []CommandLine {
	if cost == nil {
		cost = lineUnits
	}
	ls := p.Commands
	total := 0
	for _, l := range ls {
		total += cost(l)
	}
	if total <= budget {
		return ls
	}
	fits := func(k int) bool { return linesCost(keepAllowed(ls, k), cost) <= budget }
	if !fits(0) {
		return cutNeeding(keepAllowed(ls, 0), budget, cost)
	}
	// The cost of keepAllowed(ls, k) barely depends on k but through the elision
	// lines; a binary search finds a k that fits, with k+1 not fitting.
	lo, hi := 0, len(ls) // fits(lo); the answer is below hi
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return keepAllowed(ls, lo)
}

// keepAllowed is ls with the allowed lines at index k and after replaced, run by run,
// by MarkElided lines.
func keepAllowed(ls []CommandLine, k int) []CommandLine {
	out := make([]CommandLine, 0, min(len(ls), 64))
	gap := 0
	for i, l := range ls {
		if !l.Needs() && i >= k {
			gap++
			continue
		}
		if gap > 0 {
			out = append(out, CommandLine{Mark: MarkElided, Elided: gap})
			gap = 0
		}
		out = append(out, l)
	}
	if gap > 0 {
		out = append(out, CommandLine{Mark: MarkElided, Elided: gap})
	}
	return out
}

func linesCost(ls []CommandLine, cost func(CommandLine) int) int {
	n := 0
	for _, l := range ls {
		n += cost(l)
	}
	return n
}

// cutNeeding keeps a head and a tail of ls (the lines of keepAllowed(…, 0)) — half of
// what the cut's own line leaves of budget each, the tail taking what the head could
// not use — around one MarkElided line that counts the commands between them.
func cutNeeding(ls []CommandLine, budget int, cost func(CommandLine) int) []CommandLine {
	all, needing := 0, 0
	count := func(l CommandLine) (int, int) {
		if l.Mark == MarkElided {
			return l.Elided, l.Needing
		}
		return 1, 1
	}
	for _, l := range ls {
		n, k := count(l)
		all, needing = all+n, needing+k
	}
	// Its digits are at most those of the totals: a safe reserve.
	budget = max(budget-cost(CommandLine{Mark: MarkElided, Elided: all, Needing: needing}), 0)
	i, used := 0, 0
	for ; i < len(ls) && used+cost(ls[i]) <= budget/2; i++ {
		used += cost(ls[i])
	}
	j := len(ls)
	for ; j > i && used+cost(ls[j-1]) <= budget; j-- {
		used += cost(ls[j-1])
	}
	// An elision next to the cut joins it.
	if i > 0 && ls[i-1].Mark == MarkElided {
		i--
	}
	if j < len(ls) && j > i && ls[j].Mark == MarkElided {
		j++
	}
	cut := CommandLine{Mark: MarkElided}
	for _, l := range ls[i:j] {
		n, k := count(l)
		cut.Elided, cut.Needing = cut.Elided+n, cut.Needing+k
	}
	if cut.Elided == 0 {
		return ls
	}
	out := append(append([]CommandLine{}, ls[:i]...), cut)
	return append(out, ls[j:]...)
}
