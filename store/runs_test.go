package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestCreateRun(t *testing.T) {
	d, _ := openTest(t)
	r, err := d.CreateRun(Run{Job: "nightly-backup", Trigger: "schedule"})
	testkit.Must(t, err)
	if r.ID != 1 || r.SessionID != "cron:nightly-backup:1" || r.Status != RunRunning ||
		!r.StartedAt.Equal(testkit.T0) {
		t.Fatalf("CreateRun = %+v", r)
	}
	got, err := d.Run(r.ID)
	testkit.Must(t, err)
	if got.SessionID != r.SessionID || got.Job != "nightly-backup" || got.Trigger != "schedule" {
		t.Fatalf("Run = %+v", got)
	}
	own, err := d.CreateRun(Run{Job: "x", SessionID: "mine", Status: RunWaitingApproval,
		RequestID: 7})
	testkit.Must(t, err)
	if own.SessionID != "mine" {
		t.Fatalf("session %q", own.SessionID)
	}
	byReq, err := d.RunByRequest(7)
	testkit.Must(t, err)
	if byReq.ID != own.ID {
		t.Fatalf("RunByRequest = %+v", byReq)
	}
}

func TestCreateRunInvalid(t *testing.T) {
	d, _ := openTest(t)
	before := testkit.FileBytes(t, d.Path())
	_, err := d.CreateRun(Run{Job: "Nightly Backup"})
	testkit.WantErr(t, err, ErrInvalid, `store: create run of job "Nightly Backup": `+
		`invalid input: job name "Nightly Backup" must match`)
	_, err = d.CreateRun(Run{Job: "ok", Status: "sleeping"})
	testkit.WantErr(t, err, ErrInvalid, `unknown run status "sleeping"`)
	testkit.FileUnchanged(t, d.Path(), before)
	_, err = d.Run(1)
	testkit.WantErr(t, err, ErrNotFound, "store: run 1: not found")
	_, err = d.RunByRequest(5)
	testkit.WantErr(t, err, ErrNotFound, "store: run of request 5: not found")
}

func TestUpdateRun(t *testing.T) {
	d, _ := openTest(t)
	r, err := d.CreateRun(Run{Job: "backup"})
	testkit.Must(t, err)
	r.Status, r.Step, r.RequestID = RunWaitingApproval, 1, 42
	r.Steps = []StepResult{
		{Tool: "execute_cmd", Decision: "allow", Status: "succeeded", DurationMS: 1200},
	}
	r.SessionID = "" // keeps the stored one
	testkit.Must(t, d.UpdateRun(r))
	got, err := d.Run(r.ID)
	testkit.Must(t, err)
	if got.Status != RunWaitingApproval || got.SessionID != "cron:backup:1" ||
		len(got.Steps) != 1 || got.Steps[0].DurationMS != 1200 {
		t.Fatalf("Run = %+v", got)
	}
	waiting, err := d.RunsByStatus(RunWaitingApproval)
	testkit.Must(t, err)
	if len(waiting) != 1 || waiting[0].ID != r.ID {
		t.Fatalf("waiting %+v", waiting)
	}
	if running, err := d.RunsByStatus(RunRunning); err != nil || len(running) != 0 {
		t.Fatalf("still indexed as running: %+v (err %v)", running, err)
	}

	// Approved: the run resumes and finishes; the request still finds it.
	r = got
	r.Status, r.Step, r.RequestID, r.FinishedAt = RunSucceeded, 2, 0, testkit.T0.Add(time.Minute)
	r.Steps = append(r.Steps,
		StepResult{Tool: "write_file", Decision: "approved", Status: "succeeded", RequestID: 42})
	testkit.Must(t, d.UpdateRun(r))
	byReq, err := d.RunByRequest(42)
	testkit.Must(t, err)
	if byReq.ID != r.ID || byReq.Status != RunSucceeded {
		t.Fatalf("RunByRequest = %+v", byReq)
	}

	before := testkit.FileBytes(t, d.Path())
	bad := r
	bad.Job = "other"
	testkit.WantErr(t, d.UpdateRun(bad), ErrInvalid,
		`store: update run 1: invalid input: run 1 belongs to job "backup", not "other"`)
	bad = r
	bad.Status = "weird"
	testkit.WantErr(t, d.UpdateRun(bad), ErrInvalid, `unknown run status "weird"`)
	bad = r
	bad.ID = 9
	testkit.WantErr(t, d.UpdateRun(bad), ErrNotFound, "store: update run 9: not found")
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestRunsNewestFirst(t *testing.T) {
	d, _ := openTest(t)
	// Interleave jobs whose names are prefixes of each other.
	for _, job := range []string{"a", "ab", "a", "b", "a", "ab"} {
		_, err := d.CreateRun(Run{Job: job})
		testkit.Must(t, err)
	}
	ids := func(rs []Run) []uint64 {
		var out []uint64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		job   string
		limit int
		want  []uint64
	}{
		{"a", 0, []uint64{5, 3, 1}},
		{"a", 2, []uint64{5, 3}},
		{"ab", -1, []uint64{6, 2}},
		{"b", 10, []uint64{4}},
		{"c", 0, nil},
		{"", 0, nil},
	} {
		t.Run(tc.job, func(t *testing.T) {
			rs, err := d.Runs(tc.job, tc.limit)
			testkit.Must(t, err)
			if !slices.Equal(ids(rs), tc.want) {
				t.Errorf("Runs(%q, %d) = %v, want %v", tc.job, tc.limit, ids(rs), tc.want)
			}
		})
	}
}

// RecentRuns lists the runs of every job, newest first, up to its limit.
func TestRecentRuns(t *testing.T) {
	d, _ := openTest(t)
	rs, err := d.RecentRuns(0)
	testkit.Must(t, err)
	if len(rs) != 0 {
		t.Fatalf("RecentRuns of an empty store = %+v", rs)
	}
	for _, job := range []string{"a", "b", "a", "c"} {
		_, err := d.CreateRun(Run{Job: job})
		testkit.Must(t, err)
	}
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, []string{"4 c", "3 a", "2 b", "1 a"}},
		{-1, []string{"4 c", "3 a", "2 b", "1 a"}},
		{2, []string{"4 c", "3 a"}},
		{10, []string{"4 c", "3 a", "2 b", "1 a"}},
	} {
		t.Run(strconv.Itoa(tc.limit), func(t *testing.T) {
			rs, err := d.RecentRuns(tc.limit)
			testkit.Must(t, err)
			var got []string
			for _, r := range rs {
				got = append(got, fmt.Sprintf("%d %s", r.ID, r.Job))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("RecentRuns(%d) = %q, want %q", tc.limit, got, tc.want)
			}
		})
	}
}

func TestRunsByStatus(t *testing.T) {
	d, _ := openTest(t)
	for _, st := range []RunStatus{RunRunning, RunWaitingApproval, RunFailed, RunRunning} {
		_, err := d.CreateRun(Run{Job: "j", Status: st})
		testkit.Must(t, err)
	}
	rs, err := d.RunsByStatus(RunWaitingApproval, RunRunning, RunRunning)
	testkit.Must(t, err)
	var ids []uint64
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []uint64{1, 2, 4}) {
		t.Fatalf("RunsByStatus = %v", ids)
	}
	if rs, err := d.RunsByStatus(); err != nil || len(rs) != 0 {
		t.Fatalf("no statuses: %v %v", rs, err)
	}
	_, err = d.RunsByStatus(RunRunning, "zombie")
	testkit.WantErr(t, err, ErrInvalid,
		`store: runs by status: invalid input: unknown run status "zombie"`)
}

// TestRunPlanKeepsNumbers checks a stored plan's numbers come back as written.
func TestRunPlanKeepsNumbers(t *testing.T) {
	d, _ := openTest(t)
	r, err := d.CreateRun(Run{Job: "j", Trigger: "schedule", Plan: []PlanStep{{Tool: "execute_cmd",
		Args: map[string]any{"n": json.Number("9007199254740993"), "f": json.Number("1.10")}}}})
	testkit.Must(t, err)
	got, err := d.Run(r.ID)
	testkit.Must(t, err)
	if a := got.Plan[0].Args; a["n"] != json.Number("9007199254740993") ||
		a["f"] != json.Number("1.10") {
		t.Fatalf("stored plan args %#v", a)
	}
}
