package api

import (
	"reflect"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// TestAnswersMapEveryField: a field added to an answer type and left out of its
// mapping fails here.
func TestAnswersMapEveryField(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	run := runOf(store.Run{ID: 1, Job: "backup", SessionID: "cron:backup:1",
		Status: store.RunFailed, Trigger: "manual", Step: 1, RequestID: 3, Error: "exit 1",
		ClarificationID: 6,
		SkippedTriggers: 2, StartedAt: at, FinishedAt: at.Add(time.Second),
		Steps: []store.StepResult{{Tool: "execute_cmd", Decision: "approved", Status: "failed",
			ExitCode: 1, Output: "boom", DurationMS: 5, RequestID: 3, StartedAt: at,
			ClarificationID: 6}}})
	audit := auditEntryOf(store.AuditEntry{ID: 1, At: at, By: "jane", Via: "api",
		Action: "resolve", RequestID: 3, RuleID: 4, Detail: "approved", ClarificationID: 5})
	bypass := bypassOf(gate.Bypass{SessionID: "s", Scope: "all", Caller: "local",
		RequestID: 3, Profile: "agents", AgentID: "bot-1", ExpiresAt: at})
	two := 1
	clar := ClarificationOf(store.Clarification{ID: 1, ClarificationID: "c", SessionID: "s",
		AgentID: "a", Source: "cli", ContextLabel: "l", Caller: "local", Question: "q",
		Options: []string{"x", "y"}, CreatedAt: at, ExpiresAt: at, Status: "answered",
		Answer: &store.ClarificationAnswer{Text: "y", Option: &two, By: "j", Via: "api", At: at},
		Closed: &store.Resolution{By: "j", Via: "api", At: at, Note: "n"},
		Messages: []store.Message{
			{Channel: "telegram", ChatID: "1", Ref: "2", ShownAt: at, Final: true}}})
	for _, v := range []any{run, run.Steps[0], audit, bypass, clar, *clar.Answer} {
		rv := reflect.ValueOf(v)
		t.Run(rv.Type().Name(), func(t *testing.T) {
			for i := range rv.NumField() {
				if rv.Field(i).IsZero() {
					t.Errorf("%s is not mapped", rv.Type().Field(i).Name)
				}
			}
		})
	}
}

// TestEmptyListsAreArrays: an empty list is [] on the wire, never null.
func TestEmptyListsAreArrays(t *testing.T) {
	for name, v := range map[string]any{"requests": listOf(nil, RequestOf),
		"bypasses": listOf(nil, bypassOf), "runs": listOf(nil, runOf),
		"audit": listOf(nil, auditEntryOf), "clarifications": listOf(nil, ClarificationOf)} {
		t.Run(name, func(t *testing.T) {
			if rv := reflect.ValueOf(v); rv.IsNil() || rv.Len() != 0 {
				t.Errorf("%s of nil = %#v, want an empty slice", name, v)
			}
		})
	}
}

// TestRunSteps: a run's step is numbered from 1, and only a step that ran to an end
// has an exit code.
func TestRunSteps(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	run := runOf(store.Run{Step: 2, Steps: []store.StepResult{
		{Tool: "write_file", Decision: "allow", Status: "succeeded", StartedAt: at},
		{Tool: "execute_cmd", Decision: "approved", Status: "failed", ExitCode: 2, StartedAt: at},
		{Tool: "execute_cmd", Decision: "rejected", Status: "rejected"},
		{Tool: "execute_cmd", Decision: "allow", Status: string(store.RunRunning), StartedAt: at},
	}})
	if run.Step != 3 {
		t.Errorf("step %d, want 3", run.Step)
	}
	for i, want := range []*int{new(0), new(2), nil, nil} {
		got := run.Steps[i].ExitCode
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("step %d: exit code %v, want %v", i+1, got, want)
		}
	}
}
