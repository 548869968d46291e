package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// The waits of the hook and of check against the real binary: what a signal, a
// restart, a server that is not running and a service without a chat channel do to
// the request a client made (docs/design.md, "Waiting for an answer").

// wantCancelled checks that request id is cancelled with reason.
func (e *e2e) wantCancelled(id uint64, reason string) {
	e.t.Helper()
	q, err := e.api.Request(e.ctx, id, 0)
	if err != nil || q.Status != store.Cancelled || q.Resolution == nil ||
		q.Resolution.Note != reason {
		e.t.Fatalf("request %d: %v %+v, want cancelled with reason %q", id, err, q, reason)
	}
}

func TestE2EHookSIGTERMCancels(t *testing.T) {
	t.Parallel()
	e := newE2E(t, "")
	cmd, answer := e.startHook(fixture(t, "pretooluse_bash.json"), "--wait", "1m")
	_, id := e.telegramPrompt(1)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if d := e.await(answer); d.PermissionDecision != "ask" ||
		!strings.HasPrefix(d.PermissionDecisionReason, "Interrupted before an approver answered") {
		t.Fatalf("hook after SIGTERM: %+v", d)
	}
	e.wantCancelled(id, "interrupted")

	// check, likewise: exit 3, its request cancelled.
	p := startSkald(t, e.dir, []string{"SKALD_URL=" + e.svc.url}, "check", "--tool", "Bash",
		"--arg", "command=make deploy", "--wait", "1m")
	_, id = e.telegramPromptShowing("make deploy")
	p.signalExit(t, syscall.SIGTERM, exitPending)
	e.wantCancelled(id, "interrupted")
}

func TestE2EHookSurvivesARestart(t *testing.T) {
	t.Parallel()
	port := freeAddr(t)
	e := newE2EAPI(t, fmt.Sprintf("{listen: %q}", port), "", "")
	answer := e.hookAsync(fixture(t, "pretooluse_bash.json"), "--wait", "1m")
	_, id := e.telegramPrompt(1)
	e.svc.stop(t)
	e.start()
	// The hook's wait goes on against the new process: an approval given now is
	// its answer.
	if _, err := e.api.Resolve(e.ctx, id,
		api.ResolveRequest{Action: api.ActionApprove}); err != nil {
		t.Fatal(err)
	}
	if d := e.await(answer); d.PermissionDecision != "allow" ||
		!strings.Contains(d.PermissionDecisionReason, fmt.Sprintf("(request %d)", id)) {
		t.Fatalf("hook after the restart: %+v", d)
	}
}

func TestE2ENotRunning(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	url := refusedURL(t)
	e := &e2e{t: t, ctx: ctx, svc: &service{url: url}}
	d := e.hook(fixture(t, "pretooluse_bash.json"))
	hint := "is `skald-bot serve` running? (tried " + url + ")"
	if d.PermissionDecision != "ask" || !strings.Contains(d.PermissionDecisionReason, hint) {
		t.Fatalf("hook: %+v", d)
	}
	for _, args := range [][]string{{"check", "--tool", "Bash"}, {"pending"}} {
		code, out, errOut := cli(t, append(args, "--server", url)...)
		if code == 0 || out != "" || !strings.Contains(errOut, hint) ||
			strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d %q %q", args, code, out, errOut)
		}
	}
}

func TestE2EHookWithoutChannelAsksAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	cfg := filepath.Join(dir, "skald.yaml")
	yaml := fmt.Sprintf("data_dir: %s\nworkspace_root: %s\napi: {listen: \"127.0.0.1:0\"}\n",
		filepath.Join(dir, "data"), ws)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg)
	e := &e2e{t: t, ctx: ctx, dir: dir, svc: svc, api: api.NewClient(svc.url, svc.token)}
	d := e.hook(fixture(t, "pretooluse_bash.json"))
	_, rest, _ := strings.Cut(d.PermissionDecisionReason, "(request ")
	var id uint64
	if _, err := fmt.Sscanf(rest, "%d)", &id); err != nil || d.PermissionDecision != "ask" ||
		!strings.Contains(d.PermissionDecisionReason, "No chat channel") {
		t.Fatalf("hook: %+v (%v)", d, err)
	}
	e.wantCancelled(id, "terminal")
	svc.waitFor(t, `msg="approval requested"`, "request_id="+testkit.ID(id)+" ")

	// An explicit --wait waits, for the command line's approve.
	answer := e.hookAsync(bashCall(t, "toolu_wait", "make lint"), "--wait", "1m")
	line := svc.waitFor(t, `msg="approval requested"`, "tool=Bash")
	var next uint64
	if _, err := fmt.Sscanf(logValue(line, "request_id"), "%d", &next); err != nil || next == id {
		t.Fatalf("no new request in %q", line)
	}
	if _, err := e.api.Resolve(ctx, next,
		api.ResolveRequest{Action: api.ActionApprove}); err != nil {
		t.Fatal(err)
	}
	if d := e.await(answer); d.PermissionDecision != "allow" {
		t.Fatalf("hook with --wait: %+v", d)
	}
	svc.stop(t)
}
