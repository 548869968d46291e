package api_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// formsEnv is an env whose data directory <root>/../datadir (holding admin.token) is
// protected, with src/sub/ and lnk → src/sub in the workspace and the profile's
// working directory wd (relative to the root; "" for the root).
func formsEnv(t *testing.T, wd string) *env {
	t.Helper()
	e := newAPIEnvGate(t, func(o *gate.Options) {
		root := o.Rules.WorkspaceRoot
		o.Rules.Protected = []string{filepath.Join(filepath.Dir(root), "datadir")}
		o.Profiles[0].WorkingDirectory = filepath.Join(root, wd)
	})
	for _, d := range []string{"src/sub", "../datadir"} {
		if err := os.MkdirAll(filepath.Join(e.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"secrets/key", "../datadir/admin.token"} {
		if err := os.WriteFile(filepath.Join(e.root, f), []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("src/sub", filepath.Join(e.root, "lnk")); err != nil {
		t.Fatal(err)
	}
	return e
}

// allowAll adds the plausible rules an attacker relies on: allow mcp__*, @fs_read and
// Glob after the seeded deny of secrets/; with bypass, a session bypass of all too.
func (e *env) allowAll(bypass bool) {
	e.t.Helper()
	for _, tp := range []string{"mcp__*", "@fs_read", "Glob"} {
		e.addRule(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: tp, Action: rules.Allow,
			Priority: 100})
	}
	if bypass {
		if _, err := e.admin.SetBypass(context.Background(), "s", "all", "", 0); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestSymlinkThenDotDot: lnk → src/sub, so the OS takes lnk/.. to src, but a tool that
// cleans ".." first opens secrets/key or the data directory: denied, under the rules,
// a bypass, or the fast-path.
func TestSymlinkThenDotDot(t *testing.T) {
	t.Run("rules and bypass", func(t *testing.T) {
		e := formsEnv(t, "")
		e.allowAll(true)
		e.wantDecision("mcp__filesystem__read_file",
			map[string]any{"path": e.root + "/lnk/../secrets/key"}, "", gate.VerdictDeny)
		e.wantDecision("Read",
			map[string]any{"file_path": e.root + "/lnk/../../datadir/admin.token"},
			"", gate.VerdictDeny)
		e.wantDecision("mcp__notes__get", map[string]any{"path": "lnk/../secrets/key"},
			"", gate.VerdictPending)
		e.wantDecision("Read", map[string]any{"file_path": "lnk/../x"}, "", gate.VerdictAllow)
	})
	t.Run("fast-path", func(t *testing.T) {
		e := formsEnv(t, "")
		e.wantDecision("Read", map[string]any{"file_path": "lnk/../secrets/key"},
			"", gate.VerdictDeny)
		e.wantDecision("Read", map[string]any{"file_path": "lnk/x"}, "", gate.VerdictAllow)
	})
}

// TestRelativeEveryBase: the profile's working directory is src, but an MCP server
// joins a relative path to its own root, the workspace: secrets/key is denied.
func TestRelativeEveryBase(t *testing.T) {
	e := formsEnv(t, "src")
	e.allowAll(false)
	e.wantDecision("mcp__filesystem__read_file", map[string]any{"path": "secrets/key"},
		"", gate.VerdictDeny)
	e.wantDecision("Read", map[string]any{"file_path": "key"}, "secrets", gate.VerdictDeny)
	e.wantDecision("mcp__filesystem__read_file", map[string]any{"path": e.root + "/src/x"},
		"", gate.VerdictAllow)
	e.wantDecision("mcp__filesystem__read_file", map[string]any{"path": "src/x"},
		"", gate.VerdictAllow)
}

// TestTildeExpanded: a tool expands ~ to the home directory (here src/sub); ~user is
// for a human.
func TestTildeExpanded(t *testing.T) {
	dir := testkit.Dir(t)
	t.Setenv("HOME", dir+"/home")
	e := formsEnv(t, "")
	if err := os.Symlink(e.root+"/src/sub", dir+"/home"); err != nil {
		t.Fatal(err)
	}
	e.allowAll(true)
	e.wantDecision("mcp__filesystem__read_file",
		map[string]any{"path": "~/../../../datadir/admin.token"}, "", gate.VerdictDeny)
	e.wantDecision("Read", map[string]any{"file_path": "~/../../secrets/key"},
		"", gate.VerdictDeny)
	e.wantDecision("Read", map[string]any{"file_path": "~root/x"}, "", gate.VerdictPending)
	e.wantDecision("Read", map[string]any{"file_path": "~/notes"}, "", gate.VerdictAllow)
}

// TestGlobAlternatives: a brace or a wildcard before ".." reaches outside the literal
// directory: denied, or for a human whatever the bypass.
func TestGlobAlternatives(t *testing.T) {
	e := formsEnv(t, "")
	e.allowAll(true)
	e.wantDecision("Glob", map[string]any{"pattern": "{../secrets,x}/*", "path": "src"},
		"", gate.VerdictDeny)
	e.wantDecision("Glob", map[string]any{"pattern": "*/../../secrets/*"}, "", gate.VerdictPending)
	e.wantDecision("Grep", map[string]any{"glob": "src/*/../../secrets/*", "pattern": "k"},
		"", gate.VerdictPending)
	e.wantDecision("Glob", map[string]any{"pattern": "src/{a,b}/*.go"}, "", gate.VerdictAllow)
}

// TestScannedArguments: under allow mcp__* and a bypass of all, a string anywhere in
// the arguments that names, or holds, a place in secrets/ is for a human, and one in
// the data directory is denied.
func TestScannedArguments(t *testing.T) {
	e := formsEnv(t, "")
	e.allowAll(true)
	for _, k := range []string{"file", "filename", "uri", "src", "from", "to"} {
		e.wantDecision("mcp__notes__read", map[string]any{k: "secrets/key"},
			"", gate.VerdictPending)
	}
	for _, args := range []map[string]any{
		{"opts": map[string]any{"path": "secrets/key"}},
		{"files": []any{map[string]any{"path": "secrets/key"}}},
		{"path": "file://" + e.root + "/secrets/key"},
		{"q": "file://" + e.root + "/secr%65ts/key"},
	} {
		e.wantDecision("mcp__notes__read", args, "", gate.VerdictPending)
	}
	// The data directory is denied under any key, as under a path key.
	e.wantDecision("mcp__notes__read", map[string]any{"file": e.root + "/../datadir/admin.token"},
		"", gate.VerdictDeny)
	e.wantDecision("WebFetch", map[string]any{"url": "file://" + e.root + "/secrets/key"},
		"", gate.VerdictPending)
	e.wantDecision("mcp__filesystem__read_file",
		map[string]any{"path": "file://" + e.root + "/secrets/key"}, "", gate.VerdictDeny)
	e.wantDecision("mcp__notes__read", map[string]any{"file": "src/x", "q": "a key, in src"},
		"", gate.VerdictAllow)
	e.wantDecision("mcp__notes__read", map[string]any{"file": "src/x", "q": ".", "r": "/"},
		"", gate.VerdictPending)
	e.wantDecision("WebFetch", map[string]any{"url": "https://example.com/a/b"},
		"", gate.VerdictAllow)
}
