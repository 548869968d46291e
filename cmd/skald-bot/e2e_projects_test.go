package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// projects is a service whose configuration gives a project outside the service's
// directory a profile with its own workspace (proj, group proj).
type projects struct {
	svc  *service
	proj string // the project, resolved
	env  []string
}

func startProjects(t *testing.T) *projects {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{"svc/workspace", "proj/secrets", "proj/src", "proj/data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/secrets/key.pem", "proj/src/main.go", "proj/README"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "svc", "skald.yaml")
	yaml := "data_dir: " + filepath.Join(dir, "svc", "data") + "\n" +
		"workspace_root: " + filepath.Join(dir, "svc", "workspace") + "\n" +
		"api: {listen: \"127.0.0.1:0\"}\n" +
		"profiles:\n  - {id: proj, security_group: proj, workspace_root: ../proj}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg)
	return &projects{svc: svc, proj: proj, env: []string{"SKALD_API_TOKEN=" + svc.token}}
}

// hookInput is the fixture pretooluse_read.json as Claude Code sends it from the
// project: its cwd, and the tool and input given.
func (p *projects) hookInput(t *testing.T, cwd, tool string, input map[string]any) []byte {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal(fixture(t, "pretooluse_read.json"), &in); err != nil {
		t.Fatal(err)
	}
	in["cwd"], in["tool_name"], in["tool_input"] = cwd, tool, input
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hook runs the command line as Claude Code runs a hook command: sh -c, the input on
// stdin, in the project; it returns the decision.
func (p *projects) hook(t *testing.T, command string, input []byte) hookDecision {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = p.proj
	cmd.Env = append(os.Environ(), "SKALD_URL=", "SKALD_API_TOKEN=", "SKALD_CONFIG=")
	cmd.Stdin = bytes.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v, stderr %q", command, err, errOut.String())
	}
	var o hookOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("hook output %q: %v", out.String(), err)
	}
	return o.HookSpecificOutput
}

// TestProjectHook: Claude Code working in a project outside the service's directory,
// its profile with its own workspace, gets allow for a read inside it, deny for its
// secrets/, allow for a write into its data/ — through the hook installed by hook
// install and run by the shell, and through hook claude-code without a profile (the
// cwd chooses it).
func TestProjectHook(t *testing.T) {
	p := startProjects(t)
	code, out, errOut := cliRun(t, "", nil, nil, "hook", "install", "--dir", p.proj,
		"--profile", "proj", "--wait", "30s", "--server", p.svc.url)
	if code != 0 || !strings.Contains(out, "hook added") {
		t.Fatalf("hook install: exit %d %q %q", code, out, errOut)
	}
	var settings struct {
		Hooks struct {
			PreToolUse []struct {
				Hooks []struct{ Command string }
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(p.proj, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	installed := settings.Hooks.PreToolUse[0].Hooks[0].Command
	bare := strings.Join([]string{skaldBinary(t), "hook", "claude-code", "--server", p.svc.url},
		" ")
	for _, c := range []struct {
		name, cwd, tool string
		input           map[string]any
		want            string
	}{
		{"read inside", p.proj, "Read",
			map[string]any{"file_path": p.proj + "/src/main.go"}, "allow"},
		{"read the README", p.proj + "/src", "Read",
			map[string]any{"file_path": p.proj + "/README"}, "allow"},
		{"read its secrets", p.proj, "Read",
			map[string]any{"file_path": p.proj + "/secrets/key.pem"}, "deny"},
		{"grep its secrets", p.proj, "Grep",
			map[string]any{"pattern": "x", "path": "secrets"}, "deny"},
		{"write its data", p.proj, "Write",
			map[string]any{"file_path": p.proj + "/data/out.txt", "content": "x"}, "allow"},
		{"shell writes its secrets", p.proj, "Bash",
			map[string]any{"command": "echo x > secrets/key.pem"}, "deny"},
	} {
		for _, h := range []struct{ name, command string }{
			{"installed", installed}, {"by cwd", bare},
		} {
			t.Run(c.name+" "+h.name, func(t *testing.T) {
				d := p.hook(t, h.command, p.hookInput(t, c.cwd, c.tool, c.input))
				if d.PermissionDecision != c.want {
					t.Errorf("%s %v: %+v, want %s", c.tool, c.input, d, c.want)
				}
			})
		}
	}
}

// TestProjectRulesImport imports a Claude Code settings file with every form of
// permission rule into the project's group, checks a call decided by an imported
// rule, and round-trips the rules through export and import.
func TestProjectRulesImport(t *testing.T) {
	p := startProjects(t)
	settings := filepath.Join(p.proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, fixture(t, "settings_each_form.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := []string{"--server", p.svc.url}
	code, plan, errOut := cliRun(t, "", nil, p.env,
		append([]string{"rules", "import", "claude-code", settings, "--group", "proj"}, srv...)...)
	for _, want := range []string{
		"deny Read(./secrets/**) → deny @fs_any path \"secrets/*\" priority 80",
		"allow Bash(npm run test:*) → allow Bash command \"npm run test *\" priority 100",
		"allow Read(/docs/**) → allow @fs_read path \"" + p.proj + "/docs/*\" priority 100",
		"allow mcp__github → allow mcp__github__* priority 100",
		"not translated (11):",
		"allow WebFetch(domain:example.com) → allow WebFetch host \"example.com\" priority 100",
		// Claude Code's ask Bash and deny mcp__* come first: those allows never decide.
		"never decides (9): an earlier rule decides every call it matches first\n" +
			"  allow Bash(npm run test:*): imported require Bash priority 90 comes first\n",
		"  allow mcp__github: imported deny mcp__* priority 80 comes first\n",
		"group proj: 27 added, 0 changed, 0 removed",
		"nothing changed: run again with --apply",
	} {
		if code != 0 || !strings.Contains(plan, want) {
			t.Errorf("import claude-code: exit %d, output lacks %q:\n%s%s",
				code, want, plan, errOut)
		}
	}
	code, out, errOut := cliRun(t, "", nil, p.env,
		append([]string{"rules", "export", "--group", "proj"}, srv...)...)
	if code != 0 || !strings.Contains(out, "rules: []") {
		t.Fatalf("the plan changed the store: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = cliRun(t, "", nil, p.env, append([]string{"rules", "import", "claude-code",
		settings, "--group", "proj", "--apply"}, srv...)...)
	if code != 0 ||
		!strings.Contains(out, "applied: 0 groups added, 27 rules added, 0 changed, 0 removed") {
		t.Fatalf("import --apply: exit %d %q %q", code, out, errOut)
	}
	input := p.hookInput(t, p.proj, "Bash", map[string]any{"command": "curl -s example.com"})
	d := p.hook(t, skaldBinary(t)+" hook claude-code --profile proj --server "+p.svc.url, input)
	if d.PermissionDecision != "deny" || !strings.Contains(d.PermissionDecisionReason, "curl") {
		t.Errorf("curl in the project after the import: %+v, want deny", d)
	}
	// domain:example.com is the host example.com, allow domain:* every http(s) host,
	// and nothing allows a URL without one.
	for url, want := range map[string]string{"https://EXAMPLE.com./x": `host="example.com"`,
		"https://a.example.net/": `host="*"`, "file:///etc/passwd": ""} {
		input := p.hookInput(t, p.proj, "WebFetch", map[string]any{"url": url, "prompt": "p"})
		d := p.hook(t, skaldBinary(t)+" hook claude-code --profile proj --server "+p.svc.url,
			input)
		if want == "" && d.PermissionDecision != "ask" || want != "" &&
			(d.PermissionDecision != "allow" ||
				!strings.Contains(d.PermissionDecisionReason, want)) {
			t.Errorf("WebFetch %s after the import: %+v, want allowed by %q", url, d, want)
		}
	}
	// A second import adds nothing.
	code, out, _ = cliRun(t, "", nil, p.env, append([]string{"rules", "import", "claude-code",
		settings, "--group", "proj"}, srv...)...)
	if code != 0 || !strings.Contains(out, "no changes") {
		t.Errorf("second import: exit %d %q", code, out)
	}

	code, exported, errOut := cliRun(t, "", nil, p.env,
		append([]string{"rules", "export"}, srv...)...)
	if code != 0 || !strings.Contains(exported, "id: proj") ||
		!strings.Contains(exported, "id: default") {
		t.Fatalf("export: exit %d %q %q", code, exported, errOut)
	}
	file := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cliRun(t, "", nil, p.env,
		append([]string{"rules", "import", file}, srv...)...)
	if code != 0 || out != "no changes\n" {
		t.Fatalf("export → import: exit %d %q %q, want no changes", code, out, errOut)
	}
	// An edit: one rule's action changed, one removed, one added.
	edited := strings.Replace(exported, "action: deny\n        command: curl *",
		"action: require\n        command: curl *", 1)
	edited = strings.Replace(edited,
		"      - tool: WebSearch\n        action: allow\n        priority: 100\n",
		"      - tool: WebFetch\n        action: deny\n        priority: 80\n", 1)
	if edited == exported {
		t.Fatalf("the edit did not apply to:\n%s", exported)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cliRun(t, "", nil, p.env,
		append([]string{"rules", "import", file, "--apply"}, srv...)...)
	if code != 0 || !strings.Contains(out, "group proj: 1 added, 1 changed, 1 removed") ||
		!strings.Contains(out, "applied: 0 groups added, 1 rules added, 1 changed, 1 removed") {
		t.Fatalf("import of the edit: exit %d %q %q", code, out, errOut)
	}
	code, again, _ := cliRun(t, "", nil, p.env, append([]string{"rules", "export"}, srv...)...)
	if code != 0 {
		t.Fatal("export after the edit")
	}
	// A bad file: every problem listed, the store unchanged.
	bad := strings.Replace(edited, "action: deny", "action: maybe", 1)
	bad = strings.Replace(bad, "tool: WebFetch", "tool: 'Web*Fetch'", 1)
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cliRun(t, "", nil, p.env,
		append([]string{"rules", "import", file, "--apply"}, srv...)...)
	if code != 1 || out != "" || !strings.Contains(errOut, "invalid rules file") ||
		!strings.Contains(errOut, `"maybe"`) || !strings.Contains(errOut, `"Web*Fetch"`) {
		t.Errorf("import of a bad file: exit %d %q %q", code, out, errOut)
	}
	// A file the server refuses (a second catch-all): nothing applied.
	refused := strings.Replace(edited, "id: proj\n", "id: proj\n    rules:\n"+
		"      - {tool: '*', action: allow}\n      - {tool: '*', action: deny}\n    x_rules:\n", 1)
	refused = strings.Replace(refused, "    x_rules:\n    rules:\n", "", 1)
	if err := os.WriteFile(file, []byte(refused), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cliRun(t, "", nil, p.env,
		append([]string{"rules", "import", file, "--apply"}, srv...)...)
	if code != 1 || !strings.Contains(errOut, "already has a catch-all") {
		t.Errorf("import of a refused plan: exit %d %q %q", code, out, errOut)
	}
	code, after, _ := cliRun(t, "", nil, p.env, append([]string{"rules", "export"}, srv...)...)
	if code != 0 || after != again {
		t.Errorf("a refused import changed the store:\n%s\n---\n%s", again, after)
	}
}

// TestProjectRulesImportAlwaysAsks: an imported allow of a command that reads the
// directory it runs in is named when, at the project root, that directory holds a
// denied place (docs/design.md, "Shell commands"); an imported deny counts once applied.
func TestProjectRulesImportAlwaysAsks(t *testing.T) {
	p := startProjects(t)
	if err := os.MkdirAll(filepath.Join(p.proj, "src", "gen"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"permissions": {"allow": ["Bash(git status)", "Bash(ls:*)", "Bash(echo *)",
		"Bash(git * main)"], "deny": ["Read(./src/gen/**)"]}}`
	srv := []string{"--group", "proj", "--server", p.svc.url}
	for _, tc := range []struct {
		name, dir string
		args      []string
		want      []string // lines of the warning, "" for none
	}{
		{name: "root holding secrets", dir: p.proj, want: []string{
			"always asks (2): run at the project root, these commands read a directory " +
				"holding a denied place; no allow rule lifts that\n" +
				"  allow Bash(git status): git status — argument \".\" of command \"git status\" " +
				"holds secrets\n" +
				"  allow Bash(ls:*): ls — argument \".\" of command \"ls\" holds secrets\n" +
				"  to let them run: start the agent in a subdirectory of " + p.proj +
				", or move the denied places out of it\n"}},
		{name: "subdirectory, deny not applied", dir: filepath.Join(p.proj, "src")},
		{name: "json", dir: p.proj, args: []string{"--json"}, want: []string{
			"always asks (2)", "allow Bash(ls:*): ls"}},
		{name: "subdirectory, deny applied", dir: filepath.Join(p.proj, "src"),
			args: []string{"--apply"}, want: []string{"always asks (2)",
				"allow Bash(git status): git status — argument \".\" of command \"git status\" " +
					"holds src/gen\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(tc.dir, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"rules", "import", "claude-code", file}, srv...)
			code, out, errOut := cliRun(t, "", nil, p.env, append(args, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errOut)
			}
			warning := out
			if slices.Contains(tc.args, "--json") {
				if !json.Valid([]byte(out)) {
					t.Errorf("stdout is not JSON: %q", out)
				}
				warning = errOut
			}
			for _, want := range tc.want {
				if !strings.Contains(warning, want) {
					t.Errorf("output lacks %q:\n%s", want, warning)
				}
			}
			if len(tc.want) == 0 && strings.Contains(out+errOut, "always asks") {
				t.Errorf("a warning without a denied place:\n%s%s", out, errOut)
			}
			// echo reads no directory; a pattern with an inner star is not tried.
			for _, not := range []string{"Bash(echo *): ", "Bash(git * main): "} {
				if strings.Contains(warning, not) {
					t.Errorf("output names %q:\n%s", not, warning)
				}
			}
		})
	}
}
