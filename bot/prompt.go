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
// of the ⏱ button.
const DefaultBypassShort = 15 * time.Minute

// bypassShort is d, or DefaultBypassShort when d is zero or less.
func bypassShort(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultBypassShort
	}
	return d
}

// MaxFieldLen is the longest value, in characters (UTF-16 code units), a prompt field, the title's
// tool name or the resolution note shows, before a "⚠ non-ASCII" flag; a longer one
// keeps its head and tail around "…[N characters cut]…". It keeps the fields small,
// so that the arguments always get most of a message.
const MaxFieldLen = 200

// Field is one labelled line of a prompt. NewPrompt's labels, in order: "Tool",
// "Host", "Script", "Caller", "Why", "Agent", "Source", "Context", "Session", "Cwd",
// "Category", "Claimed category", "MCP server", "Request", "Expires", then "⚠ Caller"
// once the caller stopped waiting; a question has "Clarification" for "Request".
// A field the request lacks is left out (docs/design.md, "Chat prompts", says what
// each shows).
type Field struct {
	Label string
	// Value is plain text, caller text already escaped (Escape, EscapeName) and at
	// most MaxFieldLen characters plus a flag; the renderers escape it for their markup.
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
// (docs/design.md, "Chat prompts"). Build it with NewPrompt; render it with Telegram
// or Slack.
type Prompt struct {
	RequestID uint64
	Status    store.Status
	// Title is plain text: "🔐 Approval needed: <tool>", the tool escaped as a name.
	Title  string
	Fields []Field
	// Commands is a shell call's script split into its commands, in script order
	// (store.Request.Commands), every one; nil for other tools. A renderer shows
	// ShownCommands of them.
	Commands []CommandLine
	// Arguments is the call's arguments as indented JSON, whole and not escaped; the
	// renderers escape it (Escape) and cut its middle to fit their channel.
	Arguments string
	// Bypass says what the ⏱ and 🔄 buttons would grant, while the request is pending
	// (Label "⏱ 15 min / 🔄 Session cover", Value "every call of category shell (any
	// command or arguments, not only this call), for this caller in this session"); the
	// zero Field once it is finished.
	Bypass Field
	// Outcome is OutcomeText of the request: "" while it is pending.
	Outcome string
	// Note is the resolution's note, escaped and at most MaxFieldLen characters; ""
	// when none, and for a request cancelled at the terminal (the outcome says so).
	Note string
	// Buttons is the keyboard — [✅ Approve, ❌ Reject], [⏱ short, 🔄 Session] — while
	// the request is pending, nil once it is finished (an edit removes the buttons).
	Buttons [][]Button
	// Spare is the last line of a message posted without its buttons, the first phase
	// of a send: "⏳ Buttons follow. If none appear, this is a spare copy of request
	// #7: …". The edit that arms the message drops it; a copy whose post reply was
	// lost keeps it (docs/design.md, "Chat prompts"). "" otherwise.
	Spare string
}

// NewPrompt builds the prompt of r. bypassShort is the configured bypass_short and
// sets the ⏱ button's label (zero means DefaultBypassShort). Empty optional fields
// (caller, why, agent, source, context, cwd, category, claimed category, MCP server)
// are left out. Times are shown in UTC.
func NewPrompt(r store.Request, bypassShort time.Duration) Prompt {
	p := Prompt{
		RequestID: r.ID,
		Status:    r.Status,
		Title:     "🔐 Approval needed: " + shownValue(r.ToolName, true, MaxFieldLen),
		Arguments: prettyJSON(r.Arguments),
		Outcome:   OutcomeText(r),
	}
	caller, agentShown := callerText(r)
	p.addField("Tool", fieldName(r.ToolName), true)
	p.addField("Host", fieldText(hostShown(r.Host)), true)
	p.addField("Script", scriptField(r.Commands), false)
	p.addField("Caller", caller, false)
	p.addField("Why", fieldText(r.Reason), false)
	if !agentShown {
		p.addField("Agent", fieldName(r.AgentID), false)
	}
	p.addField("Source", fieldName(r.Source), false)
	p.addField("Context", fieldText(r.ContextLabel), false)
	p.addField("Session", fieldText(r.SessionID), true)
	p.addField("Cwd", fieldText(r.Cwd), true)
	p.addField("Category", fieldName(r.Category), false)
	if r.ClaimedCategory != "" {
		p.addField("Claimed category", fieldName(r.ClaimedCategory)+" (not used)", false)
	}
	p.addField("MCP server", fieldName(r.MCPServer), false)
	p.addField("Request", "#"+strconv.FormatUint(r.ID, 10), false)
	p.addField("Expires", expiresText(r.ExpiresAt), false)
	if !r.WaiterGoneAt.IsZero() {
		p.addField("⚠ Caller", "stopped waiting at "+
			r.WaiterGoneAt.UTC().Format("2006-01-02 15:04:05 UTC")+
			"; the request can still be answered, for a retried call", false)
	}
	p.Commands = commandLines(r.Commands)
	if res := r.Resolution; res != nil && res.Note != "" && !cancelledAtTerminal(r) {
		p.Note = fieldText(res.Note)
	}
	if r.Status == store.Pending {
		p.Buttons = Buttons(r.ID, bypassShort)
		p.Bypass = Field{
			Label: "⏱ " + DurationLabel(bypassShort) + " / 🔄 Session cover",
			Value: scopeText(r.BypassScope()) + anyArguments + bypassCover(r),
		}
	}
	return p
}

// addField appends the field label: value to p's Fields, unless value is "".
func (p *Prompt) addField(label, value string, code bool) {
	if value != "" {
		p.Fields = append(p.Fields, Field{Label: label, Value: value, Code: code})
	}
}

// fieldText is caller text s as a field's value, fieldName a name (Escape,
// EscapeName), each at most MaxFieldLen characters.
func fieldText(s string) string { return shownValue(s, false, MaxFieldLen) }
func fieldName(s string) string { return shownValue(s, true, MaxFieldLen) }

// expiresText is the Expires field of t, in UTC; "" for the zero time.
func expiresText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// callerText is the Caller field of r ("" when r records no caller), and whether it
// names r's agent id, so that the Agent field need not.
func callerText(r store.Request) (string, bool) {
	caller := r.Caller
	switch caller {
	case "":
		return "", false
	case store.CallerAdmin:
		return "admin", false
	case store.CallerLocal:
		return "local (no token, loopback)", false
	case store.CallerCron:
		job, run, ok := cronRun(r.SessionID)
		if !ok {
			return "cron", false
		}
		return "cron job " + shownValue(job, true, 100) + ", run " + run, false
	}
	s := "agent token " + shownValue(caller, true, 40)
	var of []string
	if r.Profile != "" {
		of = append(of, "profile "+shownValue(r.Profile, true, 60))
	}
	if r.AgentID != "" {
		of = append(of, "agent "+shownValue(r.AgentID, true, 80))
	}
	if len(of) > 0 {
		s += " (" + strings.Join(of, ", ") + ")"
	}
	return s, r.AgentID != ""
}

// cronRun splits a scheduled run's session id, "cron:<job>:<run id>".
func cronRun(session string) (job, run string, ok bool) {
	rest, ok := strings.CutPrefix(session, "cron:")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i <= 0 {
		return "", "", false
	}
	if _, err := strconv.ParseUint(rest[i+1:], 10, 64); err != nil {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// bypassCover says whose calls a bypass granted on r covers: the caller's in r's
// session, or a cron run's, which ends with the run.
func bypassCover(r store.Request) string {
	if r.Caller == store.CallerCron {
		return ", for this cron run until it ends"
	}
	return ", for this caller in this session"
}

// anyArguments follows a bypass scope's words in the prompt and the outcome: a bypass
// covers every call of its scope, whatever its command, path or other arguments
// (docs/design.md, "Bypasses"), not only one like the approved call.
const anyArguments = " (any command or arguments, not only this call)"

// scopeText writes a bypass scope ("all", "category:shell", "mcp:notes",
// "tool:WebFetch") for people, its name escaped as EscapeName does.
func scopeText(scope string) string {
	kind, v, ok := strings.Cut(scope, ":")
	if !ok {
		if scope == "all" {
			return "every tool"
		}
		return shownValue(scope, true, MaxFieldLen)
	}
	v = shownValue(v, true, MaxFieldLen)
	switch kind {
	case "category":
		return "every call of category " + v
	case "mcp":
		return "every tool of MCP server " + v
	case "tool":
		return "every call of tool " + v
	}
	return shownValue(kind, true, 40) + " " + v
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

// Buttons returns the keyboard of a pending request: the first row
// "✅ Approve" (style primary) and "❌ Reject" (danger), the second "⏱ <bypassShort>"
// and "🔄 Session". Each button's Data is its callback data for request id.
// bypassShort zero means DefaultBypassShort.
func Buttons(id uint64, bypassShort time.Duration) [][]Button {
	b := func(label string, a Action, style string) Button {
		data := Callback{RequestID: id, Action: a}.String()
		return Button{Label: label, Action: a, Data: data, Style: style}
	}
	return [][]Button{
		{b("✅ Approve", ActionApprove, "primary"), b("❌ Reject", ActionReject, "danger")},
		{
			b("⏱ "+DurationLabel(bypassShort), ActionBypassShort, ""),
			b("🔄 Session", ActionBypassSession, ""),
		},
	}
}

// DurationLabel writes a bypass window for people: "15 min", "1 h",
// "30 min", "1 h 30 min", "45 s". Zero or less means DefaultBypassShort. Parts below
// a second are dropped.
func DurationLabel(d time.Duration) string {
	d = bypassShort(d).Truncate(time.Second)
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
