package api_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// fullRequest is a stored request with every field set.
func fullRequest() store.Request {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return store.Request{
		ID: 7, SessionID: "s1", ToolCallID: "call-1", ToolName: "mcp__notes__write",
		Arguments: json.RawMessage(`{"path":"a.txt"}`), AgentID: "bot-1", Source: "chat",
		ContextLabel: "nightly", Category: "notes", MCPServer: "notes", GroupID: "agents",
		Profile: "agents", Cwd: "/ws", RuleID: 12, Reason: "protected path",
		Caller: "agent-0123456789ab", ClaimedCategory: "safe",
		Commands: []store.CommandDecision{{Command: "ls", Action: "allow", RuleID: 3,
			Reason: "rule", Risky: []string{"-o"}}},
		CreatedAt: at, ExpiresAt: at.Add(time.Hour), Status: store.Approved,
		Resolution: &store.Resolution{By: "jane", Via: "telegram", At: at.Add(time.Minute),
			Note: "ok", Bypass: &store.BypassGrant{Scope: "all", Secs: 900}},
		Messages: []store.Message{{Channel: "telegram", ChatID: "100", Ref: "42",
			ShownAt: at, Final: true}},
	}
}

// TestRequestWireFormat pins the JSON the API sends for a request, so that a change to
// the store's on-disk tags cannot change it.
func TestRequestWireFormat(t *testing.T) {
	got, err := json.Marshal(api.RequestOf(fullRequest()))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{`{"request_id":7`, `"session_id":"s1"`,
		`"tool_call_id":"call-1"`, `"tool_name":"mcp__notes__write"`,
		`"arguments":{"path":"a.txt"}`, `"agent_id":"bot-1"`, `"source":"chat"`,
		`"context_label":"nightly"`, `"tool_category":"notes"`, `"mcp_server":"notes"`,
		`"group_id":"agents"`, `"profile":"agents"`, `"cwd":"/ws"`, `"rule_id":12`,
		`"reason":"protected path"`, `"caller":"agent-0123456789ab"`,
		`"claimed_category":"safe"`,
		`"commands":[{"command":"ls","action":"allow","rule_id":3,"reason":"rule",` +
			`"risky":["-o"]}]`,
		`"created_at":"2026-03-01T12:00:00Z"`,
		`"expires_at":"2026-03-01T13:00:00Z"`, `"status":"approved"`,
		`"resolution":{"by":"jane","via":"telegram","at":"2026-03-01T12:01:00Z","note":"ok",` +
			`"bypass":{"scope":"all","secs":900}}`,
		`"messages":[{"channel":"telegram","chat_id":"100","ref":"42",` +
			`"shown_at":"2026-03-01T12:00:00Z","final":true}]}`}, ",")
	if string(got) != want {
		t.Errorf("request JSON\n got %s\nwant %s", got, want)
	}
}

// TestRequestOfMapsEveryField: a field added to api.Request and left out of RequestOf
// (or of fullRequest) fails here.
func TestRequestOfMapsEveryField(t *testing.T) {
	q := api.RequestOf(fullRequest())
	for _, v := range []any{q, *q.Resolution, *q.Resolution.Bypass, q.Messages[0],
		q.Commands[0]} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s is not mapped", rv.Type().Name(), rv.Type().Field(i).Name)
			}
		}
	}
}

// TestServerSendsRequestWireFormat: GET /api/approval/requests/{id} answers the API's
// form of the stored request.
func TestServerSendsRequestWireFormat(t *testing.T) {
	e := newAPIEnv(t)
	id := e.pending(e.admin, "s", "call-9")
	q, err := e.db.Request(id)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(api.RequestOf(q))
	if err != nil {
		t.Fatal(err)
	}
	st, body := e.do("GET", "/api/approval/requests/"+testkit.ID(id), adminToken, nil)
	if st != 200 || strings.TrimSpace(body) != string(want) {
		t.Errorf("GET request %d: %d\n got %s\nwant %s", id, st, body, want)
	}
}
