package telegram

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

const mcpTool = "mcp__notes__list"

// followUp waits for the "➕ Always" follow-up of request id in chat, with its one
// button.
func (e *env) followUp(chat int64, id uint64) telegramtest.SentMessage {
	e.t.Helper()
	return e.followUpWith(chat, id, fmt.Sprintf("r:%d", id))
}

// followUpWith waits for the follow-up of request id in chat whose buttons' data are
// want.
func (e *env) followUpWith(chat int64, id uint64, want ...string) telegramtest.SentMessage {
	e.t.Helper()
	got := e.waitArmed(chat, fmt.Sprintf("follow-up of request %d", id), func(data []string) bool {
		return slices.Equal(data, want)
	})
	// The message is recorded on its offer just after it is sent.
	e.note.sig.wait(e.t, e.ctx, fmt.Sprintf("offer sent %d", id))
	return got
}

// tapFollowUp taps the button of follow-up m as user and returns the toast.
func (e *env) tapFollowUp(user models.User, m telegramtest.SentMessage, id uint64) string {
	e.t.Helper()
	return e.tapData(user, m.ChatID, m.MessageID, fmt.Sprintf("r:%d", id)).Text
}

// adminApproved makes a call of tool that requires approval, has Alice (an admin)
// approve it, and returns the request and its "➕ Always" follow-up.
func (e *env) adminApproved(tool string) (store.Request, telegramtest.SentMessage) {
	e.t.Helper()
	r := e.require("sess-1", tool, map[string]any{})
	e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
	return r, e.followUp(groupChat.ID, r.ID)
}

func (e *env) rules() []rules.Rule {
	e.t.Helper()
	rs, err := e.db.Rules()
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

// An admin's approval gets a follow-up replying to the prompt with "➕ Always";
// an approver's tap on it is refused and adds nothing, the admin's adds the rule
// (audited), edits the follow-up without its button, and the same call is then
// allowed; a second tap is refused.
func TestAlwaysAllowFollowUp(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", mcpTool, map[string]any{})
	if a := e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove)); a.Text != "Approved" {
		t.Fatalf("toast %q", a.Text)
	}
	m := e.followUp(groupChat.ID, r.ID)
	if m.Keyboard.InlineKeyboard[0][0].Text != "➕ Always: "+mcpTool {
		t.Errorf("button %q", m.Keyboard.InlineKeyboard[0][0].Text)
	}
	if !strings.Contains(m.PlainText, "allow "+mcpTool) {
		t.Errorf("follow-up text:\n%s", m.PlainText)
	}
	prompt := e.prompt(groupChat.ID, r.ID)
	var reply string
	for _, c := range e.srv.Calls("sendMessage") {
		if strings.Contains(c.Params["text"], fmt.Sprintf("Request #%d (", r.ID)) {
			reply = c.Params["reply_parameters"]
		}
	}
	var rp models.ReplyParameters
	if err := json.Unmarshal([]byte(reply), &rp); err != nil || rp.MessageID != prompt.MessageID {
		t.Errorf("reply_parameters %q (%v), want message %d", reply, err, prompt.MessageID)
	}
	if n := len(e.srv.Messages(janeChat.ID)); n != 1 {
		t.Errorf("%d messages in the other chat, want the prompt alone", n)
	}

	before := e.rules()
	audit, err := e.db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	if toast := e.tapFollowUp(jane, m, r.ID); !strings.Contains(toast, "Not authorized") {
		t.Errorf("approver's toast %q", toast)
	}
	if got := e.rules(); len(got) != len(before) {
		t.Errorf("an approver's tap added rules: %v", got)
	}
	if got, err := e.db.Audit(0); err != nil || len(got) != len(audit) {
		t.Errorf("an approver's tap was audited: %d entries (%v), had %d", len(got), err,
			len(audit))
	}

	toast := e.tapFollowUp(alice, m, r.ID)
	rs := e.rules()
	if len(rs) != len(before)+1 {
		t.Fatalf("rules %v", rs)
	}
	added := rs[len(rs)-1]
	for _, x := range rs {
		if x.ID > added.ID {
			added = x
		}
	}
	want := fmt.Sprintf("Added rule %d: allow %s", added.ID, mcpTool)
	if toast != want {
		t.Errorf("toast %q, want %q", toast, want)
	}
	if added.ToolPattern != mcpTool || added.Action != rules.Allow ||
		added.GroupID != rules.DefaultGroup || added.Priority != rules.DefaultPriority {
		t.Errorf("added %+v", added)
	}
	if got, err := e.db.Audit(0); err != nil || len(got) <= len(audit) {
		t.Errorf("the added rule was not audited (%v)", err)
	}
	err = e.srv.Wait(e.ctx, func() bool {
		cur, _ := e.srv.Message(groupChat.ID, m.MessageID)
		return cur.Keyboard == nil && strings.Contains(cur.PlainText, want)
	})
	if err != nil {
		cur, _ := e.srv.Message(groupChat.ID, m.MessageID)
		t.Errorf("follow-up not closed: %v\n%s", cur.Keyboard, cur.PlainText)
	}
	if toast := e.tapFollowUp(alice, m, r.ID); toast == want || strings.HasPrefix(toast, "Added") {
		t.Errorf("second tap: %q", toast)
	}
	if got := e.rules(); len(got) != len(rs) {
		t.Errorf("a second tap added a rule")
	}
	out, err := e.g.Check(e.ctx, gate.Call{ToolName: mcpTool, Arguments: map[string]any{},
		SessionID: "sess-2"})
	if err != nil || out.Decision != gate.VerdictAllow {
		t.Errorf("the same call after the rule: %+v, %v", out, err)
	}
}

// An approved web call offers its exact host and, on a second button, its site's
// subdomains; the second adds that host rule, which then allows another subdomain, and
// the first is refused once it did. A host just below a public suffix gets one button.
func TestAlwaysWebHost(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", "WebFetch", map[string]any{"url": "https://Docs.Example.com/a"})
	e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
	one, two := fmt.Sprintf("r:%d", r.ID), fmt.Sprintf("r:%d:2", r.ID)
	m := e.followUpWith(groupChat.ID, r.ID, one, two)
	kb := m.Keyboard.InlineKeyboard
	if kb[0][0].Text != "➕ Always: docs.example.com (any port)" ||
		kb[1][0].Text != "➕ Always: *.example.com (any port)" {
		t.Errorf("buttons %q, %q", kb[0][0].Text, kb[1][0].Text)
	}
	if !strings.Contains(m.PlainText, "  allow WebFetch host docs.example.com\nor\n"+
		"  allow WebFetch host *.example.com") {
		t.Errorf("follow-up text:\n%s", m.PlainText)
	}
	before := e.rules()
	toast := e.tapData(alice, m.ChatID, m.MessageID, two).Text
	rs := e.rules()
	if len(rs) != len(before)+1 {
		t.Fatalf("rules %+v", rs)
	}
	added := rs[0]
	for _, x := range rs {
		if x.ID > added.ID {
			added = x
		}
	}
	if added.ToolPattern != "WebFetch" || added.HostPattern != "*.example.com" ||
		added.Action != rules.Allow || added.GroupID != rules.DefaultGroup {
		t.Errorf("added %+v", added)
	}
	want := fmt.Sprintf("Added rule %d: allow WebFetch host *.example.com", added.ID)
	if toast != want {
		t.Errorf("toast %q, want %q", toast, want)
	}
	// Refused as used, or as unknown once the offer's closing edit is done.
	toast = e.tapData(alice, m.ChatID, m.MessageID, one).Text
	if strings.HasPrefix(toast, "Added") {
		t.Errorf("the other button after the tap: %q", toast)
	}
	if n := len(e.rules()); n != len(rs) {
		t.Errorf("the other button added a rule: %d rules, want %d", n, len(rs))
	}
	out, err := e.g.Check(e.ctx, gate.Call{ToolName: "WebFetch", SessionID: "sess-2",
		Arguments: map[string]any{"url": "https://api.example.com/v1"}})
	if err != nil || out.Decision != gate.VerdictAllow {
		t.Errorf("another subdomain after the rule: %+v, %v", out, err)
	}

	r = e.require("sess-3", "WebFetch", map[string]any{"url": "https://me.github.io/"})
	e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
	m = e.followUp(groupChat.ID, r.ID)
	if b := m.Keyboard.InlineKeyboard[0][0].Text; b != "➕ Always: me.github.io (any port)" {
		t.Errorf("button %q", b)
	}
}

// An approved web call to a local host gets no offer: a host rule would allow every
// port of it.
func TestAlwaysNoLocalHost(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	for _, u := range []string{"http://127.0.0.1:18477/api/x", "http://[::1]/",
		"http://10.0.0.2/", "http://api.localhost:8080/"} {
		t.Run(u, func(t *testing.T) {
			r := e.require("sess-"+u, "WebFetch", map[string]any{"url": u})
			e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
			e.waitUpdated(r.ID)
			if v, err := e.db.GetMeta("bot/offers"); err != nil || v != nil {
				t.Errorf("offers stored: %s, %v", v, err)
			}
		})
	}
}

// An approver's approval, and an admin's rejection, get no follow-up: no offer is
// stored.
func TestAlwaysOnlyForAdminApprovals(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r := e.require("sess-1", mcpTool, map[string]any{})
	e.answer(e.tap(jane, groupChat.ID, r.ID, bot.ActionApprove))
	r2 := e.require("sess-1", mcpTool, map[string]any{"n": 2})
	e.answer(e.tap(alice, groupChat.ID, r2.ID, bot.ActionReject))
	e.waitUpdated(r.ID)
	e.waitUpdated(r2.ID)
	if v, err := e.db.GetMeta("bot/offers"); err != nil || v != nil {
		t.Errorf("offers stored: %s, %v", v, err)
	}
	for _, m := range e.srv.Messages(groupChat.ID) {
		for _, d := range armedData(m) {
			if strings.HasPrefix(d, "r:") {
				t.Errorf("follow-up sent: %q", m.PlainText)
			}
		}
	}
}

// The offer survives a restart: its tap still works on the new process; and an
// hour later, across a restart, the sweep removes the button and a tap is refused.
func TestAlwaysSurvivesRestartAndExpires(t *testing.T) {
	clk := testkit.NewClock(time.Now())
	e := newTelegramEnv(t, envOptions{now: clk.Now}).start()
	r, m := e.adminApproved(mcpTool)
	r2, m2 := e.adminApproved("mcp__notes__read")
	e.close()

	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path, now: clk.Now}).start()
	before := len(e.rules())
	if toast := e.tapFollowUp(alice, m, r.ID); !strings.HasPrefix(toast, "Added rule") {
		t.Errorf("tap after a restart: %q", toast)
	}
	// The closing edit runs after the tap answers: let it end before the next restart.
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("offer closed %d", r.ID))
	if got := len(e.rules()); got != before+1 {
		t.Errorf("%d rules, want %d", got, before+1)
	}
	clk.Add(bot.OfferTTL)
	if toast := e.tapFollowUp(alice, m2, r2.ID); toast != "This offer has expired" {
		t.Errorf("tap after an hour: %q", toast)
	}
	e.close()

	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path, now: clk.Now}).start()
	err := e.srv.Wait(e.ctx, func() bool {
		cur, _ := e.srv.Message(groupChat.ID, m2.MessageID)
		return cur.Keyboard == nil && strings.Contains(cur.PlainText, "expired")
	})
	if err != nil {
		t.Fatalf("expired follow-up keeps its button: %v", err)
	}
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("offer closed %d", r2.ID))
	if v, err := e.db.GetMeta("bot/offers"); err != nil || v != nil {
		t.Errorf("closed offers still stored: %s, %v", v, err)
	}
	if got := len(e.rules()); got != before+1 {
		t.Errorf("%d rules after expiry, want %d", got, before+1)
	}
	if toast := e.tapFollowUp(alice, m2, r2.ID); toast != "Unknown request" {
		t.Errorf("tap on the closed offer: %q", toast)
	}
}

// A shell request that carries its commands shows them in the prompt, marked; an
// admin's approval by command offers one command rule per command that needed the
// human, and the tap adds them in the request's group, before the seeded require.
func TestAlwaysShellCommands(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	r, _, err := e.db.CreateRequest(store.Request{
		SessionID: "sess-1", ToolName: "Bash", GroupID: rules.DefaultGroup,
		Arguments: json.RawMessage(`{"command":"git status --short && go test ./... && ls"}`),
		ExpiresAt: time.Now().Add(time.Hour), Status: store.Pending, Caller: store.CallerAdmin,
		Commands: []store.CommandDecision{
			{Command: "git status --short", Action: "require"},
			{Command: "go test ./...", Action: "require"},
			{Command: "ls", Action: "allow", RuleID: 1},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.fan.Show(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	p := e.prompt(groupChat.ID, r.ID)
	if !strings.Contains(p.PlainText, "Commands:\n❓ git status --short\n❓ go test ./...\n✓ ls\n") {
		t.Errorf("prompt:\n%s", p.PlainText)
	}
	if got := e.say(alice, groupChat,
		fmt.Sprintf("/approve %d", r.ID)); !strings.Contains(got, "approved") {
		t.Fatalf("reply %q", got)
	}
	m := e.followUp(groupChat.ID, r.ID)
	if b := m.Keyboard.InlineKeyboard[0][0].Text; b != "➕ Always: git status *, go test *" {
		t.Errorf("button %q", b)
	}
	seeded := e.rules()
	toast := e.tapFollowUp(alice, m, r.ID)
	rs := e.rules()
	if len(rs) != len(seeded)+2 {
		t.Fatalf("rules %+v", rs)
	}
	want := map[string]bool{"git status *": true, "go test *": true}
	old := map[uint64]bool{}
	for _, s := range seeded {
		old[s.ID] = true
	}
	for _, x := range rs {
		if old[x.ID] {
			continue
		}
		if !want[x.CommandPattern] || x.ToolPattern != "Bash" || x.Action != rules.Allow ||
			x.GroupID != rules.DefaultGroup {
			t.Errorf("added %+v", x)
		}
		for _, s := range seeded {
			if s.ToolPattern == "Bash" && s.Action == rules.Require && s.CommandPattern == "" &&
				(x.Priority > s.Priority || x.Priority == s.Priority && x.ID > s.ID) {
				t.Errorf("rule %+v comes after the require %+v", x, s)
			}
		}
		if !strings.Contains(toast,
			fmt.Sprintf("Added rule %d: allow Bash %s", x.ID, x.CommandPattern)) {
			t.Errorf("toast %q does not name rule %d", toast, x.ID)
		}
	}
}

// A tap with bad data is refused; when the rule cannot be added (its group is gone)
// the tap says why, nothing is added, and the offer stays open for another tap.
func TestAlwaysTapErrors(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	admin := store.Actor{By: "test", Via: "cli"}
	if err := e.g.CreateGroup(rules.Group{ID: "dev", Name: "Dev"}, admin); err != nil {
		t.Fatal(err)
	}
	r, _, err := e.db.CreateRequest(store.Request{
		SessionID: "sess-1", ToolName: mcpTool, GroupID: "dev", Arguments: json.RawMessage(`{}`),
		ExpiresAt: time.Now().Add(time.Hour), Status: store.Pending, Caller: store.CallerAdmin,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.fan.Show(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
	m := e.followUp(groupChat.ID, r.ID)
	before := e.rules()
	offers, err := e.db.GetMeta("bot/offers")
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"r:x", "r:0", fmt.Sprintf("r:%d:ok", r.ID)} {
		if a := e.tapData(alice, m.ChatID, m.MessageID, data); a.Text != "Invalid button" {
			t.Errorf("data %q: toast %q", data, a.Text)
		}
	}
	if err := e.g.DeleteGroup("dev", admin); err != nil {
		t.Fatal(err)
	}
	toast := e.tapFollowUp(alice, m, r.ID)
	if !strings.HasPrefix(toast, "Could not add the rule: ") || !strings.Contains(toast, "dev") {
		t.Errorf("toast %q", toast)
	}
	if got := e.rules(); len(got) != len(before) {
		t.Errorf("rules changed: %+v", got)
	}
	if got, err := e.db.GetMeta("bot/offers"); err != nil || string(got) != string(offers) {
		t.Errorf("offers changed: %s, %v", got, err)
	}
	if err := e.g.CreateGroup(rules.Group{ID: "dev", Name: "Dev"}, admin); err != nil {
		t.Fatal(err)
	}
	if toast := e.tapFollowUp(alice, m, r.ID); !strings.HasPrefix(toast, "Added rule ") {
		t.Errorf("tap once the group is back: %q", toast)
	}
}

// An offer claimed by a tap whose process stopped before closing it is closed by
// the sweep of the next start, once past its hour.
func TestAlwaysClaimedThenStopped(t *testing.T) {
	clk := testkit.NewClock(time.Now())
	e := newTelegramEnv(t, envOptions{now: clk.Now}).start()
	r, m := e.adminApproved(mcpTool)
	e.close()
	db, err := store.Open(e.path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.GetMeta("bot/offers")
	if err != nil {
		t.Fatal(err)
	}
	var offers []bot.Offer
	if err := json.Unmarshal(v, &offers); err != nil || len(offers) != 1 {
		t.Fatalf("offers %s: %v", v, err)
	}
	offers[0].Used = true
	if v, err = json.Marshal(offers); err != nil {
		t.Fatal(err)
	}
	if err := db.PutMeta("bot/offers", v); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	clk.Add(bot.OfferTTL + bot.OfferSweepEvery)
	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path, now: clk.Now}).start()
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("offer closed %d", r.ID))
	cur, _ := e.srv.Message(groupChat.ID, m.MessageID)
	if cur.Keyboard != nil || !strings.HasSuffix(cur.PlainText, "Closed.") {
		t.Errorf("follow-up %v:\n%s", cur.Keyboard, cur.PlainText)
	}
	if v, err := e.db.GetMeta("bot/offers"); err != nil || v != nil {
		t.Errorf("offers left: %s, %v", v, err)
	}
}

// failOfferArm is a transport that fails every editMessageText that would add a
// follow-up's button, and signals the first.
type failOfferArm struct {
	next  http.RoundTripper
	once  sync.Once
	tried chan struct{}
}

func (h *failOfferArm) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/editMessageText") {
		body, err := peek(&r.Body)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(body, []byte(`"r:`)) {
			h.once.Do(func() { close(h.tried) })
			return nil, errors.New("connection reset")
		}
	}
	return h.next.RoundTrip(r)
}

// A follow-up is posted without its button, recorded on its offer, then armed. One
// whose arm never happened (the process stopped first) is armed by the next start,
// not posted again, and its button then works.
func TestAlwaysArmedAfterRestart(t *testing.T) {
	hook := &failOfferArm{next: http.DefaultTransport.(*http.Transport).Clone(),
		tried: make(chan struct{})}
	e := newTelegramEnv(t, envOptions{httpClient: &http.Client{Transport: hook}}).start()
	r := e.require("sess-1", mcpTool, map[string]any{})
	e.answer(e.tap(alice, groupChat.ID, r.ID, bot.ActionApprove))
	select {
	case <-hook.tried:
	case <-e.ctx.Done():
		t.Fatal("the follow-up was never armed")
	}
	e.close()
	var posted []telegramtest.SentMessage
	for _, m := range e.srv.Messages(groupChat.ID) {
		if strings.Contains(m.PlainText, "was approved") {
			posted = append(posted, m)
		}
	}
	if len(posted) != 1 || armedData(posted[0]) != nil {
		t.Fatalf("%d follow-ups; want one, never armed", len(posted))
	}

	e = newTelegramEnv(t, envOptions{srv: e.srv, path: e.path}).start()
	m := e.followUp(groupChat.ID, r.ID)
	if m.MessageID != posted[0].MessageID {
		t.Fatalf("follow-up %d armed, want the recorded %d", m.MessageID, posted[0].MessageID)
	}
	if toast := e.tapFollowUp(alice, m, r.ID); !strings.HasPrefix(toast, "Added rule") {
		t.Errorf("tap on the armed follow-up: %q", toast)
	}
}

// A web call's prompt names the host its URL goes to, beside the raw URL: after
// userinfo that looks like a host, and with the Unicode form of an IDNA name.
func TestPromptWebHost(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	for i, c := range []struct{ url, host string }{
		{"http://user@evil.com:80@good.com/", "Host: good.com\n"},
		{"https://xn--80ak6aa92e.com/a", "Host: xn--80ak6aa92e.com (аррӏе.com)\n"},
		{"https://аррӏе.com/a", "Host: xn--80ak6aa92e.com (аррӏе.com)\n"},
	} {
		t.Run(c.url, func(t *testing.T) {
			r := e.require(fmt.Sprintf("sess-%d", i), "WebFetch", map[string]any{"url": c.url})
			if m := e.prompt(groupChat.ID, r.ID); !strings.Contains(m.PlainText, c.host) ||
				!strings.Contains(m.PlainText, c.url) {
				t.Errorf("prompt:\n%s\nwant %q and the URL", m.PlainText, c.host)
			}
		})
	}
}
