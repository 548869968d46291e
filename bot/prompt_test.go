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

func resolved(r store.Request, s store.Status, res store.Resolution) store.Request {
	r.Status = s
	r.Resolution = &res
	return r
}

// goldenCases are the prompts whose renderings are kept under testdata/golden.
func goldenCases() map[string]Prompt {
	big := map[string]string{"path": "notes/big.txt", "content": strings.Repeat("0123456789abcdef<&>\n", 512)}
	bigJSON, _ := json.Marshal(big)
	mcp := sampleRequest()
	mcp.ToolName, mcp.Category, mcp.MCPServer, mcp.ContextLabel = "mcp__gmail__send", "", "gmail", ""
	mcp.Arguments = json.RawMessage(`{"body":"Hi \u003cb\u003eBob\u003c/b\u003e \u0026 co","n":1.50,"to":["bob@example.com"]}`)
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
	return map[string]Prompt{
		"pending":   NewPrompt(withCwd, 0),
		"why":       NewPrompt(why, 0),
		"mcp_30min": NewPrompt(mcp, 30*time.Minute),
		"cut":       NewPrompt(cut, time.Hour),
		"cut_emoji": NewPrompt(emoji, 0),
		"fence":     NewPrompt(fence, 0),
		"not_json":  NewPrompt(notJSON, 0),
		"approved_bypass": NewPrompt(resolved(sampleRequest(), store.Approved, store.Resolution{
			By: "Jane Doe (100000001)", Via: "telegram", At: at,
			Bypass: &store.BypassGrant{Scope: "category:shell", Secs: 900}}), 0),
		"approved_session": NewPrompt(resolved(sampleRequest(), store.Approved, store.Resolution{
			By: "U0FAKEUSR01", Via: "slack", At: at, Bypass: &store.BypassGrant{Scope: "category:shell"}}), 0),
		"rejected_note": NewPrompt(resolved(sampleRequest(), store.Rejected, store.Resolution{
			By: "Jane Doe (100000001)", Via: "telegram", At: at, Note: "not on <prod> & not now"}), 0),
		"expired":   NewPrompt(resolved(sampleRequest(), store.Expired, store.Resolution{By: "system", Via: "gate", At: at}), 0),
		"cut_final": NewPrompt(resolved(cut, store.Approved, store.Resolution{By: "api", Via: "api", At: at, Note: strings.Repeat("n", 500)}), 0),
		"cancelled_terminal": NewPrompt(resolved(sampleRequest(), store.Cancelled, store.Resolution{
			By: "claude-code", Via: "api", At: at, Note: "terminal"}), 0),
		"cancelled": NewPrompt(resolved(sampleRequest(), store.Cancelled, store.Resolution{By: "cli", Via: "cli", At: at}), 0),
	}
}

func TestPromptGolden(t *testing.T) {
	for name, p := range goldenCases() {
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
		t.Errorf("%s differs from the golden file (go test ./bot -run Golden -update rewrites it):\n%s", path, got)
	}
}

var tagRE = regexp.MustCompile(`<(/?)([a-z]+)([^>]*)>`)

// checkTelegramHTML checks what Telegram checks of a parse_mode HTML message: only
// supported tags, properly nested; no bare < or &; at most 4096 UTF-16 code units
// once the entities are parsed.
func checkTelegramHTML(t *testing.T, s string) {
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
		if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") && !strings.HasPrefix(rest, "&gt;") {
			t.Fatalf("bare & at %q", rest[:min(len(rest), 20)])
		}
		if strings.Index(plain[i+1:], "&") < 0 {
			break
		}
	}
	if n := len(utf16.Encode([]rune(html.UnescapeString(plain)))); n > TelegramMaxText || n == 0 {
		t.Fatalf("visible text is %d UTF-16 units, want 1..%d", n, TelegramMaxText)
	}
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
	if len(m.Fields) > 10 {
		t.Fatalf("%d fields", len(m.Fields))
	}
	if n := u(m.Outcome); n > SlackMaxText {
		t.Fatalf("outcome is %d units, over %d", n, SlackMaxText)
	}
	for _, f := range append(m.Fields, m.Outcome, m.Text) {
		if u(f) > SlackMaxField && f != m.Text && f != m.Outcome {
			t.Fatalf("field %q over %d", f, SlackMaxField)
		}
		if strings.ContainsAny(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(f), "<>&") {
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
	if got, want := strings.Join(labels, ","), "Tool,Session,Category,Request,Expires"; got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
	if p.Fields[1].Value[len(p.Fields[1].Value)-len("…"):] != "…" {
		t.Errorf("a cut field does not end in …")
	}
	if len(p.Buttons) != 2 || p.Buttons[1][0].Label != "⏱ 15 min" || p.Buttons[0][0].Data != "a:42:ok" {
		t.Errorf("buttons %+v", p.Buttons)
	}
	r.Status = store.Approved
	if p := NewPrompt(r, 0); p.Buttons != nil {
		t.Errorf("a finished request keeps its buttons: %+v", p.Buttons)
	}
}

func TestPromptArgumentsEscapedAndCut(t *testing.T) {
	r := sampleRequest()
	args, _ := json.Marshal(map[string]string{"html": "<b>&</b>", "text": strings.Repeat("x", 10*1024)})
	r.Arguments = args
	p := NewPrompt(r, 0)
	tg := p.Telegram()
	checkTelegramHTML(t, tg.HTML)
	if !strings.Contains(tg.HTML, `"html": "&lt;b&gt;&amp;&lt;/b&gt;"`) {
		t.Errorf("arguments not escaped: %.300s", tg.HTML)
	}
	// The marker counts exactly what was left out.
	m := regexp.MustCompile(`… \(cut, (\d+) more characters\)`).FindStringSubmatch(tg.HTML)
	if m == nil {
		t.Fatalf("no cut marker in %q", tg.HTML[len(tg.HTML)-200:])
	}
	pre := html.UnescapeString(tagRE.ReplaceAllString(tg.HTML[strings.Index(tg.HTML, "<pre>"):strings.Index(tg.HTML, "</pre>")], ""))
	if want := fmt.Sprint(len([]rune(p.Arguments)) - len([]rune(pre))); m[1] != want {
		t.Errorf("marker says %s cut, %s were", m[1], want)
	}
	if !strings.HasPrefix(p.Arguments, pre) {
		t.Errorf("shown arguments are not a prefix of the whole")
	}
	sl := p.Slack()
	checkSlack(t, sl)
	if !strings.Contains(sl.Arguments, "&lt;b&gt;&amp;&lt;/b&gt;") || !strings.Contains(sl.Arguments, "more characters)_") {
		t.Errorf("slack arguments: %.300s", sl.Arguments)
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
		if got := prettyJSON(json.RawMessage(in)); got != want {
			t.Errorf("prettyJSON(%q) = %q, want %q", in, got, want)
		}
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
		if got := DurationLabel(d); got != want {
			t.Errorf("DurationLabel(%v) = %q, want %q", d, got, want)
		}
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
		{resolved(r, store.Approved, store.Resolution{By: "Jane Doe (100000001)", Via: "telegram", At: at}),
			"✅ Approved by Jane Doe (100000001) · telegram · 13:03 UTC"},
		{resolved(r, store.Approved, store.Resolution{By: "api", Via: "api", At: at, Bypass: &store.BypassGrant{Scope: "tool:Bash", Secs: 3600}}),
			"✅ Approved by api · api · 13:03 UTC · ⏱ 1 h bypass (tool:Bash)"},
		{resolved(r, store.Rejected, store.Resolution{By: "U0FAKEUSR01", Via: "slack", At: at, Note: "no"}),
			"❌ Rejected by U0FAKEUSR01 · slack · 13:03 UTC"},
		{resolved(r, store.Expired, store.Resolution{By: "system", Via: "gate", At: at}), "⌛ Expired · 13:03 UTC"},
		{resolved(r, store.Expired, store.Resolution{}), "⌛ Expired"},
		{resolved(r, store.Cancelled, store.Resolution{By: "claude-code", Via: "api", At: at, Note: "terminal"}),
			"🚫 Cancelled (handled at the terminal)"},
		{resolved(r, store.Cancelled, store.Resolution{By: "cli", Via: "cli", At: at, Note: "session over"}),
			"🚫 Cancelled by cli · cli · 13:03 UTC"},
	}
	for _, tc := range cases {
		if got := OutcomeText(tc.r); got != tc.want {
			t.Errorf("OutcomeText(%s) = %q, want %q", tc.r.Status, got, tc.want)
		}
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
	f.Add("mcp__x__y", `{"a":"`+strings.Repeat("🔄&", 3000)+`"}`, strings.Repeat("<", 300), strings.Repeat("&", 300), uint16(9000))
	f.Add("", "not json ```", "", "", uint16(0))
	f.Fuzz(func(t *testing.T, tool, args, session, note string, repeat uint16) {
		r := sampleRequest()
		r.ToolName, r.SessionID, r.ContextLabel = tool, session, note
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

// TestSlackFieldsAllShown: a prompt with every field (11, with Why) still shows them all
// in Slack's 10 section fields — the last two share one.
func TestSlackFieldsAllShown(t *testing.T) {
	r := sampleRequest()
	r.Reason, r.Cwd, r.MCPServer = "path argument cannot be normalised", "/srv/app", "files"
	p := NewPrompt(r, 0)
	if len(p.Fields) != 11 {
		t.Fatalf("%d fields, want 11", len(p.Fields))
	}
	m := p.Slack()
	checkSlack(t, m)
	all := strings.Join(m.Fields, "\n")
	for _, f := range p.Fields {
		if !strings.Contains(all, "*"+f.Label+":*") {
			t.Errorf("field %s missing from %q", f.Label, m.Fields)
		}
	}
	if last := m.Fields[len(m.Fields)-1]; last != "*Request:*\n#42\n*Expires:*\n2026-12-01 13:48 UTC" {
		t.Errorf("last field %q", last)
	}
}
