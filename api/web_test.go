package api_test

import (
	"context"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// TestWebHostRule: a host rule added through the API decides the same WebFetch call
// that was pending before it; hosts it does not name, and URLs without an http(s)
// host, stay pending; an update through the client can clear the host pattern.
func TestWebHostRule(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	call := map[string]any{"url": "https://docs.example.com/intro", "prompt": "summarise"}
	if before := e.checkAs("WebFetch", call, ""); before.Decision != gate.VerdictPending {
		t.Fatalf("before the rule: %+v, want pending", before)
	}
	r, err := e.admin.CreateRule(ctx, rules.Rule{GroupID: rules.DefaultGroup,
		ToolPattern: "WebFetch", HostPattern: "*.example.com", Action: rules.Allow})
	if err != nil {
		t.Fatal(err)
	}
	if r.HostPattern != "*.example.com" {
		t.Fatalf("stored rule %+v lost its host pattern", r)
	}
	got := e.checkAs("WebFetch", call, "")
	if got.Decision != gate.VerdictAllow || got.RuleID != r.ID {
		t.Fatalf("after the rule: %+v, want allow by rule %d", got, r.ID)
	}
	for _, url := range []string{"https://example.com/", "https://evil-example.com/",
		"http://docs.example.com@evil.net/", "file:///etc/passwd", "//docs.example.com/"} {
		e.wantDecision("WebFetch", map[string]any{"url": url}, "", gate.VerdictPending)
	}
	ex, err := e.admin.Explain(ctx, gate.Call{ToolName: "WebFetch",
		Arguments: map[string]any{"url": "HTTPS://A.Docs.Example.COM./x"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Decision != rules.Allow || ex.RuleID != r.ID {
		t.Errorf("explain: %+v, want allow by rule %d", ex, r.ID)
	}
	r.HostPattern = "example.com"
	if r, err = e.admin.UpdateRule(ctx, r); err != nil || r.HostPattern != "example.com" {
		t.Fatalf("update: %v %+v", err, r)
	}
	e.wantDecision("WebFetch", map[string]any{"url": "https://example.com/"}, "",
		gate.VerdictAllow)
	e.wantDecision("WebFetch", call, "", gate.VerdictPending)
}
