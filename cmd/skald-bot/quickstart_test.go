package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// cliAt runs the binary with args in dir, the SKALD_* variables cleared but for env,
// and returns its exit code and output.
func cliAt(t *testing.T, dir string, env []string,
	args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliRun(t, dir, nil, env, args...)
}

// TestProcessQuickStart follows the README's quick start with the repository's
// config.example.yaml (on a free port): serve creates data_dir/admin.token, and from
// other processes in the same directory, with SKALD_CONFIG naming the file and no
// token typed, check waits as the local caller, pending lists the request, approve
// approves it and the check's replay is approved.
func TestProcessQuickStart(t *testing.T) {
	example, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + freeAddr(t)
	text := strings.Replace(string(example), "listen: 127.0.0.1:8377",
		"listen: "+strings.TrimPrefix(url, "http://"), 1)
	if text == string(example) {
		t.Fatal("config.example.yaml has no listen: 127.0.0.1:8377")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.example.yaml"), []byte(text),
		0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, filepath.Join(dir, "config.example.yaml"))
	line := svc.waitFor(t, `msg="admin token"`, "created=true")
	tokenFile := filepath.Join(dir, "skald-data", "admin.token")
	if !strings.Contains(line, "file="+tokenFile) {
		t.Errorf("the log does not name the token file: %s", line)
	}
	tok, err := readAdminToken(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range svc.lines() {
		if strings.Contains(l, tok) {
			t.Fatalf("the admin token is in the log: %s", l)
		}
	}

	env := []string{"SKALD_CONFIG=config.example.yaml"}
	check := []string{"check", "--tool", "Bash", "--arg", "command=rm -rf build",
		"--session", "qs",
		"--tool-call-id", "t1", "--wait", "0s", "--keep", "--json"}
	code, out, errOut := cliAt(t, dir, env, check...)
	var res api.CheckResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitPending ||
		res.Decision != gate.VerdictPending {
		t.Fatalf("check: exit %d %s %s: %v", code, out, errOut, err)
	}
	id := testkit.ID(res.RequestID)
	if code, out, errOut := cliAt(t, dir, env, "pending"); code != 0 ||
		!strings.Contains(out, "rm -rf build") {
		t.Fatalf("pending: exit %d %s %s", code, out, errOut)
	}
	// Without the configuration an admin command has no token: a clear error.
	if code, _, errOut := cliAt(t, dir, []string{"SKALD_URL=" + url}, "approve", id); code != 1 ||
		!strings.Contains(errOut, "401: unauthorized: this call needs the admin token") ||
		!strings.Contains(errOut, "SKALD_CONFIG") {
		t.Fatalf("approve without the configuration: exit %d %s", code, errOut)
	}
	if code, out, errOut := cliAt(t, dir, env, "approve", id, "--note", "fine"); code != 0 ||
		out != "request "+id+" approved\n" {
		t.Fatalf("approve: exit %d %q %s", code, out, errOut)
	}
	code, out, errOut = cliAt(t, dir, env, check...)
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != 0 || res.Decision != gate.VerdictApproved ||
		testkit.ID(res.RequestID) != id {
		t.Fatalf("check after approval: exit %d %s %s: %v", code, out, errOut, err)
	}
	// The local caller cannot approve, even its own request.
	code, out, _ = cliAt(t, dir, env, "check", "--tool", "Bash", "--arg", "command=rm -rf dist",
		"--session", "qs", "--wait", "0s", "--keep", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitPending {
		t.Fatalf("second check: exit %d %s: %v", code, out, err)
	}
	if code, _, errOut := cliAt(t, dir, []string{"SKALD_URL=" + url},
		"reject", testkit.ID(res.RequestID)); code != 1 || !strings.Contains(errOut, "401") {
		t.Fatalf("reject without a token: exit %d %s", code, errOut)
	}
	svc.stop(t)

	// The next start reuses the token.
	svc = startService(t, filepath.Join(dir, "config.example.yaml"))
	svc.waitFor(t, `msg="admin token"`, "created=false")
	if again, err := readAdminToken(tokenFile); err != nil || again != tok {
		t.Fatalf("the token changed across a restart (%v)", err)
	}
	svc.stop(t)
}
