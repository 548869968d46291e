package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// A restart keeps an approval: check → pending → approve → approved; SIGTERM; start
// again; the same session and tool call id is approved, with no new request.
func TestProcessApproveSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	url := "http://" + freeAddr(t)
	cfg := filepath.Join(dir, "skald.yaml")
	os.MkdirAll(filepath.Join(dir, "ws"), 0o755)
	err := os.WriteFile(cfg, []byte("data_dir: "+filepath.Join(dir, "data")+
		"\nworkspace_root: "+filepath.Join(dir, "ws")+
		"\napi:\n  listen: "+strings.TrimPrefix(url, "http://")+"\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	check := []string{"check", "--tool", "Bash", "--arg", "command=rm -rf build",
		"--session", "s1",
		"--tool-call-id", "t1", "--wait", "0s", "--keep", "--json", "--config", cfg}

	svc := startService(t, cfg)
	code, out, errOut := cli(t, check...)
	var res api.CheckResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitPending ||
		res.Decision != gate.VerdictPending || res.RequestID == 0 {
		t.Fatalf("check: exit %d %s %s: %v", code, out, errOut, err)
	}
	id := testkit.ID(res.RequestID)
	if code, out, errOut := cli(t, "pending", "--config", cfg); code != 0 ||
		!strings.Contains(out, "rm -rf build") {
		t.Fatalf("pending: exit %d %s %s", code, out, errOut)
	}
	if code, out, errOut := cli(t, "approve", id, "--note", "go ahead",
		"--server", url, "--config", cfg); code != 0 || out != "request "+id+" approved\n" {
		t.Fatalf("approve: exit %d %q %s", code, out, errOut)
	}
	// A second approval: 409, said on stderr in one line, exit 1.
	if code, _, errOut := cli(t, "approve", id, "--server", url, "--config", cfg); code != 1 ||
		!strings.Contains(errOut, "already approved by cli via") ||
		strings.Count(errOut, "\n") != 1 {
		t.Fatalf("second approve: exit %d %q", code, errOut)
	}
	code, out, _ = cli(t, check...)
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != 0 || res.Decision != gate.VerdictApproved ||
		testkit.ID(res.RequestID) != id {
		t.Fatalf("check after approval: exit %d %s: %v", code, out, err)
	}
	svc.stop(t)

	svc = startService(t, cfg)
	code, out, errOut = cli(t, check...)
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != 0 || res.Decision != gate.VerdictApproved ||
		testkit.ID(res.RequestID) != id || res.Note != "go ahead" {
		t.Fatalf("check after restart: exit %d %s %s: %v", code, out, errOut, err)
	}
	c := api.NewClient(url, "")
	if _, err := c.Request(context.Background(), res.RequestID+1, 0); !errors.Is(err,
		api.ErrNotFound) {
		t.Fatalf("request %d: %v, want none", res.RequestID+1, err)
	}
	svc.stop(t)
}
