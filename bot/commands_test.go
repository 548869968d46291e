package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// fakeJobs is a hand-written Jobs.
type fakeJobs struct {
	runs      map[string][]store.Run
	triggered []string
	fail      error
}

func (j *fakeJobs) List() []string { return []string{"nightly-backup", "weekly-report"} }

func (j *fakeJobs) Trigger(_ context.Context, name string) (store.Run, error) {
	if j.fail != nil {
		return store.Run{}, j.fail
	}
	j.triggered = append(j.triggered, name)
	return store.Run{ID: 9, Job: name, Status: store.RunRunning, Trigger: "manual"}, nil
}

func (j *fakeJobs) Runs(name string, limit int) ([]store.Run, error) {
	rs := j.runs[name]
	return rs[:min(limit, len(rs))], nil
}

func newJobs() *fakeJobs {
	at := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	return &fakeJobs{runs: map[string][]store.Run{
		"nightly-backup": {
			{ID: 7, Job: "nightly-backup", Status: store.RunWaitingApproval, Trigger: "schedule",
				RequestID: 3, StartedAt: at, Steps: make([]store.StepResult, 1)},
			{ID: 6, Job: "nightly-backup", Status: store.RunWaitingApproval, Trigger: "manual",
				ClarificationID: 2, StartedAt: at.Add(-time.Hour),
				Steps: make([]store.StepResult, 1)},
			{ID: 5, Job: "nightly-backup", Status: store.RunFailed, Trigger: "manual",
				StartedAt: at.Add(-24 * time.Hour), Error: "step 2: exit status 1"},
		},
	}}
}

func (e *env) cmd(who Who, line string) Reply {
	e.t.Helper()
	return e.bot.Command(context.Background(), who, line)
}

// ok runs a command that must succeed and returns its text.
func (e *env) ok(who Who, line string, want ...string) string {
	e.t.Helper()
	r := e.cmd(who, line)
	if r.Err != nil {
		e.t.Fatalf("%s: %q, %v", line, r.Text, r.Err)
	}
	for _, w := range want {
		if !strings.Contains(r.Text, w) {
			e.t.Errorf("%s: reply %q does not say %q", line, r.Text, w)
		}
	}
	return r.Text
}

func TestCommandsGood(t *testing.T) {
	jobs := newJobs()
	e := newBotEnv(t, envOptions{jobs: jobs})
	r1 := e.require("s1", "Bash", map[string]any{"command": "make"})
	r2 := e.require("s2", "mcp__gmail__send", map[string]any{"to": "bob"})

	e.ok(stranger, "help", "help — ", "whoami — ",
		"ask an admin to add your id 100000009 to the telegram approvers")
	if txt := e.ok(stranger, "help"); strings.Contains(txt, "approve <id>") {
		t.Errorf("help shows a stranger commands they may not use: %q", txt)
	}
	if txt := e.ok(jane, "/help"); !strings.Contains(txt, "approve <id> [note]") ||
		strings.Contains(txt, "rmrule") {
		t.Errorf("approver's help: %q", txt)
	}
	e.ok(alice, "help", "rmrule <id>", "runs <job>", "admin on telegram")
	e.ok(stranger, "whoami", "Mallory · id 100000009 · telegram · not authorized")
	e.ok(slackBob, "whoami", "bob · id U0FAKEUSR01 · slack · approver")
	e.ok(alice, "WHOAMI", "admin")

	e.ok(jane, "pending", "2 pending:", fmt.Sprintf("#%d Bash: make · admin · session s1", r1.ID),
		fmt.Sprintf("#%d mcp__gmail__send", r2.ID))
	e.ok(jane, fmt.Sprintf(`approve %d "looks fine" see #12`, r1.ID),
		fmt.Sprintf("Request %d (Bash) approved.", r1.ID))
	if got := e.request(r1.ID); got.Resolution.Note != "looks fine see #12" ||
		got.Resolution.By != "Jane Doe (100000001)" || got.Resolution.Via != "telegram" {
		t.Errorf("approve stored %+v", got.Resolution)
	}
	e.ok(slackBob, fmt.Sprintf("reject %d", r2.ID), "rejected")
	e.ok(jane, "pending", "No pending requests.")

	e.ok(alice, "rules default", "#", "default p999999 require *")
	created := e.ok(alice,
		`allow mcp__gmail__* path=docs/* agent=ops source=cron priority=20 note="mail “is” fine"`,
		"Created rule #",
		"default p20 allow mcp__gmail__* path=docs/* agent=ops source=cron — mail is fine")
	var id uint64
	if _, err := fmt.Sscanf(created, "Created rule #%d", &id); err != nil {
		t.Fatal(err)
	}
	e.ok(alice, fmt.Sprintf("setrule %d action=deny priority=30 note=", id),
		fmt.Sprintf("Updated rule #%d default p30 deny mcp__gmail__*", id))
	e.ok(alice, "group add ops Operations team", "Created group ops.")
	e.ok(alice, "require Bash group=ops", "ops p100 require Bash")
	e.ok(alice, "deny * group=ops", "ops p100 deny *")
	e.ok(alice, "groups", "default — Default (", "ops — Operations team (2 rules)")
	e.ok(alice, "group dup ops ops2", "Created group ops2 with 2 rules copied from ops.")
	e.ok(alice, "rules ops2", "ops2 p100 require Bash", "ops2 p100 deny *")
	e.ok(alice, "group rm ops2", "Deleted group ops2 and its 2 rules.")
	e.ok(alice, fmt.Sprintf("rmrule %d", id), fmt.Sprintf("Deleted rule #%d", id))
	if _, err := e.bot.findRule(id); !errors.Is(err, gate.ErrNotFound) {
		t.Errorf("rule %d still there: %v", id, err)
	}

	e.ok(alice, "bypass s9", "Bypass for session s9, scope all, for 15 min (until")
	e.ok(alice, "bypass s9 1h scope=category:shell", "scope category:shell, for 1 h")
	e.ok(alice, "bypass s9 scope=mcp:gmail session", "scope mcp:gmail, for the whole session")
	if n := len(e.g.Bypasses("s9")); n != 3 {
		t.Errorf("session s9 has %d bypasses, want 3", n)
	}
	out, err := e.g.Check(context.Background(), gate.Call{ToolName: "mcp__gmail__send",
		Arguments: map[string]any{}, SessionID: "s9"})
	if err != nil || out.Decision != gate.VerdictAllow {
		t.Errorf("bypassed call: %+v, %v", out, err)
	}
	e.ok(alice, "unbypass s9", "Cleared 3 bypasses of session s9.")
	e.ok(alice, "unbypass s9", "Session s9 has no bypass.")

	// A bypass naming a caller covers that caller's calls only.
	e.ok(alice, "bypass s8 session scope=tool:Bash caller=agent-0123456789ab",
		"Bypass for session s8, scope tool:Bash, caller agent-0123456789ab, "+
			"for the whole session.")
	for caller, want := range map[string]gate.Verdict{
		"agent-0123456789ab": gate.VerdictAllow, "agent-ba9876543210": gate.VerdictPending,
	} {
		call := gate.Call{ToolName: "Bash", SessionID: "s8", Caller: caller}
		out, err := e.g.Check(context.Background(), call)
		if err != nil || out.Decision != want {
			t.Errorf("Bash of %s in s8: %+v, %v; want %s", caller, out, err, want)
		}
	}

	e.ok(alice, "jobs", "nightly-backup · last run #7 waiting_approval · schedule · "+
		"2026-11-30 02:00 UTC · 1 steps · waiting for request 3", "weekly-report · never run")
	e.ok(alice, "run weekly-report", "Started run 9 of weekly-report (running).")
	if len(jobs.triggered) != 1 {
		t.Errorf("triggered %v", jobs.triggered)
	}
	e.ok(alice, "runs nightly-backup", "nightly-backup:", "#5 failed · manual",
		"step 2: exit status 1", "#6 waiting_answer · manual · 2026-11-30 01:00 UTC · "+
			"1 steps · waiting for an answer to question 2")
	e.ok(alice, "runs weekly-report", "weekly-report has not run yet.")

	// The audit log names who did it, through which channel.
	audit, err := e.db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audit[:5] {
		if a.By != "Alice Admin (100000002)" || a.Via != "telegram" {
			t.Errorf("audit entry %+v", a)
		}
	}
}

func TestCommandsNoJobs(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	e.ok(alice, "jobs", "No jobs configured.")
	for _, line := range []string{"run x", "runs x"} {
		if r := e.cmd(alice, line); !errors.Is(r.Err, ErrNoJobs) ||
			r.Text != strings.Fields(line)[0]+": no jobs configured" {
			t.Errorf("%s: %q, %v", line, r.Text, r.Err)
		}
	}
}

// Every bad command gets one clear line and changes nothing.
func TestCommandsBad(t *testing.T) {
	jobs := newJobs()
	e := newBotEnv(t, envOptions{jobs: jobs})
	pend := e.require("s1", "Bash", map[string]any{"command": "make"})
	done := e.require("s2", "Bash", map[string]any{"command": "make"})
	e.resolve(done.ID, gate.Answer{Approve: true, By: "api", Via: "api"})
	catchAll := uint64(0)
	rs, err := e.g.Rules("default")
	testkit.Must(t, err)
	for _, r := range rs {
		if rules.IsCatchAll(r) {
			catchAll = r.ID
		}
	}
	_, err = e.g.SetBypass("s3", "all", 0, "", store.Actor{By: "api", Via: "api"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		who    Who
		line   string
		target error
		text   string
	}{
		{alice, "", ErrUnknownCommand, "no command; try help"},
		{alice, "frobnicate 1", ErrUnknownCommand, `unknown command "frobnicate"; try help`},
		{alice, `allow "Bash`, ErrUsage, "unbalanced quotes"},
		{alice, `allow 'Bash`, ErrUsage, "unbalanced quotes"},
		{alice, `allow Bash\`, ErrUsage, "a backslash at the end of the line"},
		// Roles.
		{stranger, "pending", ErrNotAuthorized, "not authorized: pending needs an approver"},
		{stranger, fmt.Sprintf("approve %d", pend.ID), ErrNotAuthorized,
			"not authorized: approve needs an approver"},
		{jane, "allow Bash", ErrNotAuthorized, "not authorized: allow needs an admin"},
		{jane, "rules", ErrNotAuthorized, "not authorized: rules needs an admin"},
		{jane, "group add x", ErrNotAuthorized, "not authorized"},
		{jane, "bypass s1", ErrNotAuthorized, "not authorized"},
		{slackBob, "run nightly-backup", ErrNotAuthorized, "not authorized"},
		{Who{ID: alice.ID, Name: alice.Name, Channel: "slack"}, "rmrule 1", ErrNotAuthorized,
			"not authorized"},
		// Arguments.
		{alice, "help me", ErrUsage, "help: too many arguments; usage: help"},
		{alice, "pending now", ErrUsage, "pending: too many arguments"},
		{jane, "approve", ErrUsage, "approve: missing arguments; usage: approve <id> [note]"},
		{jane, "approve x", ErrUsage, `approve: bad id: id "x" is not a number`},
		{jane, "approve 0", ErrUsage, "id 0 does not exist"},
		{jane, "approve -3", ErrUsage, "is not a number"},
		{jane, "approve 99999", gate.ErrNotFound, "approve: request 99999 not found"},
		{jane, fmt.Sprintf("reject %d", done.ID), gate.ErrAlreadyResolved,
			fmt.Sprintf("reject: request %d is already approved by api via api", done.ID)},
		{alice, "rules nosuch", gate.ErrUnknownGroup, `rules: unknown group "nosuch"; see groups`},
		{alice, "rules a b", ErrUsage, "too many arguments"},
		{alice, "allow", ErrUsage, "allow: missing arguments"},
		{alice, "allow path=x", ErrUsage, "missing tool pattern"},
		{alice, "allow a*b", gate.ErrInvalidRule, `allow: tool_pattern "a*b": `},
		{alice, "deny *x*", gate.ErrInvalidRule, `tool_pattern "*x*"`},
		{alice, "allow Bash colour=red", ErrUsage,
			`allow: unknown key "colour" ` +
				`(want path, command, host, agent, source, priority, group, note)`},
		{alice, "allow Bash path=a path=b", ErrUsage, `key "path" given twice`},
		{alice, "allow Bash stray", ErrUsage, `"stray" is not key=value`},
		{alice, "allow Bash priority=high", ErrUsage, `priority "high" is not a whole number`},
		{alice, "allow Bash priority=-1", gate.ErrInvalidRule,
			"priority -1: must be between 0 and 999999"},
		{alice, "allow Bash priority=1000000", gate.ErrInvalidRule, "priority 1000000"},
		{alice, "allow Bash path=a*b", gate.ErrInvalidRule, `path_pattern "a*b"`},
		{alice, `allow Read command="ls *"`, gate.ErrInvalidRule,
			`command_pattern "ls *": ` +
				`only applies to the shell tools (Bash, execute_cmd), not "Read"`},
		{alice, fmt.Sprintf(`setrule %d command="ls *"`, catchAll), gate.ErrInvalidRule,
			`command_pattern "ls *": needs a tool_pattern naming a shell tool, not "*"`},
		{alice, `allow Bash host="example.com"`, gate.ErrInvalidRule,
			`allow: host_pattern "example.com": ` +
				`only applies to the web tools (WebFetch), not "Bash"`},
		{alice, `allow WebFetch host="https://example.com/"`, gate.ErrInvalidRule,
			`host_pattern "https://example.com/": ` +
				`must be a host name alone: no scheme, port, path or user`},
		{alice, fmt.Sprintf(`setrule %d host="*.example.com"`, catchAll), gate.ErrInvalidRule,
			`host_pattern "*.example.com": needs a tool_pattern naming a web tool, not "*"`},
		{alice, "allow Bash group=nosuch", gate.ErrUnknownGroup, `allow: unknown group "nosuch"`},
		{alice, "allow * group=default", rules.ErrCatchAll,
			fmt.Sprintf("allow: group default already has a catch-all (rule %d); edit that one",
				catchAll)},
		{alice, "rmrule", ErrUsage, "rmrule: missing arguments"},
		{alice, "rmrule 1 2", ErrUsage, "too many arguments"},
		{alice, "rmrule abc", ErrUsage, "bad id"},
		{alice, "rmrule 99999", gate.ErrNotFound, "rmrule: rule 99999 not found"},
		{alice, "setrule 99999 note=x", gate.ErrNotFound, "setrule: rule 99999 not found"},
		{alice, fmt.Sprintf("setrule %d", catchAll), ErrUsage, "setrule: missing arguments"},
		{alice, fmt.Sprintf("setrule %d colour=red", catchAll), ErrUsage, `unknown key "colour"`},
		{alice, fmt.Sprintf("setrule %d action=maybe", catchAll), gate.ErrInvalidRule,
			`action "maybe": must be allow, deny or require`},
		{alice, fmt.Sprintf("setrule %d priority=1e3", catchAll), ErrUsage, "not a whole number"},
		{alice, fmt.Sprintf("setrule %d group=nosuch", catchAll), gate.ErrUnknownGroup,
			`unknown group "nosuch"`},
		{alice, fmt.Sprintf("setrule %d tool=a*b", catchAll), gate.ErrInvalidRule,
			`tool_pattern "a*b"`},
		{alice, "groups x", ErrUsage, "too many arguments"},
		{alice, "group", ErrUsage, "group: missing add, dup or rm; usage: group add <id> [name]"},
		{alice, "group move a b", ErrUsage, `unknown "move"`},
		{alice, "group add", ErrUsage, "missing group id"},
		{alice, "group add default", gate.ErrExists, `group "default" already exists`},
		{alice, "group add Bad!", gate.ErrInvalid,
			`group id "Bad!" must be lower-case letters, digits, _ and -`},
		{alice, "group dup nosuch x", gate.ErrNotFound, `group "nosuch" not found`},
		{alice, "group dup default default", gate.ErrExists, `group "default" already exists`},
		{alice, "group dup default", ErrUsage, "missing group ids"},
		{alice, "group rm default", gate.ErrProtected, "the default group cannot be deleted"},
		{alice, "group rm nosuch", gate.ErrUnknownGroup, `group "nosuch" not found`},
		{alice, "group rm a b", ErrUsage, "want one group id"},
		{alice, "bypass", ErrUsage, "bypass: missing arguments"},
		{alice, "bypass s1 forever", ErrUsage, `bad length "forever": want 15m, 1h, session`},
		{alice, "bypass s1 0s", ErrUsage, "bad length"},
		{alice, "bypass s1 1.5s", ErrUsage, "bad length"},
		{alice, "bypass s1 -5m", ErrUsage, "bad length"},
		{alice, "bypass s1 15m 1h", ErrUsage, "length given twice"},
		{alice, "bypass s1 scope=everything", gate.ErrInvalidScope, `bad scope "everything"`},
		{alice, "bypass s1 scope=category:", gate.ErrInvalidScope, "bad scope"},
		{alice, "bypass s1 scope=all scope=all", ErrUsage, "scope given twice"},
		{alice, "bypass s1 for=1h", ErrUsage, `unknown key "for"`},
		{alice, "bypass s1 1h scope=all caller=admin extra", ErrUsage, "too many arguments"},
		{alice, `bypass ""`, gate.ErrNoSession, "bad session"},
		{alice, "bypass s1 caller=agent-XYZ", ErrUsage, `bad caller "agent-XYZ"`},
		{alice, "bypass s1 caller=admin caller=local", ErrUsage, "caller given twice"},
		{alice, "unbypass", ErrUsage, "missing arguments"},
		{alice, "run", ErrUsage, "run: missing arguments"},
		{alice, "run nosuch", ErrUnknownJob, `run: unknown job "nosuch"; see jobs`},
		{alice, "runs nosuch", ErrUnknownJob, "unknown job"},
		{alice, "runs a b", ErrUsage, "too many arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			before := teststore.Snapshot(t, e.db)
			bypasses := len(e.g.Bypasses("s1")) + len(e.g.Bypasses("s3"))
			r := e.cmd(tc.who, tc.line)
			if !errors.Is(r.Err, tc.target) {
				t.Errorf("%q by %s: error %v, want %v", tc.line, tc.who.Name, r.Err, tc.target)
			}
			if !strings.Contains(r.Text, tc.text) || strings.Contains(r.Text, "\n") {
				t.Errorf("%q: reply %q, want one line saying %q", tc.line, r.Text, tc.text)
			}
			for _, internal := range []string{"gate: ", "store: ", " rules: "} {
				if strings.Contains(r.Text, internal) {
					t.Errorf("%q: reply %q shows the error chain", tc.line, r.Text)
				}
			}
			teststore.Unchanged(t, e.db, before)
			if n := len(e.g.Bypasses("s1")) + len(e.g.Bypasses("s3")); n != bypasses {
				t.Errorf("%q: bypasses changed", tc.line)
			}
		})
	}
	if len(jobs.triggered) != 0 {
		t.Errorf("a bad command triggered %v", jobs.triggered)
	}
	if got := e.request(pend.ID); got.Status != store.Pending {
		t.Errorf("request %d is %s", pend.ID, got.Status)
	}
}

func TestCommandTriggerError(t *testing.T) {
	jobs := newJobs()
	jobs.fail = errors.New("nightly-backup is running and its overlap is skip")
	e := newBotEnv(t, envOptions{jobs: jobs})
	r := e.cmd(alice, "run nightly-backup")
	if r.Err == nil || r.Text != "run: nightly-backup is running and its overlap is skip" {
		t.Errorf("%q, %v", r.Text, r.Err)
	}
}

func TestSplitLine(t *testing.T) {
	cases := map[string][]string{
		`approve 7 see #12`:                  {"approve", "7", "see", "#12"},
		`allow Bash note="a # b" path='x #'`: {"allow", "Bash", "note=a # b", "path=x #"},
		`a "it's" 'say "hi"'`:                {"a", "it's", `say "hi"`},
		`a \#1 x\ y`:                         {"a", "#1", "x y"},
		"a “curly quoted” b":                 {"a", "curly quoted", "b"},
		"  spaced\tout\n":                    {"spaced", "out"},
		`#hash first`:                        {"#hash", "first"},
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			got, err := splitLine(in)
			if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("splitLine(%q) = %q, %v; want %q", in, got, err, want)
			}
		})
	}
}

// FuzzCommand checks that no command line makes Command panic, and that every error
// reply is one line (seed corpus: every admin command).
func FuzzCommand(f *testing.F) {
	for _, c := range commands {
		f.Add(c.usage)
	}
	for _, s := range []string{`allow "x`, "approve 1 \\", "group add a b c",
		"bypass s 15m scope=all", "setrule 1 a=b=c", "\x00", "/help@bot"} {
		f.Add(s)
	}
	e := newBotEnv(f, envOptions{jobs: newJobs()})
	f.Fuzz(func(t *testing.T, line string) {
		r := e.bot.Command(context.Background(), alice, line)
		if r.Err != nil && strings.Contains(r.Text, "\n") {
			t.Fatalf("%q: multi-line error %q", line, r.Text)
		}
	})
}

// TestPrecedenceNote: allow, deny, require and setrule warn when an earlier rule with
// another action, without filters, already decides every call the new rule matches —
// in its own tier, or, for a default rule, in a group's tier — and say nothing
// otherwise.
func TestPrecedenceNote(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	ruleFor := func(group, tool string, action rules.Action) rules.Rule {
		t.Helper()
		rs, err := e.g.Rules(group)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.ToolPattern == tool && r.Action == action && r.PathPattern == "" {
				return r
			}
		}
		t.Fatalf("no %s %s rule in %s", action, tool, group)
		return rules.Rule{}
	}
	seeded := ruleFor(rules.DefaultGroup, "Bash", rules.Require)
	// New stores seed it at 1000, after command rules at the default priority; a
	// store seeded earlier has it at 10.
	if seeded.Priority != 1000 {
		t.Fatalf("seeded %+v, want priority 1000", seeded)
	}
	if txt := e.ok(alice, `allow Bash command="git status *"`,
		`default p100 allow Bash command="git status *"`); strings.Contains(txt, "Note:") {
		t.Errorf("a command rule before the seeded require got a note: %q", txt)
	}
	e.ok(alice, `allow WebFetch host="*.example.com"`,
		`default p100 allow WebFetch host="*.example.com"`)
	e.ok(alice, "rules", `allow WebFetch host="*.example.com"`)
	e.ok(alice, fmt.Sprintf("setrule %d priority=10", seeded.ID))
	e.ok(alice, `allow Bash command="go test *"`, `default p100 allow Bash command="go test *"`,
		fmt.Sprintf("Note: rule %d (require Bash, priority 10) comes first for Bash; "+
			"use priority=9", seeded.ID))
	note := fmt.Sprintf("Note: rule %d (require Bash, priority 10) comes first for Bash; "+
		"use priority=9 to take precedence.", seeded.ID)

	txt := e.ok(alice, "deny Bash", "Created rule #", "default p100 deny Bash\n"+note)
	if strings.Count(txt, "Note:") != 1 {
		t.Errorf("one note expected: %q", txt)
	}
	// The same action is no surprise.
	if txt := e.ok(alice, "require Bash priority=50"); strings.Contains(txt, "Note:") {
		t.Errorf("same action got a note: %q", txt)
	}
	if txt := e.ok(alice, "deny Bash priority=5"); strings.Contains(txt, "Note:") {
		t.Errorf("a rule that comes first got a note: %q", txt)
	}
	// A filtered earlier rule does not decide every call.
	e.ok(alice, "allow Bash agent=ci priority=1")
	if txt := e.ok(alice, "deny Bash path=build/* priority=3"); strings.Contains(txt, "Note:") {
		t.Errorf("only filtered rules come first, yet a note: %q", txt)
	}

	// A group's own rule decides that group's calls before default.
	e.ok(alice, "group add ci")
	ciBash := e.ok(alice, "allow Ba* group=ci", "ci p100 allow Ba*")
	var ciID uint64
	fmt.Sscanf(ciBash, "Created rule #%d", &ciID)
	e.ok(alice, "deny Bash priority=4",
		fmt.Sprintf("Note: for calls in group ci, rule %d (allow Ba*) comes first.", ciID))

	// setrule says it too; priority 0 cannot be beaten.
	e.ok(alice, fmt.Sprintf("setrule %d priority=0", seeded.ID))
	mcp := e.ok(alice, "deny mcp__gmail__*")
	var mcpID uint64
	fmt.Sscanf(mcp, "Created rule #%d", &mcpID)
	e.ok(alice, "allow mcp__* priority=0 group=ci")
	e.ok(alice, "require mcp__* priority=0")
	e.ok(alice, fmt.Sprintf("setrule %d priority=7", mcpID),
		fmt.Sprintf("Updated rule #%d default p7 deny mcp__gmail__*", mcpID),
		"comes first for mcp__gmail__*; change or remove rule", "for calls in group ci, rule")
}

// The pending list shows who asked, and caller text escaped as the prompts show it.
func TestPendingShowsCallerEscaped(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	out, err := e.g.Check(context.Background(), gate.Call{ToolName: "mcp__n\u043etes__list",
		SessionID: "s\u202e1", AgentID: "rev", Caller: "agent-1a2b3c4d5e6f", Profile: "default"})
	if err != nil || out.Decision != gate.VerdictPending {
		t.Fatalf("Check = %+v, %v", out, err)
	}
	e.ok(jane, "pending", fmt.Sprintf("#%d mcp__n\\u043Etes__list ⚠ non-ASCII · "+
		"agent token agent-1a2b3c4d5e6f (profile default, agent rev) · "+
		"session s\\u202E1 · expires ",
		out.Request.ID))
}

// The pending list says what each call does: a shell call's commands, another tool's
// path or URL, escaped and cut in the middle as the prompts show them.
func TestPendingShowsWhatTheCallDoes(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	long := "echo " + strings.Repeat("a", 200) + " && rm -rf data"
	ids := []uint64{
		e.require("s1", "Bash", map[string]any{"command": "git status && rm -rf\u202e build"}).ID,
		e.require("s2", "Bash", map[string]any{"command": long}).ID,
		e.require("s3", "mcp__web__fetch",
			map[string]any{"url": "https://example.com/<b>x</b>"}).ID,
		e.require("s4", "mcp__notes__list", map[string]any{"paths": []any{"a", "b\u0007"}}).ID,
		e.require("s5", "mcp__gmail__send", map[string]any{"to": "bob"}).ID,
	}
	txt := e.ok(jane, "pending",
		fmt.Sprintf("#%d Bash: git status; rm -rf\\u202E build · ", ids[0]),
		fmt.Sprintf("#%d Bash: echo aaaa", ids[1]),
		"characters cut]…aaaa", "a; rm -rf data · admin",
		fmt.Sprintf("#%d mcp__web__fetch: https://example.com/<b>x</b> · ", ids[2]),
		fmt.Sprintf("#%d mcp__notes__list: a, b\\u0007 · ", ids[3]),
		fmt.Sprintf("#%d mcp__gmail__send · ", ids[4]))
	if strings.Contains(txt, "\u202e") || strings.Contains(txt, "\a") {
		t.Errorf("pending shows a raw control character: %q", txt)
	}
}
