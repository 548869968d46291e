package bot

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var t0 = time.Date(2026, 11, 30, 13, 48, 5, 0, time.UTC)

func sampleRequest() store.Request {
	return store.Request{
		ID:           42,
		SessionID:    "sess-7f3a",
		ToolCallID:   "toolu_01",
		ToolName:     "Bash",
		Arguments:    json.RawMessage(`{"command":"rm -rf build && make","description":"Rebuild"}`),
		AgentID:      "claude-code",
		Source:       "claude-code",
		ContextLabel: "CronJob: Nightly backup",
		Category:     "shell",
		GroupID:      "default",
		CreatedAt:    t0,
		ExpiresAt:    t0.Add(24 * time.Hour),
		Status:       store.Pending,
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func resolved(r store.Request, s store.Status, res store.Resolution) store.Request {
	r.Status = s
	r.Resolution = &res
	return r
}

// goldenCases are the prompts whose renderings are kept under testdata/golden.
func goldenCases(t *testing.T) map[string]Prompt {
	big := map[string]string{"path": "notes/big.txt",
		"content": strings.Repeat("0123456789abcdef<&>\n", 512)}
	bigJSON := testkit.Marshal(t, big)
	mcp := sampleRequest()
	mcp.ToolName, mcp.Category = "mcp__gmail__send", ""
	mcp.MCPServer, mcp.ContextLabel = "gmail", ""
	mcp.Arguments = json.RawMessage(`{"body":"Hi \u003cb\u003eBob\u003c/b\u003e \u0026 co",` +
		`"n":1.50,"to":["bob@example.com"]}`)
	cut := sampleRequest()
	cut.ToolName = "write_file"
	cut.Category = "filesystem"
	cut.Arguments = bigJSON
	emoji := sampleRequest()
	emoji.Arguments = json.RawMessage(`{"command":"echo '` + strings.Repeat("🔄", 3000) + `'"}`)
	fence := sampleRequest()
	fence.Arguments = json.RawMessage("{\"command\":\"printf '```\\\\n'\"}")
	notJSON := sampleRequest()
	notJSON.Arguments = json.RawMessage(`not json <at all>`)
	at := t0.Add(15*time.Minute + 2*time.Second)
	withCwd := sampleRequest()
	withCwd.Cwd = "/home/dev/my-project/<docs> & co"
	why := sampleRequest()
	why.ToolName, why.Category, why.Cwd = "Grep", "filesystem", "/home/dev/my-project"
	why.Arguments = json.RawMessage(`{"pattern":"token"}`)
	why.Reason = "path contains a protected or denied place: secrets"
	agent := sampleRequest()
	agent.Caller, agent.Profile, agent.AgentID = "agent-1a2b3c4d5e6f", "dev", "reviewer"
	admin := sampleRequest()
	admin.Caller = store.CallerAdmin
	local := sampleRequest()
	local.Caller, local.AgentID = store.CallerLocal, ""
	cronReq := sampleRequest()
	cronReq.Caller, cronReq.SessionID = store.CallerCron, "cron:nightly-backup:7"
	cronReq.Source = "cron"
	cronReq.ToolCallID, cronReq.AgentID = "step-2", "backup"
	claimed := sampleRequest()
	claimed.Caller, claimed.Profile, claimed.AgentID = "agent-1a2b3c4d5e6f", "default", ""
	claimed.ToolName, claimed.MCPServer = "mcp__notes__list", "notes"
	claimed.Category, claimed.ClaimedCategory = "", "shell"
	claimed.Arguments = json.RawMessage(`{}`)
	cyrillic := sampleRequest()
	cyrillic.Caller = store.CallerLocal
	cyrillic.Source, cyrillic.AgentID = "\u0441ron", "\u0441laude-code"
	rtl := sampleRequest()
	rtl.Caller = store.CallerAdmin
	rtl.ContextLabel = "deploy \u202egnp.exe"
	rtl.Arguments = json.RawMessage(`{"command":"echo safe \u202e# fr- mr\u202c; ls\u0007"}`)
	padded := sampleRequest()
	padded.Caller = "agent-1a2b3c4d5e6f"
	padded.Arguments = mustJSON(map[string]string{
		"command": "echo ok" + strings.Repeat(" ", 4096) + "; rm -rf /"})
	long := sampleRequest()
	long.Caller = store.CallerAdmin
	long.Arguments = mustJSON(map[string]string{
		"command": strings.Repeat("a", 2000) + strings.Repeat("z", 1990) + " # end"})
	markup := sampleRequest()
	markup.Caller, markup.ContextLabel = store.CallerLocal, "*bold* _it_ ~st~ <!here>"
	markup.Arguments = mustJSON(map[string]string{
		"command": "echo '<b>x</b> & *y* _z_ ~w~ <!here>'"})
	script := sampleRequest()
	script.Caller = "agent-1a2b3c4d5e6f"
	script.Arguments = mustJSON(map[string]string{
		"command": "git status && cat secrets/key | grep <x> & rm -rf data"})
	script.Reason = `command "cat secrets/key" needs a human`
	script.Commands = []store.CommandDecision{
		{Command: "git status", Action: "allow", RuleID: 7},
		{Command: "cat secrets/key", Action: "require",
			Reason: "secrets/key: inside a denied place"},
		{Command: "grep <x> *bold* `tick`", Action: "allow", RuleID: 8},
		{Command: "rm -rf data" + strings.Repeat(" x", 200), Action: "require", RuleID: 3},
	}
	many := sampleRequest()
	many.Caller = store.CallerAdmin
	for i := range 60 {
		many.Commands = append(many.Commands, store.CommandDecision{
			Command: fmt.Sprintf("echo %d %s", i, strings.Repeat("y", 40)), Action: "require"})
	}
	return map[string]Prompt{
		"commands":      NewPrompt(script, 0),
		"commands_many": NewPrompt(many, 0),
		"commands_approved": NewPrompt(resolved(script, store.Approved, store.Resolution{
			By: "Jane Doe (100000001)", Via: "telegram", At: t0.Add(time.Minute)}), 0),
		"caller_agent_token": NewPrompt(agent, 0),
		"caller_admin":       NewPrompt(admin, time.Hour),
		"caller_local":       NewPrompt(local, 0),
		"caller_cron":        NewPrompt(cronReq, 0),
		"claimed_category":   NewPrompt(claimed, 0),
		"cyrillic_source":    NewPrompt(cyrillic, 0),
		"rtl_override":       NewPrompt(rtl, 0),
		"padding_rm":         NewPrompt(padded, 0),
		"long_argument":      NewPrompt(long, 0),
		"markup":             NewPrompt(markup, 0),
		"pending":            NewPrompt(withCwd, 0),
		"why":                NewPrompt(why, 0),
		"mcp_30min":          NewPrompt(mcp, 30*time.Minute),
		"cut":                NewPrompt(cut, time.Hour),
		"cut_posted":         unarmed(NewPrompt(cut, time.Hour), "request", cut.ID),
		"posted":             unarmed(NewPrompt(sampleRequest(), 0), "request", 42),
		"cut_emoji":          NewPrompt(emoji, 0),
		"fence":              NewPrompt(fence, 0),
		"not_json":           NewPrompt(notJSON, 0),
		"approved_bypass": NewPrompt(resolved(sampleRequest(), store.Approved, store.Resolution{
			By: "Jane Doe (100000001)", Via: "telegram", At: at,
			Bypass: &store.BypassGrant{Scope: "category:shell", Secs: 900}}), 0),
		"approved_session": NewPrompt(resolved(sampleRequest(), store.Approved, store.Resolution{
			By: "U0FAKEUSR01", Via: "slack", At: at,
			Bypass: &store.BypassGrant{Scope: "category:shell"}}), 0),
		"rejected_note": NewPrompt(resolved(sampleRequest(), store.Rejected, store.Resolution{
			By: "Jane Doe (100000001)", Via: "telegram", At: at,
			Note: "not on <prod> & not now"}), 0),
		"expired": NewPrompt(resolved(sampleRequest(), store.Expired, store.Resolution{
			By: "system", Via: "gate", At: at}), 0),
		"cut_final": NewPrompt(resolved(cut, store.Approved, store.Resolution{
			By: "api", Via: "api", At: at, Note: strings.Repeat("n", 500)}), 0),
		"cancelled_terminal": NewPrompt(resolved(sampleRequest(), store.Cancelled,
			store.Resolution{By: "claude-code", Via: "api", At: at, Note: "terminal"}), 0),
		"cancelled": NewPrompt(resolved(sampleRequest(), store.Cancelled, store.Resolution{
			By: "cli", Via: "cli", At: at}), 0),
	}
}

func TestPromptGolden(t *testing.T) {
	for name, p := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			tg := p.Telegram()
			checkTelegramHTML(t, tg.HTML)
			sl := p.Slack()
			checkSlack(t, sl)
			var b bytes.Buffer
			b.WriteString(tg.HTML)
			b.WriteString("\n\n---- keyboard\n")
			for _, row := range tg.Buttons {
				for _, btn := range row {
					fmt.Fprintf(&b, "[%s → %s] ", btn.Label, btn.Data)
				}
				b.WriteString("\n")
			}
			golden(t, name+".telegram.txt", b.Bytes())
			var js bytes.Buffer
			e := json.NewEncoder(&js)
			e.SetEscapeHTML(false)
			e.SetIndent("", "  ")
			if err := e.Encode(sl); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".slack.json", js.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bot -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file "+
			"(go test ./bot -run Golden -update rewrites it):\n%s", path, got)
	}
}

var tagRE = regexp.MustCompile(`<(/?)([a-z]+)([^>]*)>`)

// checkTelegramHTML checks what Telegram checks of a parse_mode HTML message: only
// supported tags, properly nested; no bare < or &; at most 4096 UTF-16 code units
// once the entities are parsed. It returns the visible text: s without its tags,
// unescaped.
func checkTelegramHTML(t *testing.T, s string) string {
	t.Helper()
	var stack []string
	for _, m := range tagRE.FindAllStringSubmatch(s, -1) {
		name := m[2]
		switch name {
		case "b", "i", "code", "pre":
		default:
			t.Fatalf("unsupported tag %q", m[0])
		}
		if m[1] == "" {
			if m[3] != "" && m[3] != ` class="language-json"` {
				t.Fatalf("unexpected attributes in %q", m[0])
			}
			stack = append(stack, name)
			continue
		}
		if len(stack) == 0 || stack[len(stack)-1] != name {
			t.Fatalf("misnested %q in %q", m[0], s)
		}
		stack = stack[:len(stack)-1]
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed tags %v", stack)
	}
	plain := tagRE.ReplaceAllString(s, "")
	if strings.ContainsAny(plain, "<>") {
		t.Fatalf("bare < or > in %q", plain)
	}
	for i := strings.Index(plain, "&"); i >= 0; i = strings.Index(plain[i+1:], "&") + i + 1 {
		rest := plain[i:]
		if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") &&
			!strings.HasPrefix(rest, "&gt;") {
			t.Fatalf("bare & at %q", rest[:min(len(rest), 20)])
		}
		if strings.Index(plain[i+1:], "&") < 0 {
			break
		}
	}
	plain = html.UnescapeString(plain)
	if n := len(utf16.Encode([]rune(plain))); n > TelegramMaxText || n == 0 {
		t.Fatalf("visible text is %d UTF-16 units, want 1..%d", n, TelegramMaxText)
	}
	return plain
}

func checkSlack(t *testing.T, m SlackMessage) {
	t.Helper()
	u := func(s string) int { return len(utf16.Encode([]rune(s))) }
	if n := u(m.Arguments); n > SlackMaxText {
		t.Fatalf("arguments block is %d units, over %d", n, SlackMaxText)
	}
	if n := u(m.Header); n > SlackMaxHeader || n == 0 {
		t.Fatalf("header is %d units", n)
	}
	if n := u(m.Outcome); n > SlackMaxText {
		t.Fatalf("outcome is %d units, over %d", n, SlackMaxText)
	}
	for _, f := range append(m.Fields, m.Outcome, m.Text) {
		if u(f) > SlackMaxField && f != m.Text && f != m.Outcome {
			t.Fatalf("field %q over %d", f, SlackMaxField)
		}
		unescaped := strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(f)
		if strings.ContainsAny(unescaped, "<>&") {
			t.Fatalf("unescaped mrkdwn in %q", f)
		}
	}
	inner := strings.TrimPrefix(m.Arguments, "```\n")
	inner = inner[:strings.Index(inner, "\n```")]
	if strings.Contains(inner, "```") {
		t.Fatalf("arguments close their code block early: %q", inner)
	}
}

func TestPromptFields(t *testing.T) {
	r := sampleRequest()
	r.AgentID, r.Source, r.ContextLabel = "", "", ""
	r.SessionID = strings.Repeat("s", 1000)
	p := NewPrompt(r, 0)
	var labels []string
	for _, f := range p.Fields {
		labels = append(labels, f.Label)
		if units(f.Value) > MaxFieldLen {
			t.Errorf("field %s is %d long", f.Label, units(f.Value))
		}
	}
	if got, want := strings.Join(labels, ","),
		"Tool,Session,Category,Request,Expires"; got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
	want := strings.Repeat("s", 88) + "…[823 characters cut]…" + strings.Repeat("s", 89)
	if got := p.Fields[1].Value; got != want {
		t.Errorf("a cut field reads %q, want its head and tail around the marker", got)
	}
	if len(p.Buttons) != 2 || p.Buttons[1][0].Label != "⏱ 15 min" ||
		p.Buttons[0][0].Data != "a:42:ok" {
		t.Errorf("buttons %+v", p.Buttons)
	}
	r.Status = store.Approved
	if p := NewPrompt(r, 0); p.Buttons != nil {
		t.Errorf("a finished request keeps its buttons: %+v", p.Buttons)
	}
}

func TestPromptArgumentsEscapedAndCut(t *testing.T) {
	r := sampleRequest()
	r.Arguments = testkit.Marshal(t, map[string]string{"html": "<b>&</b>",
		"text": strings.Repeat("x", 10*1024)})
	p := NewPrompt(r, 0)
	tg := p.Telegram()
	checkTelegramHTML(t, tg.HTML)
	if !strings.Contains(tg.HTML, `"html": "&lt;b&gt;&amp;&lt;/b&gt;"`) {
		t.Errorf("arguments not escaped: %.300s", tg.HTML)
	}
	// The marker counts exactly what was left out, between a head and a tail of the
	// whole.
	pre := tg.HTML[strings.Index(tg.HTML, "<pre>"):strings.Index(tg.HTML, "</pre>")]
	head, tail := splitCut(t, html.UnescapeString(tagRE.ReplaceAllString(pre, "")), p.Arguments)
	if len(tail) < 1000 {
		t.Errorf("the tail shown is %d bytes, want about half of the room", len(tail))
	}
	sl := p.Slack()
	checkSlack(t, sl)
	inner := strings.TrimSuffix(strings.TrimPrefix(sl.Arguments, "```\n"), "\n```")
	head, tail = splitCut(t, html.UnescapeString(inner), p.Arguments)
	if !strings.HasSuffix(tail, "xxx\"\n}") || !strings.Contains(head, `"html": "<b>&</b>"`) ||
		!strings.Contains(inner, "&lt;b&gt;&amp;&lt;/b&gt;") {
		t.Errorf("slack arguments: %.300s", sl.Arguments)
	}
}

var markerRE = regexp.MustCompile(`…\[(\d+) characters cut\]…`)

// splitCut splits shown text at its cut marker and checks that the head and the tail
// are those of whole, and that the marker counts the characters between them.
func splitCut(t *testing.T, shown, whole string) (head, tail string) {
	t.Helper()
	m := markerRE.FindStringSubmatch(shown)
	if m == nil {
		t.Fatalf("no cut marker in %q", shown)
	}
	head, tail, _ = strings.Cut(shown, m[0])
	if !strings.HasPrefix(whole, head) || !strings.HasSuffix(whole, tail) {
		t.Fatalf("shown %.40q … %.40q: not a head and a tail of the whole", head, tail)
	}
	n := utf8.RuneCountInString(whole) - utf8.RuneCountInString(head+tail)
	if m[1] != fmt.Sprint(n) {
		t.Errorf("marker says %s cut, %d were", m[1], n)
	}
	return head, tail
}

// A command hidden after padding, or behind bidi and control characters, shows:
// the tail of long arguments is kept, the characters are escaped, and the marker
// counts exactly what was cut. Both channels.
func TestPromptShowsHiddenCommand(t *testing.T) {
	r := sampleRequest()
	r.Arguments = mustJSON(map[string]string{
		"command": "echo ok" + strings.Repeat(" ", 4096) + "; rm -rf / \u202e\u2066x\u0085"})
	p := NewPrompt(r, 0)
	wantTail := `; rm -rf / \u202E\u2066x\u0085"` + "\n}"
	shown := Escape(p.Arguments)
	t.Run("telegram", func(t *testing.T) {
		tg := p.Telegram()
		checkTelegramHTML(t, tg.HTML)
		pre := tg.HTML[strings.Index(tg.HTML, "<pre>"):strings.Index(tg.HTML, "</pre>")]
		_, tail := splitCut(t, html.UnescapeString(tagRE.ReplaceAllString(pre, "")), shown)
		if !strings.HasSuffix(tail, wantTail) {
			t.Errorf("tail %q, want it to end %q", tail, wantTail)
		}
	})
	t.Run("slack", func(t *testing.T) {
		sl := p.Slack()
		checkSlack(t, sl)
		inner := strings.TrimSuffix(strings.TrimPrefix(sl.Arguments, "```\n"), "\n```")
		if _, tail := splitCut(t, html.UnescapeString(inner), shown); !strings.HasSuffix(tail,
			wantTail) {
			t.Errorf("tail %q, want it to end %q", tail, wantTail)
		}
	})
}

func TestEscape(t *testing.T) {
	cases := []struct {
		in, text, name string
		flagged        bool
	}{
		{"plain text\nline 2", "plain text\nline 2", `plain text\u000Aline 2`, false},
		{"a\tb\x00c\x1fd\x7fe", `a\u0009b\u0000c\u001Fd\u007Fe`, "", false},
		{"e\u0085f\u009fg", `e\u0085f\u009Fg`, "", true},
		{"\u200e\u200f\u202a\u202b", `\u200E\u200F\u202A\u202B`, "", true},
		{"\u202c\u202d\u202e\u2066", `\u202C\u202D\u202E\u2066`, "", true},
		{"\u2067\u2068\u2069\u061c\u2028\u2029", `\u2067\u2068\u2069\u061C\u2028\u2029`, "", true},
		{"сron", "сron", `\u0441ron`, true},
		{"Jürgen 🔄", "Jürgen 🔄", `J\u00FCrgen \U0001F504`, true},
		{"bad\xffutf8", `bad\uFFFDutf8`, `bad\uFFFDutf8`, true},
		{"mcp__notes__list", "mcp__notes__list", "mcp__notes__list", false},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			if got := Escape(tc.in); got != tc.text {
				t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.text)
			}
			name := tc.name
			if name == "" {
				name = tc.text
			}
			if got, flagged := EscapeName(tc.in); got != name || flagged != tc.flagged {
				t.Errorf("EscapeName(%q) = %q, %v, want %q, %v",
					tc.in, got, flagged, name, tc.flagged)
			}
		})
	}
}

// The caller and what the bypass buttons cover are shown for every kind of caller,
// the agent id within an agent token's caller line; a finished prompt drops the cover.
func TestPromptCaller(t *testing.T) {
	const (
		token  = "agent-1a2b3c4d5e6f"
		caller = "every call of category shell (any command or arguments, not only this call), " +
			"for this caller in this session"
		cronRun = "every call of category shell (any command or arguments, not only this call), " +
			"for this cron run until it ends"
		badToken = `agent token agent-\u202E1 ⚠ non-ASCII (profile dev)`
	)
	cases := []struct {
		caller, session, agent, wantCaller, wantAgent, wantCover string
	}{
		{token, "s1", "rev", "agent token " + token + " (profile dev, agent rev)", "", caller},
		{token, "s1", "", "agent token " + token + " (profile dev)", "", caller},
		{store.CallerAdmin, "s1", "rev", "admin", "rev", caller},
		{store.CallerLocal, "s1", "", "local (no token, loopback)", "", caller},
		{store.CallerCron, "cron:a:b:12", "", "cron job a:b, run 12", "", cronRun},
		{store.CallerCron, "cron:odd", "", "cron", "", cronRun},
		{"agent-\u202e1", "s1", "", badToken, "", caller},
	}
	for _, tc := range cases {
		t.Run(tc.wantCaller, func(t *testing.T) {
			r := sampleRequest()
			r.Caller, r.SessionID, r.AgentID, r.Profile = tc.caller, tc.session, tc.agent, "dev"
			p := NewPrompt(r, 0)
			got := map[string]string{}
			for _, f := range p.Fields {
				got[f.Label] = f.Value
			}
			if got["Caller"] != tc.wantCaller || got["Agent"] != tc.wantAgent {
				t.Errorf("caller %q, agent %q, want %q, %q",
					got["Caller"], got["Agent"], tc.wantCaller, tc.wantAgent)
			}
			if p.Bypass.Label != "⏱ 15 min / 🔄 Session cover" || p.Bypass.Value != tc.wantCover {
				t.Errorf("bypass %+v, want cover %q", p.Bypass, tc.wantCover)
			}
			r.Status = store.Rejected
			p = NewPrompt(r, 0)
			if p.Bypass != (Field{}) || strings.Contains(p.Telegram().HTML, "cover") ||
				p.Slack().Bypass != "" {
				t.Errorf("a finished prompt still says what a bypass would cover: %+v", p.Bypass)
			}
		})
	}
}

func TestScopeText(t *testing.T) {
	cases := map[string]string{
		"category:shell": "every call of category shell",
		"mcp:notes":      "every tool of MCP server notes",
		"tool:WebFetch":  "every call of tool WebFetch",
		"tool:сron":      `every call of tool \u0441ron ⚠ non-ASCII`,
		"all":            "every tool",
		"other:x":        "other x",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := scopeText(in); got != want {
				t.Errorf("scopeText(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestPrettyJSON(t *testing.T) {
	cases := map[string]string{
		``:                            "{}",
		`{}`:                          "{}",
		`{"b":1,"a":[1,2.50]}`:        "{\n  \"a\": [\n    1,\n    2.50\n  ],\n  \"b\": 1\n}",
		`{"s":"\u003cx\u003e\u0026"}`: "{\n  \"s\": \"<x>&\"\n}",
		`{"a":1} {"b":2}`:             `{"a":1} {"b":2}`,
		"\xff{":                       "\uFFFD{",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := prettyJSON(json.RawMessage(in)); got != want {
				t.Errorf("prettyJSON(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestDurationLabel(t *testing.T) {
	cases := map[time.Duration]string{
		0:                           "15 min",
		15 * time.Minute:            "15 min",
		time.Hour:                   "1 h",
		30 * time.Minute:            "30 min",
		90 * time.Minute:            "1 h 30 min",
		45 * time.Second:            "45 s",
		2*time.Hour + 5*time.Second: "2 h 5 s",
		1500 * time.Millisecond:     "1 s",
		-time.Minute:                "15 min",
	}
	for d, want := range cases {
		t.Run(d.String(), func(t *testing.T) {
			if got := DurationLabel(d); got != want {
				t.Errorf("DurationLabel(%v) = %q, want %q", d, got, want)
			}
		})
	}
}

func TestOutcomeText(t *testing.T) {
	at := time.Date(2026, 11, 30, 14, 3, 59, 0, time.FixedZone("CET", 3600))
	r := sampleRequest()
	cases := []struct {
		r    store.Request
		want string
	}{
		{r, ""},
		{resolved(r, store.Approved,
			store.Resolution{By: "Jane Doe (100000001)", Via: "telegram", At: at}),
			"✅ Approved by Jane Doe (100000001) · telegram · 13:03 UTC"},
		{resolved(r, store.Approved, store.Resolution{By: "api", Via: "api", At: at,
			Bypass: &store.BypassGrant{Scope: "tool:Bash", Secs: 3600}}),
			"✅ Approved by api · api · 13:03 UTC · ⏱ 1 h bypass: every call of tool Bash " +
				"(any command or arguments, not only this call) (tool:Bash)"},
		{resolved(r, store.Rejected,
			store.Resolution{By: "U0FAKEUSR01", Via: "slack", At: at, Note: "no"}),
			"❌ Rejected by U0FAKEUSR01 · slack · 13:03 UTC"},
		{resolved(r, store.Expired, store.Resolution{By: "system", Via: "gate", At: at}),
			"⌛ Expired · 13:03 UTC"},
		{resolved(r, store.Expired, store.Resolution{}), "⌛ Expired"},
		{resolved(r, store.Cancelled,
			store.Resolution{By: "claude-code", Via: "api", At: at, Note: "terminal"}),
			"🚫 Cancelled (handled at the terminal)"},
		{resolved(r, store.Cancelled,
			store.Resolution{By: "cli", Via: "cli", At: at, Note: "session over"}),
			"🚫 Cancelled by cli · cli · 13:03 UTC"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := OutcomeText(tc.r); got != tc.want {
				t.Errorf("OutcomeText(%s) = %q, want %q", tc.r.Status, got, tc.want)
			}
		})
	}
	p := NewPrompt(cases[3].r, 0)
	if p.Note != "no" {
		t.Errorf("note %q", p.Note)
	}
	if p := NewPrompt(cases[6].r, 0); p.Note != "" {
		t.Errorf("terminal cancel shows its reason as a note: %q", p.Note)
	}
}

func TestCut(t *testing.T) {
	if got := Cut("short", 10); got != "short" {
		t.Errorf("Cut = %q", got)
	}
	s := strings.Repeat("line of text\n", 1000)
	got := Cut(s, 4096)
	if units(got) > 4096 || !strings.HasSuffix(got, "more characters)") {
		t.Errorf("Cut: %d units, ends %q", units(got), got[len(got)-40:])
	}
	exact := strings.Repeat("x", 4096)
	if Cut(exact, 4096) != exact {
		t.Errorf("Cut cut a text that fits exactly")
	}
	if got := Cut(strings.Repeat("🔄", 3000), 4096); units(got) > 4096 {
		t.Errorf("Cut of astral runes is %d units", units(got))
	}
}

// FuzzPromptRender checks that whatever a request holds, both renderings stay within
// their channel's limits with all markup escaped.
func FuzzPromptRender(f *testing.F) {
	f.Add("Bash", `{"command":"<b>&</b>"}`, "sess", "note", uint16(100))
	f.Add("mcp__x__y", `{"a":"`+strings.Repeat("🔄&", 3000)+`"}`, strings.Repeat("<", 300),
		strings.Repeat("&", 300), uint16(9000))
	f.Add("", "not json ```", "", "", uint16(0))
	f.Fuzz(func(t *testing.T, tool, args, session, note string, repeat uint16) {
		r := sampleRequest()
		r.ToolName, r.SessionID, r.ContextLabel = tool, session, note
		r.Caller, r.AgentID, r.Source = note, session, tool
		r.ClaimedCategory, r.Category = note, ""
		r.Arguments = json.RawMessage(strings.Repeat(args, int(repeat%50)+1))
		for _, s := range []store.Status{store.Pending, store.Rejected} {
			r.Status = s
			if s != store.Pending {
				r.Resolution = &store.Resolution{By: note, Via: tool, At: t0, Note: note}
			}
			p := NewPrompt(r, 0)
			checkTelegramHTML(t, p.Telegram().HTML)
			checkSlack(t, p.Slack())
		}
	})
}

// TestSlackFieldsAllShown: a prompt with every field (12) shows them all, in two
// sections of Slack's at most 10 fields.
func TestSlackFieldsAllShown(t *testing.T) {
	r := sampleRequest()
	r.Reason, r.Cwd = "path argument cannot be normalised", "/srv/app"
	r.MCPServer, r.Caller = "files", store.CallerAdmin
	p := NewPrompt(r, 0)
	if len(p.Fields) != 12 {
		t.Fatalf("%d fields, want 12", len(p.Fields))
	}
	m := p.Slack()
	checkSlack(t, m)
	if len(m.Fields) != 12 {
		t.Fatalf("%d Slack fields, want 12", len(m.Fields))
	}
	for i, f := range p.Fields {
		if !strings.HasPrefix(m.Fields[i], "*"+f.Label+":*\n") {
			t.Errorf("field %d is %q, want %s", i, m.Fields[i], f.Label)
		}
	}
}

// A prompt whose every caller field is at its longest, with a long script, stays
// within Telegram's limit and Slack's, keeps room for the arguments, and counts
// the commands it leaves out.
func TestPromptCommandsFit(t *testing.T) {
	long := strings.Repeat("&", 400)
	r := sampleRequest()
	r.ToolName, r.AgentID, r.Source, r.ContextLabel = "Bash"+long, long, long, long
	r.SessionID, r.Cwd, r.Category, r.MCPServer, r.Reason = long, long, long, long, long
	r.Caller, r.Profile, r.ClaimedCategory = "agent-1a2b3c4d5e6f", long, long
	r.Arguments = mustJSON(map[string]string{"command": strings.Repeat("echo hi; ", 500)})
	for i := range 200 {
		r.Commands = append(r.Commands, store.CommandDecision{
			Command: fmt.Sprintf("echo %d %s", i, long), Action: "require", Reason: long})
	}
	p := NewPrompt(r, 0)
	plain := checkTelegramHTML(t, p.Telegram().HTML)
	if !strings.Contains(plain, " commands cut, ") || !strings.Contains(plain, "echo hi; echo") {
		t.Errorf("Telegram prompt lacks the count of the commands left out or the arguments")
	}
	checkShown(t, r, commandsOf(t, plain))
	sl := p.Slack()
	checkSlack(t, sl)
	if len(sl.Commands) > SlackMaxText || !strings.Contains(sl.Commands, " commands cut, ") {
		t.Errorf("Slack commands: %d bytes, count shown: %v", len(sl.Commands),
			strings.Contains(sl.Commands, " commands cut, "))
	}
}

// A web call's host is its own field, right after the tool, with the Unicode form of
// an IDNA name beside it; other calls have none.
func TestPromptHost(t *testing.T) {
	for _, c := range []struct{ host, want string }{
		{"good.com", "good.com"},
		{"xn--80ak6aa92e.com", "xn--80ak6aa92e.com (аррӏе.com)"},
		{"", ""},
	} {
		t.Run(c.host, func(t *testing.T) {
			r := sampleRequest()
			r.Host = c.host
			f := NewPrompt(r, 0).Fields[1]
			switch {
			case c.want == "" && f.Label == "Host":
				t.Errorf("a Host field without a host: %+v", f)
			case c.want != "" && (f.Label != "Host" || f.Value != c.want || !f.Code):
				t.Errorf("field %+v, want Host %q", f, c.want)
			}
		})
	}
}
