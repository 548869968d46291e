package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// The web inbox in a real headless Chromium against the real service: sign in, a
// request appearing live, ⏱ from the page (the request approved with its bypass, the
// Telegram prompt edited, the hook answered), requests resolved through the API and
// in Telegram leaving the open page without a reload, hostile arguments shown inert, a
// question asked by `skald-bot ask` answered on the page (the asker answered, the
// Telegram question edited) and one answered in Telegram leaving it, a File System row
// added and removed, a second catch-all refused on the page, and a
// screenshot at a phone's 390×844.

// screenshotDir is where the browser suite writes its screenshots, git-ignored.
var screenshotDir = filepath.Join("..", "..", "test-artifacts")

// css names the elements a CSS selector matches, for chromedp's queries.
type css = chromedp.CSS

// chromium returns the Chromium to drive: skipped where none is installed, a failure
// under CI=true, where .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	// Debian's /usr/bin/chromium is a shell wrapper that failed now and then under
	// load; the binary behind it needs none of its set-up when headless.
	if p := "/usr/lib/chromium/chromium"; isExecutable(p) {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium installed (chromium, chromium-browser or google-chrome in PATH); " +
			".ci/run installs Debian's chromium")
	}
	t.Skip("no Chromium installed: " +
		"the browser tests of the web inbox need `apt-get install chromium`")
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// newBrowser starts a headless Chromium at a phone's size, closed when the test ends.
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.Headless,
		chromedp.DisableGPU, chromedp.WindowSize(390, 844),
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelB()
		cancelA()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}

// browse opens e's web inbox in a new headless Chromium, signed in at a phone's size,
// and returns the browser, a runner of steps that fails the test with the service's
// log, and the text of the element a CSS selector names.
func browse(t *testing.T, e *e2e) (context.Context,
	func(what string, steps ...chromedp.Action[chromedp.Void]), func(sel string) string) {
	t.Helper()
	b := newBrowser(t, e.ctx)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(b, steps...); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, strings.Join(e.svc.lines(), "\n"))
		}
	}
	text := func(sel string) string {
		t.Helper()
		return value(t, b, chromedp.Text(chromedp.CSS(sel)))
	}
	do("sign in",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(e.svc.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), e.svc.token),
		chromedp.Click(chromedp.CSS("#signin")),
		chromedp.WaitVisible(chromedp.CSS("#approvals-section")))
	return b, do, text
}

func TestE2EWebInbox(t *testing.T) {
	t.Parallel()
	chromium(t)
	e := newE2E(t, "")
	b, do, text := browse(t, e)

	// A hook's call appears on the open page, from its event stream.
	answer := e.hookAsync(fixture(t, "pretooluse_bash.json"), "--wait", "1m")
	tgPrompt, id := e.telegramPrompt(1)
	slPrompt := e.slackPrompt(1)
	item := "#req-" + testkit.ID(id)
	do("the request appears", chromedp.WaitVisible(css(item)))
	fields, title := text(item+" dl"), value(t, b, chromedp.Title())
	if !strings.Contains(fields, "abc123") || !strings.HasPrefix(title, "(1) Inbox") {
		t.Errorf("fields %q, title %q", fields, title)
	}
	png := value(t, b, chromedp.FullScreenshot(100))
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot, err := filepath.Abs(filepath.Join(screenshotDir, "web-inbox-390x844.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the inbox at 390×844: %s", shot)
	if value(t, b, chromedp.Evaluate[bool](
		`document.documentElement.scrollWidth > window.innerWidth`)) {
		t.Error("the inbox is wider than a 390 px screen")
	}

	// ⏱ from the page: approved with the bypass, via web; Telegram edited; the hook
	// answered allow.
	do("⏱ 15 min", chromedp.Click(css(item+" button.short")), chromedp.WaitVisible(css(".flash")))
	if flash := text(".flash"); !strings.Contains(flash,
		"Request "+testkit.ID(id)+" approved, with a 15 min bypass") {
		t.Errorf("flash %q", flash)
	}
	got, err := e.api.Request(e.ctx, id, 0)
	if err != nil || got.Status != store.Approved || got.Resolution == nil ||
		got.Resolution.Via != "web" || got.Resolution.Bypass == nil ||
		got.Resolution.Bypass.Secs != 900 {
		t.Fatalf("request %d after ⏱: %+v (%v)", id, got, err)
	}
	if m := e.waitTelegramEdited(tgPrompt); m.Keyboard != nil ||
		!strings.Contains(m.PlainText, "Approved by admin") {
		t.Errorf("Telegram prompt after ⏱ (keyboard %v):\n%s", m.Keyboard, m.PlainText)
	}
	ups, err := e.sl.WaitUpdates(e.ctx, slacktest.DefaultChannel, slPrompt.TS, 2)
	if err != nil || ups[1].HasActions() || !strings.Contains(ups[1].Text, "Approved by admin") {
		t.Errorf("Slack prompt after ⏱ (%v): %+v", err, ups)
	}
	if d := e.await(answer); d.PermissionDecision != "allow" {
		t.Errorf("hook printed %+v", d)
	}

	// A request resolved from the API leaves the open page without a reload; one
	// with hostile arguments is shown inert.
	hostile := `<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> 'q' "qq" ` +
		"safe\u202Etxt.exe"
	ids := make([]uint64, 2)
	for i, args := range []map[string]any{{"env": "prod"}, {"note": hostile}} {
		res, err := e.api.Check(e.ctx, api.CheckRequest{Call: gate.Call{ToolName: "deploy",
			SessionID: "web-" + testkit.ID(uint64(i)), Arguments: args}})
		if err != nil || res.RequestID == 0 {
			t.Fatalf("check: %+v, %v", res, err)
		}
		ids[i] = res.RequestID
	}
	do("both appear", chromedp.WaitVisible(css("#req-"+testkit.ID(ids[0]))),
		chromedp.WaitVisible(css("#req-"+testkit.ID(ids[1]))))
	// Both are shown in the chats, in either order, before the question that follows.
	e.promptsRecorded(ids[0])
	e.promptsRecorded(ids[1])
	args := text("#req-" + testkit.ID(ids[1]) + " pre.args")
	pwned := value(t, b, chromedp.Evaluate[int](`window.pwned || 0`))
	scripts := value(t, b, chromedp.Evaluate[int](`document.scripts.length`))
	if !strings.Contains(args, `<script>window.pwned=1</script>`) ||
		!strings.Contains(args, `safe\u202Etxt.exe`) || strings.Contains(args, "\u202E") ||
		!strings.Contains(args, `'q'`) || pwned != 0 || scripts != 1 {
		t.Errorf("hostile arguments shown as %q (pwned %d, %d scripts)", args, pwned, scripts)
	}
	if _, err := e.api.Resolve(e.ctx, ids[0],
		api.ResolveRequest{Action: api.ActionReject}); err != nil {
		t.Fatal(err)
	}
	do("gone without a reload", chromedp.WaitNotPresent(css("#req-"+testkit.ID(ids[0]))))
	if title := value(t, b, chromedp.Title()); !strings.HasPrefix(title, "(1) Inbox") {
		t.Errorf("title after the API's resolution %q", title)
	}
	// One rejected in Telegram leaves it too.
	hid := ids[1]
	e.tap(e.telegramPromptOf(hid), "a:"+testkit.ID(hid)+":no")
	do("gone after a tap", chromedp.WaitNotPresent(css("#req-"+testkit.ID(hid))),
		chromedp.WaitVisible(css("#empty")))
	if title := value(t, b, chromedp.Title()); !strings.HasPrefix(title, "Inbox") {
		t.Errorf("title with nothing pending %q", title)
	}

	// A question asked by `skald-bot ask` appears live; answered with an option
	// button on the page: the asker prints the answer, the Telegram question edited.
	asked := e.askAsync("Which branch should I deploy?", "--option", "main", "--option",
		"<b>dev</b>", "--context-label", "deploy of web", "--wait", "1m")
	tgQ := e.telegramArmed(4)
	qid, err := strconv.ParseUint(strings.Split(tgQ.CallbackData()[0], ":")[1], 10, 64)
	if err != nil {
		t.Fatalf("question buttons %q: %v", tgQ.CallbackData(), err)
	}
	qitem := "#q-" + testkit.ID(qid)
	do("the question appears", chromedp.WaitVisible(css(qitem)))
	q, label := text(qitem+" pre.question-text"), text(qitem+` button.option[value="1"]`)
	if q != "Which branch should I deploy?" || label != "<b>dev</b>" ||
		!strings.Contains(text(qitem+" dl"), "deploy of web") {
		t.Errorf("question %q, option %q, fields %q", q, label, text(qitem+" dl"))
	}
	if title := value(t, b, chromedp.Title()); !strings.HasPrefix(title, "(1) Inbox") {
		t.Errorf("title with a question pending %q", title)
	}
	if value(t, b, chromedp.Evaluate[bool](
		`document.documentElement.scrollWidth > window.innerWidth`)) {
		t.Error("the inbox with a question is wider than a 390 px screen")
	}
	shot = filepath.Join(filepath.Dir(shot), "web-question-390x844.png")
	if err := os.WriteFile(shot, value(t, b, chromedp.FullScreenshot(100)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of a question at 390×844: %s", shot)
	for _, ch := range []string{
		"channel=telegram", "channel=slack chat=" + slacktest.DefaultChannel,
	} {
		e.svc.waitFor(t, `msg="question sent"`, "clarification="+testkit.ID(qid)+" ", ch)
	}
	// The ⏱'s one-time message goes first, so the next one seen is the answer's.
	value(t, b, chromedp.Evaluate[bool](
		`document.querySelectorAll(".flash").forEach(function (f) { f.remove() }); true`))
	do("answer main", chromedp.Click(css(qitem+` button.option[value="0"]`)),
		chromedp.WaitVisible(css(".flash")))
	if flash := text(".flash"); flash != "Question "+testkit.ID(qid)+" answered: main" {
		t.Errorf("flash %q", flash)
	}
	select {
	case r := <-asked:
		if r.err != nil || r.code != 0 || r.out != "main\n" {
			t.Errorf("ask: exit %d (%v), stdout %q, stderr %q", r.code, r.err, r.out, r.errOut)
		}
	case <-e.ctx.Done():
		t.Fatalf("ask did not print the answer: %v", e.ctx.Err())
	}
	if m := e.waitTelegramEdited(tgQ); m.Keyboard != nil ||
		!strings.Contains(m.PlainText, "✍️ Answered by admin · web · ") ||
		!strings.HasSuffix(strings.TrimSpace(m.PlainText), "UTC: main") {
		t.Errorf("Telegram question after the answer (keyboard %v):\n%s", m.Keyboard, m.PlainText)
	}
	slQ := e.slackPrompt(4)
	ups, err = e.sl.WaitUpdates(e.ctx, slacktest.DefaultChannel, slQ.TS, 2)
	if err != nil || ups[1].HasActions() ||
		!strings.Contains(replyOf(ups[1]), "Answered by admin") {
		t.Errorf("Slack question after the answer (%v): %+v", err, ups)
	}
	// One answered in Telegram leaves the open page without a reload.
	c, err := e.api.Ask(e.ctx, api.AskRequest{SessionID: "web-q", Question: "Go on?",
		Options: []string{"yes", "no"}})
	if err != nil {
		t.Fatal(err)
	}
	do("the second question appears", chromedp.WaitVisible(css("#q-"+testkit.ID(c.ID))))
	e.svc.waitFor(t, `msg="question sent"`, "clarification="+testkit.ID(c.ID)+" ", "channel=telegram")
	toast := e.tap(e.telegramArmed(5), bot.ClarCallback{ID: c.ID, Option: 1}.String())
	if toast != "Answered: no" {
		t.Errorf("toast %q", toast)
	}
	do("gone after the answer in Telegram", chromedp.WaitNotPresent(css("#q-"+testkit.ID(c.ID))),
		chromedp.WaitVisible(css("#qempty")))

	// The File System panel: a row added, then removed.
	row := `tr[data-path="data/reports/*"]`
	do("fs row added", chromedp.Navigate(e.svc.url+"/rules"),
		chromedp.WaitVisible(css("#fs-add")),
		chromedp.SendKeys(css(`#fs-add input[name="path"]`), "data/reports/*"),
		chromedp.SetValue(css(`#fs-add select[name="mode"]`), "deny"),
		chromedp.Click(css(`#fs-add button`)),
		chromedp.WaitVisible(css(row)))
	rs, err := e.api.Rules(e.ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rs {
		if r.PathPattern == "data/reports/*" {
			found = r.ToolPattern == "@fs_any" && r.Action == "deny" && r.Priority == 4
		}
	}
	if !found {
		t.Errorf("no deny rule for data/reports/* at priority 4: %+v", rs)
	}
	do("fs row removed", chromedp.Click(css(row+" button.delete")),
		chromedp.WaitVisible(css(".flash")), chromedp.WaitNotPresent(css(row)))

	// A second catch-all is refused with the guard's message in its panel.
	do("second catch-all", chromedp.Click(css("#low details summary")),
		chromedp.SendKeys(css(`#add-low input[name="tool_pattern"]`), "*"),
		chromedp.SetValue(css(`#add-low select[name="action"]`), "deny"),
		chromedp.Click(css(`#add-low button`)),
		chromedp.WaitVisible(css("#error-low")))
	if msg := text("#error-low"); !strings.Contains(msg, "group default already has a catch-all") {
		t.Errorf("catch-all refusal %q", msg)
	}
	if rs2, err := e.api.Rules(e.ctx, "default"); err != nil || len(rs2) != len(rs)-1 {
		t.Errorf("rules after the refusal: %d, want %d (%v)", len(rs2), len(rs)-1, err)
	}
	e.svc.stop(t)
}

// The Rules page's host field in a real Chromium: an allow of WebFetch for one host
// added from the Overrides form is listed with its host and allows that host's
// fetches; a URL typed as the host is refused with the field's error in the panel,
// and no rule is added.
func TestE2EWebRulesHost(t *testing.T) {
	t.Parallel()
	chromium(t)
	e := newE2E(t, "")
	_, do, text := browse(t, e)
	add := func(what, tool, host string, done string) {
		t.Helper()
		do(what, chromedp.Navigate(e.svc.url+"/rules"),
			chromedp.Click(css("#overrides details summary")),
			chromedp.SendKeys(css(`#add-overrides input[name="tool_pattern"]`), tool),
			chromedp.SetValue(css(`#add-overrides select[name="action"]`), "allow"),
			chromedp.SendKeys(css(`#add-overrides input[name="host_pattern"]`), host),
			chromedp.Click(css(`#add-overrides button`)),
			chromedp.WaitVisible(css(done)))
	}
	before, err := e.api.Rules(e.ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	// The flash is only on the page the add redirects to: waiting for the rules table
	// could return before the form's POST, where Overrides already lists a rule.
	add("a host rule", "WebFetch", "Docs.Example.com", "p.flash")
	if msg := text("p.flash"); !strings.Contains(msg, "added") {
		t.Errorf("flash after the add %q", msg)
	}
	rs, err := e.api.Rules(e.ctx, "default")
	if err != nil || len(rs) != len(before)+1 {
		t.Fatalf("rules after the add: %d, want %d (%v)", len(rs), len(before)+1, err)
	}
	added := rs[0]
	for _, r := range rs {
		if r.ID > added.ID {
			added = r
		}
	}
	if added.ToolPattern != "WebFetch" || added.HostPattern != "Docs.Example.com" ||
		added.Action != "allow" || added.Priority != 10 {
		t.Errorf("added %+v", added)
	}
	if row := text("#rule-" + testkit.ID(added.ID)); !strings.Contains(row,
		"WebFetch host Docs.Example.com") {
		t.Errorf("listed as %q", row)
	}
	out, err := e.api.Check(e.ctx, api.CheckRequest{Call: gate.Call{ToolName: "WebFetch",
		SessionID: "s1", Arguments: map[string]any{"url": "https://docs.example.com/guide"}}})
	if err != nil || out.Decision != "allow" {
		t.Errorf("a fetch of the host after the rule: %+v, %v", out, err)
	}

	add("a URL as the host", "WebFetch", "https://example.com/x", "#error-overrides")
	if msg := text("#error-overrides"); !strings.Contains(msg, "host_pattern") ||
		!strings.Contains(msg, "must be a host name alone") {
		t.Errorf("bad host error %q", msg)
	}
	add("a host on a tool that fetches nothing", "Read", "example.com", "#error-overrides")
	if msg := text("#error-overrides"); !strings.Contains(msg, "host_pattern") {
		t.Errorf("host on Read error %q", msg)
	}
	if rs2, err := e.api.Rules(e.ctx, "default"); err != nil || len(rs2) != len(rs) {
		t.Errorf("rules after the refusals: %d, want %d (%v)", len(rs2), len(rs), err)
	}
	e.svc.stop(t)
}

// askAsync starts `skald-bot ask QUESTION args...` as an agent runs it and returns at
// once, as startCLI does.
func (e *e2e) askAsync(question string, args ...string) <-chan hookRun {
	e.t.Helper()
	_, ch := e.startCLI(nil, append([]string{"ask", question}, args...)...)
	return ch
}

// value runs action a in browser b and returns its value, failing the test on error.
func value[T any](t *testing.T, b context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}
