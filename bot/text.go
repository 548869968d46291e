package bot

import (
	"fmt"
	"strings"
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

// cutMarker is the visible line that says how much of the arguments was left out
// (SPEC §6: "with a marker saying it was cut"); n counts characters (runes).
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
