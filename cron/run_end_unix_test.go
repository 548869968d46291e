//go:build unix

package cron_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// TestRunEndsItsBypassesWhenItsEndIsNotStored: when the store refuses the writes that
// end a run (a full disk), the bypass granted on the run's request still ends with it.
// The last step reads a FIFO, so the disk fills while it certainly runs.
func TestRunEndsItsBypassesWhenItsEndIsNotStored(t *testing.T) {
	job := cron.Job{Name: "report", Schedule: "0 2 * * *", AgentID: "ops", Steps: []cron.Step{
		{Tool: "write_file", Args: map[string]any{"path": "out/a.txt", "content": "a"}},
		{Tool: "execute_cmd", Args: map[string]any{"cmd": "cat data/fifo", "timeout": "30s"}},
	}}
	e := newCronEnv(t, job)
	fifo := filepath.Join(e.root, "data", "fifo")
	testkit.Must(t, syscall.Mkfifo(fifo, 0o600))
	var full atomic.Bool
	testkit.Must(t, e.db.Close())
	e.db = teststore.OpenAt(t, e.path, store.Options{FailCommit: func() error {
		if full.Load() {
			return errors.New("no space left on device")
		}
		return nil
	}})
	var logs testkit.Logs
	e.edit = func(o *cron.Options) { o.Logger = logs.Logger() }
	e.gateEdit = func(o *gate.Options) { o.Logger = logs.Logger() }
	e.start()
	_, session := e.approveForSession("report")
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the step reads it
	testkit.Must(t, err)
	if e.gate.Bypasses(session) == nil {
		t.Fatal("no bypass while the run runs")
	}
	full.Store(true)
	testkit.Must(t, w.Close())
	if _, err := logs.Wait(testkit.Context(t, 10*time.Second),
		[]string{"bypasses of an ended session dropped", session}); err != nil {
		t.Fatalf("the run's bypass was not dropped: %v\n%s", err, logs.All())
	}
	if got := logs.Find("the run stops here"); len(got) != 1 {
		t.Errorf("the store refused %d writes of the run, want 1", len(got))
	}
	if bs := e.gate.Bypasses(session); bs != nil {
		t.Errorf("bypasses of the run's session after its end: %+v, want none", bs)
	}
}
