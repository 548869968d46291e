package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// fixture returns testdata/claude-code/name: a hook input or output as Claude Code
// sends it.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	return testkit.ReadFile(t, filepath.Join("claude-code", name))
}

func TestHookCallMapping(t *testing.T) {
	o := hookOptions{agent: "claude-code", group: "g", profile: "p"}
	for _, c := range []struct {
		file string
		want gate.Call
	}{
		{"pretooluse_bash.json", gate.Call{ToolName: "Bash", SessionID: "abc123",
			ToolCallID: "toolu_01ABC123...", AgentID: "claude-code", Source: "claude-code",
			Group: "g", Profile: "p", Cwd: "/home/user/my-project",
			Arguments: map[string]any{"command": "npm test", "cmd": "npm test",
				"description": "Run test suite", "timeout": json.Number("120000"),
				"run_in_background": false}}},
		{"pretooluse_bash_in_subagent.json", gate.Call{ToolName: "Bash", SessionID: "abc123",
			ToolCallID: "toolu_01SUBAGENT000000000001",
			AgentID:    "a1b2c3d4-0000-4000-8000-000000000001", Source: "claude-code",
			Group: "g", Profile: "p", Cwd: "/home/user/my-project",
			Arguments: map[string]any{"command": "git push origin main",
				"cmd": "git push origin main", "description": "Push branch"}}},
		{"pretooluse_mcp_tool.json", gate.Call{ToolName: "mcp__personastub__navigate",
			SessionID:  "7513b65a-e4e8-4381-85cf-6fd4b2879bdc",
			ToolCallID: "toolu_01K8JEdUY6diBv1TdY4Ces1Z", AgentID: "claude-code",
			Source: "claude-code", Group: "g", Profile: "p",
			Cwd:       "/tmp/persona-hookprobe.rC1NUS/project",
			Arguments: map[string]any{"url": "https://staging.example.com/welcome"}}},
		{"pretooluse_read.json", gate.Call{ToolName: "Read", SessionID: "abc123",
			ToolCallID: "toolu_01READ00000000000000001", AgentID: "claude-code",
			Source: "claude-code", Group: "g", Profile: "p", Cwd: "/home/user/my-project",
			Arguments: map[string]any{"file_path": "/home/user/my-project/secrets/prod.env",
				"offset": json.Number("10"), "limit": json.Number("50")}}},
		{"pretooluse_write_windows_path.json", gate.Call{ToolName: "Write", SessionID: "abc123",
			ToolCallID: "toolu_01WIN000000000000000001", AgentID: "claude-code",
			Source: "claude-code", Group: "g", Profile: "p", Cwd: `C:\project`,
			Arguments: map[string]any{"file_path": `C:\project\src\index.ts`, "content": "..."}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			got, err := hookCall(fixture(t, c.file), o)
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s:\n got %#v\nwant %#v", c.file, got, c.want)
			}
		})
	}
}

func TestHookCallBadInput(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`not json`, "the hook input is not JSON"},
		{`{"session_id":"s","hook_event_name":"PreToolUse"}`, "no tool_name"},
		{`{"tool_name":"Bash","tool_input":[1]}`, "tool_input is not a JSON object"},
		{string(fixture(t, "permissionrequest_bash.json")),
			"expected a PreToolUse hook input, got PermissionRequest"},
	} {
		if _, err := hookCall([]byte(c.in), hookOptions{}); err == nil ||
			!strings.Contains(err.Error(), c.msg) {
			t.Errorf("%.30s: err = %v, want %q", c.in, err, c.msg)
		}
	}
}

// runFixture feeds a fixture to `hook claude-code` against server url and returns
// the single JSON object it printed.
func runFixture(t *testing.T, url string, in []byte, args ...string) hookDecision {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newHookCmd(newConnection())
	cmd.SetArgs(append([]string{"claude-code", "--server", url}, args...))
	cmd.SetIn(bytes.NewReader(in))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("hook: %v (stderr %s)", err, errOut.String())
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	var o hookOutput
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("hook output %q: %v", out.String(), err)
	}
	if dec.More() {
		t.Fatalf("hook printed more than one JSON value: %q", out.String())
	}
	if o.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Fatalf("hookEventName = %q", o.HookSpecificOutput.HookEventName)
	}
	return o.HookSpecificOutput
}

// wantShape checks that the hook output has the same keys as Claude Code's documented
// sample.
func wantShape(t *testing.T, sample string, d hookDecision) {
	t.Helper()
	var doc, ours map[string]map[string]any
	testkit.Must(t, json.Unmarshal(fixture(t, sample), &doc))
	testkit.Must(t, json.Unmarshal(testkit.Marshal(t, hookOutput{HookSpecificOutput: d}), &ours))
	for k := range doc["hookSpecificOutput"] {
		if _, ok := ours["hookSpecificOutput"][k]; !ok {
			t.Errorf("output lacks %s of %s", k, sample)
		}
	}
	got, want := ours["hookSpecificOutput"]["permissionDecision"],
		doc["hookSpecificOutput"]["permissionDecision"]
	if want != got {
		t.Errorf("decision %v, the sample has %v", got, want)
	}
}

func TestHookFixtures(t *testing.T) {
	s := startServer(t, "/home/user/my-project")
	ctx := context.Background()
	// A rule lets Write into src/ through.
	rule, err := s.gate.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "@fs_write",
		PathPattern: "src/*", Action: rules.Allow, Priority: 20, Note: "sources are fine"},
		store.Actor{By: "t", Via: "test"})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("bash approved", func(t *testing.T) {
		ids := s.answer(t, true, "", "telegram")
		d := runFixture(t, s.url, fixture(t, "pretooluse_bash.json"))
		want := decision("allow", "Approved by jane via Telegram (request "+testkit.ID(<-ids)+")")
		if d != want {
			t.Fatalf("got %+v, want %+v", d, want)
		}
		wantShape(t, "output_pretooluse_allow.json", d)
	})
	t.Run("sub-agent rejected with a note", func(t *testing.T) {
		ids := s.answer(t, false, "not during the freeze", "slack")
		d := runFixture(t, s.url, fixture(t, "pretooluse_bash_in_subagent.json"))
		id := <-ids
		want := decision("deny",
			"Rejected by jane via Slack (request "+testkit.ID(id)+"): not during the freeze")
		if d != want {
			t.Fatalf("got %+v, want %+v", d, want)
		}
		wantShape(t, "output_pretooluse_deny.json", d)
		if q, err := s.db.Request(id); err != nil ||
			q.AgentID != "a1b2c3d4-0000-4000-8000-000000000001" || q.Source != "claude-code" {
			t.Fatalf("request agent %q source %q (err %v)", q.AgentID, q.Source, err)
		}
	})
	t.Run("read of secrets denied by rule", func(t *testing.T) {
		d := runFixture(t, s.url, fixture(t, "pretooluse_read.json"))
		if d.PermissionDecision != "deny" || !strings.HasPrefix(d.PermissionDecisionReason,
			"Denied by skald-bot: rule 11 (deny @fs_any secrets/*)") {
			t.Fatalf("got %+v", d)
		}
	})
	for _, f := range []string{"pretooluse_write.json", "pretooluse_edit.json"} {
		t.Run(f+" into src allowed by rule", func(t *testing.T) {
			d := runFixture(t, s.url, fixture(t, f))
			want := decision("allow", "Allowed by skald-bot: rule "+testkit.ID(rule.ID)+
				" (allow @fs_write src/*): sources are fine")
			if d != want {
				t.Fatalf("got %+v, want %+v", d, want)
			}
		})
	}
	for _, f := range []string{"pretooluse_mcp_tool.json", "pretooluse_write_windows_path.json"} {
		t.Run(f+" unanswered", func(t *testing.T) {
			d := runFixture(t, s.url, fixture(t, f), "--wait", "0s")
			if d.PermissionDecision != "ask" || !strings.HasPrefix(d.PermissionDecisionReason,
				"No approver answered within 0s; asking in the terminal (request ") {
				t.Fatalf("got %+v", d)
			}
			wantShape(t, "output_pretooluse_ask.json", d)
			// The request was handed to the terminal: cancelled with reason terminal,
			// by the hook's caller, local (its X-Skald-Actor is not an agent's to
			// choose), as the audit says too.
			in, err := api.NewClient(s.url, adminToken).Inbox(ctx)
			if err != nil || in.Total != 0 {
				t.Fatalf("pending after the hook: %v %+v", err, in)
			}
			_, rest, _ := strings.Cut(d.PermissionDecisionReason, "(request ")
			id, err := strconv.ParseUint(strings.TrimSuffix(rest, ")"), 10, 64)
			if err != nil {
				t.Fatalf("no request id in %q", d.PermissionDecisionReason)
			}
			q, err := s.db.Request(id)
			if err != nil || q.Status != store.Cancelled || q.Resolution == nil ||
				q.Resolution.By != store.CallerLocal ||
				q.Resolution.Via != "api" || q.Resolution.Note != "terminal" {
				t.Fatalf("request %d: %v %+v %+v", id, err, q, q.Resolution)
			}
			audit, err := s.db.Audit(10)
			if err != nil || !slices.ContainsFunc(audit, func(a store.AuditEntry) bool {
				return a.RequestID == id && a.By == store.CallerLocal && a.Via == "api"
			}) {
				t.Fatalf("no audit entry of request %d by local via api: %v %+v", id, err, audit)
			}
		})
	}
	t.Run("same tool call again after the terminal took over", func(t *testing.T) {
		d := runFixture(t, s.url, fixture(t, "pretooluse_mcp_tool.json"), "--wait", "0s")
		if d.PermissionDecision != "ask" {
			t.Fatalf("got %+v", d)
		}
	})
	t.Run("unknown group", func(t *testing.T) {
		d := runFixture(t, s.url, fixture(t, "pretooluse_bash.json"), "--group", "nope")
		if d.PermissionDecision != "ask" ||
			!strings.Contains(d.PermissionDecisionReason, "unknown group") {
			t.Fatalf("got %+v", d)
		}
	})
	t.Run("input over 1 MiB", func(t *testing.T) {
		big := []byte(`{"tool_name":"Bash","tool_input":{"command":"` +
			strings.Repeat("x", api.MaxBodyBytes) + `"}}`)
		d := runFixture(t, s.url, big)
		if d.PermissionDecision != "ask" ||
			!strings.Contains(d.PermissionDecisionReason, "over 1 MiB") {
			t.Fatalf("got %+v", d)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		d := runFixture(t, s.url, []byte(`{"tool_name":`))
		if d.PermissionDecision != "ask" ||
			!strings.Contains(d.PermissionDecisionReason, "not JSON") {
			t.Fatalf("got %+v", d)
		}
		d = runFixture(t, s.url, fixture(t, "permissionrequest_bash.json"))
		if d.PermissionDecision != "ask" {
			t.Fatalf("got %+v", d)
		}
	})
}

func TestHookBadFlagAsks(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"hook", "claude-code", "--wait", "soon"},
		bytes.NewReader(fixture(t, "pretooluse_bash.json")), &out, &errOut)
	var o hookOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || code != 0 {
		t.Fatalf("exit %d, output %q: %v", code, out.String(), err)
	}
	if d := o.HookSpecificOutput; d.PermissionDecision != "ask" ||
		!strings.Contains(d.PermissionDecisionReason, `invalid argument "soon"`) {
		t.Fatalf("got %+v", d)
	}
	if !strings.Contains(errOut.String(), "invalid argument") {
		t.Fatalf("stderr %q", errOut.String())
	}
}

func TestHookServerUnreachable(t *testing.T) {
	d := runFixture(t, refusedURL(t), fixture(t, "pretooluse_bash.json"))
	if d.PermissionDecision != "ask" ||
		!strings.Contains(d.PermissionDecisionReason, "could not check this call") {
		t.Fatalf("got %+v", d)
	}
}

func TestHookWaitsForTheResolution(t *testing.T) {
	s := startServer(t, "/w")
	ids := s.answer(t, true, "ok", "api")
	d := runFixture(t, s.url, fixture(t, "pretooluse_mcp_tool.json"), "--wait", "1m")
	want := decision("allow", "Approved by jane via the API (request "+testkit.ID(<-ids)+"): ok")
	if d != want {
		t.Fatalf("got %+v, want %+v", d, want)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		9 * time.Minute: "9m", 90 * time.Minute: "1h30m", time.Hour: "1h",
		45 * time.Second: "45s", 0: "0s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestHookServerThatNeverAnswers: a server that accepts the connection and never
// answers does not hold the hook beyond its wait and a few seconds: it asks.
func TestHookServerThatNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16) // closed by the accepting goroutine when it ends
	go func() {
		defer close(held)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c // never read, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range held {
			c.Close()
		}
	})
	d := runFixture(t, "http://"+ln.Addr().String(), fixture(t, "pretooluse_bash.json"),
		"--wait", "1s")
	if d.PermissionDecision != "ask" ||
		!strings.Contains(d.PermissionDecisionReason, "could not check this call") {
		t.Fatalf("got %+v", d)
	}
}

// TestHookCallKeepsNumbers checks tool_input's numbers reach the call as written.
func TestHookCallKeepsNumbers(t *testing.T) {
	got, err := hookCall([]byte(`{"hook_event_name":"PreToolUse","tool_name":"x",`+
		`"session_id":"s","tool_input":{"to":9007199254740993,"f":1.10}}`), hookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Arguments; a["to"] != json.Number("9007199254740993") ||
		a["f"] != json.Number("1.10") {
		t.Errorf("arguments %#v", a)
	}
}
