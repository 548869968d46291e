package cron_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// waitingAtStep2 triggers backup and returns the run once it waits for approval of its
// second step, checking that the first step's effect exists and the second's does not.
func waitingAtStep2(t *testing.T, e *env, name string) store.Run {
	t.Helper()
	r := e.trigger(name)
	if r.Status != store.RunRunning ||
		r.SessionID != "cron:"+name+":"+strconv.FormatUint(r.ID, 10) ||
		r.Trigger != cron.TriggerManual {
		t.Fatalf("Trigger returned %+v", r)
	}
	if ev := e.next(cron.EventRunStarted, r.ID); ev.Job != name || ev.Notify {
		t.Errorf("run_started %+v", ev)
	}
	ev := e.next(cron.EventRunWaiting, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunWaitingApproval || r.Step != 1 || r.RequestID == 0 ||
		ev.RequestID != r.RequestID || ev.Status != store.RunWaitingApproval || ev.Notify {
		t.Fatalf("waiting run %+v, event %+v", r, ev)
	}
	if len(r.Steps) != 2 || r.Steps[0].Status != "succeeded" || r.Steps[0].Decision != "allow" ||
		r.Steps[1].Decision != "pending" || r.Steps[1].Status != "waiting_approval" ||
		r.Steps[1].RequestID != r.RequestID {
		t.Fatalf("steps of the waiting run: %+v", r.Steps)
	}
	if n := e.lines("data/step1.log"); n != 1 {
		t.Errorf("step 1 ran %d times, want once", n)
	}
	if _, ok := e.file("out/report.txt"); ok {
		t.Error("step 2's file exists before approval")
	}
	req, err := e.gate.Request(r.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if req.Status != store.Pending || req.SessionID != r.SessionID || req.Source != "cron" ||
		req.AgentID != "ops" || req.ContextLabel != "CronJob: "+name ||
		req.ToolName != "write_file" || req.ToolCallID != "step-2" {
		t.Errorf("approval request %+v", req)
	}
	return r
}

func TestApproveResumesAtTheWaitingStep(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2)

	r, ev := e.decide(r, true, "")
	if r.Status != store.RunSucceeded || ev.Status != store.RunSucceeded || ev.Notify ||
		r.Error != "" || r.FinishedAt.IsZero() {
		t.Fatalf("finished run %+v, event %+v", r, ev)
	}
	e.wantFile("out/report.txt", "done")
	if e.lines("data/step1.log") != 1 || e.lines("data/step3.log") != 1 {
		t.Errorf("step 1 ran %d times, step 3 %d, want once each",
			e.lines("data/step1.log"), e.lines("data/step3.log"))
	}
	want := []struct{ tool, decision, status string }{
		{"execute_cmd", "allow", "succeeded"},
		{"write_file", "approved", "succeeded"},
		{"execute_cmd", "allow", "succeeded"},
	}
	if len(r.Steps) != len(want) {
		t.Fatalf("steps %+v", r.Steps)
	}
	for i, w := range want {
		s := r.Steps[i]
		if s.Tool != w.tool || s.Decision != w.decision || s.Status != w.status ||
			s.ExitCode != 0 || s.StartedAt.IsZero() || s.DurationMS < 0 {
			t.Errorf("step %d: %+v, want %+v", i+1, s, w)
		}
	}
	if r.Steps[1].RequestID == 0 || r.Steps[1].Output != "wrote 4 bytes to out/report.txt\n" {
		t.Errorf("step 2 %+v", r.Steps[1])
	}
	// The request still finds its run, for the chat side.
	if byReq, err := e.db.RunByRequest(r.Steps[1].RequestID); err != nil || byReq.ID != r.ID {
		t.Errorf("RunByRequest: %v %v", byReq.ID, err)
	}
}

func TestRejectEndsTheRunAndTheStepNeverRuns(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2)

	r, ev := e.decide(r, false, "not tonight")
	if r.Status != store.RunRejected || ev.Status != store.RunRejected || !ev.Notify ||
		ev.RequestID != r.RequestID {
		t.Fatalf("run %+v, event %+v", r, ev)
	}
	if want := "step 2: approval request " + strconv.FormatUint(r.RequestID, 10) +
		" rejected by alice via telegram: not tonight"; r.Error != want {
		t.Errorf("error %q, want %q", r.Error, want)
	}
	if len(r.Steps) != 2 || r.Steps[1].Status != "rejected" ||
		r.Steps[1].Decision != "rejected" || r.Steps[1].Output != "" {
		t.Errorf("steps %+v", r.Steps)
	}
	if _, ok := e.file("out/report.txt"); ok {
		t.Error("the rejected step ran")
	}
	if _, ok := e.file("data/step3.log"); ok {
		t.Error("the step after the rejected one ran")
	}
}

func TestRestartWhileWaitingThenApprove(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2)

	e.restart()
	if got := e.run(r.ID); got.Status != store.RunWaitingApproval {
		t.Fatalf("after the restart the run is %s, want still waiting", got.Status)
	}
	if got, _ := e.decide(r, true, ""); got.Status != store.RunSucceeded {
		t.Fatalf("run %+v", got)
	}
	if e.lines("data/step1.log") != 1 {
		t.Errorf("step 1 ran %d times, want once", e.lines("data/step1.log"))
	}
	if s, ok := e.file("out/report.txt"); !ok || s != "done" || e.lines("data/step3.log") != 1 {
		t.Errorf("steps 2 and 3 did not run once each (report %q, found %v)", s, ok)
	}
}

func TestApprovedWhileDownResumesAtStart(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2)
	e.stop()

	// The service is down; the request is approved (by the CLI through another gate).
	g := e.newGate(nil)
	a := gate.Answer{Approve: true, By: "cli", Via: "cli"}
	if _, err := g.Resolve(context.Background(), r.RequestID, a); err != nil {
		t.Fatal(err)
	}
	if got := e.run(r.ID); got.Status != store.RunWaitingApproval {
		t.Fatalf("run %s while the service is down, want waiting_approval", got.Status)
	}
	e.start()
	e.next(cron.EventRunFinished, r.ID)
	if got := e.run(r.ID); got.Status != store.RunSucceeded ||
		e.lines("data/step1.log") != 1 || e.lines("data/step3.log") != 1 {
		t.Fatalf("run %+v; step 1 ran %d times", got, e.lines("data/step1.log"))
	}
}

func TestRejectedWhileDownFinishesAtStart(t *testing.T) {
	e, r := started(t, backup("backup", ""), waitingAtStep2)
	e.stop()
	g := e.newGate(nil)
	by := store.Actor{By: "cli", Via: "cli"}
	if _, err := g.CancelRequest(r.RequestID, "not needed", by, ""); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.next(cron.EventRunFinished, r.ID)
	if got := e.run(r.ID); got.Status != store.RunCancelled ||
		!strings.Contains(got.Error, "cancelled by cli via cli: not needed") {
		t.Fatalf("run %+v", got)
	}
	if _, ok := e.file("out/report.txt"); ok {
		t.Error("the cancelled step ran")
	}
}

func TestRunningAtStartIsInterrupted(t *testing.T) {
	e := newCronEnv(t, backup("backup", ""))
	old, err := e.db.CreateRun(store.Run{Job: "backup", Status: store.RunRunning,
		Trigger: cron.TriggerSchedule,
		Steps:   []store.StepResult{{Tool: "execute_cmd", Decision: "allow", Status: "running"}}})
	if err != nil {
		t.Fatal(err)
	}
	e.start()
	ev := e.next(cron.EventRunFinished, old.ID)
	r := e.run(old.ID)
	if r.Status != store.RunInterrupted || ev.Status != store.RunInterrupted || !ev.Notify ||
		r.Error != "interrupted: the service stopped during step 1" ||
		r.Steps[0].Status != "interrupted" {
		t.Fatalf("run %+v, event %+v", r, ev)
	}
	// The interrupted run no longer holds the job: a trigger starts a run.
	e.trigger("backup")
}

func TestDenyEndsTheRunDenied(t *testing.T) {
	j := cron.Job{Name: "peek", Schedule: "@daily", AgentID: "ops", Steps: []cron.Step{
		{Tool: "read_file", Args: map[string]any{"path": "secrets/key"}},
		{Tool: "execute_cmd", Args: map[string]any{"cmd": "echo after >> data/after.log"}},
	}}
	e := newCronEnv(t, j)
	e.start()
	r := e.trigger("peek")
	e.next(cron.EventRunFinished, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunDenied || len(r.Steps) != 1 || r.Steps[0].Decision != "deny" ||
		r.Steps[0].Status != "denied" ||
		!strings.HasPrefix(r.Error, "step 1 (read_file): deny: ") {
		t.Fatalf("run %+v", r)
	}
	if _, ok := e.file("data/after.log"); ok {
		t.Error("a step after the denied one ran")
	}
}

func TestFailingStepEndsTheRunFailed(t *testing.T) {
	steps := []cron.Step{
		{Tool: "execute_cmd", Args: map[string]any{"cmd": "echo partial; echo oops >&2; exit 3"}},
		{Tool: "execute_cmd", Args: map[string]any{"cmd": "echo after >> data/after.log"}},
	}
	j := cron.Job{Name: "broken", Schedule: "@daily", AgentID: "ops", Notify: cron.NotifyNever,
		Steps: steps}
	e := newCronEnv(t, j)
	e.start()
	r := e.trigger("broken")
	ev := e.next(cron.EventRunFinished, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunFailed || ev.Notify ||
		r.Error != "step 1 (execute_cmd): exit status 3" {
		t.Fatalf("run %+v, event %+v", r, ev)
	}
	s := r.Steps[0]
	if s.Status != "failed" || s.ExitCode != 3 ||
		s.Output != "partial\noops\nerror: exit status 3" {
		t.Errorf("step %+v", s)
	}
	if _, ok := e.file("data/after.log"); ok {
		t.Error("a step after the failed one ran")
	}
}

func TestPanickingStepIsRecordedAndTheNextTriggerRuns(t *testing.T) {
	j := cron.Job{Name: "boom", Schedule: "@hourly", AgentID: "ops", Steps: []cron.Step{
		{Tool: "execute_cmd", Args: map[string]any{"cmd": "echo before >> data/before.log"}},
		{Tool: "explode", Args: map[string]any{}},
	}}
	e := newCronEnv(t, j)
	e.tools = cron.Builtins()
	explode := func(context.Context, cron.Env, map[string]any) (cron.Result, error) {
		panic("kaboom")
	}
	e.tools["explode"] = cron.Tool{Run: explode}
	allow(t, e, "explode")
	e.start()
	for range 2 {
		r := e.trigger("boom")
		e.next(cron.EventRunFinished, r.ID)
		r = e.run(r.ID)
		if r.Status != store.RunFailed || r.Error != "step 2 (explode): panic: kaboom" ||
			len(r.Steps) != 2 || r.Steps[1].Status != "failed" || r.Steps[1].ExitCode != -1 ||
			r.Steps[1].Output != "error: panic: kaboom" {
			t.Fatalf("run %+v", r)
		}
	}
	if e.lines("data/before.log") != 2 {
		t.Errorf("the first step ran %d times, want 2", e.lines("data/before.log"))
	}
}

func TestStopInterruptsTheStepInFlight(t *testing.T) {
	started := make(chan struct{})
	j := cron.Job{Name: "slow", Schedule: "@daily", AgentID: "ops",
		Steps: []cron.Step{{Tool: "block"}}}
	e := newCronEnv(t, j)
	block := func(ctx context.Context, _ cron.Env, _ map[string]any) (cron.Result, error) {
		close(started)
		<-ctx.Done()
		return cron.Result{ExitCode: -1, Output: "half way"}, ctx.Err()
	}
	e.tools = map[string]cron.Tool{"block": {Run: block}}
	allow(t, e, "block")
	e.start()
	r := e.trigger("slow")
	<-started
	e.stop()
	r = e.run(r.ID)
	if r.Status != store.RunInterrupted || r.Steps[0].Status != "interrupted" ||
		r.Steps[0].Output != "half way\nerror: context canceled" {
		t.Fatalf("run %+v", r)
	}
}

// allow adds a rule allowing agent ops to call tool.
func allow(t *testing.T, e *env, tool string) {
	t.Helper()
	if _, err := e.db.CreateRule(ruleAllow(tool), admin); err != nil {
		t.Fatal(err)
	}
}

func TestNotifyPolicy(t *testing.T) {
	step := []cron.Step{{Tool: "execute_cmd", Args: map[string]any{"cmd": "true"}}}
	fail := []cron.Step{{Tool: "execute_cmd", Args: map[string]any{"cmd": "false"}}}
	e := newCronEnv(t,
		cron.Job{Name: "always", Schedule: "@daily", AgentID: "ops", Notify: cron.NotifyAlways,
			Steps: step},
		cron.Job{Name: "failure-ok", Schedule: "@daily", AgentID: "ops", Steps: step},
		cron.Job{Name: "failure-bad", Schedule: "@daily", AgentID: "ops", Steps: fail},
		cron.Job{Name: "never", Schedule: "@daily", AgentID: "ops", Notify: cron.NotifyNever,
			Steps: fail},
	)
	e.start()
	for name, want := range map[string]bool{
		"always": true, "failure-ok": false, "failure-bad": true, "never": false,
	} {
		r := e.trigger(name)
		if ev := e.next(cron.EventRunFinished, r.ID); ev.Notify != want {
			t.Errorf("%s: run_finished %+v, want notify %v", name, ev, want)
		}
	}
}

// droppingGate is the real gate whose first subscription is a channel the test
// controls, to play the gate dropping a slow subscriber.
type droppingGate struct {
	*gate.Manager
	first chan gate.Event
	calls int
}

func (g *droppingGate) Subscribe(n int) (<-chan gate.Event, func()) {
	if g.calls++; g.calls == 1 {
		return g.first, func() {}
	}
	return g.Manager.Subscribe(n)
}

// TestDroppedSubscriptionMissesNoResolution: a resolution whose event the engine
// never saw (its subscription was dropped) is found when it subscribes again.
func TestDroppedSubscriptionMissesNoResolution(t *testing.T) {
	e := newCronEnv(t, backup("backup", ""))
	dg := &droppingGate{first: make(chan gate.Event)}
	e.edit = func(o *cron.Options) {
		dg.Manager = o.Gate.(*gate.Manager)
		o.Gate = dg
	}
	e.start()
	r := waitingAtStep2(t, e, "backup")
	e.resolve(r.RequestID, true, "") // approval_resolved goes to the real bus, not to the engine
	if got := e.run(r.ID); got.Status != store.RunWaitingApproval {
		t.Fatalf("the run moved without the event: %s", got.Status)
	}
	close(dg.first) // the gate drops the engine's subscription
	e.next(cron.EventRunFinished, r.ID)
	if got := e.run(r.ID); got.Status != store.RunSucceeded || e.lines("data/step3.log") != 1 {
		t.Fatalf("run %+v", got)
	}
}

// TestRunEndsItsBypasses: a bypass granted on a run's request covers that run's later
// steps, and ends when the run ends — nothing of it is left for the run's session.
func TestRunEndsItsBypasses(t *testing.T) {
	job := cron.Job{Name: "report", Schedule: "0 2 * * *", AgentID: "ops", Steps: []cron.Step{
		{Tool: "write_file", Args: map[string]any{"path": "out/a.txt", "content": "a"}},
		{Tool: "write_file", Args: map[string]any{"path": "out/b.txt", "content": "b"}},
	}}
	e := newCronEnv(t, job)
	e.start()
	r, session := e.approveForSession("report")
	e.next(cron.EventRunFinished, r.ID)
	r = e.run(r.ID)
	if r.Status != store.RunSucceeded || len(r.Steps) != 2 || r.Steps[1].Decision != "allow" {
		t.Fatalf("run %+v, want step 2 let through by the bypass", r)
	}
	if bs := e.gate.Bypasses(session); bs != nil {
		t.Errorf("bypasses of the finished run's session: %+v, want none", bs)
	}
	late := gate.Call{ToolName: "write_file", SessionID: session, ToolCallID: "late",
		AgentID: "ops", Source: cron.SourceCron, Caller: store.CallerCron,
		Arguments: map[string]any{"path": "out/c.txt", "content": "c"}}
	out, err := e.gate.Check(context.Background(), late)
	if err != nil || out.Decision != gate.VerdictPending {
		t.Errorf("a call in the finished run's session: %+v %v, want pending", out, err)
	}
}
