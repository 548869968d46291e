package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/internal/claudecode"
)

// TestNeedsHumanPlaces: the gate's own wiring is each workspace's Claude Code
// settings and .mcp.json, the user's settings and ~/.claude.json, the managed
// settings, and the running executable.
func TestNeedsHumanPlaces(t *testing.T) {
	cfg := &config.Config{WorkspaceRoot: "/w",
		Profiles: []config.Profile{{ID: "p", WorkspaceRoot: "/p"}, {ID: "q"}},
		Tools: config.Tools{NeedsHuman: []string{".github/workflows", "~/bin/deploy",
			"/etc/cron.d/"}}}
	got := needsHuman(cfg, "/home/u")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/w/.claude/settings.json", "/w/.claude/settings.local.json",
		"/p/.claude/settings.json", "/p/.claude/settings.local.json",
		"/home/u/.claude/settings.json", claudecode.ManagedSettings, exe,
		"/w/.mcp.json", "/p/.mcp.json", "/home/u/.claude.json",
		"/w/.github/workflows", "/p/.github/workflows", "/home/u/bin/deploy",
		"/etc/cron.d"} {
		if !slices.Contains(got, want) {
			t.Errorf("needsHuman lacks %s: %v", want, got)
		}
	}
	// The program a workspace's hook runs, which may not be the service's executable.
	ws := t.TempDir()
	hook := filepath.Join(ws, "bin", "skald-bot")
	settings := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command",` +
		`"command":"` + hook + ` hook claude-code --profile p"}]}]}}`
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(settings),
		0o644); err != nil {
		t.Fatal(err)
	}
	if got := needsHuman(&config.Config{WorkspaceRoot: ws}, ""); !slices.Contains(got, hook) {
		t.Errorf("needsHuman lacks the hook's program %s: %v", hook, got)
	}
	opt := gateOptions(cfg, nil, nil)
	if !slices.Contains(opt.Rules.NeedsHuman, "/w/.claude/settings.json") {
		t.Errorf("gateOptions: NeedsHuman %v", opt.Rules.NeedsHuman)
	}
}
