package telegram

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestCommandLine(t *testing.T) {
	const me = "fake_approval_bot"
	for _, tc := range []struct {
		text, want string
		ok         bool
	}{
		{"/rules", "rules", true},
		{"/rules default", "rules default", true},
		{"/approve 42 looks  fine", "approve 42 looks  fine", true},
		{"/approve@fake_approval_bot 42", "approve 42", true},
		{"/APPROVE@Fake_Approval_Bot\t42", "APPROVE 42", true},
		{"/rules@other_bot", "", false},
		{"/rules@", "", false},
		{"/rules @fake_approval_bot", "rules", true},
		{"/rules @fake_approval_bot default", "rules default", true},
		{"/rules @other_bot", "rules @other_bot", true},
		{"/allow\nBash", "allow Bash", true},
		{"/start", "help", true},
		{"/start deep-link-payload", "help", true},
		{"/", "", false},
		{"/@fake_approval_bot", "", false},
		{"rules", "", false},
		{" /rules", "", false},
		{"", "", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, ok := commandLine(tc.text, me)
			if got != tc.want || ok != tc.ok {
				t.Errorf("commandLine(%q) = %q, %v; want %q, %v", tc.text, got, ok, tc.want, tc.ok)
			}
		})
	}
	// Before getMe answered, a command addressed to a bot by name is not taken.
	if _, ok := commandLine("/rules@fake_approval_bot", ""); ok {
		t.Error("addressed command taken without a username")
	}
}

func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"/rules", "/approve@fake_approval_bot 42 ok", "/rules @fake_approval_bot x",
		"/start", "/@", "/a@b@c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		line, ok := commandLine(text, "fake_approval_bot")
		if !ok {
			if line != "" {
				t.Errorf("%q: not a command but line %q", text, line)
			}
			return
		}
		if !strings.HasPrefix(text, "/") || line == "" ||
			strings.HasPrefix(line, "/") && !strings.HasPrefix(text, "//") {
			t.Errorf("%q → %q", text, line)
		}
		name, _ := firstWord(line)
		if strings.Contains(name, "@") {
			t.Errorf("%q: the bot's name is left in %q", text, name)
		}
	})
}

// fakeJobs is a hand-written bot.Jobs.
type fakeJobs struct{}

func (fakeJobs) List() []string { return []string{"nightly-backup"} }
func (fakeJobs) Trigger(_ context.Context, name string) (store.Run, error) {
	return store.Run{ID: 9, Job: name, Status: store.RunRunning, Trigger: "manual"}, nil
}
func (fakeJobs) Runs(name string, limit int) ([]store.Run, error) {
	return []store.Run{{ID: 5, Job: name, Status: store.RunFailed, Trigger: "manual",
		StartedAt: time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC),
		Error:     "step 2: exit status 1"}}, nil
}

// snapshot is what a refused command must leave as it was.
// snapshot is the store as teststore.Snapshot reads it, and the number of bypasses
// the tests' sessions hold.
func (e *env) snapshot() string {
	e.t.Helper()
	n := len(e.g.Bypasses("s9")) + len(e.g.Bypasses("sess-1"))
	return teststore.Snapshot(e.t, e.db) + " bypasses=" + strconv.Itoa(n)
}

// Every admin command through Telegram, with good and bad input, in a
// private chat and as /cmd@BotName in a group chat: the reply is the Bot's, as a
// reply to the command; a bad one is one line and changes nothing.
func TestAdminCommands(t *testing.T) {
	e := newTelegramEnv(t, envOptions{jobs: fakeJobs{}}).start()
	pend := e.require("sess-1", "Bash", map[string]any{"command": "make"})
	other := e.require("sess-2", "Bash", map[string]any{"command": "make test"})
	catchAll := ""
	rs, err := e.db.Rules()
	testkit.Must(t, err)
	for _, r := range rs {
		if rules.IsCatchAll(r) {
			catchAll = fmt.Sprint(r.ID)
		}
	}
	const at = "@fake_approval_bot"
	// A command line typed by user in chat, and what the reply must contain.
	type command struct {
		user models.User
		chat models.Chat
		text string
		want string
	}
	good := []command{
		{mallory, groupChat, "/help" + at,
			"ask an admin to add your id 100000009 to the telegram approvers"},
		{mallory, janeChat, "/start", "Commands for you (not authorized on telegram)"},
		{mallory, groupChat, "/whoami" + at, "Mallory · id 100000009 · telegram · not authorized"},
		{jane, janeChat, "/whoami", "Jane Doe · id 100000001 · telegram · approver"},
		{jane, groupChat, "/pending" + at, "2 pending:"},
		{jane, groupChat, fmt.Sprintf("/approve%s %d \"looks fine\"", at, pend.ID),
			fmt.Sprintf("Request %d (Bash) approved.", pend.ID)},
		{jane, janeChat, fmt.Sprintf("/reject %d", other.ID),
			fmt.Sprintf("Request %d (Bash) rejected.", other.ID)},
		{alice, groupChat, "/rules" + at + " default", "default p999999 require *"},
		{alice, groupChat, "/allow" + at + ` mcp__gmail__* note="mail is fine"`, "Created rule #"},
		{alice, janeChat, "/deny rm_rf priority=1", "Created rule #"},
		{alice, janeChat, "/require curl path=data/*", "Created rule #"},
		{alice, janeChat, "/setrule " + catchAll + " note=catch-all", "Updated rule #" + catchAll},
		{alice, groupChat, "/groups" + at, "default — Default ("},
		{alice, groupChat, "/group" + at + " add ops Operations team", "Created group ops."},
		{alice, janeChat, "/group dup ops ops2", "Created group ops2"},
		{alice, janeChat, "/group rm ops2", "Deleted group ops2"},
		{alice, groupChat, "/bypass" + at + " s9 1h scope=category:shell",
			"Bypass for session s9, scope category:shell, for 1 h"},
		{alice, janeChat, "/unbypass s9", "Cleared 1 bypass"},
		{alice, groupChat, "/jobs" + at, "nightly-backup"},
		{alice, groupChat, "/run" + at + " nightly-backup",
			"Started run 9 of nightly-backup (running)."},
		{alice, janeChat, "/runs nightly-backup", "#5 failed · manual"},
	}
	for _, tc := range good {
		t.Run(tc.text, func(t *testing.T) {
			reply := e.say(tc.user, tc.chat, tc.text)
			if !strings.Contains(reply, tc.want) {
				t.Errorf("%s by %s: reply %q, want %q", tc.text, tc.user.FirstName, reply, tc.want)
			}
		})
	}
	if got := e.request(pend.ID); got.Status != store.Approved ||
		got.Resolution.Note != "looks fine" || got.Resolution.By != "Jane Doe (100000001)" {
		t.Errorf("approve: %s %+v", got.Status, got.Resolution)
	}
	created, err := e.db.Rules()
	testkit.Must(t, err)
	var newRule string
	for _, r := range created {
		if r.ToolPattern == "rm_rf" {
			newRule = fmt.Sprint(r.ID)
		}
	}
	if reply := e.say(alice, janeChat, "/rmrule "+newRule); !strings.Contains(reply,
		"Deleted rule #"+newRule) {
		t.Errorf("rmrule: %q", reply)
	}

	bad := []command{
		{mallory, groupChat, "/pending" + at, "not authorized: pending needs an approver"},
		{mallory, janeChat, "/approve 1", "not authorized: approve needs an approver"},
		{jane, groupChat, "/allow" + at + " Bash", "not authorized: allow needs an admin"},
		{alice, groupChat, "/frobnicate" + at, `unknown command "frobnicate"; try help`},
		{alice, janeChat, "/help me", "help: too many arguments"},
		{jane, janeChat, "/approve", "approve: missing arguments; usage: approve <id> [note]"},
		{jane, groupChat, "/approve" + at + " x", `approve: bad id: id "x" is not a number`},
		{jane, janeChat, "/reject 99999", "reject: request 99999 not found"},
		{jane, janeChat, fmt.Sprintf("/approve %d", other.ID),
			fmt.Sprintf("approve: request %d is already rejected", other.ID)},
		{alice, janeChat, "/rules nosuch", `rules: unknown group "nosuch"; see groups`},
		{alice, groupChat, "/allow" + at + " a*b", `allow: tool_pattern "a*b"`},
		{alice, janeChat, `/allow "Bash`, "unbalanced quotes"},
		{alice, janeChat, "/deny Bash colour=red", `unknown key "colour"`},
		{alice, janeChat, "/require Bash priority=-1",
			"priority -1: must be between 0 and 999999"},
		{alice, janeChat, "/allow * group=default", "already has a catch-all"},
		{alice, janeChat, "/rmrule 99999", "rmrule: rule 99999 not found"},
		{alice, janeChat, "/setrule " + catchAll + " action=maybe",
			`action "maybe": must be allow, deny or require`},
		{alice, janeChat, "/groups x", "groups: too many arguments"},
		{alice, groupChat, "/group" + at + " add Bad!",
			`group id "Bad!" must be lower-case letters`},
		{alice, janeChat, "/group rm default", "the default group cannot be deleted"},
		{alice, janeChat, "/group dup nosuch x", `group "nosuch" not found`},
		{alice, janeChat, "/bypass s9 forever", `bad length "forever"`},
		{alice, janeChat, "/unbypass", "unbypass: missing arguments"},
		{alice, janeChat, "/jobs now", "jobs: too many arguments"},
		{alice, janeChat, "/run nosuch", `run: unknown job "nosuch"; see jobs`},
		{alice, janeChat, "/runs", "runs: missing arguments"},
	}
	for _, tc := range bad {
		t.Run(tc.text, func(t *testing.T) {
			before := e.snapshot()
			reply := e.say(tc.user, tc.chat, tc.text)
			if !strings.Contains(reply, tc.want) || strings.Contains(reply, "\n") {
				t.Errorf("%s by %s: reply %q, want one line with %q",
					tc.text, tc.user.FirstName, reply, tc.want)
			}
			if after := e.snapshot(); after != before {
				t.Errorf("%s changed the store:\nbefore %s\nafter  %s", tc.text, before, after)
			}
		})
	}

	// Each reply answers its command: sent as a reply to it, as plain text.
	for _, c := range e.srv.Calls("sendMessage") {
		if c.Params["reply_markup"] != "" ||
			strings.HasPrefix(c.Params["text"], "<b>🔐 Approval needed") {
			continue // a prompt
		}
		if !strings.Contains(c.Params["reply_parameters"], `"message_id":`) ||
			c.Params["parse_mode"] != "" {
			t.Errorf("reply sent with %v", c.Params)
		}
	}
}

// A command for another bot in the group is not ours: no reply, nothing runs. The
// fixtures: "/rules@fake_approval_bot" in a group, "/rules @fake_approval_bot" (a
// mention) in another, "/rules default" in a supergroup, "/start" from the docs.
func TestCommandAddressing(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	before := e.snapshot()
	e.inject(e.srv.MessageUpdate(alice, groupChat, "/allow@other_bot Bash"))
	// Updates are handled in order: once the next one is answered, the first was
	// handled (and ignored).
	if reply := e.say(alice, groupChat, "/whoami"); !strings.Contains(reply, "admin") {
		t.Errorf("whoami: %q", reply)
	}
	if len(e.replies(groupChat.ID)) != 1 || e.snapshot() != before {
		t.Errorf("a command for another bot ran")
	}

	for _, tc := range []struct {
		file string
		chat int64
		want string
	}{
		{"update_message_command_group.json", -5000000001,
			"not authorized: rules needs an admin"}, // Jane is an approver
		{"update_message_command_group_with_mention.json", -200000001,
			"default p999999 require *"}, // Max is an admin
		{"update_message_command_private.json", 100000001, "not authorized: rules needs an admin"},
		{"update_message_command_supergroup.json", -1001000000001,
			"not authorized: rules needs an admin"},
		{"update_message_docs_example_start.json", 1111111,
			"Commands for you (not authorized on telegram)"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			reply := e.deliver(tc.chat, func() {
				if _, err := e.srv.InjectJSON(testkit.ReadFile(t, tc.file)); err != nil {
					t.Fatal(err)
				}
			})
			if !strings.Contains(reply, tc.want) {
				t.Errorf("%s: reply %q, want %q", tc.file, reply, tc.want)
			}
		})
	}
}

// An edited message never runs a command again, even when it comes (it is not asked
// for).
func TestEditedMessageIgnored(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	u := e.srv.MessageUpdate(alice, janeChat, "/allow Bash note=first")
	e.inject(u)
	if err := e.srv.Wait(e.ctx, func() bool {
		return len(e.replies(janeChat.ID)) == 1
	}); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot()
	edited := models.Update{EditedMessage: u.Message}
	edited.EditedMessage.Text = "/allow Bash note=again"
	edited.EditedMessage.EditDate = int(time.Now().Unix())
	e.inject(edited)
	if reply := e.say(alice, janeChat, "/whoami"); !strings.Contains(reply, "admin") {
		t.Errorf("whoami: %q", reply)
	}
	if n := len(e.replies(janeChat.ID)); n != 2 {
		t.Errorf("%d replies, want 2 (the command and whoami)", n)
	}
	if e.snapshot() != before {
		t.Error("the edited message ran its command")
	}
	c := e.srv.Calls("getUpdates")
	if !strings.Contains(c[0].Params["allowed_updates"], "callback_query") ||
		strings.Contains(c[0].Params["allowed_updates"], "edited_message") {
		t.Errorf("allowed_updates %q", c[0].Params["allowed_updates"])
	}
}

// A reply rate-limited with a 429 is sent after retry_after, not dropped; a long
// reply is cut to Telegram's limit.
func TestReplyRateLimitedAndCut(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	if err := e.srv.FailNext("sendMessage", telegramtest.TooManyRequests(12)); err != nil {
		t.Fatal(err)
	}
	if reply := e.say(jane, janeChat, "/whoami"); !strings.Contains(reply, "approver") {
		t.Errorf("whoami: %q", reply)
	}
	if got := e.sleeps.list(); !slices.Contains(got, 12*time.Second) {
		t.Errorf("waits %v, want retry_after 12s", got)
	}
	if len(e.logs.Find("rate limited (429)", "op=sendMessage")) != 1 {
		t.Errorf("not logged:\n%s", e.logs.All())
	}

	// 80 groups with long names make a groups listing over 4096 characters.
	for i := range 80 {
		text := fmt.Sprintf("/group add g%02d %s", i, strings.Repeat("long name ", 6))
		if reply := e.say(alice, janeChat, text); !strings.Contains(reply, "Created group") {
			t.Fatalf("group add: %q", reply)
		}
	}
	reply := e.say(alice, janeChat, "/groups")
	if n := len([]rune(reply)); n > bot.TelegramMaxText || !strings.Contains(reply, "… (cut, ") {
		t.Errorf("reply of %d characters, want cut to %d:\n…%s",
			n, bot.TelegramMaxText, reply[max(0, len(reply)-100):])
	}
}

// A reply still answered 429 after bot.MaxRateLimitWaits waits is given up on and
// logged; the next command is answered as usual.
func TestReplyRateLimitCap(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	for range bot.MaxRateLimitWaits + 1 {
		if err := e.srv.FailNext("sendMessage", telegramtest.TooManyRequests(12)); err != nil {
			t.Fatal(err)
		}
	}
	calls := len(e.srv.Calls("sendMessage"))
	e.inject(e.srv.MessageUpdate(jane, janeChat, "/whoami"))
	// Updates are handled in order: once this one is answered, the first is done.
	if reply := e.say(jane, janeChat, "/whoami"); !strings.Contains(reply, "approver") {
		t.Errorf("whoami: %q", reply)
	}
	if n := len(e.replies(janeChat.ID)); n != 1 {
		t.Errorf("%d replies, want the second command's only", n)
	}
	if got := len(e.srv.Calls("sendMessage")) - calls; got != bot.MaxRateLimitWaits+2 {
		t.Errorf("%d sendMessage calls, want %d", got, bot.MaxRateLimitWaits+2)
	}
	want := slices.Repeat([]time.Duration{12 * time.Second}, bot.MaxRateLimitWaits)
	if got := e.sleeps.list(); !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
	if len(e.logs.Find("replying to a command", "retry after 12")) != 1 {
		t.Errorf("the dropped reply is not logged:\n%s", e.logs.All())
	}
}
