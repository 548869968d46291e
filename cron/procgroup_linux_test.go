//go:build linux && (amd64 || arm64)

package cron_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// TestExecuteCmdTimeoutKillsTheProcessGroup runs a shell that starts a child and waits:
// past the timeout both die, not only the shell.
func TestExecuteCmdTimeoutKillsTheProcessGroup(t *testing.T) {
	env := linkedWorkspace(t)
	res, err := runTool(t, env, "execute_cmd", map[string]any{
		"cmd": "echo started; sleep 60 & echo $! > data/child.pid; wait", "timeout": "300ms"})
	testkit.WantErr(t, err, cron.ErrTimeout, "timed out after 300ms: the process group was killed")
	if res.ExitCode != -1 || res.Output != "started\n" {
		t.Errorf("result %+v", res)
	}
	b, err := os.ReadFile(filepath.Join(env.Root, "data/child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !exits(t, pid, 10*time.Second) {
		t.Errorf("the child %d survived the timeout", pid)
	}
}

// exits reports whether process pid (not a child of ours) ends within d: it waits on
// a pidfd, which becomes readable when the process exits.
func exits(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	const sysPidfdOpen = 434
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch errno {
	case 0:
	case syscall.ESRCH:
		return true // gone already
	default:
		t.Skipf("pidfd_open: %v", errno)
	}
	defer syscall.Close(int(fd))
	for {
		var set syscall.FdSet
		set.Bits[fd/64] |= 1 << (fd % 64)
		tv := syscall.NsecToTimeval(d.Nanoseconds())
		n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("select: %v", err)
		}
		return n == 1
	}
}
