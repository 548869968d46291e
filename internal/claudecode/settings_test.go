package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var testHook = Hook{
	Command: "/usr/local/bin/skald-bot hook claude-code --profile shop",
	Timeout: 600,
}

// copyFixture copies testdata/name to dir/.claude/settings.json and returns its path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func topKeys(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseObject(data)
	if err != nil {
		t.Fatal(err)
	}
	return o.keys
}

// firstCommand returns the command of the first hook of a PreToolUse entry.
func firstCommand(entry any) any {
	return entry.(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"]
}

// TestInstallKeepsEverything installs into every settings fixture: the other hooks,
// the permissions and the unknown keys stay, in their order; a second install gives
// the same bytes; uninstall gives back the file's content.
func TestInstallKeepsEverything(t *testing.T) {
	names, err := filepath.Glob("testdata/settings_*.json")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			path := copyFixture(t, filepath.Base(name))
			before := readJSON(t, path)
			keys := topKeys(t, path)
			ch, err := InstallHook(path, testHook)
			if err != nil || ch != Added {
				t.Fatalf("InstallHook = %q, %v; want added", ch, err)
			}
			after := readJSON(t, path)
			got := topKeys(t, path)
			if _, had := before["hooks"]; !had {
				keys = append(keys, "hooks")
			}
			if !reflect.DeepEqual(got, keys) {
				t.Errorf("keys %v, want %v", got, keys)
			}
			for k, v := range before {
				if k == "hooks" {
					continue
				}
				if !reflect.DeepEqual(after[k], v) {
					t.Errorf("key %s changed: %v → %v", k, v, after[k])
				}
			}
			pre := after["hooks"].(map[string]any)["PreToolUse"].([]any)
			last := pre[len(pre)-1].(map[string]any)
			h := last["hooks"].([]any)[0].(map[string]any)
			if last["matcher"] != "*" || h["command"] != testHook.Command ||
				h["timeout"] != 600.0 || h["type"] != "command" {
				t.Errorf("our entry %v", last)
			}
			if bh, ok := before["hooks"].(map[string]any); ok {
				for ev, v := range bh {
					if ev == "PreToolUse" {
						if !reflect.DeepEqual(pre[:len(pre)-1], v) {
							t.Errorf("the other PreToolUse entries changed: %v → %v",
								v, pre[:len(pre)-1])
						}
						continue
					}
					if !reflect.DeepEqual(after["hooks"].(map[string]any)[ev], v) {
						t.Errorf("hook %s changed", ev)
					}
				}
			}
			once, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ch, err = InstallHook(path, testHook)
			if err != nil || ch != AlreadyInstalled {
				t.Fatalf("second InstallHook = %q, %v; want already installed", ch, err)
			}
			twice, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(once, twice) {
				t.Fatalf("second install changed the file:\n%s\n---\n%s", once, twice)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, %v; want the file's 0600 kept", fi.Mode(), err)
			}
			ch, err = UninstallHook(path)
			if err != nil || ch != Removed {
				t.Fatalf("UninstallHook = %q, %v; want removed", ch, err)
			}
			if got := readJSON(t, path); !reflect.DeepEqual(got, before) {
				t.Errorf("after uninstall:\n%v\nwant\n%v", got, before)
			}
			ch, err = UninstallHook(path)
			if err != nil || ch != NotInstalled {
				t.Errorf("second UninstallHook = %q, %v; want not installed", ch, err)
			}
		})
	}
}

func TestInstallNewAndUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proj", ".claude", "settings.json")
	ch, err := InstallHook(path, testHook)
	if err != nil || ch != Added {
		t.Fatalf("InstallHook into no file = %q, %v", ch, err)
	}
	want := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/skald-bot hook claude-code --profile shop",
            "timeout": 600
          }
        ]
      }
    ]
  }
}
`
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Fatalf("new file:\n%s(%v)\nwant\n%s", got, err, want)
	}
	h := Hook{Command: "'/opt/my tools/skald-bot' hook claude-code --wait 2m", Timeout: 180}
	if ch, err := InstallHook(path, h); err != nil || ch != Updated {
		t.Fatalf("InstallHook with other flags = %q, %v; want updated", ch, err)
	}
	got := readJSON(t, path)["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(got) != 1 || firstCommand(got[0]) != h.Command {
		t.Errorf("after update: %v", got)
	}
	// Two copies of ours (installed by hand): one stays, the entry of the other goes.
	two := `{"hooks": {"PreToolUse": [
	  {"matcher": "*", "hooks": [{"type": "command", "command": "skald-bot hook claude-code"}]},
	  {"matcher": "Bash",
	   "hooks": [{"type": "command", "command": "/x/skald-bot hook claude-code --wait 1m"}]}]}}`
	if err := os.WriteFile(path, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, err := InstallHook(path, testHook); err != nil || ch != Updated {
		t.Fatalf("InstallHook over two copies = %q, %v", ch, err)
	}
	got = readJSON(t, path)["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(got) != 1 || firstCommand(got[0]) != testHook.Command {
		t.Errorf("after installing over two copies: %v", got)
	}
	if ch, err := UninstallHook(path); err != nil || ch != Removed {
		t.Fatalf("UninstallHook = %q, %v", ch, err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "{}\n" {
		t.Errorf("after uninstall: %q (%v), want the empty containers gone", got, err)
	}
}

// TestInstallMalformed checks a file Claude Code could not read is refused with the
// key at fault, and left as it was.
func TestInstallMalformed(t *testing.T) {
	for _, c := range []struct{ name, content, says string }{
		{"not JSON", `{"permissions": `, "line 1: unexpected end of JSON input"},
		{"a bad line", "{\n  \"a\": 1,\n}", "line 3: invalid character"},
		{"an array", `[]`, "not a JSON object"},
		{"two values", `{} {}`, "after top-level value"},
		{"hooks a list", `{"hooks": []}`, "hooks is not an object"},
		{"PreToolUse an object", `{"hooks": {"PreToolUse": {}}}`,
			"hooks.PreToolUse is not a list"},
		{"entry a string", `{"hooks": {"PreToolUse": ["x"]}}`,
			"hooks.PreToolUse[0] is not an object"},
		{"entry hooks an object", `{"hooks": {"PreToolUse": [{"hooks": {}}]}}`,
			"hooks.PreToolUse[0].hooks is not a list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, op := range []func() (Change, error){
				func() (Change, error) { return InstallHook(path, testHook) },
				func() (Change, error) { return UninstallHook(path) },
			} {
				_, err := op()
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.says) ||
					!strings.Contains(err.Error(), path) {
					t.Errorf("error %v, want ErrMalformed saying %q and the file", err, c.says)
				}
				if got, err := os.ReadFile(path); err != nil || string(got) != c.content {
					t.Errorf("file now %q (%v), want it untouched", got, err)
				}
			}
			if ents, err := os.ReadDir(filepath.Dir(path)); err != nil || len(ents) != 1 {
				t.Errorf("directory holds %v (%v), want no temporary file left", ents, err)
			}
		})
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/skald-bot hook claude-code":            true,
		"'/opt/my tools/skald-bot' hook claude-code --wait 2m": true,
		"skald-bot hook claude-code --profile x":               true,
		"skald-bot check --tool x":                             false,
		"uv run $CLAUDE_PROJECT_DIR/.claude/hooks/x.py":        false,
		"other hook claude-code":                               false,
		"skald-bot 'hook":                                      false,
	} {
		if got := IsOurs(cmd); got != want {
			t.Errorf("IsOurs(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestHookPrograms: the programs of skald-bot's hooks in a settings file, other hooks
// left out; none for a missing file; an error for a malformed one.
func TestHookPrograms(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hooks := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[
		{"type":"command","command":"'/opt/my tools/skald-bot' hook claude-code"},
		{"type":"command","command":"uv run x.py"}]},
		{"matcher":"Bash","hooks":[{"type":"command","command":"skald-bot hook claude-code"},
		{"type":"command","command":"/opt/my\\ tools/skald-bot hook claude-code -w 1m"}]}]}}`
	for _, tc := range []struct {
		name, path string
		want       []string
		err        bool
	}{
		{"hooks", write("a.json", hooks), []string{"/opt/my tools/skald-bot", "skald-bot"}, false},
		{"no hooks", write("b.json", `{"permissions":{}}`), nil, false},
		{"missing", filepath.Join(dir, "none.json"), nil, false},
		{"malformed", write("c.json", `{"hooks":[]}`), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HookPrograms(tc.path)
			if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("HookPrograms = %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
			if tc.err && !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v, want ErrMalformed", err)
			}
		})
	}
}

// TestCommandFiles: the files besides the settings that make Claude Code run
// commands (MCP servers) are each root's .mcp.json and ~/.claude.json.
func TestCommandFiles(t *testing.T) {
	tests := []struct {
		name  string
		roots []string
		home  string
		want  []string
	}{
		{"roots and home", []string{"/w", "/p"}, "/home/u",
			[]string{"/w/.mcp.json", "/p/.mcp.json", "/home/u/.claude.json"}},
		{"no home", []string{"/w"}, "", []string{"/w/.mcp.json"}},
		{"nothing", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CommandFiles(tt.roots, tt.home); !slices.Equal(got, tt.want) {
				t.Errorf("CommandFiles(%v, %q) = %v, want %v", tt.roots, tt.home, got, tt.want)
			}
		})
	}
}
