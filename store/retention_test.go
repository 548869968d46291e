package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestPrune(t *testing.T) {
	d, c := openTest(t) // seeds audited at testkit.T0
	day := 24 * time.Hour

	// Day 0: a request resolved on day 0, one left pending, one resolved on day 5; a
	// finished run, a run still waiting, and a run finished on day 5.
	old, _, err := d.CreateRequest(newRequest("s", "old"))
	testkit.Must(t, err)
	_, err = d.Resolve(old.ID, Approved, Resolution{By: "a"})
	testkit.Must(t, err)
	pending := newRequest("s", "pending")
	pending.ExpiresAt = testkit.T0.Add(30 * day)
	pend, _, err := d.CreateRequest(pending)
	testkit.Must(t, err)
	lateReq := newRequest("s", "late")
	lateReq.ExpiresAt = testkit.T0.Add(30 * day)
	late, _, err := d.CreateRequest(lateReq)
	testkit.Must(t, err)
	_, err = d.Resolve(late.ID, Rejected, Resolution{By: "a", At: testkit.T0.Add(5 * day)})
	testkit.Must(t, err)

	doneRun, err := d.CreateRun(Run{Job: "j", Status: RunSucceeded, RequestID: old.ID,
		FinishedAt: testkit.T0.Add(time.Hour)})
	testkit.Must(t, err)
	waitRun, err := d.CreateRun(Run{Job: "j", Status: RunWaitingApproval, RequestID: pend.ID})
	testkit.Must(t, err)
	lateRun, err := d.CreateRun(Run{Job: "j", Status: RunFailed,
		FinishedAt: testkit.T0.Add(5 * day)})
	testkit.Must(t, err)

	// Day 10: a new request.
	c.Set(testkit.T0.Add(10 * day))
	fresh, _, err := d.CreateRequest(Request{ToolName: "Bash",
		ExpiresAt: testkit.T0.Add(11 * day)})
	testkit.Must(t, err)
	_, err = d.Resolve(fresh.ID, Approved, Resolution{By: "a"})
	testkit.Must(t, err)

	// Nothing before testkit.T0: nothing written.
	before := testkit.FileBytes(t, d.Path())
	n, err := d.Prune(testkit.T0)
	testkit.Must(t, err)
	if n != 0 {
		t.Fatalf("Prune(testkit.T0) = %d", n)
	}
	testkit.FileUnchanged(t, d.Path(), before)

	auditBefore, err := d.Audit(0)
	testkit.Must(t, err)
	oldAudit := 0
	for _, e := range auditBefore {
		if e.At.Before(testkit.T0.Add(day)) {
			oldAudit++
		}
	}

	n, err = d.Prune(testkit.T0.Add(day))
	testkit.Must(t, err)
	if want := 1 + 1 + oldAudit; n != want { // one request, one run, the day-0 audit
		t.Fatalf("Prune = %d, want %d", n, want)
	}
	if _, err := d.Request(old.ID); err == nil {
		t.Error("old request kept")
	}
	if _, err := d.RequestByToolCall("s", "old"); err == nil {
		t.Error("old request still indexed")
	}
	if _, err := d.Run(doneRun.ID); err == nil {
		t.Error("finished run kept")
	}
	if _, err := d.RunByRequest(old.ID); err == nil {
		t.Error("finished run still indexed by request")
	}
	if rs, err := d.Runs("j", 0); err != nil || len(rs) != 2 {
		t.Errorf("runs of j: %d, want 2 (err %v)", len(rs), err)
	}
	if rs, err := d.RunsByStatus(RunSucceeded); err != nil || len(rs) != 0 {
		t.Errorf("succeeded runs still indexed: %+v (err %v)", rs, err)
	}
	for _, id := range []uint64{pend.ID, late.ID, fresh.ID} {
		if _, err := d.Request(id); err != nil {
			t.Errorf("request %d: %v", id, err)
		}
	}
	for _, id := range []uint64{waitRun.ID, lateRun.ID} {
		if _, err := d.Run(id); err != nil {
			t.Errorf("run %d: %v", id, err)
		}
	}
	if p, err := d.Pending(); err != nil || len(p) != 1 || p[0].ID != pend.ID {
		t.Errorf("pending %+v (err %v)", p, err)
	}
	es, err := d.Audit(0)
	testkit.Must(t, err)
	if len(es) != len(auditBefore)-oldAudit+1 {
		t.Fatalf("%d audit entries left", len(es))
	}
	for _, e := range es[1:] {
		if e.At.Before(testkit.T0.Add(day)) {
			t.Errorf("old audit entry kept: %+v", e)
		}
	}
	if es[0].Action != "retention.prune" || es[0].By != "system" || es[0].Via != "retention" ||
		es[0].Detail != "before 2026-03-02T12:00:00Z: 1 requests, 1 runs, "+
			strconv.Itoa(oldAudit)+" audit entries" {
		t.Fatalf("prune audit %+v", es[0])
	}
}
