package bot

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text limits and cutting, shared by the Telegram and Slack renderers.

// units is the length of s in UTF-16 code units: what Telegram counts (entity offsets
// and the 4096 limit are in UTF-16) and a safe upper bound for Slack's characters.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

func runeUnits(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// clip cuts s to at most max UTF-16 code units (see units), ending it with "…" when
// it was cut. It also replaces invalid UTF-8, so every renderer works on valid text.
func clip(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if units(s) <= max {
		return s
	}
	n := 0
	for i, r := range s {
		if n+runeUnits(r) > max-1 {
			return s[:i] + "…"
		}
		n += runeUnits(r)
	}
	return s
}

// cutMarker is the line that ends a command reply cut by Cut; n counts the characters
// (runes) left out.
func cutMarker(n int) string {
	return fmt.Sprintf("… (cut, %d more characters)", n)
}

// fit returns the longest prefix of s, cut at a rune boundary, whose cost is at most
// budget, and the number of runes it leaves out. The cost of a rune is given by cost
// (its UTF-16 length, or the length of its escaped form). When s does not fit, room
// for cutMarker is kept out of budget, so the caller can always append it. A budget
// too small for any prefix returns "" and the rune count of s.
func fit(s string, budget int, cost func(rune) int) (shown string, cut int) {
	total := 0
	for _, r := range s {
		total += cost(r)
	}
	if total <= budget {
		return s, 0
	}
	// The marker's digits are at most those of the whole length: a safe reserve.
	budget -= units(cutMarker(utf8.RuneCountInString(s)))
	used, end := 0, 0
	for i, r := range s {
		c := cost(r)
		if used+c > budget {
			end = i
			break
		}
		used += c
	}
	return s[:end], utf8.RuneCountInString(s[end:])
}

// Escape returns s as a prompt shows text the caller controls: each control character
// but newline (U+0000–U+001F, U+007F–U+009F) and each bidi or line-breaking format
// character (U+061C, U+200E, U+200F, U+2028–U+202E, U+2066–U+2069) written as \uXXXX,
// invalid UTF-8 as \uFFFD. Every renderer shows caller text through it, so nothing
// the caller sends can reorder, hide or fake the lines around it. A prompt's
// one-line fields escape newlines too.
func Escape(s string) string {
	ps, _ := pieces(s, escText)
	return strings.Join(ps, "")
}

// EscapeName is Escape for a name a person reads to decide (a tool, an agent id, a
// source, an MCP server): newlines and every character outside ASCII are written as
// \uXXXX too (\U00XXXXXX beyond U+FFFF), so a look-alike such as the Cyrillic "с" of
// "сron" shows as "\u0441ron". nonASCII reports whether s held any character outside
// ASCII; a prompt then flags the name with NonASCIIFlag.
func EscapeName(s string) (shown string, nonASCII bool) {
	ps, flagged := pieces(s, escName)
	return strings.Join(ps, ""), flagged
}

// NonASCIIFlag follows a name that EscapeName found non-ASCII characters in.
const NonASCIIFlag = "⚠ non-ASCII"

// How pieces escapes: text that may span lines (the arguments), a one-line field, or
// a name.
const (
	escText = iota
	escLine
	escName
)

// pieces splits s into what a prompt shows for each of its runes: the rune itself, or
// its escaped form (see Escape and EscapeName). nonASCII reports whether s held a rune
// outside ASCII (or invalid UTF-8).
func pieces(s string, mode int) (ps []string, nonASCII bool) {
	ps = make([]string, 0, len(s))
	for i, r := range s {
		if r > unicode.MaxASCII {
			nonASCII = true
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				ps = append(ps, `\uFFFD`)
				continue
			}
		}
		switch {
		case hidden(r), r == '\n' && mode != escText,
			mode == escName && r > unicode.MaxASCII && r <= 0xFFFF:
			ps = append(ps, fmt.Sprintf(`\u%04X`, r))
		case mode == escName && r > 0xFFFF:
			ps = append(ps, fmt.Sprintf(`\U%08X`, r))
		default:
			ps = append(ps, s[i:i+utf8.RuneLen(r)])
		}
	}
	return ps, nonASCII
}

// hidden reports whether r is shown escaped in any caller text (see Escape).
func hidden(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20, r >= 0x7F && r <= 0x9F:
		return true
	case r == 0x061C, r == 0x200E, r == 0x200F,
		r >= 0x2028 && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// middleMarker stands for the n characters (runes, as shown) that a cut in the middle
// of a long text left out.
func middleMarker(n int) string {
	return fmt.Sprintf("…[%d characters cut]…", n)
}

// cutMiddle joins ps whole when its cost is at most budget; else it keeps a head and a
// tail of whole pieces — half of what the marker leaves of budget each, the tail taking
// what the head could not use — around middleMarker, so the end of a long text (the
// command after the padding) stays visible. The cost of a piece is the sum of cost over
// its runes; cut reports whether anything was left out.
func cutMiddle(ps []string, budget int, cost func(rune) int) (shown string, cut bool) {
	costs := make([]int, len(ps))
	total, chars := 0, 0
	for i, p := range ps {
		for _, r := range p {
			costs[i] += cost(r)
			chars++
		}
		total += costs[i]
	}
	if total <= budget {
		return strings.Join(ps, ""), false
	}
	for _, r := range middleMarker(chars) { // its digits are at most those of chars
		budget -= cost(r)
	}
	budget = max(budget, 0)
	i, used := 0, 0
	for ; i < len(ps) && used+costs[i] <= budget/2; i++ {
		used += costs[i]
	}
	j := len(ps)
	for ; j > i && used+costs[j-1] <= budget; j-- {
		used += costs[j-1]
	}
	n := 0
	for _, p := range ps[i:j] {
		n += utf8.RuneCountInString(p)
	}
	return strings.Join(ps[:i], "") + middleMarker(n) + strings.Join(ps[j:], ""), true
}

// shownValue is a caller-controlled one-line prompt value as shown: escaped (as a
// name when name is set, then followed by NonASCIIFlag if it held any non-ASCII), and
// cut in the middle to at most max UTF-16 code units before the flag.
func shownValue(s string, name bool, max int) string {
	mode := escLine
	if name {
		mode = escName
	}
	ps, nonASCII := pieces(s, mode)
	v, _ := cutMiddle(ps, max, runeUnits)
	if name && nonASCII {
		v += " " + NonASCIIFlag
	}
	return v
}
