package slack_test

import (
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/store"
)

// A click that arrives after chat.postMessage returned but before the prompt's message
// was recorded counts: it waits for the send in flight to record it, then approves.
func TestClickBeforePromptRecorded(t *testing.T) {
	for _, m := range modes {
		t.Run(m.String(), func(t *testing.T) {
			logs := &testkit.Logs{}
			e := newEnv(t, m, envOptions{logs: logs, manual: true})
			ctx := testkit.Context(t, 30*time.Second)
			clicked := make(chan error, 1)
			e.box.beforeAdd = func(id uint64, msg store.Message) {
				e.click(approver, msg.Ref, id, bot.ActionApprove)
				_, err := logs.Wait(ctx, []string{"tap waits for the send of its prompt"},
					[]string{"tap refused"}, []string{"request resolved by a tap"})
				clicked <- err
			}
			e.start()
			req, _ := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
			testkit.Must(t, <-clicked)
			if _, toast := e.nextEphemeral(); toast != "Approved" {
				t.Fatalf("toast %q, want Approved; logs:\n%s", toast, logs.All())
			}
			e.waitFinal(req.ID)
			got := e.request(req.ID)
			if got.Status != store.Approved || got.Resolution == nil ||
				got.Resolution.By != approverName+" ("+approver+")" {
				t.Fatalf("request %s %+v, want approved by %s", got.Status, got.Resolution, approver)
			}
			if n := len(logs.Find("tap waits for the send of its prompt")); n != 1 {
				t.Errorf("the click waited %d times, want 1; logs:\n%s", n, logs.All())
			}
		})
	}
}
