package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
)

// buildBinary builds skald-bot into a temporary directory once per test.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "skald-bot")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// service is `skald-bot serve` running as a process.
type service struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

// startService starts `bin serve --config cfg` and returns once it logs that the API
// is listening.
func startService(t *testing.T, bin, cfg string) *service {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", cfg)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &service{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	go func() {
		s.done <- cmd.Wait()
		pw.Close()
	}()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		signalled := false
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if !signalled && strings.Contains(sc.Text(), "api listening") {
				signalled = true
				close(ready)
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	select {
	case <-ready:
	case err := <-s.done:
		t.Fatalf("serve ended at start-up: %v\n%s", err, s.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start in 30s:\n%s", s.stderr)
	}
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *service) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop in 30s after SIGTERM")
	}
}

// cli runs the binary with args and returns its exit code and output.
func cli(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SKALD_URL=", "SKALD_API_TOKEN=", "SKALD_CONFIG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// The must-show of issue 3: check → pending → approve → approved; SIGTERM; start
// again; the same session and tool call id is approved, with no new request.
func TestProcessApproveSurvivesRestart(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	url := closedPort(t)
	cfg := filepath.Join(dir, "skald.yaml")
	os.MkdirAll(filepath.Join(dir, "ws"), 0o755)
	err := os.WriteFile(cfg, []byte("data_dir: "+filepath.Join(dir, "data")+"\nworkspace_root: "+filepath.Join(dir, "ws")+
		"\napi:\n  listen: "+strings.TrimPrefix(url, "http://")+"\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	check := []string{"check", "--tool", "Bash", "--arg", "command=rm -rf build", "--session", "s1",
		"--tool-call-id", "t1", "--wait", "0s", "--json", "--config", cfg}

	svc := startService(t, bin, cfg)
	code, out, errOut := cli(t, bin, check...)
	var res api.CheckResult
	if json.Unmarshal([]byte(out), &res); code != exitPending || res.Decision != gate.DecisionPending || res.RequestID == 0 {
		t.Fatalf("check: exit %d %s %s", code, out, errOut)
	}
	id := u(res.RequestID)
	if code, out, errOut := cli(t, bin, "pending", "--config", cfg); code != 0 || !strings.Contains(out, "rm -rf build") {
		t.Fatalf("pending: exit %d %s %s", code, out, errOut)
	}
	if code, out, errOut := cli(t, bin, "approve", id, "--note", "go ahead", "--server", url); code != 0 || out != "request "+id+" approved\n" {
		t.Fatalf("approve: exit %d %q %s", code, out, errOut)
	}
	// A second approval: 409, said on stderr in one line, exit 1.
	if code, _, errOut := cli(t, bin, "approve", id, "--server", url); code != 1 || !strings.Contains(errOut, "already approved by cli via") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("second approve: exit %d %q", code, errOut)
	}
	code, out, _ = cli(t, bin, check...)
	if json.Unmarshal([]byte(out), &res); code != 0 || res.Decision != gate.DecisionApproved || u(res.RequestID) != id {
		t.Fatalf("check after approval: exit %d %s", code, out)
	}
	svc.stop(t)

	svc = startService(t, bin, cfg)
	code, out, errOut = cli(t, bin, check...)
	if json.Unmarshal([]byte(out), &res); code != 0 || res.Decision != gate.DecisionApproved || u(res.RequestID) != id || res.Note != "go ahead" {
		t.Fatalf("check after restart: exit %d %s %s", code, out, errOut)
	}
	c := api.NewClient(url, "")
	if _, err := c.Request(context.Background(), res.RequestID+1, 0); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("request %d: %v, want none", res.RequestID+1, err)
	}
	svc.stop(t)
}
