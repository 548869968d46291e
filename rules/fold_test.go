package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFoldsCase: Linux's file systems here compare names by their bytes, so the probe
// answers false and the same Set decides SECRETS/key as a name of its own.
func TestFoldsCase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Abc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if probeFolds(dir) {
		t.Skipf("%s folds case: not the file system this test expects", dir)
	}
	if FoldsCase(dir) || FoldsCase(dir) {
		t.Errorf("FoldsCase(%s) = true on a case-sensitive file system", dir)
	}
	if probeFolds(filepath.Join(dir, "none")) {
		t.Error("a directory that does not exist folds case")
	}
}

// TestEvaluateFoldedCase: in a workspace whose file system folds case (injected: the
// probe cannot fold on Linux), SECRETS/key is secrets/key for every tool, and a
// pattern written in another case covers the place.
func TestEvaluateFoldedCase(t *testing.T) {
	root := workspace(t)
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 100},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", PathPattern: "Docs/*",
			Action: Deny, Priority: 1})
	conf := filepath.Join(t.TempDir(), "skald.yaml") // a protected place outside the root
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	opt := seedOptions(root)
	opt.Protected = append(opt.Protected, conf)
	var asked []string
	opt.FoldsCase = func(dir string) bool { asked = append(asked, dir); return true }
	s := Compile(nil, rs, opt)
	if len(asked) != 2 || asked[0] != root || asked[1] != "/" {
		t.Errorf("FoldsCase asked %q, want the workspace root and / once", asked)
	}
	sensitiveOpt := seedOptions(root)
	sensitiveOpt.Protected = opt.Protected
	sensitive := Compile(nil, rs, sensitiveOpt)
	upperRoot := strings.ToUpper(root)
	notes := func(v string) Call {
		return Call{Tool: "mcp__notes__x", Args: map[string]any{"q": v}}
	}
	for _, tc := range []struct {
		name     string
		call     Call
		folded   Decision
		sensible Action
	}{
		{"Read SECRETS/key", read("SECRETS/key"), n1(ruled(Deny, 11, "secrets/key")), Require},
		{"Read Secrets/Key", read("Secrets/Key"), n1(ruled(Deny, 11, "secrets/key")), Require},
		{"the root in another case", read(upperRoot + "/SECRETS/key"),
			n1(ruled(Deny, 11, "secrets/key")), Require},
		{"the data directory", read("STATE/skald.db"),
			n1(protected("state/skald.db")), Require},
		{"a protected place outside the root", read(strings.ToUpper(conf)),
			n1(Decision{Action: Deny, Reason: ReasonProtected, Path: strings.ToLower(conf),
				PathState: PathOK}), Require},
		{"a pattern written in another case", read("docs/a"), n1(ruled(Deny, 21, "docs/a")),
			Require},
		{"an MCP tool's path",
			Call{Tool: "mcp__notes__x", Args: map[string]any{"path": "SECRETS/key"}},
			Decision{Action: Require, Reason: ReasonDenied + ": secrets", Path: "secrets/key",
				PathState: PathOK, Contains: "secrets", Paths: 1}, Allow},
		{"an argument word", notes("cat SECRETS/key"),
			inPlace(ReasonDenied, "secrets", "secrets/key"), Allow},
		{"a bare name in another case", notes("see SECRETS"),
			inPlace(ReasonDenied, "secrets", "secrets"), Allow},
		{"a glued expansion in another case", notes("${X}RETS"),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}, Allow},
		{"a glob in another case", notes("SEC?ETS"),
			inPlace(ReasonContains, "data/skald", "."), Allow},
		{"a shell command", Call{Tool: "Bash", Args: map[string]any{"command": "cat SECRETS/key"}},
			Decision{}, Require},
		{"an allowed place", read("MEMORY/a"), n1(ruled(Allow, 9, "memory/a")), Require},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Evaluate(DefaultGroup, tc.call)
			if tc.folded == (Decision{}) {
				if !got.Locked() {
					t.Errorf("folded: %+v, want a locked require", got)
				}
			} else if got.Script = nil; got != tc.folded {
				t.Errorf("folded:\n got  %+v\n want %+v", got, tc.folded)
			}
			if d := sensitive.Evaluate(DefaultGroup, tc.call); d.Action != tc.sensible ||
				d.Locked() {
				t.Errorf("case-sensitive: %+v, want an unlocked %s", d, tc.sensible)
			}
		})
	}
}
