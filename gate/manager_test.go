package gate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestNewProfilesAndGroups(t *testing.T) {
	e := newGateEnv(t, func(o *gate.Options) {
		o.Profiles = []rules.Profile{
			{ID: "dev", SecurityGroup: "devs", WorkingDirectory: "src"},
			{ID: "ops", SecurityGroup: "devs"},
		}
	})
	p, ok := e.m.Profile("default")
	if !ok || p.SecurityGroup != "default" {
		t.Errorf("default profile %+v %v", p, ok)
	}
	if p, ok := e.m.Profile("dev"); !ok || p.WorkingDirectory != "src" {
		t.Errorf("dev profile %+v %v", p, ok)
	}
	if _, ok := e.m.Profile("nope"); ok {
		t.Errorf("Profile(nope) found")
	}
	// The group a profile names is created once, audited.
	es, err := e.db.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Action != "group.create" || es[0].By != "system" || es[0].Via != "config" {
		t.Errorf("newest audit entry %+v, want the creation of group devs by the config", es[0])
	}
	// default (the seed) and devs
	if n := count(teststore.AuditActions(t, e.db), "group.create"); n != 2 {
		t.Errorf("%d group creations audited", n)
	}
	// A second New over the same store creates nothing more.
	before := teststore.Snapshot(t, e.db)
	if _, err := gate.New(e.opt); err != nil {
		t.Fatal(err)
	}
	teststore.Unchanged(t, e.db, before)
}

func TestNewRefusals(t *testing.T) {
	e := newGateEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct {
		edit func(*gate.Options)
		says string
	}{
		{func(o *gate.Options) { o.Store = nil }, "no store"},
		{func(o *gate.Options) { o.Rules.WorkspaceRoot = "ws" },
			`workspace root "ws" is not an absolute path`},
		{func(o *gate.Options) { o.ApprovalTimeout = -1 }, "approval timeout -1ns is negative"},
		{func(o *gate.Options) { o.Profiles = []rules.Profile{{ID: "a"}, {ID: "a"}} },
			`profile "a" is defined twice`},
		{func(o *gate.Options) { o.Profiles = []rules.Profile{{SecurityGroup: "x"}} },
			"a profile has no id"},
		{func(o *gate.Options) {
			o.Profiles = []rules.Profile{{ID: "a", SecurityGroup: "Not Valid"}}
		}, "Not Valid"},
		{func(o *gate.Options) {
			o.Profiles = []rules.Profile{{ID: "a", AllowFSReads: []string{"x\x00y"}}}
		}, `allow_fs_reads "x\x00y"`},
		{func(o *gate.Options) {
			o.Categories = []gate.Category{{Name: "x", Tools: []string{"a*b"}}}
		}, `category "x": rules: tool_pattern "a*b"`},
		{func(o *gate.Options) { o.Categories = []gate.Category{{Tools: []string{"Bash"}}} },
			"category 0 has no name"},
	} {
		t.Run(c.says, func(t *testing.T) {
			opt := e.opt
			c.edit(&opt)
			m, err := gate.New(opt)
			if err == nil || m != nil {
				t.Errorf("New accepted options that should say %q", c.says)
				return
			}
			if got := err.Error(); !strings.Contains(got, "gate: new: ") ||
				!strings.Contains(got, c.says) {
				t.Errorf("New error %q, want it to say %q", got, c.says)
			}
		})
	}
	teststore.Unchanged(t, e.db, before)
}

func TestRunTwiceAndStop(t *testing.T) {
	e := newGateEnv(t)
	stop := e.run()
	// Run is running once the notifier has shown a request registered before.
	e.require(gate.Call{ToolName: "Bash", SessionID: "s"})
	e.notes.next(t)
	err := e.m.Run(context.Background())
	testkit.WantErr(t, err, gate.ErrRunning, "gate: run")
	stop() // returns only when every goroutine Run started has stopped
}

func TestToolCatalog(t *testing.T) {
	e := newGateEnv(t)
	stop := e.run()
	for _, tool := range []string{"Bash", "mcp__gmail__send", "mcp__gmail__read",
		"mcp__slack__post", "write_todos", "Bash"} {
		e.check(gate.Call{ToolName: tool, SessionID: "s", Arguments: map[string]any{}})
	}
	e.check(gate.Call{ToolName: string(make([]byte, store.MaxToolNameLen+1)), SessionID: "s"})
	want := `{"built_in":["Bash","write_todos"],` +
		`"mcp":["mcp__gmail__read","mcp__gmail__send","mcp__slack__post"],` +
		`"mcp_servers":["gmail","slack"]}`
	c, err := e.m.Tools()
	if err != nil || testkit.JSON(c) != want {
		t.Errorf("Tools() = %s %v, want %s", testkit.JSON(c), err, want)
	}
	stop() // flushes the batcher
	names, err := e.db.Tools()
	if err != nil || testkit.JSON(names) !=
		`["Bash","mcp__gmail__read","mcp__gmail__send","mcp__slack__post","write_todos"]` {
		t.Errorf("store tools %v %v", names, err)
	}
	// A new Manager knows them from the store.
	m, err := gate.New(e.opt)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := m.Tools(); err != nil || testkit.JSON(c) != want {
		t.Errorf("Tools() of a new Manager = %s %v", testkit.JSON(c), err)
	}
}

func TestEvents(t *testing.T) {
	e := newGateEnv(t)
	fast, unsubscribe := e.m.Subscribe(4)
	slow, _ := e.m.Subscribe(1)
	e.m.Publish(gate.Event{Name: "run_started", Data: map[string]any{"run_id": 1}})
	e.m.Publish(gate.Event{Name: "run_finished", Data: map[string]any{"run_id": 1}})
	for _, want := range []string{"run_started", "run_finished"} {
		if ev := <-fast; ev.Name != want {
			t.Errorf("event %q, want %q", ev.Name, want)
		}
	}
	// The slow subscriber got the first event, then was dropped: its channel closed.
	if ev, ok := <-slow; !ok || ev.Name != "run_started" {
		t.Errorf("slow subscriber's first event %v %v", ev, ok)
	}
	if _, ok := <-slow; ok {
		t.Errorf("the slow subscriber was not dropped")
	}
	unsubscribe()
	unsubscribe() // safe twice
	if _, ok := <-fast; ok {
		t.Errorf("channel open after unsubscribe")
	}
	e.m.Publish(gate.Event{Name: "run_waiting"}) // nobody listens: does not block
	ev := gate.Event{Name: "x", Data: gate.ApprovalResolved{RequestID: 7, Status: store.Expired}}
	if testkit.JSON(ev) !=
		`{"name":"x","data":{"request_id":7,"tool_call_id":"","status":"expired"}}` {
		t.Errorf("event JSON shape changed")
	}
}
