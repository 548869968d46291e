package slack_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
)

// Every admin command through /skald, in both modes, as typed by a
// stranger, an approver or an admin: the reply comes back as an ephemeral message to
// whoever typed it; a refused or bad command gets one line and changes nothing.
func TestCommands(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			e := newSlackEnv(t, m, envOptions{})
			req1, ts1 := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
			req2, ts2 := e.require("s2", "Write",
				map[string]any{"file_path": "notes.txt", "content": "x"})
			var mailRule, bashRule string // rule ids created on the way
			ruleID := regexp.MustCompile(`^Created rule #(\d+) `)

			for i, s := range []struct {
				user string
				text func() string
				want string // the reply contains it
				bad  bool   // a refusal: one line, nothing changes
				then func(reply string)
			}{
				{user: stranger, text: lit("help"),
					want: "Commands for you (not authorized on slack):\n" +
						"help — the commands you may use\nwhoami"},
				{user: stranger, text: lit(""),
					want: "Commands for you (not authorized on slack)"},
				{user: stranger, text: lit("whoami"),
					want: "id U0FAKEUSR09 · slack · not authorized"},
				{user: stranger, text: lit("pending"),
					want: "not authorized: pending needs an approver", bad: true},
				{user: stranger, text: lit("approve 1"),
					want: "not authorized: approve needs an approver", bad: true},
				{user: approver, text: lit("pending"),
					want: "2 pending:\n#1 Bash: make deploy · admin · session s1 · expires "},
				{user: approver, text: lit("approve 999"),
					want: "approve: request 999 not found", bad: true},
				{user: approver, text: lit("approve abc"), want: "approve: bad id", bad: true},
				{user: approver, text: lit("approve 1 looks fine"),
					want: "Request 1 (Bash) approved.", then: func(string) {
						e.waitFinal(req1.ID)
						e.checkUpdates(ts1)
						r := e.request(req1.ID)
						if r.Resolution == nil || r.Resolution.Note != "looks fine" ||
							r.Resolution.By != "jane.approver (U0FAKEUSR01)" ||
							r.Resolution.Via != "slack" {
							t.Errorf("resolution %+v", r.Resolution)
						}
					}},
				{user: approver, text: lit("approve 1"),
					want: "approve: request 1 is already approved by jane.approver " +
						"(U0FAKEUSR01) via slack", bad: true},
				{user: admin, text: lit("reject 2"),
					want: "Request 2 (Write) rejected.", then: func(string) {
						e.waitFinal(req2.ID)
						e.checkUpdates(ts2)
					}},
				{user: approver, text: lit("allow Read"),
					want: "not authorized: allow needs an admin", bad: true},
				{user: admin, text: lit("rules"), want: "default p5 deny @fs_any path=secrets/*"},
				{user: admin, text: lit("rules nosuch"),
					want: `rules: unknown group "nosuch"`, bad: true},
				// Slack sends & < > escaped; the command sees them as typed.
				{user: admin, text: lit(`allow mcp__gmail__* note="mail &amp; &lt;calendar&gt;"`),
					want: "default p100 allow mcp__gmail__* — mail & <calendar>",
					then: func(r string) { mailRule = ruleID.FindStringSubmatch(r)[1] }},
				{user: admin, text: lit("allow"),
					want: "allow: missing arguments; usage: allow <tool_pattern>", bad: true},
				{user: admin, text: lit("allow path=docs/*"),
					want: "allow: missing tool pattern", bad: true},
				{user: admin, text: lit(`allow Read note="unterminated`),
					want: "unbalanced quotes", bad: true},
				{user: admin, text: lit("deny Bash path=secrets/* priority=5"),
					want: "default p5 deny Bash path=secrets/*",
					then: func(r string) { bashRule = ruleID.FindStringSubmatch(r)[1] }},
				{user: admin, text: lit("require bad*pat*"), want: "require: ", bad: true},
				{user: admin, text: lit("require Bash priority=-3"), want: "require: ", bad: true},
				{user: admin, text: func() string { return "setrule " + bashRule + " priority=7" },
					want: " default p7 deny Bash path=secrets/*"},
				{user: admin, text: func() string { return "setrule " + bashRule + " colour=red" },
					want: "setrule: ", bad: true},
				{user: admin, text: lit("setrule 99999 priority=7"),
					want: "setrule: rule 99999 not found", bad: true},
				{user: admin, text: func() string { return "rmrule " + mailRule },
					want: "Deleted rule #"},
				{user: admin, text: lit("rmrule 99999"),
					want: "rmrule: rule 99999 not found", bad: true},
				{user: admin, text: lit("groups"), want: "default"},
				{user: admin, text: lit("group add ops Ops team"), want: "Created group ops."},
				{user: admin, text: lit("group add ops"),
					want: `group: group "ops" already exists`, bad: true},
				{user: admin, text: lit("group add Bad!"),
					want: "must be lower-case letters, digits, _ and -", bad: true},
				{user: admin, text: lit("group dup ops ops2"),
					want: "Created group ops2 with 0 rules copied from ops."},
				{user: admin, text: lit("group dup nosuch ops3"),
					want: `group: group "nosuch" not found`, bad: true},
				{user: admin, text: lit("group rm ops2"),
					want: "Deleted group ops2 and its 0 rules."},
				{user: admin, text: lit("group rm default"),
					want: "group: the default group cannot be deleted", bad: true},
				{user: admin, text: lit("group frob"), want: `group: unknown "frob"`, bad: true},
				{user: admin, text: lit("bypass s9 1h scope=all"),
					want: "Bypass for session s9, scope all, for 1 h (until "},
				{user: admin, text: lit("bypass s9 forever"),
					want: `bypass: bad length "forever"`, bad: true},
				{user: admin, text: lit("bypass s9 scope=weird"),
					want: `bypass: bad scope "weird"`, bad: true},
				{user: admin, text: lit("unbypass s9"), want: "Cleared 1 bypasses of session s9."},
				{user: admin, text: lit("unbypass s9"), want: "Session s9 has no bypass."},
				{user: admin, text: lit("jobs"), want: "nightly-backup · never run"},
				{user: admin, text: lit("run nightly-backup"),
					want: "Started run 1 of nightly-backup (running)."},
				{user: admin, text: lit("run nosuch"),
					want: `run: unknown job "nosuch"; see jobs`, bad: true},
				{user: admin, text: lit("runs nightly-backup"),
					want: "nightly-backup:\n#1 running · manual · 2026-11-30 02:00 UTC · 0 steps"},
				{user: admin, text: lit("frobnicate now"),
					want: `unknown command "frobnicate"; try help`, bad: true},
			} {
				text := s.text()
				before := teststore.Snapshot(t, e.db)
				e.command(s.user, text)
				eph, reply := e.nextEphemeral()
				if eph.User != s.user || eph.Channel != slacktest.DefaultChannel {
					t.Errorf("step %d %q: reply to %s in %s, want %s in %s",
						i, text, eph.User, eph.Channel, s.user, slacktest.DefaultChannel)
				}
				if !strings.Contains(reply, s.want) {
					t.Errorf("step %d %q by %s: reply\n%s\nwant it to contain\n%s",
						i, text, s.user, reply, s.want)
				}
				if s.bad {
					if strings.Contains(reply, "\n") {
						t.Errorf("step %d %q: the error is not one line: %q", i, text, reply)
					}
					teststore.Unchanged(t, e.db, before)
				}
				if s.then != nil {
					s.then(reply)
				}
			}
			audit, err := e.db.Audit(0)
			if err != nil {
				t.Fatal(err)
			}
			var viaSlack int
			for _, a := range audit {
				if a.Via == "slack" {
					viaSlack++
				}
			}
			// approve, reject, allow, deny, setrule, rmrule, group add, dup, rm, bypass, unbypass.
			if viaSlack != 11 {
				t.Errorf("%d audit entries via slack, want 11", viaSlack)
			}
		})
	}
}

// A long reply (the rules list) is spread over plain_text sections of at most 3000
// characters.
func TestLongReply(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	for i := range 40 {
		tool := "mcp__srv" + strings.Repeat("x", 60) + "__tool" +
			string(rune('a'+i%26)) + string(rune('a'+i/26))
		e.command(admin, "allow "+tool+` note="`+strings.Repeat("n", 90)+`"`)
		if _, reply := e.nextEphemeral(); !strings.HasPrefix(reply, "Created rule") {
			t.Fatalf("reply %q", reply)
		}
	}
	e.command(admin, "rules")
	eph, reply := e.nextEphemeral()
	if n := len(eph.Blocks.BlockSet); n < 3 {
		t.Errorf("%d blocks for a %d-character reply", n, len(reply))
	}
	if !strings.Contains(reply, "… and ") ||
		!strings.Contains(reply, "more (rules <group> lists one group)") {
		t.Errorf("the rules list lost its end: …%s", reply[max(0, len(reply)-200):])
	}
	if strings.Count(reply, "\n")+1 != 51 {
		t.Errorf("%d lines, want 51", strings.Count(reply, "\n")+1)
	}
}

// An ephemeral reply answered 429 waits Retry-After (through the injected Sleep) and
// is sent again, not dropped; five 429s in a row and it is given up on.
func TestRateLimitedReply(t *testing.T) {
	e := newSlackEnv(t, socketMode, envOptions{})
	if err := e.srv.RateLimitNext("chat.postEphemeral", 7); err != nil {
		t.Fatal(err)
	}
	e.command(approver, "whoami")
	if _, reply := e.nextEphemeral(); !strings.Contains(reply, approver) {
		t.Errorf("reply %q", reply)
	}
	if got := e.slept(); len(got) != 1 || got[0] != 7*time.Second {
		t.Errorf("waited %v, want [7s]", got)
	}
	for range 6 {
		if err := e.srv.RateLimitNext("chat.postEphemeral", 1); err != nil {
			t.Fatal(err)
		}
	}
	calls := e.srv.Calls("chat.postEphemeral")
	e.command(approver, "whoami")
	e.stop()
	if n := len(e.srv.Ephemerals()); n != 1 {
		t.Errorf("%d ephemerals, want the first only", n)
	}
	if got := e.srv.Calls("chat.postEphemeral") - calls; got != 6 {
		t.Errorf("%d attempts, want 6", got)
	}
	if got := e.slept(); len(got) != 6 {
		t.Errorf("waited %v, want 1 + 5 waits", got)
	}
}

func lit(s string) func() string { return func() string { return s } }
