package bot

import (
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/store"
)

// A prompt whose caller stopped waiting says when, keeps its buttons while pending,
// and keeps the line once finished.
func TestPromptCallerStoppedWaiting(t *testing.T) {
	r := sampleRequest()
	if p := NewPrompt(r, 0); fieldOf(p, "⚠ Caller") != "" {
		t.Fatalf("a waited-on request shows %q", fieldOf(p, "⚠ Caller"))
	}
	r.WaiterGoneAt = time.Date(2026, 12, 1, 14, 3, 9, 0, time.UTC)
	p := NewPrompt(r, 0)
	want := "stopped waiting at 2026-12-01 14:03:09 UTC; " +
		"the request can still be answered, for a retried call"
	if got := fieldOf(p, "⚠ Caller"); got != want || len(p.Buttons) != 2 {
		t.Fatalf("field %q, %d button rows", got, len(p.Buttons))
	}
	r.Status = store.Approved
	if got := fieldOf(NewPrompt(r, 0), "⚠ Caller"); got != want {
		t.Errorf("finished: field %q", got)
	}
}

func fieldOf(p Prompt, label string) string {
	for _, f := range p.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	return ""
}
