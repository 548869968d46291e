package bot

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// A store that fails is "internal error" to the user, with ErrInternal to the caller.
func TestInternalErrors(t *testing.T) {
	e := newBotEnv(t, envOptions{})
	r := e.shown("s1")
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	reply := e.cmd(jane, "pending")
	if !errors.Is(reply.Err, ErrInternal) || !errors.Is(reply.Err, store.ErrClosed) ||
		reply.Text != "pending: internal error" {
		t.Errorf("pending on a closed store: %q, %v", reply.Text, reply.Err)
	}
	res, err := e.bot.HandleTap(context.Background(), tapOn(r, jane, ActionApprove))
	if !errors.Is(err, ErrInternal) || res.Toast != "Internal error" || res.Resolved {
		t.Errorf("tap on a closed store: %+v, %v", res, err)
	}
}

// flakyOutbox fails the first failAdds AddMessage calls.
type flakyOutbox struct {
	*store.DB
	mu       sync.Mutex
	failAdds int
}

func (o *flakyOutbox) AddMessage(id uint64, m store.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failAdds > 0 {
		o.failAdds--
		return errors.New("disk full")
	}
	return o.DB.AddMessage(id, m)
}

// A message sent but not recorded is recorded on the next attempt, not sent again.
func TestFanoutRecordRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := teststore.Open(t, store.Options{})
		out := &flakyOutbox{DB: db, failAdds: 2}
		tg := newFake("telegram", "-100")
		fan := NewFanout(FanoutOptions{Store: out, Logger: testkit.Logger(),
			Retry: Retry{Backoff: time.Second}})
		if err := fan.Add(tg); err != nil {
			t.Fatal(err)
		}
		if err := fan.Add(newFake("telegram", "-200")); err == nil {
			t.Error("a second telegram channel was added")
		}
		r, _, err := db.CreateRequest(store.Request{SessionID: "s1", ToolName: "Bash",
			Arguments: []byte(`{}`), GroupID: "default", ExpiresAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if err := fan.Show(context.Background(), r); err != nil {
			t.Fatalf("Show: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- fan.Run(ctx) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		if err := fan.Run(ctx); err == nil {
			t.Error("Run ran twice")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(tg.sent()) != 1 {
			t.Fatalf("sent %d times, want once", len(tg.sent()))
		}
		got, err := db.Request(r.ID)
		if err != nil || len(got.Messages) != 1 || got.Messages[0].Ref != tg.sent()[0].Ref {
			t.Fatalf("recorded %+v, %v", got.Messages, err)
		}
	})
}
