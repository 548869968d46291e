package gate_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/testgate"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestCheckAllowAndDenyReadNoStoreAndRegisterNothing(t *testing.T) {
	e := newGateEnv(t)
	stop := e.run()
	out := e.check(gate.Call{ToolName: "write_todos", SessionID: "s1"})
	if out.Decision != gate.VerdictAllow || out.RuleID == 0 || out.Request != nil {
		t.Errorf("write_todos: %+v, want allow by a seeded rule", out)
	}
	out = e.check(gate.Call{ToolName: "read_file", SessionID: "s1", AgentID: "coder",
		Source: "web", Arguments: map[string]any{"path": "docs/../secrets/key"}})
	if out.Decision != gate.VerdictDeny || out.RuleID == 0 {
		t.Errorf("read_file secrets/key: %+v, want deny", out)
	}
	out = e.check(gate.Call{ToolName: "read_file", SessionID: "s1",
		Arguments: map[string]any{"path": e.dir + "/state/skald.db"}})
	if out.Decision != gate.VerdictDeny || out.Reason != rules.ReasonProtected {
		t.Errorf("read_file of the protected data dir: %+v, want deny (protected)", out)
	}
	stop() // flushes the batcher
	if p, err := e.m.Pending(); err != nil || len(p) != 0 {
		t.Errorf("pending after allow and deny: %v (err %v)", p, err)
	}
	es, err := e.db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	var denies []store.AuditEntry
	for _, a := range es {
		if a.Action == gate.AuditDenied {
			denies = append(denies, a)
		}
	}
	if len(denies) != 2 {
		t.Fatalf("deny audit entries: %+v, want 2", denies)
	}
	last := denies[1] // newest first: the first deny is the second entry
	if last.By != "coder" || last.Via != "web" || last.RuleID == 0 {
		t.Errorf("deny audit entry %+v, want by coder via web with the rule", last)
	}
}

func TestCheckBadInput(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "dev", SecurityGroup: "devs"}}
	})
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		call   gate.Call
		target error
		says   string
	}{
		{gate.Call{SessionID: "s"}, gate.ErrInvalidCall, "tool_name is required"},
		{gate.Call{ToolName: "Bash", Group: "nope"}, gate.ErrUnknownGroup, `group "nope"`},
		{gate.Call{ToolName: "Bash", Profile: "nope"}, gate.ErrUnknownProfile, `profile "nope"`},
		{gate.Call{ToolName: "Bash", Arguments: map[string]any{"x": make(chan int)}},
			gate.ErrInvalidCall, "arguments"},
	} {
		t.Run(c.says, func(t *testing.T) {
			out, err := e.m.Check(context.Background(), c.call)
			testkit.WantErr(t, err, c.target, "gate: check", c.says)
			if out.Decision != "" {
				t.Errorf("Check(%+v) answered %q with its error", c.call, out.Decision)
			}
		})
	}
	teststore.Unchanged(t, e.db, before)
	if e.notes.shows() != 0 {
		t.Errorf("a refused call was shown")
	}
}

func TestCheckGroupChoice(t *testing.T) {
	// The call's group, else its profile's security group, else default.
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "dev", SecurityGroup: "devs"}}
	})
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "devs", ToolPattern: "Bash",
		Action: rules.Allow, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	if err := e.m.CreateGroup(rules.Group{ID: "ops", Name: "Ops"}, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "ops", ToolPattern: "Bash",
		Action: rules.Deny, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group, profile string
		want           gate.Verdict
	}{
		{"", "dev", gate.VerdictAllow},
		{"ops", "dev", gate.VerdictDeny},
		{"ops", "", gate.VerdictDeny},
		{"", "", gate.VerdictPending},
	} {
		t.Run(c.group, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: "Bash", SessionID: "s", Group: c.group,
				Profile: c.profile})
			if out.Decision != c.want {
				t.Errorf("group %q profile %q: %s, want %s",
					c.group, c.profile, out.Decision, c.want)
			}
		})
	}
}

func TestRequirePersistsBeforeNotify(t *testing.T) {
	e := newGateEnv(t)
	events, unsubscribe := e.m.Subscribe(10)
	defer unsubscribe()
	e.run()
	r := e.require(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1",
		AgentID: "coder", Source: "claude-code", ContextLabel: "CronJob: x",
		Arguments: map[string]any{"command": "ls -l docs", "a": 1}})
	if got := e.notes.next(t); got != "show "+strconv.FormatUint(r.ID, 10)+" readable" {
		t.Errorf("notifier saw %q, want the request shown once readable from the store", got)
	}
	stored, err := e.m.Request(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status != store.Pending || stored.Category != "shell" ||
		stored.GroupID != "default" || stored.Profile != "default" || stored.RuleID == 0 ||
		string(stored.Arguments) != `{"a":1,"command":"ls -l docs"}` ||
		!stored.ExpiresAt.Equal(stored.CreatedAt.Add(gate.DefaultApprovalTimeout)) {
		t.Errorf("stored request %+v", stored)
	}
	ev := <-events
	if ev.Name != gate.EventApprovalRequested {
		t.Fatalf("event %q, want approval_requested", ev.Name)
	}
	if got, want := testkit.JSON(ev.Data), `{"request_id":`+strconv.FormatUint(r.ID, 10)+
		`,"tool_call_id":"tc1","tool_name":"Bash"}`; got != want {
		t.Errorf("event data %s, want %s", got, want)
	}
	p, err := e.m.Pending()
	if err != nil || len(p) != 1 || p[0].ID != r.ID {
		t.Errorf("Pending() = %v, %v", p, err)
	}
}

func TestCheckIdempotent(t *testing.T) {
	e := newGateEnv(t)
	stop := e.run()
	call := gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1",
		Arguments: map[string]any{"command": "make"}}
	first := e.require(call)
	e.notes.next(t)
	again := e.check(call)
	if again.Decision != gate.VerdictPending || again.Request.ID != first.ID ||
		again.Reason != gate.ReasonExisting {
		t.Errorf("second check %+v, want the same pending request %d", again, first.ID)
	}
	// Another session may use the same tool call id.
	other := e.require(gate.Call{ToolName: "Bash", SessionID: "s2", ToolCallID: "tc1",
		Arguments: call.Arguments})
	if other.ID == first.ID {
		t.Errorf("another session got the same request")
	}
	e.notes.next(t)
	if _, err := e.m.Resolve(context.Background(), first.ID,
		gate.Answer{Approve: true, By: "alice", Via: "telegram"}); err != nil {
		t.Fatal(err)
	}
	after := e.check(call)
	if after.Decision != gate.VerdictApproved || after.Request.ID != first.ID ||
		after.Request.Resolution.By != "alice" {
		t.Errorf("check after approval %+v, want approved by alice", after)
	}
	if n := e.notes.shows(); n != 2 {
		t.Errorf("shown %d times, want 2 (one per request)", n)
	}

	// The same key for another call is refused and changes nothing.
	stop() // so the batcher writes nothing while the store is compared
	before := teststore.Snapshot(t, e.db)
	for _, c := range []gate.Call{
		{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1",
			Arguments: map[string]any{"command": "rm -rf /"}},
		{ToolName: "execute_cmd", SessionID: "s1", ToolCallID: "tc1",
			Arguments: map[string]any{"command": "make"}},
	} {
		_, err := e.m.Check(context.Background(), c)
		testkit.WantErr(t, err, gate.ErrToolCallReused, "tool_call_id reused for a different call")
	}
	teststore.Unchanged(t, e.db, before)
}

// TestCheckReplayUnderBypass: a replay of an answered (session, tool_call_id) gets
// that request's outcome and who gave it while a bypass of the session is active;
// a new tool call is still lifted by the bypass.
func TestCheckReplayUnderBypass(t *testing.T) {
	e := newGateEnv(t)
	e.run()
	ctx := context.Background()
	args := map[string]any{"command": "make"}
	yes := gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc1", Arguments: args}
	no := gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc2", Arguments: args}
	approved, rejected := e.require(yes), e.require(no)
	if _, err := e.m.Resolve(ctx, approved.ID,
		gate.Answer{Approve: true, By: "alice", Via: "telegram"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.Resolve(ctx, rejected.ID, gate.Answer{By: "bob", Via: "telegram"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.SetBypass("s1", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		call gate.Call
		want gate.Verdict
		by   string
	}{{yes, gate.VerdictApproved, "alice"}, {no, gate.VerdictRejected, "bob"}} {
		t.Run(tc.call.ToolCallID, func(t *testing.T) {
			got := e.check(tc.call)
			if got.Decision != tc.want || got.Reason != gate.ReasonExisting ||
				got.Request == nil || got.Request.Resolution == nil ||
				got.Request.Resolution.By != tc.by {
				t.Errorf("replay under a bypass = %+v, want %s by %s", got, tc.want, tc.by)
			}
		})
	}
	fresh := e.check(gate.Call{ToolName: "Bash", SessionID: "s1", ToolCallID: "tc3",
		Arguments: args})
	if fresh.Decision != gate.VerdictAllow || fresh.Reason != gate.ReasonBypass {
		t.Errorf("a new call under the bypass = %+v, want allow by the bypass", fresh)
	}
}

// TestCheckIdempotentSameCallOnly: a repeat of a (session, tool_call_id) gets the
// request's outcome only when it is the same call in every field and of the same
// caller (one token must not read another's outcome).
func TestCheckIdempotentSameCallOnly(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "ci", SecurityGroup: "ci"}}
	})
	stop := e.run()
	call := gate.Call{ToolName: "Write", SessionID: "s", ToolCallID: "w1", Cwd: e.root + "/docs",
		Arguments: map[string]any{"file_path": "notes.txt", "content": "x"},
		Caller:    "agent-aaaaaaaaaaaa",
		AgentID:   "bot-1", Source: "claude-code", ContextLabel: "fix the tests",
		Category: "notes"}
	r := e.require(call)
	e.notes.next(t)
	if r.Cwd != e.root+"/docs" {
		t.Errorf("stored cwd %q, want the call's", r.Cwd)
	}
	if _, err := e.m.Resolve(context.Background(), r.ID,
		gate.Answer{Approve: true, By: "alice", Via: "telegram"}); err != nil {
		t.Fatal(err)
	}
	e.notes.next(t)
	if out := e.check(call); out.Decision != gate.VerdictApproved || out.Request.ID != r.ID {
		t.Fatalf("the same call again: %+v, want approved", out)
	}
	before := teststore.Snapshot(t, e.db)
	cases := []struct {
		name, says string
		change     func(*gate.Call)
	}{
		{"another cwd", "not the same cwd", func(c *gate.Call) { c.Cwd = e.root }},
		{"no cwd", "not the same cwd", func(c *gate.Call) { c.Cwd = "" }},
		{"another group", "not the same group", func(c *gate.Call) { c.Group = "ci" }},
		{"another profile", "not the same group", func(c *gate.Call) { c.Profile = "ci" }},
		{"another agent id", "not the same agent_id", func(c *gate.Call) { c.AgentID = "bot-2" }},
		{"another source", "not the same source", func(c *gate.Call) { c.Source = "codex" }},
		{"another context label", "not the same context_label",
			func(c *gate.Call) { c.ContextLabel = "x" }},
		{"another category", "not the same category", func(c *gate.Call) { c.Category = "shell" }},
		{"another token", "made by another caller",
			func(c *gate.Call) { c.Caller = "agent-bbbbbbbbbbbb" }},
		{"the admin", "made by another caller", func(c *gate.Call) { c.Caller = "" }},
		{"local", "made by another caller", func(c *gate.Call) { c.Caller = store.CallerLocal }},
	}
	try := func(when string) {
		for _, c := range cases {
			t.Run(when+": "+c.name, func(t *testing.T) {
				again := call
				c.change(&again)
				out, err := e.m.Check(context.Background(), again)
				testkit.WantErr(t, err, gate.ErrToolCallReused,
					"tool_call_id reused for a different call: "+c.says)
				if out.Decision != "" || out.Request != nil {
					t.Errorf("%s: %+v came with the error", c.name, out)
				}
				if strings.Contains(c.says, "caller") &&
					strings.Contains(err.Error(), "request "+strconv.FormatUint(r.ID, 10)) {
					t.Errorf("%s: the error names the request: %v", c.name, err)
				}
			})
		}
		teststore.Unchanged(t, e.db, before)
	}
	try("running")
	if n := e.notes.shows(); n != 1 {
		t.Errorf("shown %d times, want once", n)
	}
	// What the request holds of the call is compared after a restart too.
	stop()
	testkit.Must(t, e.db.Close())
	e.open()
	e.opt.Store = e.db
	e.m = testgate.New(t, e.opt)
	e.run()
	try("restarted")
	if out := e.check(call); out.Decision != gate.VerdictApproved || out.Request.ID != r.ID {
		t.Errorf("the same call after the restart: %+v, want approved", out)
	}
}

func TestCategoryFromConfigWins(t *testing.T) {
	// The first matching entry gives the category; one sent is only claimed.
	e := newGateEnv(t, func(o *gate.Options) {
		o.Categories = []gate.Category{
			{Name: "shell", Tools: []string{"Bash"}},
			{Name: "mail", Tools: []string{"mcp__gmail__*"}},
		}
	})
	for _, c := range []struct{ tool, sent, want, claimed, server, scope string }{
		{"Bash", "filesystem", "shell", "filesystem", "", "category:shell"},
		{"Bash", "shell", "shell", "", "", "category:shell"},
		{"mcp__gmail__send", "", "mail", "", "gmail", "category:mail"},
		{"mcp__slack__post", "shell", "", "shell", "slack", "mcp:slack"},
		{"frobnicate", "shell", "", "shell", "", "tool:frobnicate"},
	} {
		t.Run(c.tool+" "+c.sent, func(t *testing.T) {
			r := e.require(gate.Call{ToolName: c.tool, SessionID: "s", Category: c.sent})
			if r.Category != c.want || r.ClaimedCategory != c.claimed || r.MCPServer != c.server ||
				r.BypassScope() != c.scope {
				t.Errorf("category %q claimed %q server %q scope %q, want %q %q %q %q",
					r.Category, r.ClaimedCategory, r.MCPServer, r.BypassScope(),
					c.want, c.claimed, c.server, c.scope)
			}
		})
	}
}

func TestProfileFastPath(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{{ID: "dev", WorkingDirectory: "src",
			AllowFSReads: []string{"docs"}, AllowFSWrites: []string{"out", "notes.txt"}}}
	})
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "@fs_any",
		PathPattern: "out/private/*", Action: rules.Deny, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, path string
		want       gate.Verdict
	}{
		// A relative path is read against the working directory src and the workspace
		// root (a tool may use either): both places must be the profile's, and a.go at
		// the root is not.
		{"read_file", "a.go", gate.VerdictPending},
		{"read_file", "../docs/x.md", gate.VerdictPending},
		{"Read", e.root + "/src/b/c.go", gate.VerdictAllow},
		{"read_file", e.root + "/src/a.go", gate.VerdictAllow},
		{"read_file", e.root + "/docs/x.md", gate.VerdictAllow},
		{"read_file", e.root + "/out/y", gate.VerdictAllow},
		{"write_file", e.root + "/out/y", gate.VerdictAllow},
		{"write_file", e.root + "/notes.txt", gate.VerdictAllow},
		{"write_file", "a.go", gate.VerdictPending},
		{"write_file", "../notes.txt.bak", gate.VerdictPending},
		{"read_file", "../src-x/a", gate.VerdictPending},
		{"read_file", "/etc/passwd", gate.VerdictPending},
		{"read_file", "../secrets/k", gate.VerdictDeny},
		{"write_file", "../out/private/k", gate.VerdictDeny},
		{"Bash", "a.go", gate.VerdictPending},
	} {
		t.Run(c.path, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: c.tool, SessionID: "s", Profile: "dev",
				Arguments: map[string]any{"path": c.path}})
			if out.Decision != c.want {
				t.Errorf("%s %s: %s (%s), want %s",
					c.tool, c.path, out.Decision, out.Reason, c.want)
			}
			if c.want == gate.VerdictAllow && out.Reason != gate.ReasonFastPath {
				t.Errorf("%s %s: reason %q, want the fast-path", c.tool, c.path, out.Reason)
			}
		})
	}
	// Every path argument counts (docs/design.md, "Path arguments"): a second path outside the
	// profile's directories keeps the call from the fast-path, whichever key holds it.
	for _, args := range []map[string]any{
		{"path": "../out/y", "file_path": "/etc/passwd"},
		{"file_path": "../out/y", "notebook_path": "../../x"},
		{"path": "../out/y", "file_path": "../secrets/k"},
	} {
		out := e.check(gate.Call{ToolName: "write_file", SessionID: "s", Profile: "dev",
			Arguments: args})
		if out.Decision == gate.VerdictAllow {
			t.Errorf("write_file %v: %s (%s), want no fast-path", args, out.Decision, out.Reason)
		}
	}
	// The default profile's working directory is the workspace root.
	out := e.check(gate.Call{ToolName: "Grep", SessionID: "s",
		Arguments: map[string]any{"path": "src"}})
	if out.Decision != gate.VerdictAllow {
		t.Errorf("Grep src in the default profile: %s", out.Decision)
	}
}

// TestProfileFastPathForms: a path read in several forms (the call's cwd, the
// profile's working directory, the workspace root) takes the fast-path when every form
// lies in the profile's places, and not when one does not; so do several paths.
func TestProfileFastPathForms(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{
			{ID: "dev", WorkingDirectory: "src", AllowFSReads: []string{"docs"},
				AllowFSWrites: []string{"out"}},
			{ID: "wide", WorkingDirectory: "src", AllowFSReads: []string{"."}},
		}
	})
	for _, c := range []struct {
		name    string
		profile string
		tool    string
		cwd     string
		args    map[string]any
		want    gate.Verdict
	}{
		{"src/a.go and a.go, both readable", "wide", "read_file", "",
			map[string]any{"path": "a.go"}, gate.VerdictAllow},
		{"src/a.go readable, a.go not", "dev", "read_file", "",
			map[string]any{"path": "a.go"}, gate.VerdictPending},
		{"docs/x.md from the root and src/docs/x.md", "dev", "read_file", e.root,
			map[string]any{"path": "docs/x.md"}, gate.VerdictAllow},
		{"docs/x.md, src/x.md readable, x.md not", "dev", "Read", "docs",
			map[string]any{"file_path": "x.md"}, gate.VerdictPending},
		{"out/x.md writable, src/x.md not", "dev", "write_file", "out",
			map[string]any{"path": "x.md"}, gate.VerdictPending},
		{"two paths, both writable", "dev", "mcp__filesystem__move_file", "",
			map[string]any{"source": e.root + "/out/a", "destination": e.root + "/out/b"},
			gate.VerdictAllow},
		{"two paths, one not writable", "dev", "mcp__filesystem__move_file", "",
			map[string]any{"source": e.root + "/out/a", "destination": e.root + "/src/b"},
			gate.VerdictPending},
		{"a readable path beside one that does not resolve", "wide", "read_file", "",
			map[string]any{"paths": []any{"a.go", "x\x00y"}}, gate.VerdictPending},
		{"a readable path beside one of ~user", "wide", "read_file", "",
			map[string]any{"paths": []any{"a.go", "~root/x"}}, gate.VerdictPending},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := e.check(gate.Call{ToolName: c.tool, SessionID: "s", Profile: c.profile,
				Cwd: c.cwd, Arguments: c.args})
			if out.Decision != c.want {
				t.Fatalf("%s %v: %s (%s), want %s", c.tool, c.args, out.Decision, out.Reason,
					c.want)
			}
			if c.want == gate.VerdictAllow && out.Reason != gate.ReasonFastPath {
				t.Errorf("reason %q, want the fast-path", out.Reason)
			}
		})
	}
}

// brokenStore fails to load rules while broken is set.
type brokenStore struct {
	*store.DB
	broken atomic.Bool
}

func (b *brokenStore) Rules() ([]rules.Rule, error) {
	if b.broken.Load() {
		return nil, errors.New("disk on fire")
	}
	return b.DB.Rules()
}

func TestFailClosed(t *testing.T) {
	var bs *brokenStore
	e := newGateEnv(t, func(o *gate.Options) {
		bs = &brokenStore{DB: o.Store.(*store.DB)}
		bs.broken.Store(true)
		o.Store = bs
	})
	out := e.check(gate.Call{ToolName: "write_todos", SessionID: "s"})
	if out.Decision != gate.VerdictPending || out.Reason != gate.ReasonRulesUnavailable {
		t.Errorf("write_todos with the rules unavailable: %+v, want pending", out)
	}
	if _, err := e.m.SetBypass("s", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	out = e.check(gate.Call{ToolName: "write_todos", SessionID: "s"})
	if out.Decision != gate.VerdictPending {
		t.Errorf("a bypass let a call through while the rules are unavailable: %+v", out)
	}
	out = e.check(gate.Call{ToolName: "read_file", SessionID: "s",
		Arguments: map[string]any{"path": e.dir + "/state/x"}})
	if out.Decision != gate.VerdictDeny {
		t.Errorf("a protected path while the rules are unavailable: %+v, want deny", out)
	}
	_, err := e.m.Rules("")
	if err == nil || !strings.Contains(err.Error(), "rules unavailable: disk on fire") {
		t.Errorf("Rules() while unavailable: %v", err)
	}
	// A successful rule change loads the rules again.
	bs.broken.Store(false)
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "x",
		Action: rules.Allow, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	out = e.check(gate.Call{ToolName: "write_todos", SessionID: "s2"})
	if out.Decision != gate.VerdictAllow {
		t.Errorf("write_todos after the rules loaded again: %+v", out)
	}
}

func TestFailClosedRecoversInRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var bs *brokenStore
		e := newGateEnv(t, func(o *gate.Options) {
			bs = &brokenStore{DB: o.Store.(*store.DB)}
			bs.broken.Store(true)
			o.Store = bs
		})
		stop := e.run()
		defer stop()
		bs.broken.Store(false)
		time.Sleep(2 * time.Second) // the sweeper retries the load every second
		out := e.check(gate.Call{ToolName: "write_todos", SessionID: "s"})
		if out.Decision != gate.VerdictAllow {
			t.Errorf("write_todos once the store recovered: %+v, want allow", out)
		}
	})
}

// TestGuardedPlacesNeedAHuman covers (docs/design.md, "Protected and guarded places"): a file tool
// on a folder that holds a protected path or a denied place requires approval, and no
// session bypass or profile fast-path lets it through; the places themselves stay
// denied.
func TestGuardedPlacesNeedAHuman(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		// data_dir inside data/, as config.example.yaml has it.
		o.Rules.Protected = append(o.Rules.Protected, o.Rules.WorkspaceRoot+"/data/skald")
		o.Profiles = []rules.Profile{
			{ID: "dev", AllowFSReads: []string{"."}, AllowFSWrites: []string{"."}},
		}
	})
	// Guarded places count while they exist.
	for _, d := range []string{e.root + "/data/skald", e.dir + "/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.m.SetBypass("bypassed", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		call    gate.Call
		want    gate.Verdict
		contain string
	}{
		{"Grep the workspace: no fast-path", gate.Call{ToolName: "Grep", SessionID: "s",
			Arguments: map[string]any{"pattern": "token", "path": "."}},
			gate.VerdictPending, "data/skald"},
		{"Grep the workspace: no bypass", gate.Call{ToolName: "Grep", SessionID: "bypassed",
			Arguments: map[string]any{"pattern": "token", "path": "."}},
			gate.VerdictPending, "data/skald"},
		{"LS the folder of data_dir: not the seeded data/* allow",
			gate.Call{ToolName: "LS", SessionID: "bypassed",
				Arguments: map[string]any{"path": e.root + "/data"}},
			gate.VerdictPending, "data/skald"},
		{"LS above the workspace, the state dir below it",
			gate.Call{ToolName: "LS", SessionID: "bypassed", Profile: "dev",
				Arguments: map[string]any{"path": e.dir}},
			gate.VerdictPending, e.dir + "/state"},
		{"a write tool on the workspace in a profile that writes everywhere",
			gate.Call{ToolName: "Write", SessionID: "s", Profile: "dev",
				Arguments: map[string]any{"file_path": "."}},
			gate.VerdictPending, "data/skald"},
		{"secrets itself", gate.Call{ToolName: "LS", SessionID: "bypassed",
			Arguments: map[string]any{"path": "secrets"}}, gate.VerdictDeny, ""},
		{"data_dir itself", gate.Call{ToolName: "LS", SessionID: "bypassed",
			Arguments: map[string]any{"path": "data/skald"}}, gate.VerdictDeny, ""},
		{"a folder that holds neither: the fast-path", gate.Call{ToolName: "Grep", SessionID: "s",
			Arguments: map[string]any{"path": "src"}}, gate.VerdictAllow, ""},
		{"a folder that holds neither: the bypass",
			gate.Call{ToolName: "Grep", SessionID: "bypassed",
				Arguments: map[string]any{"path": "/usr"}},
			gate.VerdictAllow, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := e.check(c.call)
			if out.Decision != c.want {
				t.Errorf("%s: %s (%s), want %s", c.name, out.Decision, out.Reason, c.want)
				return
			}
			if c.contain != "" && out.Reason != rules.ReasonContains+": "+c.contain {
				t.Errorf("%s: reason %q, want it to name %s", c.name, out.Reason, c.contain)
			}
			if c.want == gate.VerdictPending &&
				(out.Request == nil || out.Request.RuleID != out.RuleID) {
				t.Errorf("%s: %+v, want a registered request", c.name, out)
			}
		})
	}
}

// TestFileToolWithoutPathOnItsCwd covers (docs/design.md, "Path arguments"): a file tool sent no
// path argument (Grep {"pattern":"token"}, Glob, LS {}) searches the call's cwd, else
// the profile's working directory, else the workspace root, and is gated as if that
// were its path — so neither a session bypass nor an allow rule lets it read secrets/
// or the data directory unseen. Other tools without a path are untouched.
func TestFileToolWithoutPathOnItsCwd(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{
			{ID: "src", WorkingDirectory: "src"},
			{ID: "top", WorkingDirectory: "."},
		}
	})
	if err := os.MkdirAll(e.dir+"/state", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.SetBypass("all", "all", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.SetBypass("fs", "category:filesystem", 0, "", admin); err != nil {
		t.Fatal(err)
	}
	grep := map[string]any{"pattern": "token"}
	// grepIn is a Grep for "token" with no path, in session, sent the cwd cwd.
	grepIn := func(session, cwd string) gate.Call {
		return gate.Call{ToolName: "Grep", SessionID: session, Arguments: grep, Cwd: cwd}
	}
	contains := rules.ReasonContains + ": secrets"
	type want struct {
		decision gate.Verdict
		reason   string
	}
	cases := []struct {
		name string
		call gate.Call
		want
	}{
		{"Grep in the workspace root: no bypass all",
			grepIn("all", ""), want{gate.VerdictPending, contains}},
		{"Glob in the workspace root: no bypass of its category",
			gate.Call{ToolName: "Glob", SessionID: "fs",
				Arguments: map[string]any{"pattern": "**/*"}},
			want{gate.VerdictPending, contains}},
		{"LS {} in the profile's working directory, the workspace",
			gate.Call{ToolName: "LS", SessionID: "all", Profile: "top"},
			want{gate.VerdictPending, contains}},
		{"LS {} in the data directory",
			gate.Call{ToolName: "LS", SessionID: "all", Cwd: e.dir + "/state"},
			want{gate.VerdictDeny, rules.ReasonProtected}},
		{"Grep in secrets/", grepIn("all", "secrets"), want{gate.VerdictDeny, rules.ReasonRule}},
		{"Grep in a folder that holds nothing guarded: the bypass",
			grepIn("all", "src"), want{gate.VerdictAllow, gate.ReasonBypass}},
		// The fast-path takes a call on its cwd like one on a named path.
		{"LS {} in the profile's working directory src: the fast-path",
			gate.Call{ToolName: "LS", SessionID: "s", Profile: "src"},
			want{gate.VerdictAllow, gate.ReasonFastPath}},
		{"Grep with no path, cwd src in the default profile: the fast-path",
			grepIn("s", "src"), want{gate.VerdictAllow, gate.ReasonFastPath}},
		{"Write with no path, cwd src: no fast-path for a write outside allow_fs_writes",
			gate.Call{ToolName: "Write", SessionID: "s", Cwd: "src"},
			want{gate.VerdictPending, rules.ReasonRule}},
		{"not a file tool",
			gate.Call{ToolName: "mcp__files__search", SessionID: "all", Arguments: grep},
			want{gate.VerdictAllow, gate.ReasonBypass}},
	}
	run := func(stage string) {
		t.Helper()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				out := e.check(c.call)
				if out.Decision != c.decision || out.Reason != c.reason {
					t.Errorf("%s: %s: %s (%s), want %s (%s)",
						stage, c.name, out.Decision, out.Reason, c.decision, c.reason)
				}
			})
		}
	}
	run("bypasses")
	// An allow rule for every file tool (after the seeded path rules) does not let them
	// through either; it allows what holds nothing guarded.
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "@fs_any",
		Action: rules.Allow, Priority: 6}, admin); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		switch {
		case c.reason == gate.ReasonFastPath,
			c.decision == gate.VerdictAllow && c.call.ToolName != "mcp__files__search",
			c.call.ToolName == "Write":
			// The rule decides before bypass and fast-path.
			cases[i].want = want{gate.VerdictAllow, rules.ReasonRule}
		}
	}
	run("allow rule")
}

// TestRequestRecordsWhy: a request records why the gate asked a human when a rule's or
// the default require was not all (store.Request.Reason), in the store too.
func TestRequestRecordsWhy(t *testing.T) {
	e := newGateEnv(t)
	if _, err := e.m.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "list_files",
		Action: rules.Allow, Priority: 1}, admin); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		call gate.Call
		want string
	}{
		{"a guarded place", gate.Call{ToolName: "Grep", Arguments: map[string]any{"path": "."}},
			rules.ReasonContains + ": secrets"},
		{"a file tool on its cwd",
			gate.Call{ToolName: "Grep", Arguments: map[string]any{"pattern": "x"}},
			rules.ReasonContains + ": secrets"},
		{"a path that cannot be normalised",
			gate.Call{ToolName: "list_files", Arguments: map[string]any{"path": 42}},
			rules.ReasonBadPath},
		{"a path that cannot be normalised, the default require",
			gate.Call{ToolName: "Read", Arguments: map[string]any{"file_path": "x\x00"}},
			rules.ReasonBadPath},
		{"a rule's require",
			gate.Call{ToolName: "Bash", Arguments: map[string]any{"input": "ls"}}, ""},
		{"a shell command's rule",
			gate.Call{ToolName: "Bash", Arguments: map[string]any{"command": "ls docs"}}, ""},
		{"a shell command's path",
			gate.Call{ToolName: "Bash", Arguments: map[string]any{"command": "cat secrets/x"}},
			`argument "secrets/x" of command "cat secrets/x" is inside a denied place: secrets`},
		{"the default require", gate.Call{ToolName: "mcp__x__y"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.call.SessionID = "s"
			r := e.require(c.call)
			stored, err := e.m.Request(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Reason != c.want || stored.Reason != c.want {
				t.Errorf("%s: reason %q, stored %q; want %q",
					c.name, r.Reason, stored.Reason, c.want)
			}
		})
	}
	broken := newGateEnv(t, func(o *gate.Options) {
		bs := &brokenStore{DB: o.Store.(*store.DB)}
		bs.broken.Store(true)
		o.Store = bs
	})
	r := broken.require(gate.Call{ToolName: "TodoWrite", SessionID: "s"})
	if r.Reason != gate.ReasonRulesUnavailable {
		t.Errorf("rules unavailable: reason %q, want %q", r.Reason, gate.ReasonRulesUnavailable)
	}
}
