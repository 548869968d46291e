package store

import (
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestAppendAudit(t *testing.T) {
	d, c := openTest(t)
	seeds, err := d.Audit(0)
	testkit.Must(t, err)
	c.Set(testkit.T0.Add(time.Minute))
	at := testkit.T0.Add(30 * time.Second)
	testkit.Must(t, d.AppendAudit(
		AuditEntry{ID: 999, By: "gate", Via: "gate", Action: "tool.denied", RuleID: 3,
			Detail: "Read secrets/key", At: at},
		AuditEntry{By: "alice", Via: "slack", Action: "bypass.granted", Detail: "session s1 all"},
	))
	es, err := d.Audit(2)
	testkit.Must(t, err)
	want := []AuditEntry{
		{ID: uint64(len(seeds)) + 2, At: testkit.T0.Add(time.Minute), By: "alice", Via: "slack",
			Action: "bypass.granted", Detail: "session s1 all"},
		{ID: uint64(len(seeds)) + 1, At: at, By: "gate", Via: "gate", Action: "tool.denied",
			RuleID: 3, Detail: "Read secrets/key"},
	}
	for i := range want {
		if es[i] != want[i] {
			t.Errorf("entry %d = %+v\nwant      %+v", i, es[i], want[i])
		}
	}
	all, err := d.Audit(-1)
	testkit.Must(t, err)
	if len(all) != len(seeds)+2 || all[len(all)-1].ID != 1 {
		t.Fatalf("Audit(-1): %d entries, oldest %d", len(all), all[len(all)-1].ID)
	}

	before := testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.AppendAudit())
	testkit.WantErr(t, d.AppendAudit(AuditEntry{By: "a", Action: "x"}, AuditEntry{Action: "y"}),
		ErrInvalid, "store: append audit: entry 1: invalid input: by and action are required")
	testkit.WantErr(t, d.AppendAudit(AuditEntry{By: "a"}), ErrInvalid, "entry 0")
	testkit.FileUnchanged(t, d.Path(), before)
}
