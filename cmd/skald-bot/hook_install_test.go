package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHookInstallBinary installs the hook with the real binary into a project whose
// settings hold other hooks and permissions: they are kept, a second install gives
// the same file, and uninstall removes only our entry.
func TestHookInstallBinary(t *testing.T) {
	proj := t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := fixture(t, "settings_permissions_team_docs.json")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cliRun(t, proj, nil, nil, "hook", "install",
		"--profile", "shop", "--wait", "2m")
	if code != 0 || !strings.Contains(out, "hook added") ||
		!strings.Contains(out, "(timeout 180s)") {
		t.Fatalf("hook install: exit %d, %q %q", code, out, errOut)
	}
	var before, after map[string]any
	decode := func(b []byte, v any) {
		t.Helper()
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	decode(orig, &before)
	once, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decode(once, &after)
	for _, k := range []string{
		"permissions", "env", "extraKnownMarketplaces", "enabledPlugins", "sandbox",
		"plansDirectory",
	} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s changed: %v → %v", k, before[k], after[k])
		}
	}
	pre := after["hooks"].(map[string]any)["PreToolUse"].([]any)
	first := before["hooks"].(map[string]any)["PreToolUse"].([]any)[0]
	if len(pre) != 2 || !reflect.DeepEqual(pre[0], first) {
		t.Fatalf("PreToolUse = %v, want the block-rm hook then ours", pre)
	}
	ours := pre[1].(map[string]any)
	h := ours["hooks"].([]any)[0].(map[string]any)
	cmd, _ := h["command"].(string)
	if ours["matcher"] != "*" || h["timeout"] != 180.0 ||
		!filepath.IsAbs(strings.Fields(cmd)[0]) ||
		!strings.HasSuffix(cmd, " hook claude-code --profile shop --wait 2m") {
		t.Errorf("our entry %v", ours)
	}
	code, out, _ = cliRun(t, proj, nil, nil, "hook", "install",
		"--profile", "shop", "--wait", "2m")
	twice, err := os.ReadFile(path)
	if err != nil || code != 0 || !strings.Contains(out, "hook already installed") ||
		!bytes.Equal(once, twice) {
		t.Fatalf("second install: exit %d %q; file changed: %v",
			code, out, !bytes.Equal(once, twice))
	}
	code, out, _ = cliRun(t, "", nil, nil, "hook", "install", "--dir", proj, "--profile", "shop")
	if code != 0 || !strings.Contains(out, "hook updated") ||
		!strings.Contains(out, "(timeout 600s)") {
		t.Fatalf("install with another --wait: exit %d %q", code, out)
	}
	code, out, _ = cliRun(t, proj, nil, nil, "hook", "uninstall")
	if code != 0 || !strings.Contains(out, "hook removed") {
		t.Fatalf("uninstall: exit %d %q", code, out)
	}
	var back map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decode(data, &back)
	if !reflect.DeepEqual(back, before) {
		t.Errorf("after uninstall:\n%v\nwant\n%v", back, before)
	}
}

// TestHookInstallRefused checks a malformed settings file and a bad --dir are refused
// with a clear error, nothing written.
func TestHookInstallRefused(t *testing.T) {
	proj := t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := []byte("{\n  \"hooks\": [],\n}\n")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{
			args: []string{"hook", "install", "--dir", proj},
			code: 1,
			says: "malformed settings file: line 3: invalid character '}'",
		},
		{[]string{"hook", "uninstall", "--dir", proj}, 1, "malformed settings file"},
		{
			args: []string{"hook", "install", "--dir", filepath.Join(proj, "nope")},
			code: 2,
			says: "nope: not a directory",
		},
		{
			args: []string{"hook", "install", "--dir", proj, "--wait", "0s"},
			code: 2,
			says: "--wait 0s: must be positive",
		},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := cliRun(t, "", nil, nil, c.args...)
			if code != c.code || out != "" || !strings.Contains(errOut, c.says) {
				t.Errorf("exit %d, %q %q; want %d saying %q", code, out, errOut, c.code, c.says)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, bad) {
				t.Errorf("the file changed: %q (%v)", got, err)
			}
			if ents, err := os.ReadDir(proj); err != nil || len(ents) != 1 {
				t.Errorf("project holds %v (%v)", ents, err)
			}
		})
	}
}

// TestHookInstallRecordsConfig: a project holding skald.yaml gets a hook command with
// that file as --config, so that the hook finds the service from any directory; with
// --server given, or $SKALD_URL set, none is recorded.
func TestHookInstallRecordsConfig(t *testing.T) {
	proj := t.TempDir()
	cfg := filepath.Join(proj, "skald.yaml")
	if err := os.WriteFile(cfg, []byte("api:\n  listen: 127.0.0.1:18999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	command := func(t *testing.T, dir string, env []string, args ...string) string {
		t.Helper()
		code, out, errOut := cliRun(t, dir, nil, env,
			append([]string{"hook", "install"}, args...)...)
		if code != 0 {
			t.Fatalf("hook install %v: exit %d %q %q", args, code, out, errOut)
		}
		data, err := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Hooks struct {
				PreToolUse []struct {
					Hooks []struct{ Command string }
				}
			}
		}
		if err := json.Unmarshal(data, &s); err != nil || len(s.Hooks.PreToolUse) != 1 {
			t.Fatalf("settings %s: %v", data, err)
		}
		return s.Hooks.PreToolUse[0].Hooks[0].Command
	}
	for _, c := range []struct {
		name string
		dir  string
		env  []string
		args []string
		want string // the command's end
	}{
		{"in the project", proj, nil, nil, " hook claude-code --config " + cfg},
		{"with --dir", t.TempDir(), nil, []string{"--dir", proj},
			" hook claude-code --config " + cfg},
		{"with --server", proj, nil, []string{"--server", "http://127.0.0.1:1"},
			" hook claude-code --server http://127.0.0.1:1"},
		{"with SKALD_URL", proj, []string{"SKALD_URL=http://127.0.0.1:2"}, nil,
			" hook claude-code"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := command(t, c.dir, c.env, c.args...); !strings.HasSuffix(got, c.want) {
				t.Errorf("command %q, want it to end with %q", got, c.want)
			}
		})
	}
}

// TestHookInstallUnknownProfile: a --profile the project's configuration does not
// define is refused, naming the ones it has, and no settings file is written; a known
// one is recorded.
func TestHookInstallUnknownProfile(t *testing.T) {
	proj := t.TempDir()
	cfg := filepath.Join(proj, "skald.yaml")
	yaml := "api:\n  listen: 127.0.0.1:18999\nprofiles:\n  - id: web\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cliRun(t, proj, nil, nil, "hook", "install", "--profile", "wbe")
	want := "--profile wbe: " + cfg + " defines no such profile (it has web, default)"
	if code != 2 || out != "" || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refusal wrote .claude: %v", err)
	}
	if code, _, errOut := cliRun(t, proj, nil, nil, "hook", "install", "--profile",
		"web"); code != 0 {
		t.Errorf("a known profile: exit %d %q", code, errOut)
	}
}
