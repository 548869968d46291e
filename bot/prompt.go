package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// DefaultBypassShort is bypass_short when the configuration leaves it out: the window
// of the ⏱ button (SPEC §12.10).
const DefaultBypassShort = 15 * time.Minute

// MaxFieldLen is the longest value, in characters (UTF-16 code units), a prompt field, the title's
// tool name or the resolution note shows; longer ones end in "…". It keeps the fields
// small, so that the arguments always get most of a message.
const MaxFieldLen = 200

// Field is one labelled line of a prompt (SPEC §6): "Tool", "Why" (why the gate asked
// a human when it was more than a rule's or the default require: store.Request.Reason,
// "path contains a protected or denied place: secrets"), "Agent", "Source", "Context",
// "Session", "Cwd" (the call's working directory, against which its relative paths
// resolve), "Category", "MCP server", "Request", "Expires".
type Field struct {
	Label string
	// Value is plain text, at most MaxFieldLen runes; the renderers escape it.
	Value string
	// Code asks for a monospace rendering (tool names, session ids).
	Code bool
}

// Button is one button of a prompt's keyboard.
type Button struct {
	// Label is what the button shows: "✅ Approve", "❌ Reject", "⏱ 15 min",
	// "🔄 Session".
	Label  string
	Action Action
	// Data is Callback{RequestID, Action}.String(): the Telegram callback_data and
	// the Slack button value.
	Data string
	// Style is the Slack button style: "primary", "danger", or "" for the default.
	Style string
}

// Prompt is the channel-neutral content of the message that shows an approval request
// (SPEC §6). Build it with NewPrompt; render it with Telegram or Slack.
type Prompt struct {
	RequestID uint64
	Status    store.Status
	// Title is plain text: "🔐 Approval needed: <tool>".
	Title  string
	Fields []Field
	// Arguments is the call's arguments as indented JSON, whole; the renderers cut it
	// to fit their channel.
	Arguments string
	// Outcome is OutcomeText of the request: "" while it is pending.
	Outcome string
	// Note is the resolution's note, at most MaxFieldLen runes; "" when none, and for
	// a request cancelled at the terminal (the outcome says so).
	Note string
	// Buttons is the keyboard — [✅ Approve, ❌ Reject], [⏱ short, 🔄 Session] — while
	// the request is pending, nil once it is finished (an edit removes the buttons).
	Buttons [][]Button
}

// NewPrompt builds the prompt of r. bypassShort is the configured bypass_short and
// sets the ⏱ button's label (zero means DefaultBypassShort). Empty optional fields
// (why, agent, source, context, cwd, category, MCP server) are left out. Times are
// shown in UTC.
func NewPrompt(r store.Request, bypassShort time.Duration) Prompt {
	p := Prompt{
		RequestID: r.ID,
		Status:    r.Status,
		Title:     "🔐 Approval needed: " + clip(r.ToolName, MaxFieldLen),
		Arguments: prettyJSON(r.Arguments),
		Outcome:   OutcomeText(r),
	}
	add := func(label, value string, code bool) {
		if value != "" {
			p.Fields = append(p.Fields, Field{Label: label, Value: clip(value, MaxFieldLen), Code: code})
		}
	}
	add("Tool", r.ToolName, true)
	add("Why", r.Reason, false)
	add("Agent", r.AgentID, false)
	add("Source", r.Source, false)
	add("Context", r.ContextLabel, false)
	add("Session", r.SessionID, true)
	add("Cwd", r.Cwd, true)
	add("Category", r.Category, false)
	add("MCP server", r.MCPServer, false)
	add("Request", "#"+strconv.FormatUint(r.ID, 10), false)
	if !r.ExpiresAt.IsZero() {
		add("Expires", r.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC"), false)
	}
	if res := r.Resolution; res != nil && res.Note != "" && !cancelledAtTerminal(r) {
		p.Note = clip(res.Note, MaxFieldLen)
	}
	if r.Status == store.Pending {
		p.Buttons = Buttons(r.ID, bypassShort)
	}
	return p
}

// prettyJSON indents a JSON value with two spaces, without the \u003c-style escaping
// of <, > and & that encoding/json applies by default (the renderers escape for their
// markup), keeping numbers as written. Text that is not JSON is shown as it is.
func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Buttons returns the keyboard of a pending request (SPEC §1, §6): the first row
// "✅ Approve" (style primary) and "❌ Reject" (danger), the second "⏱ <bypassShort>"
// and "🔄 Session". Each button's Data is its callback data for request id.
// bypassShort zero means DefaultBypassShort.
func Buttons(id uint64, bypassShort time.Duration) [][]Button {
	b := func(label string, a Action, style string) Button {
		return Button{Label: label, Action: a, Data: Callback{RequestID: id, Action: a}.String(), Style: style}
	}
	return [][]Button{
		{b("✅ Approve", ActionApprove, "primary"), b("❌ Reject", ActionReject, "danger")},
		{b("⏱ "+DurationLabel(bypassShort), ActionBypassShort, ""), b("🔄 Session", ActionBypassSession, "")},
	}
}

// DurationLabel writes a bypass window for people (SPEC §12.10): "15 min", "1 h",
// "30 min", "1 h 30 min", "45 s". Zero or less means DefaultBypassShort. Parts below
// a second are dropped.
func DurationLabel(d time.Duration) string {
	if d <= 0 {
		d = DefaultBypassShort
	}
	d = d.Truncate(time.Second)
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%d h", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%d min", m))
	}
	if s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d s", s))
	}
	return strings.Join(parts, " ")
}
