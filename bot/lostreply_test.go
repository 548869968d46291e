package bot_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// TestFanoutRealChannelsLostSendReply posts a prompt whose reply is lost on both
// real clients: Telegram's sendMessage and Slack's chat.postMessage are served, their
// message posted, and the connection then cut, so the Fanout cannot know the message
// and posts it again. The copy it never learnt of shows no button from first to last
// and says it is a spare copy, naming the request; the recorded message is armed,
// then shows the outcome without buttons: one message per chat with buttons or an
// outcome, and no message that looks like a live prompt once the request is answered
// (docs/design.md, "Chat prompts").
func TestFanoutRealChannelsLostSendReply(t *testing.T) {
	tg, sl := newRealServers(t)
	if err := tg.LoseReplyNext("sendMessage"); err != nil {
		t.Fatal(err)
	}
	if err := sl.LoseReplyNext("chat.postMessage"); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		e := newRealEnv(t, tg, sl)
		defer e.run()()
		synctest.Wait()
		r := e.require("s1")
		time.Sleep(time.Minute) // the retry of each lost send
		synctest.Wait()
		e.wantPrompt(r.ID)
		e.resolve(r.ID, true)
		synctest.Wait()
		e.wantOutcome(r.ID, "Approved by Jane Doe")

		tgm, slm, _, _ := e.messages(r.ID)
		spare := "spare copy of request #" + strconv.FormatUint(r.ID, 10)
		tgSpares := slices.DeleteFunc(tg.Messages(outageChat.ID),
			func(m telegramtest.SentMessage) bool { return m.MessageID == tgm.MessageID })
		if len(tgSpares) != 1 {
			t.Fatalf("Telegram: %d messages besides the recorded one, want the lost one",
				len(tgSpares))
		}
		if m := tgSpares[0]; m.Keyboard != nil || len(m.History) != 1 ||
			!strings.Contains(m.PlainText, spare) {
			t.Errorf("Telegram's lost copy: keyboard %v, %d versions, text %q; want one "+
				"version without buttons saying %q", m.Keyboard != nil, len(m.History),
				m.PlainText, spare)
		}
		if strings.Contains(tgm.PlainText, "spare") {
			t.Errorf("Telegram's recorded message still says it may be spare: %q", tgm.PlainText)
		}
		slSpares := slices.DeleteFunc(sl.Messages(slacktest.DefaultChannel),
			func(m slacktest.Message) bool { return m.TS == slm.TS })
		if len(slSpares) != 1 {
			t.Fatalf("Slack: %d messages besides the recorded one, want the lost one",
				len(slSpares))
		}
		m := slSpares[0]
		if cur, _ := sl.Current(m.Channel, m.TS); cur.HasActions() ||
			len(sl.Updates(m.Channel, m.TS)) != 0 ||
			!strings.Contains(string(cur.RawBlocks), spare) {
			t.Errorf("Slack's lost copy: buttons %v, %d updates, blocks %q; want none, "+
				"saying %q", cur.HasActions(), len(sl.Updates(m.Channel, m.TS)),
				string(cur.RawBlocks), spare)
		}
		if strings.Contains(string(slm.RawBlocks), "spare") {
			t.Errorf("Slack's recorded message still says it may be spare: %q",
				string(slm.RawBlocks))
		}
		if n := tg.CallCount("sendMessage"); n != 2 {
			t.Errorf("%d sendMessage calls, want 2: the lost one and its retry", n)
		}
		if n := sl.Calls("chat.postMessage"); n != 2 {
			t.Errorf("%d chat.postMessage calls, want 2: the lost one and its retry", n)
		}
	})
}
