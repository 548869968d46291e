package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// testConfig writes a configuration with its own data dir and workspace under dir,
// the API on a free loopback port with the admin token $TEST_ADMIN_TOKEN, plus extra
// YAML, and returns its path.
func testConfig(t *testing.T, dir, extra string) string {
	t.Helper()
	return testConfigAPI(t, dir, `{listen: "127.0.0.1:0", token: "${TEST_ADMIN_TOKEN}"}`, extra)
}

// testConfigAPI is testConfig with the api section apiYAML. The workspace is
// dir/workspace, created; the data dir dir/data is left to serve.
func testConfigAPI(t *testing.T, dir, apiYAML, extra string) string {
	t.Helper()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "skald.yaml")
	yaml := "data_dir: " + filepath.Join(dir, "data") + "\n" +
		"workspace_root: " + ws + "\n" +
		"api: " + apiYAML + "\n" + extra
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

const adminToken = "admin-token-that-must-not-be-logged"

// TestServeStartStop runs serve as a process: it opens the store and logs "serving";
// SIGTERM stops it with exit 0; a second start (config named by $SKALD_CONFIG, JSON
// logs) opens the same store and SIGINT stops it too. No secret reaches the log.
func TestServeStartStop(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir, "log: {level: debug}\nprofiles: [{id: ops, security_group: ops}]\n")
	env := []string{"TEST_ADMIN_TOKEN=" + adminToken}

	p := startSkald(t, dir, env, "serve", "--config", cfg)
	line := p.waitFor(t, "msg=serving")
	if !strings.Contains(line, "component=serve") ||
		!strings.Contains(line, "data_dir="+filepath.Join(dir, "data")) {
		t.Errorf("serving line: %s", line)
	}
	// No token: the line says which key would turn each chat channel on.
	if !strings.Contains(line, `telegram="false (no telegram.token)"`) ||
		!strings.Contains(line, `slack="false (no slack.bot_token)"`) {
		t.Errorf("serving line without why the chat channels are off: %s", line)
	}
	// api.listen asks for port 0: the line names the port the API is bound to.
	if addr := logValue(line, "api"); !strings.HasPrefix(addr, "127.0.0.1:") ||
		strings.HasSuffix(addr, ":0") {
		t.Errorf("serving line without the API's bound address: %s", line)
	}
	fi, err := os.Stat(filepath.Join(dir, "data"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data_dir: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "skald.db")); err != nil {
		t.Fatalf("store file: %v", err)
	}
	lines := p.signalExit(t, syscall.SIGTERM, 0)
	all := strings.Join(lines, "\n")
	// The last line is the stop: nothing (robfig/cron's goroutine included) logs
	// after the scheduler has stopped.
	last := lines[len(lines)-1]
	if !strings.Contains(last, "msg=stopped") || !strings.Contains(last, "component=serve") {
		t.Errorf("last line is not the stop: %s", all)
	}
	if strings.Contains(all, adminToken) || !strings.Contains(all, "[redacted]") {
		t.Errorf("the debug log shows the token, or no redacted config:\n%s", all)
	}
	if !strings.Contains(all, "group=ops") {
		t.Errorf("the group the profile names was not created:\n%s", all)
	}

	// Restart: the lock is free again, the seeded store opens as is.
	jsonLogs := strings.Replace(mustRead(t, cfg), "level: debug", "level: info, format: json", 1)
	if err := os.WriteFile(cfg, []byte(jsonLogs), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startSkald(t, dir, append(env, "SKALD_CONFIG="+cfg), "serve")
	line = p.waitFor(t, `"msg":"serving"`)
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["component"] != "serve" ||
		rec["level"] != "INFO" {
		t.Errorf("JSON log line %s: %v", line, err)
	}
	p.signalExit(t, syscall.SIGINT, 0)
}

// TestServeLocked checks a second serve on the same data_dir fails at once with a
// clear one-line error, and leaves the first running.
func TestServeLocked(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, dir, "")
	first := startSkald(t, dir, nil, "serve", "--config", cfg)
	first.waitFor(t, "msg=serving")

	second := startSkald(t, dir, nil, "serve", "--config", cfg)
	code, lines := second.exit(t)
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "skald-bot: ") ||
		!strings.Contains(lines[0], "locked by another process") {
		t.Errorf("second serve: exit %d, stderr %q", code, lines)
	}

	first.signalExit(t, syscall.SIGTERM, 0)
}

// TestServeRefusesToStart: a configuration serve cannot run with ends it with exit 1
// and one line giving the reason (naming the key and value), and nothing is created:
// the configuration, the schedules and the API's port are checked before the store.
func TestServeRefusesToStart(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// withAPI is testConfigAPI's configuration with the api section api.
	withAPI := func(api string) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string { return testConfigAPI(t, dir, api, "") }
	}
	// extra is testConfig's configuration plus extra YAML.
	extra := func(yaml string) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string { return testConfig(t, dir, yaml) }
	}
	for _, c := range []struct {
		name   string
		config func(t *testing.T, dir string) string // writes it, returns its file
		want   string
	}{
		{"bad job name",
			extra("jobs:\n  - {name: Nightly Backup, schedule: \"@daily\", " +
				"steps: [{tool: execute_cmd}]}\n"),
			`skald-bot: config: jobs[0].name "Nightly Backup": must match [a-z0-9_-]+`},
		{"bad schedule",
			extra("jobs:\n  - {name: nightly, schedule: \"61 * * * *\", " +
				"steps: [{tool: execute_cmd, args: {cmd: \"true\"}}]}\n"),
			`skald-bot: cron: job "nightly": schedule "61 * * * *": ` +
				`end of range (61) above maximum (59): 61`},
		// An api.token whose ${SKALD_API_TOKEN} is unset does not start without a token.
		{"missing token variable", withAPI(`{listen: "127.0.0.1:0", token: ${SKALD_API_TOKEN}}`),
			"skald-bot: config: api.token: ${SKALD_API_TOKEN} is empty or unset " +
				"(set it, or leave api.token out)"},
		// api.allowed_hosts without api.token would put the token-less local caller
		// behind a proxy.
		{"allowed hosts without a token",
			withAPI(`{listen: "127.0.0.1:0", allowed_hosts: ["https://skald.example"]}`),
			`skald-bot: config: api.allowed_hosts "https://skald.example": ` +
				`needs api.token (a generated token is for loopback only)`},
		{"busy port", withAPI(`{listen: "` + busy.Addr().String() + `"}`),
			"skald-bot: api: listen tcp " + busy.Addr().String() +
				": bind: address already in use (is another skald-bot serve running? " +
				"stop it, or set api.listen to a free port)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := startSkald(t, dir, nil, "serve", "--config", c.config(t, dir))
			code, lines := p.exit(t)
			if code != 1 || len(lines) != 1 || lines[0] != c.want {
				t.Errorf("exit %d, stderr %q; want 1, %q", code, lines, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "data")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("data_dir created by a failed start: %v", err)
			}
		})
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
