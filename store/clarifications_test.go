package store

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// question is a valid new clarification at testkit.T0.
func question() Clarification {
	return Clarification{ClarificationID: "c1", SessionID: "s1", AgentID: "bot",
		Source: "cli", Caller: CallerLocal, Question: "which branch?",
		Options: []string{"main", "dev"}, ExpiresAt: testkit.T0.Add(time.Hour)}
}

func TestCreateClarificationReplays(t *testing.T) {
	d, _ := openTest(t)
	c, created, err := d.CreateClarification(question())
	testkit.Must(t, err)
	if !created || c.ID != 1 || c.Status != ClarificationPending ||
		!c.CreatedAt.Equal(testkit.T0) {
		t.Fatalf("created %v %+v", created, c)
	}
	again, created, err := d.CreateClarification(question())
	testkit.Must(t, err)
	if created || again.ID != c.ID {
		t.Fatalf("replay created %v id %d, want the same clarification", created, again.ID)
	}
	path := d.Path()
	before := testkit.FileBytes(t, path)
	for _, tc := range []struct {
		name  string
		edit  func(*Clarification)
		field string
	}{
		{"question", func(c *Clarification) { c.Question = "which tag?" },
			"not the same question"},
		{"options", func(c *Clarification) { c.Options = []string{"main"} },
			"not the same options"},
		{"agent", func(c *Clarification) { c.AgentID = "other" }, "not the same agent_id"},
		{"source", func(c *Clarification) { c.Source = "x" }, "not the same source"},
		{"label", func(c *Clarification) { c.ContextLabel = "x" }, "not the same context_label"},
		{"caller", func(c *Clarification) { c.Caller = "agent-0123456789ab" },
			"made by another caller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := question()
			tc.edit(&q)
			got, _, err := d.CreateClarification(q)
			testkit.WantErr(t, err, ErrToolCallReused, tc.field)
			if tc.name == "caller" &&
				(got.ID != 0 || strings.Contains(err.Error(), "clarification 1")) {
				t.Errorf("another caller learned of the clarification: %+v, %v", got, err)
			}
		})
	}
	testkit.FileUnchanged(t, path, before)
}

func TestCreateClarificationRefusesBadInput(t *testing.T) {
	d, _ := openTest(t)
	before := testkit.FileBytes(t, d.Path())
	long := strings.Repeat("x", MaxOptionLen+1)
	for _, tc := range []struct {
		name string
		edit func(*Clarification)
		want string
	}{
		{"no question", func(c *Clarification) { c.Question = "  " }, "question is required"},
		{"long question",
			func(c *Clarification) { c.Question = strings.Repeat("q", MaxQuestionLen+1) },
			"question is longer"},
		{"eleven options", func(c *Clarification) {
			c.Options = strings.Split("a b c d e f g h i j k", " ")
		}, "11 options, at most 10"},
		{"empty option", func(c *Clarification) { c.Options = []string{"a", ""} },
			"option 2 is empty"},
		{"long option", func(c *Clarification) { c.Options = []string{long} },
			"option 1 is longer than 64"},
		{"repeated option", func(c *Clarification) { c.Options = []string{"a", "a"} },
			`option 2 repeats "a"`},
		{"trailing space", func(c *Clarification) { c.Options = []string{"yes", "yes "} },
			`option 2 "yes " must not start or end`},
		{"leading space", func(c *Clarification) { c.Options = []string{"\u00a0yes"} },
			"option 1"},
		{"bidi override", func(c *Clarification) { c.Options = []string{"\u202eon"} },
			"invisible or bidi"},
		{"bidi isolate", func(c *Clarification) { c.Options = []string{"a\u2067b"} },
			"invisible or bidi"},
		{"zero width", func(c *Clarification) { c.Options = []string{"yes", "ye\u200bs"} },
			"invisible or bidi"},
		{"line separator", func(c *Clarification) { c.Options = []string{"a\u2028b"} },
			"invisible or bidi"},
		{"bad utf-8", func(c *Clarification) { c.Question = "\xff" },
			"question is not valid UTF-8"},
		{"no expiry", func(c *Clarification) { c.ExpiresAt = time.Time{} },
			"expires_at is required"},
		{"long id", func(c *Clarification) { c.ClarificationID = strings.Repeat("i", MaxIDLen+1) },
			"clarification_id is longer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := question()
			tc.edit(&q)
			_, _, err := d.CreateClarification(q)
			testkit.WantErr(t, err, ErrInvalid, tc.want)
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestAnswerClarificationExactlyOnce(t *testing.T) {
	d, _ := openTest(t)
	c, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = d.AnswerClarification(c.ID, ClarificationAnswer{Text: "main",
				By: "p" + string(rune('0'+i)), Via: "telegram"})
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		default:
			testkit.WantErr(t, err, ErrAlreadyResolved, "answered by p", "via telegram")
		}
	}
	if won != 1 {
		t.Fatalf("%d answers won, want 1", won)
	}
	got, err := d.Clarification(c.ID)
	testkit.Must(t, err)
	if got.Status != ClarificationAnswered || got.Answer == nil || got.Answer.Text != "main" {
		t.Fatalf("stored %+v", got)
	}
	es, err := d.Audit(0) // newest first
	testkit.Must(t, err)
	answered := 0
	for _, e := range es {
		if e.Action == AuditClarificationAnswered {
			answered++
		}
	}
	if answered != 1 || es[0].Action != AuditClarificationAnswered {
		t.Errorf("audit %+v, want one %s, the newest", es, AuditClarificationAnswered)
	}
	pend, err := d.PendingClarifications()
	testkit.Must(t, err)
	if len(pend) != 0 {
		t.Errorf("pending %v after the answer", pend)
	}
}

func TestAnswerClarificationRefuses(t *testing.T) {
	d, clock := openTest(t)
	c, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	before := testkit.FileBytes(t, d.Path())
	two := 2
	for _, tc := range []struct {
		name   string
		id     uint64
		a      ClarificationAnswer
		target error
		want   string
	}{
		{"empty", c.ID, ClarificationAnswer{Text: " ", By: "a"}, ErrInvalid,
			"the answer is empty"},
		{"no by", c.ID, ClarificationAnswer{Text: "x"}, ErrInvalid, "needs who"},
		{"bad option", c.ID, ClarificationAnswer{Text: "x", Option: &two, By: "a"}, ErrInvalid,
			"option 3 is not one"},
		{"unknown", 99, ClarificationAnswer{Text: "x", By: "a"}, ErrNotFound, "99"},
		{"late", c.ID, ClarificationAnswer{Text: "x", By: "a", At: clock.Now().Add(2 * time.Hour)},
			ErrExpired, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.AnswerClarification(tc.id, tc.a)
			testkit.WantErr(t, err, tc.target, tc.want)
		})
	}
	testkit.FileUnchanged(t, d.Path(), before)
}

func TestClarificationExpiryCancelRestartPrune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skald.db")
	d, clock := openAt(t, path)
	a, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	q := question()
	q.ClarificationID, q.ExpiresAt = "c2", testkit.T0.Add(48*time.Hour)
	b, _, err := d.CreateClarification(q)
	testkit.Must(t, err)
	q.ClarificationID, q.SessionID = "c3", "s2"
	c, _, err := d.CreateClarification(q)
	testkit.Must(t, err)
	reply := ReplyPrompt{Channel: "telegram", ChatID: "1", Ref: "5", UserID: "7"}
	testkit.Must(t, d.BindReply(c.ID, reply))

	// Restart: everything stays pending.
	testkit.Must(t, d.Close())
	d, clock = openAt(t, path)
	pend, err := d.PendingClarifications()
	testkit.Must(t, err)
	if len(pend) != 3 {
		t.Fatalf("after a restart %d pending, want 3", len(pend))
	}
	got, p, err := d.ClarificationByReply("telegram", "1", "5")
	testkit.Must(t, err)
	if got.ID != c.ID || p.UserID != "7" {
		t.Fatalf("by reply: %d %+v", got.ID, p)
	}

	exp, err := d.ExpireDueClarifications(clock.Now().Add(2 * time.Hour))
	testkit.Must(t, err)
	if len(exp) != 1 || exp[0].ID != a.ID || exp[0].Status != ClarificationExpired {
		t.Fatalf("expired %+v", exp)
	}
	cs, err := d.CancelSessionClarifications("s1", Resolution{By: "api", Via: "api"})
	testkit.Must(t, err)
	if len(cs) != 1 || cs[0].ID != b.ID || cs[0].Status != ClarificationCancelled {
		t.Fatalf("cancelled %+v", cs)
	}
	_, err = d.CancelClarification(b.ID, Resolution{By: "api", Via: "api"})
	testkit.WantErr(t, err, ErrAlreadyResolved, "cancelled by api via api")
	_, err = d.AnswerClarification(c.ID,
		ClarificationAnswer{Text: "dev", By: "jane", Via: "telegram"})
	testkit.Must(t, err)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.Create(copyPath)
	testkit.Must(t, err)
	_, err = d.WriteTo(f)
	testkit.Must(t, err)
	testkit.Must(t, f.Close())
	testkit.Must(t, Verify(copyPath))

	n, err := d.Prune(clock.Now().Add(72 * time.Hour))
	testkit.Must(t, err)
	if n < 3 {
		t.Fatalf("pruned %d, want the 3 clarifications at least", n)
	}
	_, err = d.Clarification(c.ID)
	testkit.WantErr(t, err, ErrNotFound)
	_, _, err = d.ClarificationByReply("telegram", "1", "5")
	testkit.WantErr(t, err, ErrNotFound)
	// The ids may be used again once pruned.
	if _, created, err := d.CreateClarification(question()); err != nil || !created {
		t.Fatalf("create after prune: %v %v", created, err)
	}
}

func TestVerifyChecksClarifications(t *testing.T) {
	d, _ := openTest(t)
	c, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	for _, tc := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
		want   string
	}{
		{"undecodable record", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketClars).Put(u64(c.ID), []byte("{not json"))
		}, "clarifications"},
		{"stale pending entry", func(tx *bolt.Tx) error {
			return tx.Bucket(bucketClarPending).Put(timeIDKey(testkit.T0, 99), nil)
		}, "clarification 99, which is not pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeCopy(t, d)
			testkit.Must(t, Verify(path))
			b, err := bolt.Open(path, 0o600, nil)
			testkit.Must(t, err)
			testkit.Must(t, b.Update(tc.damage))
			testkit.Must(t, b.Close())
			testkit.WantErr(t, Verify(path), ErrCorrupt, tc.want)
		})
	}
}

func TestClarificationMessages(t *testing.T) {
	d, _ := openTest(t)
	c, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	tg := Message{Channel: "telegram", ChatID: "-100123", Ref: "55"}
	testkit.Must(t, d.AddClarificationMessage(c.ID, tg))

	before := testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.AddClarificationMessage(c.ID, tg)) // already recorded: nothing written
	testkit.WantErr(t, d.AddClarificationMessage(99, tg), ErrNotFound,
		"store: add message to clarification 99: not found")
	testkit.WantErr(t, d.AddClarificationMessage(c.ID, Message{Channel: "slack", ChatID: "C1"}),
		ErrInvalid, "store: add message to clarification 1: invalid input: "+
			"channel, chat_id and ref are required")
	testkit.WantErr(t, d.MarkClarificationMessagesFinal(99), ErrNotFound,
		"store: mark messages of clarification 99 final: not found")
	testkit.FileUnchanged(t, d.Path(), before)

	testkit.Must(t, d.MarkClarificationMessagesFinal(c.ID))
	got, err := d.Clarification(c.ID)
	testkit.Must(t, err)
	if m := got.Messages; len(m) != 1 || !m[0].Final || !m[0].ShownAt.Equal(testkit.T0) {
		t.Fatalf("messages %+v", got.Messages)
	}
	before = testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.MarkClarificationMessagesFinal(c.ID))
	testkit.FileUnchanged(t, d.Path(), before)
}

// MarkClarificationMessageFinal marks one message; the clarification leaves the
// unfinalized list only once all are final. An unknown clarification, or a message
// unknown or final already, writes nothing.
func TestClarificationMessageFinal(t *testing.T) {
	d, _ := openTest(t)
	c, _, err := d.CreateClarification(question())
	testkit.Must(t, err)
	a := Message{Channel: "telegram", ChatID: "-100123", Ref: "55"}
	b := Message{Channel: "slack", ChatID: "C1", Ref: "3.4"}
	testkit.Must(t, d.AddClarificationMessage(c.ID, a))
	testkit.Must(t, d.AddClarificationMessage(c.ID, b))
	_, err = d.CancelClarification(c.ID, Resolution{By: "cli", Via: "cli"})
	testkit.Must(t, err)

	before := testkit.FileBytes(t, d.Path())
	testkit.WantErr(t, d.MarkClarificationMessageFinal(99, a), ErrNotFound,
		"store: mark message 55 of clarification 99 final: not found")
	testkit.Must(t, d.MarkClarificationMessageFinal(c.ID, Message{Channel: "slack",
		ChatID: "C1", Ref: "9.9"}))
	testkit.FileUnchanged(t, d.Path(), before)

	testkit.Must(t, d.MarkClarificationMessageFinal(c.ID, a))
	got, err := d.Clarification(c.ID)
	testkit.Must(t, err)
	if m := got.Messages; !m[0].Final || m[1].Final {
		t.Fatalf("messages %+v, want only the first final", m)
	}
	if un, err := d.UnfinalizedClarifications(); err != nil || len(un) != 1 {
		t.Fatalf("unfinalized %d (%v), want the clarification", len(un), err)
	}
	before = testkit.FileBytes(t, d.Path())
	testkit.Must(t, d.MarkClarificationMessageFinal(c.ID, a)) // final already
	testkit.FileUnchanged(t, d.Path(), before)
	testkit.Must(t, d.MarkClarificationMessageFinal(c.ID, b))
	if un, err := d.UnfinalizedClarifications(); err != nil || len(un) != 0 {
		t.Fatalf("unfinalized %d (%v) once all are final", len(un), err)
	}
}
