package bot

import (
	"fmt"
	"strconv"
	"strings"
)

// Action is what a prompt button asks for: the last part of its callback data.
type Action string

// The four buttons of a prompt.
const (
	// ActionApprove approves the request ("✅ Approve").
	ActionApprove Action = "ok"
	// ActionReject rejects it ("❌ Reject").
	ActionReject Action = "no"
	// ActionBypassShort approves it with a bypass of bypass_short ("⏱ 15 min"): the
	// data says "short", the window is read from the configuration when the button is
	// tapped.
	ActionBypassShort Action = "b15"
	// ActionBypassSession approves it with a bypass for the whole session
	// ("🔄 Session").
	ActionBypassSession Action = "bs"
)

// MaxCallbackData is the longest callback data Telegram accepts, in bytes
// (InlineKeyboardButton.callback_data, 1-64 bytes). Every Callback encodes within it:
// "a:" + at most 20 digits + ":" + at most 3 bytes is 26 bytes.
const MaxCallbackData = 64

// Callback is the data carried by a prompt button: which request, which button.
// Its String form is "a:<request_id>:<ok|no|b15|bs>"; Slack buttons carry
// the same string as their value.
type Callback struct {
	RequestID uint64
	Action    Action
}

// String encodes c as "a:<request_id>:<action>", the request id in decimal without
// leading zeros. It does not validate c: a zero id or an unknown action encodes to a
// string ParseCallback refuses.
func (c Callback) String() string {
	return "a:" + strconv.FormatUint(c.RequestID, 10) + ":" + string(c.Action)
}

// ParseCallback decodes callback data written by Callback.String. It accepts exactly
// "a:<id>:<action>" where id is a decimal uint64 greater than zero without sign or
// leading zeros and action one of ok, no, b15, bs, the whole at most MaxCallbackData
// bytes; so ParseCallback(data).String() == data whenever it succeeds. Anything else
// — forged, stale, overlong, a non-numeric or zero id, extra parts — is an error
// wrapping ErrBadCallback that says what is wrong. It never panics.
func ParseCallback(data string) (Callback, error) {
	bad := func(why string) (Callback, error) {
		return Callback{}, fmt.Errorf("bot: callback data %s: %w: %s",
			quoteShort(data), ErrBadCallback, why)
	}
	if len(data) > MaxCallbackData {
		return bad(fmt.Sprintf("%d bytes, at most %d", len(data), MaxCallbackData))
	}
	parts := strings.Split(data, ":")
	if len(parts) != 3 || parts[0] != "a" {
		return bad("want a:<request id>:<ok|no|b15|bs>")
	}
	id, err := parseID(parts[1])
	if err != nil {
		return bad(err.Error())
	}
	a := Action(parts[2])
	switch a {
	case ActionApprove, ActionReject, ActionBypassShort, ActionBypassSession:
	default:
		return bad(fmt.Sprintf("unknown action %s, want ok, no, b15 or bs", quoteShort(parts[2])))
	}
	return Callback{RequestID: id, Action: a}, nil
}

// parseID parses a request, rule or run id: a decimal uint64 greater
// than zero, no sign, no leading zeros.
func parseID(s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("missing id")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("id %s is not a number", quoteShort(s))
		}
	}
	if s[0] == '0' {
		if s == "0" {
			return 0, fmt.Errorf("id 0 does not exist")
		}
		return 0, fmt.Errorf("id %s has leading zeros", quoteShort(s))
	}
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("id %s is out of range", quoteShort(s))
	}
	return id, nil
}

// quoteShort quotes s for an error message, cut to 40 bytes so that a forged
// kilobyte never lands in a log line or a reply whole.
func quoteShort(s string) string {
	const max = 40
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
