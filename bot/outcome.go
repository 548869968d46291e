package bot

import (
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// TerminalReason is the cancel reason the Claude Code hook sends when the user
// answers at the terminal instead; it is stored as the resolution's
// note.
const TerminalReason = "terminal"

// OutcomeText is the line a prompt message shows once its request left pending, ""
// while it is pending. The time is the resolution's, in UTC; parts the resolution
// lacks are left out, and the note is not part of the line (Prompt.Note):
//
//	✅ Approved by Jane Doe (100000001) · telegram · 14:03 UTC · ⏱ 15 min bypass: …
//	❌ Rejected by Jane Doe (100000001) · slack · 14:03 UTC
//	⌛ Expired · 14:03 UTC
//	🚫 Cancelled (handled at the terminal)
func OutcomeText(r store.Request) string {
	var head string
	switch r.Status {
	case store.Pending:
		return ""
	case store.Approved:
		head = "✅ Approved"
	case store.Rejected:
		head = "❌ Rejected"
	case store.Expired:
		head = "⌛ Expired"
	case store.Cancelled:
		if cancelledAtTerminal(r) {
			return "🚫 Cancelled (handled at the terminal)"
		}
		head = "🚫 Cancelled"
	default:
		head = "Finished (" + clip(string(r.Status), 20) + ")"
	}
	res := r.Resolution
	if res == nil {
		return head
	}
	parts := []string{head}
	if res.By != "" && r.Status != store.Expired {
		parts[0] += " by " + shownValue(res.By, false, MaxFieldLen)
	}
	if res.Via != "" && r.Status != store.Expired {
		parts = append(parts, shownValue(res.Via, false, 20))
	}
	if !res.At.IsZero() {
		parts = append(parts, res.At.UTC().Format("15:04")+" UTC")
	}
	if b := res.Bypass; b != nil && r.Status == store.Approved {
		// Exactly what the bypass lets through from now on: the scope in words and
		// that its arguments do not matter, then the scope as the API names it.
		covers := scopeText(b.Scope) + anyArguments + " (" + scopeShown(b.Scope) + ")"
		if b.Secs == 0 {
			parts = append(parts, "🔄 session bypass: "+covers)
		} else {
			d := DurationLabel(time.Duration(b.Secs) * time.Second)
			parts = append(parts, "⏱ "+d+" bypass: "+covers)
		}
	}
	return strings.Join(parts, " · ")
}

func cancelledAtTerminal(r store.Request) bool {
	return r.Status == store.Cancelled && r.Resolution != nil &&
		r.Resolution.Note == TerminalReason
}

// scopeShown is a granted bypass scope as the outcome line shows it: "category:shell",
// its name escaped as EscapeName does.
func scopeShown(scope string) string {
	kind, v, ok := strings.Cut(scope, ":")
	if !ok {
		return shownValue(scope, true, MaxFieldLen)
	}
	return shownValue(kind, true, 40) + ":" + shownValue(v, true, MaxFieldLen)
}
