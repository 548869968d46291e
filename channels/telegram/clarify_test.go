package telegram

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// question returns the message showing clarification id in chat.
func (e *env) question(chat int64, id uint64) telegramtest.SentMessage {
	e.t.Helper()
	want := bot.ClarCallback{ID: id, Option: -1}.String()
	return e.waitArmed(chat, fmt.Sprintf("question %d", id), func(data []string) bool {
		return slices.Contains(data, want)
	})
}

// replyTo injects user's message text replying to message msg of chat and returns
// the bot's reply.
func (e *env) replyTo(user models.User, chat models.Chat, msg int, text string) string {
	e.t.Helper()
	return e.deliver(chat.ID, func() {
		u := e.srv.MessageUpdate(user, chat, text)
		u.Message.ReplyToMessage = &models.Message{ID: msg, Chat: chat,
			From: &models.User{ID: telegramtest.BotID, IsBot: true}}
		e.inject(u)
	})
}

// binder is the Bot, signalling each reply prompt bound.
type binder struct {
	*bot.Bot
	bound chan uint64
}

func (b binder) BindReply(id uint64, channel, chatID, ref, userID string) error {
	err := b.Bot.BindReply(id, channel, chatID, ref, userID)
	b.bound <- id
	return err
}

func TestClarificationAnsweredByReply(t *testing.T) {
	bound := make(chan uint64, 4)
	withBinder := envOptions{handler: func(b *bot.Bot) Handler { return binder{b, bound} }}
	e := newTelegramEnv(t, withBinder).start()
	long := "HEAD-OF-QUESTION " + strings.Repeat("pad ", 1000) + " TAIL-OF-QUESTION?"
	options := []string{"<b>main</b>", "dev_*x*", "a & b"}
	c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: long, Options: options,
		Caller: store.CallerLocal})
	testkit.Must(t, err)
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("ask %d", c.ID))

	// A restart while pending shows nothing twice.
	path, srv := e.path, e.srv
	e.close()
	withBinder.srv, withBinder.path = srv, path
	e = newTelegramEnv(t, withBinder).start()

	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.question(chat, c.ID)
		if n := len(e.srv.Messages(chat)); n != 1 {
			t.Errorf("chat %d holds %d messages after the restart, want 1", chat, n)
		}
		for _, s := range []string{"❓ Question", "HEAD-OF-QUESTION", "TAIL-OF-QUESTION?",
			"characters cut]", "Caller: local", fmt.Sprintf("Clarification: #%d", c.ID)} {
			if !strings.Contains(m.PlainText, s) {
				t.Errorf("chat %d: the question does not show %q", chat, s)
			}
		}
		var labels []string
		for _, row := range m.Keyboard.InlineKeyboard {
			for _, b := range row {
				labels = append(labels, b.Text)
			}
		}
		want := append(append([]string{}, options...), bot.AnswerButton)
		if strings.Join(labels, "|") != strings.Join(want, "|") {
			t.Errorf("chat %d: buttons %q, want %q", chat, labels, want)
		}
	}
	m := e.question(groupChat.ID, c.ID)
	before := teststore.Snapshot(t, e.db)
	if a := e.tapData(mallory, groupChat.ID, m.MessageID,
		bot.ClarCallback{ID: c.ID, Option: 0}.String()); a.Text != "Not authorized" {
		t.Errorf("a stranger's tap: %q", a.Text)
	}
	if a := e.tapData(jane, groupChat.ID, m.MessageID,
		"q:"+fmt.Sprint(c.ID)+":9"); a.Text != "Invalid button" {
		t.Errorf("a tap on an option that does not exist: %q", a.Text)
	}
	teststore.Unchanged(t, e.db, before)

	// ✍️ Answer: a force_reply message to Jane, replying to the question.
	n := e.srv.CallCount("sendMessage")
	if a := e.tapData(jane, groupChat.ID, m.MessageID,
		bot.ClarCallback{ID: c.ID, Option: -1}.String()); a.Text != "Reply with your answer" {
		t.Fatalf("answer tap: %q", a.Text)
	}
	calls, err := e.srv.WaitCalls(e.ctx, "sendMessage", n+1)
	testkit.Must(t, err)
	p := calls[len(calls)-1].Params
	if !strings.Contains(p["reply_markup"], `"force_reply":true`) ||
		!strings.Contains(p["reply_markup"], `"selective":true`) ||
		!strings.Contains(p["text"], "tg://user?id=100000001") ||
		!strings.Contains(p["reply_parameters"], fmt.Sprint(m.MessageID)) {
		t.Fatalf("reply prompt %v", p)
	}
	<-bound
	var prompt int
	for _, sm := range e.srv.Messages(groupChat.ID) {
		if strings.Contains(sm.PlainText, "reply to this message") {
			prompt = sm.MessageID
		}
	}
	if got, err := e.db.Clarification(c.ID); err != nil || len(got.Replies) != 1 ||
		got.Replies[0].Ref != fmt.Sprint(prompt) || got.Replies[0].UserID != "100000001" {
		t.Fatalf("bound %+v (err %v), prompt %d", got.Replies, err, prompt)
	}
	// Someone else's reply is refused; Jane's answers.
	before = teststore.Snapshot(t, e.db)
	if got := e.replyTo(mallory, groupChat, prompt, "rm -rf"); got != "Not authorized" {
		t.Errorf("a stranger's reply: %q", got)
	}
	teststore.Unchanged(t, e.db, before)
	if got := e.replyTo(jane, groupChat, prompt, "dev <please>"); got != "Answered: dev <please>" {
		t.Fatalf("Jane's reply: %q", got)
	}
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("answered %d", c.ID))
	got, err := e.db.Clarification(c.ID)
	testkit.Must(t, err)
	if got.Status != store.ClarificationAnswered || got.Answer.Text != "dev <please>" ||
		got.Answer.By != "Jane Doe (100000001)" || got.Answer.Via != Name {
		t.Fatalf("stored %+v", got.Answer)
	}
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		m := e.question(chat, c.ID)
		if m.Keyboard != nil ||
			!strings.Contains(m.PlainText, "Answered by Jane Doe (100000001) · telegram") ||
			!strings.Contains(m.PlainText, "dev <please>") {
			t.Errorf("chat %d after the answer: %q %v", chat, m.PlainText, m.Keyboard)
		}
	}
	// Too late: Alice is told who answered.
	if a := e.tapData(alice, groupChat.ID, m.MessageID,
		bot.ClarCallback{ID: c.ID, Option: 1}.String()); a.Text !=
		"Already answered by Jane Doe (100000001): dev <please>" {
		t.Errorf("a late tap: %q", a.Text)
	}
}

func TestClarificationOptionTapAndCommand(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "go on?",
		Options: []string{"yes", "no"}})
	testkit.Must(t, err)
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("ask %d", c.ID))
	m := e.question(janeChat.ID, c.ID)
	if a := e.tapData(jane, janeChat.ID, m.MessageID,
		bot.ClarCallback{ID: c.ID, Option: 0}.String()); a.Text != "Answered: yes" {
		t.Fatalf("option tap: %q", a.Text)
	}
	d, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "which?"})
	testkit.Must(t, err)
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("ask %d", d.ID))
	if got := e.say(mallory, janeChat,
		fmt.Sprintf("/answer %d x", d.ID)); !strings.Contains(got, "approver") {
		t.Errorf("a stranger's command: %q", got)
	}
	if got := e.say(jane, janeChat, fmt.Sprintf("/answer %d the big one", d.ID)); got !=
		fmt.Sprintf("Clarification %d answered.", d.ID) {
		t.Fatalf("answer command: %q", got)
	}
	got := e.say(alice, janeChat, fmt.Sprintf("/answer %d another", d.ID))
	if !strings.Contains(got, "already answered by Jane Doe (100000001): the big one") {
		t.Errorf("answer again: %q", got)
	}
}

// A question's first send fails and is retried, as a prompt's; a bidi character in the
// question shows as \uXXXX (an option holding one is refused when asked).
func TestClarificationRetriedAndEscaped(t *testing.T) {
	e := newTelegramEnv(t, envOptions{}).start()
	testkit.Must(t, e.srv.FailNext("sendMessage", telegramtest.ServerError(502)))
	c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "go on?\u202e",
		Options: []string{"yes", "no'way"}})
	testkit.Must(t, err)
	for _, chat := range []int64{janeChat.ID, groupChat.ID} {
		if _, err := e.srv.WaitMessages(e.ctx, chat, 1); err != nil {
			t.Fatalf("chat %d: %v", chat, err)
		}
		m := e.question(chat, c.ID)
		if got := m.Keyboard.InlineKeyboard[1][0].Text; got != `no'way` {
			t.Errorf("an option shows as %q", got)
		}
		if !strings.Contains(m.PlainText, `go on?\u202E`) {
			t.Errorf("a bidi character in the question: %q", m.PlainText)
		}
	}
}

// A "✍️ Answer" prompt whose sendMessage reply is lost is posted but never bound
// (docs/design.md, "A lost reply"): a reply to it is not the answer and changes
// nothing; a second tap binds a new prompt, and a reply to that one answers.
func TestClarificationLostReplyPrompt(t *testing.T) {
	bound := make(chan uint64, 2)
	e := newTelegramEnv(t, envOptions{handler: func(b *bot.Bot) Handler { return binder{b, bound} }}).start()
	c, _, err := e.g.Ask(gate.Question{SessionID: "s1", Question: "which branch?"})
	testkit.Must(t, err)
	e.note.sig.wait(t, e.ctx, fmt.Sprintf("ask %d", c.ID))
	m := e.question(janeChat.ID, c.ID)
	answer := bot.ClarCallback{ID: c.ID, Option: -1}.String()
	promptOf := func(after int) int {
		t.Helper()
		var id int
		err := e.srv.Wait(e.ctx, func() bool {
			for _, sm := range e.srv.Messages(janeChat.ID) {
				if sm.MessageID > after && strings.Contains(sm.PlainText, "reply to this message") {
					id = sm.MessageID
					return true
				}
			}
			return false
		})
		testkit.Must(t, err)
		return id
	}

	testkit.Must(t, e.srv.LoseReplyNext("sendMessage"))
	if a := e.tapData(jane, janeChat.ID, m.MessageID, answer); a.Text != "Reply with your answer" {
		t.Fatalf("answer tap: %q", a.Text)
	}
	lost := promptOf(m.MessageID)
	if _, err := e.logs.Wait(e.ctx, []string{"asking for an answer", "EOF"}); err != nil {
		t.Fatalf("no warning of the lost reply: %v\n%s", err, e.logs.All())
	}
	before := teststore.Snapshot(t, e.db)
	if got := e.replyTo(jane, janeChat, lost, "main"); got != bot.UnboundReply {
		t.Errorf("a reply to the unbound prompt: %q", got)
	}
	teststore.Unchanged(t, e.db, before)

	if a := e.tapData(jane, janeChat.ID, m.MessageID, answer); a.Text != "Reply with your answer" {
		t.Fatalf("second answer tap: %q", a.Text)
	}
	second := promptOf(lost)
	if id := <-bound; id != c.ID || len(bound) != 0 {
		t.Fatalf("bound %d (%d more), want only the second prompt of %d", id, len(bound), c.ID)
	}
	if got := e.replyTo(jane, janeChat, second, "main"); got != "Answered: main" {
		t.Fatalf("a reply to the bound prompt: %q", got)
	}
}
