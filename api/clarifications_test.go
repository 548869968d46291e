package api_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

func TestClarificationOverTheAPI(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	agent := e.client(agentToken)
	c, err := agent.Ask(ctx, api.AskRequest{SessionID: "s1", ClarificationID: "c1",
		AgentID: "claimed", Question: "which branch?", Options: []string{"main", "*dev*"}})
	testkit.Must(t, err)
	if c.Status != store.ClarificationPending || c.AgentID != "bot-1" ||
		c.Caller != api.TokenName(agentToken) {
		t.Fatalf("asked %+v", c)
	}
	// Idempotent, every field compared.
	again, err := agent.Ask(ctx, api.AskRequest{SessionID: "s1", ClarificationID: "c1",
		Question: "which branch?", Options: []string{"main", "*dev*"}})
	testkit.Must(t, err)
	if again.ID != c.ID {
		t.Fatalf("replay got %d, want %d", again.ID, c.ID)
	}
	before := teststore.Snapshot(t, e.db)
	e.wantError("POST", "/api/clarifications", agentToken,
		`{"session_id":"s1","clarification_id":"c1","question":"which tag?",`+
			`"options":["main","*dev*"]}`,
		http.StatusConflict, "not the same question")
	e.wantError("POST", "/api/clarifications", otherAgent,
		`{"session_id":"s1","clarification_id":"c1","question":"which branch?"}`,
		http.StatusConflict, "made by another caller")
	e.wantError("POST", "/api/clarifications", agentToken, `{"session_id":"s1","question":""}`,
		http.StatusUnprocessableEntity, "question is required")
	e.wantError("POST", "/api/clarifications", agentToken,
		`{"session_id":"s1","question":"q","source":"cron"}`, http.StatusForbidden, "source cron")
	e.wantError("POST", "/api/clarifications", agentToken,
		`{"session_id":"cron:j:1","question":"q"}`, http.StatusForbidden, "cron:")
	// Reading: own only; answering: never an agent.
	e.wantError("GET", "/api/clarifications/1", otherAgent, "", http.StatusForbidden,
		"asked by another caller")
	e.wantError("POST", "/api/inbox/clarifications/1/resolve", agentToken, `{"answer":"main"}`,
		http.StatusForbidden, "")
	e.wantError("POST", "/api/inbox/clarifications/1/resolve", "", `{"answer":"main"}`,
		http.StatusUnauthorized, "")
	e.wantError("POST", "/api/inbox/clarifications/1/resolve", adminToken, `{"answer":" "}`,
		http.StatusUnprocessableEntity, "the answer is empty")
	e.wantError("POST", "/api/inbox/clarifications/9/resolve", adminToken, `{"answer":"x"}`,
		http.StatusNotFound, "")
	teststore.Unchanged(t, e.db, before)

	in, err := e.admin.Inbox(ctx)
	testkit.Must(t, err)
	if in.Total != 1 || len(in.Clarifications) != 1 || in.Clarifications[0].Options[1] != "*dev*" {
		t.Fatalf("inbox %+v", in)
	}
	// A waiting reader is woken by the answer.
	got := make(chan api.Clarification, 1)
	go func() {
		c, err := agent.Clarification(ctx, c.ID, 60)
		if err != nil {
			t.Error(err)
		}
		got <- c
	}()
	e.admin.Actor = "jane"
	ans, err := e.admin.Answer(ctx, c.ID, api.AnswerRequest{Answer: "*dev*"})
	testkit.Must(t, err)
	if ans.Answer == nil || ans.Answer.By != "jane" || ans.Answer.Option == nil ||
		*ans.Answer.Option != 1 {
		t.Fatalf("answer %+v", ans.Answer)
	}
	if w := <-got; w.Status != store.ClarificationAnswered || w.Answer.Text != "*dev*" {
		t.Fatalf("the waiting reader got %+v", w)
	}
	e.wantError("POST", "/api/inbox/clarifications/1/resolve", adminToken, `{"answer":"main"}`,
		http.StatusConflict, "already answered by jane via api")
	in, err = e.admin.Inbox(ctx)
	testkit.Must(t, err)
	if in.Total != 0 || len(in.Clarifications) != 0 {
		t.Fatalf("inbox after the answer %+v", in)
	}
	es, err := e.db.Audit(1)
	testkit.Must(t, err)
	if es[0].Action != store.AuditClarificationAnswered || es[0].ClarificationID != c.ID {
		t.Errorf("audit %+v", es[0])
	}
}

func TestClarificationLocalCallerAndCancel(t *testing.T) {
	e := newAPIEnv(t, func(o *api.Options) { o.Generated, o.AgentTokens = true, nil })
	ctx := context.Background()
	local := e.client("")
	c, err := local.Ask(ctx, api.AskRequest{SessionID: "s", Question: "go on?"})
	testkit.Must(t, err)
	if c.Caller != store.CallerLocal || len(c.Options) != 0 {
		t.Fatalf("asked %+v", c)
	}
	got, err := local.Clarification(ctx, c.ID, 0)
	testkit.Must(t, err)
	if got.ID != c.ID {
		t.Fatalf("read %+v", got)
	}
	e.wantError("POST", "/api/inbox/clarifications/1/resolve", "", `{"answer":"yes"}`,
		http.StatusUnauthorized, "")
	cancelled, err := local.CancelClarification(ctx, c.ID, "not needed")
	testkit.Must(t, err)
	if cancelled.Status != store.ClarificationCancelled || cancelled.Closed.Note != "not needed" {
		t.Fatalf("cancelled %+v", cancelled)
	}
	if !strings.Contains(cancelled.Closed.By, store.CallerLocal) {
		t.Errorf("cancelled by %q", cancelled.Closed.By)
	}
}

func TestClarificationEvents(t *testing.T) {
	e := newAPIEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", e.url+"/api/events", nil)
	testkit.Must(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	testkit.Must(t, err)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("first line %q %v", line, err)
	}
	c, err := e.client(agentToken).Ask(ctx, api.AskRequest{SessionID: "s", ClarificationID: "c9",
		Question: "which?"})
	testkit.Must(t, err)
	name, data := testkit.ReadEvent(t, r)
	want := `{"id":` + testkit.ID(c.ID) + `,"clarification_id":"c9","session_id":"s"}`
	if name != "clarification_requested" || data != want {
		t.Fatalf("event %s %s", name, data)
	}
	_, err = e.admin.Answer(ctx, c.ID, api.AnswerRequest{Answer: "that one"})
	testkit.Must(t, err)
	name, data = testkit.ReadEvent(t, r)
	want = `{"id":` + testkit.ID(c.ID) +
		`,"clarification_id":"c9","session_id":"s","status":"answered"}`
	if name != "clarification_resolved" || data != want {
		t.Fatalf("event %s %s", name, data)
	}
}

// TestClarificationControlCharacters checks options and context labels holding a
// control character, and options with invisible or bidi characters or white space at
// their ends, are refused with 422 and nothing stored, while the question may hold
// newlines.
func TestClarificationControlCharacters(t *testing.T) {
	e := newAPIEnv(t)
	before := teststore.Snapshot(t, e.db)
	for _, c := range []struct{ name, body, msg string }{
		{"an option with newlines",
			`{"session_id":"s","question":"q","options":["no\n\nyes","x"]}`,
			`option 1 "no\n\nyes" must not hold control characters`},
		{"an option with a tab", `{"session_id":"s","question":"q","options":["a","b\tc"]}`,
			"option 2"},
		{"an option with a carriage return",
			`{"session_id":"s","question":"q","options":["a\rb"]}`,
			"must not hold control characters"},
		{"an option with NUL", `{"session_id":"s","question":"q","options":["a\u0000"]}`,
			"must not hold control characters"},
		{"a context label with a newline",
			`{"session_id":"s","question":"q","context_label":"a\nb"}`,
			"context_label"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.wantError("POST", "/api/clarifications", agentToken, c.body,
				http.StatusUnprocessableEntity, c.msg)
		})
	}
	// Options that would look alike on a button: an end space, bidi, zero width.
	for _, opts := range []string{`"yes","yes "`, `"\u202eon"`, `"ye\u200bs"`} {
		e.wantError("POST", "/api/clarifications", agentToken,
			`{"session_id":"s","question":"q","options":[`+opts+`]}`,
			http.StatusUnprocessableEntity, "must not")
	}
	// A tool call's context label too.
	e.wantError("POST", "/api/approval/check", adminToken,
		`{"tool_name":"Bash","session_id":"s","context_label":"CronJob:\nx",`+
			`"arguments":{"command":"rm -rf b"}}`,
		http.StatusUnprocessableEntity, "context_label")
	teststore.Unchanged(t, e.db, before)

	c, err := e.client(agentToken).Ask(context.Background(), api.AskRequest{SessionID: "s",
		Question: "which one?\n\n1. main\n2. dev", Options: []string{"main", "dev"}})
	testkit.Must(t, err)
	if c.Question != "which one?\n\n1. main\n2. dev" {
		t.Errorf("question stored as %q", c.Question)
	}
}

// TestAwaitClarification checks AwaitClarification's three ends: the pending one when
// ctx has ended, the answer once there is one, and the server's refusal otherwise.
func TestAwaitClarification(t *testing.T) {
	e := newAPIEnv(t)
	agent := e.client(agentToken)
	c, err := agent.Ask(context.Background(), api.AskRequest{SessionID: "s1",
		Question: "which branch?"})
	testkit.Must(t, err)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := agent.AwaitClarification(ended, c.ID)
	if err != nil || got.ID != c.ID || got.Status != store.ClarificationPending {
		t.Fatalf("AwaitClarification after ctx ended = %v %+v, want it pending", err, got)
	}
	_, err = e.admin.Answer(context.Background(), c.ID, api.AnswerRequest{Answer: "main"})
	testkit.Must(t, err)
	got, err = agent.AwaitClarification(context.Background(), c.ID)
	if err != nil || got.Status != store.ClarificationAnswered || got.Answer == nil ||
		got.Answer.Text != "main" {
		t.Fatalf("AwaitClarification after the answer = %v %+v", err, got)
	}
	before := teststore.Snapshot(t, e.db)
	_, err = agent.AwaitClarification(context.Background(), 99999)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound ||
		!strings.Contains(ae.Message, "99999") {
		t.Fatalf("AwaitClarification of an unknown id: err = %v, want a 404 naming it", err)
	}
	teststore.Unchanged(t, e.db, before)
}
