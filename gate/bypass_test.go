package gate_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestBypassOnApprovalWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newGateEnv(t)
		stop := e.run()
		defer stop()
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1"})
		secs := int64(15 * 60)
		res, err := e.m.Resolve(context.Background(), r.ID,
			gate.Answer{Approve: true, By: "alice", Via: "telegram", BypassSecs: &secs})
		if err != nil {
			t.Fatal(err)
		}
		if g := res.Resolution.Bypass; g == nil || g.Scope != "category:shell" || g.Secs != secs {
			t.Errorf("stored bypass %+v, want category:shell for 900 s", g)
		}
		want := []gate.Bypass{{SessionID: "s1", Scope: "category:shell", Caller: store.CallerAdmin,
			RequestID: r.ID, Profile: "default", ExpiresAt: time.Now().Add(15 * time.Minute)}}
		if got := e.m.Bypasses("s1"); testkit.JSON(got) != testkit.JSON(want) {
			t.Errorf("Bypasses = %v, want %v", got, want)
		}

		calls := []struct {
			call gate.Call
			want gate.Verdict // during the window
		}{
			{gate.Call{ToolName: "Bash", SessionID: "s1"}, gate.VerdictAllow},
			// The same category.
			{gate.Call{ToolName: "execute_cmd", SessionID: "s1"}, gate.VerdictAllow},
			// A sent category is only claimed.
			{gate.Call{ToolName: "mcp__gmail__send", SessionID: "s1", Category: "shell"},
				gate.VerdictPending},
			{gate.Call{ToolName: "write_file", SessionID: "s1", Category: "shell",
				Arguments: map[string]any{"path": "src/a"}}, gate.VerdictPending},
			{gate.Call{ToolName: "Bash", SessionID: "s2"}, gate.VerdictPending},
		}
		for _, c := range calls {
			out := e.check(c.call)
			if out.Decision != c.want {
				t.Errorf("%s in %s during the window: %s, want %s",
					c.call.ToolName, c.call.SessionID, out.Decision, c.want)
			}
			if c.want == gate.VerdictAllow && out.Reason != gate.ReasonBypass {
				t.Errorf("%s: reason %q", c.call.ToolName, out.Reason)
			}
		}
		time.Sleep(15*time.Minute - time.Second)
		bash := gate.Call{ToolName: "Bash", SessionID: "s1"}
		if out := e.check(bash); out.Decision != gate.VerdictAllow {
			t.Errorf("Bash a second before the window ends: %s", out.Decision)
		}
		time.Sleep(time.Second)
		if out := e.check(bash); out.Decision != gate.VerdictPending {
			t.Errorf("Bash after 15 min: %s, want pending", out.Decision)
		}
		if bs := e.m.Bypasses("s1"); bs != nil {
			t.Errorf("expired bypass not pruned: %v", bs)
		}
	})
}

func TestBypassScopesAndSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newGateEnv(t)
		ctx := context.Background()
		// Default scopes: the configured category, else MCP server, else the tool.
		for _, c := range []struct {
			call  gate.Call
			scope string
		}{
			{gate.Call{ToolName: "mcp__gmail__send", SessionID: "a"}, "mcp:gmail"},
			{gate.Call{ToolName: "frobnicate", SessionID: "b"}, "tool:frobnicate"},
			// A sent category is only claimed.
			{gate.Call{ToolName: "frobnicate", SessionID: "c", Category: "misc"},
				"tool:frobnicate"},
		} {
			r := e.require(c.call)
			zero := int64(0)
			a := gate.Answer{Approve: true, By: "alice", Via: "slack", BypassSecs: &zero}
			if _, err := e.m.Resolve(ctx, r.ID, a); err != nil {
				t.Fatal(err)
			}
			bs := e.m.Bypasses(c.call.SessionID)
			if len(bs) != 1 || bs[0].Scope != c.scope || !bs[0].ExpiresAt.IsZero() {
				t.Errorf("%s: bypasses %v, want %s for the session", c.call.ToolName, bs, c.scope)
			}
		}
		time.Sleep(1000 * time.Hour) // a session bypass does not expire
		for _, c := range []struct {
			call gate.Call
			want gate.Verdict
		}{
			{gate.Call{ToolName: "mcp__gmail__read", SessionID: "a"}, gate.VerdictAllow},
			{gate.Call{ToolName: "mcp__gmailx__read", SessionID: "a"}, gate.VerdictPending},
			{gate.Call{ToolName: "frobnicate", SessionID: "b"}, gate.VerdictAllow},
			{gate.Call{ToolName: "frobnicate2", SessionID: "b"}, gate.VerdictPending},
			{gate.Call{ToolName: "other", SessionID: "c", Category: "misc"}, gate.VerdictPending},
			{gate.Call{ToolName: "frobnicate", SessionID: "c"}, gate.VerdictAllow},
		} {
			if out := e.check(c.call); out.Decision != c.want {
				t.Errorf("%s in %s: %s, want %s",
					c.call.ToolName, c.call.SessionID, out.Decision, c.want)
			}
		}
		// An explicit scope on approval.
		r := e.require(gate.Call{ToolName: "Bash", SessionID: "d"})
		secs := int64(60)
		a := gate.Answer{Approve: true, By: "alice", Via: "slack", BypassSecs: &secs,
			BypassScope: "all"}
		if _, err := e.m.Resolve(ctx, r.ID, a); err != nil {
			t.Fatal(err)
		}
		out := e.check(gate.Call{ToolName: "anything", SessionID: "d"})
		if out.Decision != gate.VerdictAllow {
			t.Errorf("scope all: %s", out.Decision)
		}
		// A rejection grants nothing.
		r = e.require(gate.Call{ToolName: "Bash", SessionID: "e"})
		_, err := e.m.Resolve(ctx, r.ID, gate.Answer{By: "alice", Via: "slack", BypassSecs: &secs})
		if err != nil {
			t.Fatal(err)
		}
		if bs := e.m.Bypasses("e"); bs != nil {
			t.Errorf("a rejection granted %v", bs)
		}
	})
}

func TestDenyNeverBypassed(t *testing.T) {
	e := newGateEnv(t)
	if _, err := e.m.SetBypass("s1", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1"})
	if out.Decision != gate.VerdictAllow {
		t.Errorf("Bash with bypass all: %s", out.Decision)
	}
	for _, path := range []string{"secrets/key", "memory/../secrets/key", e.dir + "/state/x"} {
		out := e.check(gate.Call{ToolName: "read_file", SessionID: "s1",
			Arguments: map[string]any{"path": path}})
		if out.Decision != gate.VerdictDeny {
			t.Errorf("read_file %s with bypass all: %s, want deny", path, out.Decision)
		}
	}
}

// TestBlindScriptNeverBypassed: a script the gate cannot see into (it does not
// parse, an sh -c script that is not literal) asks a human even under a bypass of
// every call, while a script it reads is bypassed.
func TestBlindScriptNeverBypassed(t *testing.T) {
	e := newGateEnv(t)
	if _, err := e.m.SetBypass("s1", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	bash := func(script string) gate.Outcome {
		return e.check(gate.Call{ToolName: "Bash", SessionID: "s1",
			Arguments: map[string]any{"command": script}})
	}
	if out := bash("echo hi"); out.Decision != gate.VerdictAllow {
		t.Errorf("echo hi with bypass all: %+v, want allow", out)
	}
	for _, script := range []string{"cat \xe0/../secrets/key", `bash -c "$X"`,
		"echo 'cat secrets/key' | bash"} {
		out := bash(script)
		if out.Decision != gate.VerdictPending || out.Request == nil {
			t.Errorf("Bash %q with bypass all: %+v, want pending", script, out)
		}
	}
}

// TestSetBypassRefused: a bypass without a session, with a bad duration or scope, and
// a clear without a session are refused with a clear error, and change nothing.
func TestSetBypassRefused(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		session, scope string
		secs           int64
		target         error
		says           string
	}{
		{"", "all", 0, gate.ErrNoSession, "session id is required"},
		{"s1", "all", -1, gate.ErrInvalidBypass, "-1 seconds is negative"},
		{"s1", "all", math.MaxInt64, gate.ErrInvalidBypass, "invalid bypass: " +
			"9223372036854775807 seconds is more than 31622400 (366 days); " +
			"use 0 for the whole session"},
		{"s1", "all", gate.MaxBypassSecs + 1, gate.ErrInvalidBypass,
			"31622401 seconds is more than 31622400"},
		{"s1", "", 0, gate.ErrInvalidScope, `invalid bypass scope ""`},
		{"s1", "everything", 0, gate.ErrInvalidScope,
			`"everything": want all, category:<name>, mcp:<server> or tool:<name>`},
		{"s1", "mcp:", 0, gate.ErrInvalidScope, `"mcp:"`},
		{"s1", "path:secrets", 0, gate.ErrInvalidScope, `"path:secrets"`},
	} {
		t.Run(c.says, func(t *testing.T) {
			_, err := e.m.SetBypass(c.session, c.scope, c.secs, "", admin)
			testkit.WantErr(t, err, c.target, "gate: set bypass", c.says)
		})
	}
	testkit.WantErr(t, e.m.ClearBypass("", admin), gate.ErrNoSession, "gate: clear bypass")
	if err := e.m.ClearBypass("s1", admin); err != nil { // nothing to clear: writes nothing
		t.Fatal(err)
	}
	teststore.Unchanged(t, e.db, before)
	if bs := e.m.Bypasses("s1"); bs != nil {
		t.Errorf("refused bypasses granted %v", bs)
	}
}

func TestSetAndClearBypass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newGateEnv(t)
		// The longest bypass ends 366 days from now, not in the past.
		b, err := e.m.SetBypass("s2", "all", gate.MaxBypassSecs, "", admin)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Now().Add(366 * 24 * time.Hour); !b.ExpiresAt.Equal(want) ||
			len(e.m.Bypasses("s2")) != 1 {
			t.Errorf("SetBypass(MaxBypassSecs) = %+v, want it to end at %s", b, want)
		}
		b, err = e.m.SetBypass("s1", "tool:Bash", 3600, "", admin)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Now().Add(time.Hour); !b.ExpiresAt.Equal(want) || b.Scope != "tool:Bash" {
			t.Errorf("SetBypass = %+v", b)
		}
		// The same scope again replaces it.
		if _, err := e.m.SetBypass("s1", "tool:Bash", 60, "", admin); err != nil {
			t.Fatal(err)
		}
		bs := e.m.Bypasses("s1")
		if len(bs) != 1 || !bs[0].ExpiresAt.Equal(time.Now().Add(time.Minute)) {
			t.Errorf("after replacing: %v", bs)
		}
		if err := e.m.ClearBypass("s1", admin); err != nil {
			t.Fatal(err)
		}
		if bs := e.m.Bypasses("s1"); bs != nil {
			t.Errorf("after clearing: %v", bs)
		}
		out := e.check(gate.Call{ToolName: "Bash", SessionID: "s1"})
		if out.Decision != gate.VerdictPending {
			t.Errorf("Bash after clearing: %s", out.Decision)
		}
		es, err := e.db.Audit(0)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct{ action, detail string }{
			{gate.AuditBypassCleared, "session s1"},
			{gate.AuditBypassGranted, "session s1 scope tool:Bash for 60 s"},
			{gate.AuditBypassGranted, "session s1 scope tool:Bash for 3600 s"},
		}
		for i, w := range want {
			if es[i].Action != w.action || es[i].Detail != w.detail ||
				es[i].By != "alice" || es[i].Via != "telegram" {
				t.Errorf("audit entry %d: %+v, want %s %q by alice", i, es[i], w.action, w.detail)
			}
		}
	})
}

// failingAudit refuses audit entries, to show SetBypass grants nothing it cannot audit.
type failingAudit struct{ *store.DB }

func (failingAudit) AppendAudit(...store.AuditEntry) error { return store.ErrClosed }

func TestBypassNotGrantedWhenAuditFails(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) { o.Store = failingAudit{o.Store.(*store.DB)} })
	_, err := e.m.SetBypass("s1", "all", 0, "", admin)
	testkit.WantErr(t, err, store.ErrClosed, "gate: set bypass s1")
	if bs := e.m.Bypasses("s1"); bs != nil {
		t.Errorf("granted %v without an audit entry", bs)
	}
}

func TestAllBypasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newGateEnv(t)
		if bs := e.m.AllBypasses(); bs != nil {
			t.Errorf("AllBypasses of a new gate = %v, want none", bs)
		}
		for _, b := range []struct {
			session, scope string
			secs           int64
		}{
			{"s2", "all", 0}, {"s1", "tool:Bash", 60},
			{"s1", "tool:Read", 3600}, {"s3", "all", 60},
		} {
			if _, err := e.m.SetBypass(b.session, b.scope, b.secs, "", admin); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Minute) // synctest's fake clock: the 60 s bypasses end
		var got []string
		for _, b := range e.m.AllBypasses() {
			got = append(got, b.SessionID+" "+b.Scope)
		}
		if want := []string{"s1 tool:Read", "s2 all"}; !slices.Equal(got, want) {
			t.Errorf("AllBypasses = %q, want %q (by session, expired ones pruned)", got, want)
		}
		if bs := e.m.Bypasses("s3"); bs != nil {
			t.Errorf("expired bypass of s3 kept: %v", bs)
		}
	})
}

// TestNeedsHumanNeverBypassed: a write to the gate's own wiring (rules.Options
// NeedsHuman: Claude Code's settings) asks a human under a bypass of every call,
// while reading it is bypassed.
func TestNeedsHumanNeverBypassed(t *testing.T) {
	var settings string
	e := newGateEnv(t, func(o *gate.Options) {
		settings = o.Rules.WorkspaceRoot + "/.claude/settings.json"
		o.Rules.NeedsHuman = []string{settings}
	})
	if _, err := e.m.SetBypass("s1", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, arg, val string
		want           gate.Verdict
	}{
		{"Write", "file_path", ".claude/settings.json", gate.VerdictPending},
		{"Write", "file_path", settings, gate.VerdictPending},
		{"Bash", "command", "echo '{}' > .claude/settings.json", gate.VerdictPending},
		// No .claude yet: a link made there would hold the settings file.
		{"Bash", "command", "ln -s src .claude", gate.VerdictPending},
		{"Read", "file_path", ".claude/settings.json", gate.VerdictAllow},
		{"Write", "file_path", "src/x.go", gate.VerdictAllow},
	} {
		t.Run(c.tool+" "+c.val, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: c.tool, SessionID: "s1",
				Arguments: map[string]any{c.arg: c.val}})
			if out.Decision != c.want {
				t.Errorf("%+v, want %s", out, c.want)
			}
		})
	}
}

// TestNeedsHumanGitWrites: git commands that write the work tree are writes of what
// they name, or of the repository's top, so under a Bash bypass git restore .claude
// and git checkout BRANCH ask a human, the reason naming the settings file, while a
// command rule still allows git status there.
func TestNeedsHumanGitWrites(t *testing.T) {
	var settings string
	e := newGateEnv(t, func(o *gate.Options) {
		settings = o.Rules.WorkspaceRoot + "/src/.claude/settings.json"
		o.Rules.NeedsHuman = []string{settings}
	})
	testkit.Files(t, e.root, "src/.claude/settings.json", "src/.git/HEAD")
	rule, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
		CommandPattern: "git status", Action: rules.Allow, Priority: rules.DefaultPriority},
		admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.SetBypass("s1", "tool:Bash", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	const place = "writes a place that needs a human: src/.claude/settings.json"
	for _, c := range []struct {
		session, cmd string
		want         gate.Verdict
		reason       string
	}{
		{"s1", "git restore .claude", gate.VerdictPending,
			`write ".claude" of command "git restore .claude" ` + place},
		{"s1", "git checkout main", gate.VerdictPending,
			`the work tree of command "git checkout main" ` + place},
		{"s1", "git rm -r --cached .claude", gate.VerdictAllow, gate.ReasonBypass},
		{"s2", "git status", gate.VerdictAllow, `command "git status" allowed by rule`},
	} {
		t.Run(c.session+" "+c.cmd, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: "Bash", SessionID: c.session,
				Cwd: e.root + "/src", Arguments: map[string]any{"command": c.cmd}})
			if out.Decision != c.want || !strings.Contains(out.Reason, c.reason) {
				t.Errorf("%+v, want %s with %q", out, c.want, c.reason)
			}
			if c.session == "s2" && out.RuleID != rule.ID {
				t.Errorf("rule %d, want %d", out.RuleID, rule.ID)
			}
		})
	}
}
