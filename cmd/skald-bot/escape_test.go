package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// rawControls are characters a terminal acts on: none of them may reach it from text a
// caller sent.
var rawControls = []string{"\x1b", "\r", "\a", "\t", "\u202e", "\u2066", "\u009b"}

// wantNoRawControls fails when out holds one of rawControls.
func wantNoRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range rawControls {
		if strings.Contains(out, c) {
			t.Errorf("%s prints %q raw:\n%q", what, c, out)
		}
	}
}

// TestCLIEscapesCallerText: what an agent sends (tool, agent id, source, session,
// arguments) reaches the terminal escaped as the chat prompts escape it, in the pending
// table and its --json alike, with look-alike names flagged; the table names the caller.
func TestCLIEscapesCallerText(t *testing.T) {
	s := startServer(t, "/w")
	local := api.NewClient(s.url, "")
	call := gate.Call{
		ToolName:  "Bash\x1b[1A\rRead",
		AgentID:   "rev\u202eiewer",
		Source:    "\u0441ron",
		SessionID: "s\x1b]0;title\a",
		Arguments: map[string]any{"command": "rm -rf ~\r\x1b[2K\tls\u2066\u009b"},
	}
	res, err := local.Check(context.Background(), api.CheckRequest{Call: call})
	if err != nil || res.Decision != gate.VerdictPending {
		t.Fatalf("check: %+v %v", res, err)
	}

	code, out, errOut := runClient(t, "pending", "--server", s.url)
	if code != 0 {
		t.Fatalf("pending: exit %d %q", code, errOut)
	}
	wantNoRawControls(t, "pending", out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "  CALLER  ") {
		t.Fatalf("pending: want a header with CALLER and one row:\n%s", out)
	}
	for _, want := range []string{
		`Bash\u001B[1A\u000DRead`, `rev\u202Eiewer ` + "⚠ non-ASCII", `\u0441ron ⚠ non-ASCII`,
		`s\u001B]0;title\u0007`, `rm -rf ~\r\u001b[2K\tls\u2066\u009B`, "  local  ",
	} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("pending row lacks %q:\n%s", want, lines[1])
		}
	}

	code, out, errOut = runClient(t, "pending", "--server", s.url, "--json")
	if code != 0 {
		t.Fatalf("pending --json: exit %d %q", code, errOut)
	}
	wantNoRawControls(t, "pending --json", out)
	var in api.Inbox
	if err := json.Unmarshal([]byte(out), &in); err != nil || len(in.Approvals) != 1 {
		t.Fatalf("pending --json: %v\n%s", err, out)
	}
	if q := in.Approvals[0]; q.ToolName != call.ToolName || q.AgentID != call.AgentID ||
		q.SessionID != call.SessionID || q.Caller != "local" {
		t.Errorf("pending --json decodes to %+v, want the call as sent by local", q)
	}
}

// TestCLIEscapesServerText: an error echoing what was sent, and the notes of rules
// list, reach the terminal escaped; nothing is stored by the refused check.
func TestCLIEscapesServerText(t *testing.T) {
	s := startServer(t, "/w")
	before, err := s.db.Pending()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runClient(t, "check", "--server", s.url, "--tool", "Bash",
		"--group", "x\x1b[2K\u202eok")
	if code != 2 || out != "" || !strings.Contains(errOut, "unknown group") {
		t.Errorf("check --group: exit %d %q %q", code, out, errOut)
	}
	wantNoRawControls(t, "check's error", errOut)
	if after, err := s.db.Pending(); err != nil || len(after) != len(before) {
		t.Fatalf("pending %d → %d (%v) after a refused check", len(before), len(after), err)
	}
	admin := api.NewClient(s.url, adminToken)
	rule := rules.Rule{GroupID: "default", Action: rules.Allow, ToolPattern: "TodoWrite",
		Note: "fine\x1b[2K\r\u202eallow all"}
	if _, err := admin.CreateRule(context.Background(), rule); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runClient(t, "rules", "list", "--server", s.url)
	if code != 0 || !strings.Contains(out, `fine\u001B[2K\u000D\u202Eallow all`) {
		t.Errorf("rules list: exit %d %q\n%s", code, errOut, out)
	}
	wantNoRawControls(t, "rules list", out)
}
