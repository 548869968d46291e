package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// ActionWrite is the "✍️ Answer" button of a clarification: the adapter then asks
// the approver for a free-text answer (Telegram: a force_reply message; Slack: a
// modal).
const ActionWrite = "w"

// AnswerButton is the label of the free-text answer button.
const AnswerButton = "✍️ Answer"

// ClarCallback is the data of a clarification's button, "q:<id>:<n>" for option n
// (0-based) or "q:<id>:w" for the free-text answer.
type ClarCallback struct {
	ID     uint64
	Option int // -1 for ActionWrite
}

// String encodes c.
func (c ClarCallback) String() string {
	a := ActionWrite
	if c.Option >= 0 {
		a = strconv.Itoa(c.Option)
	}
	return "q:" + strconv.FormatUint(c.ID, 10) + ":" + a
}

// ParseClarCallback decodes data written by ClarCallback.String; anything else wraps
// ErrBadCallback.
func ParseClarCallback(data string) (ClarCallback, error) {
	bad := func(why string) (ClarCallback, error) {
		return ClarCallback{}, fmt.Errorf("bot: callback data %s: %w: %s", quoteShort(data),
			ErrBadCallback, why)
	}
	parts := strings.Split(data, ":")
	if len(data) > MaxCallbackData || len(parts) != 3 || parts[0] != "q" {
		return bad("want q:<clarification id>:<option|w>")
	}
	id, err := parseID(parts[1])
	if err != nil {
		return bad(err.Error())
	}
	if parts[2] == ActionWrite {
		return ClarCallback{ID: id, Option: -1}, nil
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 || n >= store.MaxOptions || strconv.Itoa(n) != parts[2] {
		return bad("unknown option " + quoteShort(parts[2]))
	}
	return ClarCallback{ID: id, Option: n}, nil
}

// NewClarificationPrompt builds the message that shows clarification c, in the shape
// of an approval prompt so both channels render it alike: the title, who asks, the
// question in the arguments' place (escaped, its middle cut to fit the channel), one
// button per option (its text as written: button labels are plain text) and "✍️
// Answer" while pending; once finished the outcome line with the answer and who gave
// it, no buttons.
func NewClarificationPrompt(c store.Clarification) Prompt {
	p := Prompt{Title: "❓ Question", Arguments: c.Question, Outcome: ClarificationOutcome(c)}
	caller, agentShown := callerText(store.Request{Caller: c.Caller, SessionID: c.SessionID,
		AgentID: c.AgentID})
	p.addField("Caller", caller, false)
	if !agentShown {
		p.addField("Agent", fieldName(c.AgentID), false)
	}
	p.addField("Source", fieldName(c.Source), false)
	p.addField("Context", fieldText(c.ContextLabel), false)
	p.addField("Session", fieldText(c.SessionID), true)
	p.addField("Clarification", "#"+strconv.FormatUint(c.ID, 10), false)
	p.addField("Expires", expiresText(c.ExpiresAt), false)
	if c.Status == store.ClarificationPending {
		for i, o := range c.Options {
			p.Buttons = append(p.Buttons, []Button{{Label: Escape(o),
				Data: ClarCallback{ID: c.ID, Option: i}.String()}})
		}
		p.Buttons = append(p.Buttons, []Button{{Label: AnswerButton,
			Data: ClarCallback{ID: c.ID, Option: -1}.String(), Style: "primary"}})
	}
	return p
}

// ClarificationOutcome is the outcome line of a finished clarification, "" while
// pending: "✍️ Answered by Jane Doe (100000001) · telegram · 14:03 UTC: main",
// "⌛ Expired · 14:03 UTC", "🚫 Cancelled by api · api · 14:03 UTC".
func ClarificationOutcome(c store.Clarification) string {
	switch {
	case c.Status == store.ClarificationPending:
		return ""
	case c.Status == store.ClarificationAnswered && c.Answer != nil:
		a := c.Answer
		return "✍️ Answered by " + shownValue(a.By, false, MaxFieldLen) + " · " +
			shownValue(a.Via, false, 20) + " · " + a.At.UTC().Format("15:04") + " UTC: " +
			shownValue(a.Text, false, 1000)
	}
	head := "🚫 Cancelled"
	if c.Status == store.ClarificationExpired {
		head = "⌛ Expired"
	}
	if r := c.Closed; r != nil {
		if c.Status != store.ClarificationExpired {
			head += " by " + shownValue(r.By, false, MaxFieldLen) +
				" · " + shownValue(r.Via, false, 20)
		}
		head += " · " + r.At.UTC().Format("15:04") + " UTC"
	}
	return head
}

// AskAnswer asks the adapter to get a free-text answer to a clarification from the
// approver who tapped "✍️ Answer": Telegram sends a force_reply message to them and
// binds it (Bot.BindReply); Slack opens a modal.
type AskAnswer struct {
	ClarificationID uint64
	// Question is the question, plain text, for the modal or the reply prompt; the
	// adapter escapes and cuts it.
	Question string
}

// handleClarTap answers a tap on a clarification's button (see HandleTap); text is
// the free-text answer of a "✍️ Answer" tap's form (HandleAnswer), nil for a tap.
func (b *Bot) handleClarTap(ctx context.Context, t Tap, text *string) (TapResult, error) {
	cb, err := ParseClarCallback(t.Data)
	if err != nil {
		return TapResult{Toast: "Invalid button"}, fmt.Errorf("bot: tap: %w", err)
	}
	if b.access.Role(t.Channel, t.UserID) < RoleApprover {
		return TapResult{Toast: "Not authorized"}, fmt.Errorf(
			"bot: tap on clarification %d by %s user %s: %w",
			cb.ID, t.Channel, t.UserID, ErrNotAuthorized)
	}
	c, err := b.gate.Clarification(cb.ID)
	switch {
	case errors.Is(err, gate.ErrNotFound):
		return TapResult{Toast: "Unknown question"}, fmt.Errorf("bot: tap: %w", err)
	case err != nil:
		return TapResult{Toast: "Internal error"}, fmt.Errorf("bot: tap: %w: %w", ErrInternal, err)
	}
	if !slices.ContainsFunc(c.Messages, func(m store.Message) bool {
		return m.Channel == t.Channel && m.ChatID == t.ChatID && m.Ref == t.MessageRef
	}) {
		return TapResult{Toast: "Unknown question"}, fmt.Errorf(
			"bot: tap on clarification %d from %s %s message %s: %w",
			cb.ID, t.Channel, t.ChatID, t.MessageRef, ErrNotBound)
	}
	if c.Status != store.ClarificationPending {
		return TapResult{Toast: clip(clarFinishedText(c), 200)}, fmt.Errorf(
			"bot: tap: clarification %d: %w", c.ID, gate.ErrAlreadyResolved)
	}
	if cb.Option < 0 && text == nil {
		return TapResult{Toast: "Reply with your answer",
			Ask: &AskAnswer{ClarificationID: c.ID, Question: c.Question}}, nil
	}
	if cb.Option < 0 {
		return b.answer(ctx, t.Channel, t.UserName, t.UserID, c.ID, gate.Reply{Text: *text})
	}
	if cb.Option >= len(c.Options) {
		return TapResult{Toast: "Invalid button"}, fmt.Errorf("bot: tap: %w: option %d of %d",
			ErrBadCallback, cb.Option+1, len(c.Options))
	}
	return b.answer(ctx, t.Channel, t.UserName, t.UserID, c.ID, gate.Reply{Option: &cb.Option})
}

// answer records r as the answer of clarification id by the chat user.
func (b *Bot) answer(ctx context.Context, channel, name, userID string, id uint64,
	r gate.Reply) (TapResult, error) {
	who := actor(channel, name, userID)
	r.By, r.Via = who.By, who.Via
	c, err := b.gate.AnswerClarification(ctx, id, r)
	switch {
	case err == nil:
		return TapResult{Toast: clip("Answered: "+Escape(c.Answer.Text), 200), Resolved: true}, nil
	case errors.Is(err, gate.ErrAlreadyResolved):
		return TapResult{Toast: clip(clarFinishedText(c), 200)}, fmt.Errorf("bot: answer: %w", err)
	case errors.Is(err, gate.ErrExpired):
		return TapResult{Toast: "This question has expired"}, fmt.Errorf("bot: answer: %w", err)
	case errors.Is(err, gate.ErrNotFound):
		return TapResult{Toast: "Unknown question"}, fmt.Errorf("bot: answer: %w", err)
	case errors.Is(err, gate.ErrInvalid):
		return TapResult{Toast: "Not a valid answer"}, fmt.Errorf("bot: answer: %w", err)
	}
	return TapResult{Toast: "Internal error"}, fmt.Errorf("bot: answer: %w: %w", ErrInternal, err)
}

// HandleAnswer answers a clarification with the text of the form its "✍️ Answer"
// button opened (a Slack modal's view_submission): t is that tap as it was, its Data
// "q:<id>:w" and its message the question's. The same checks as HandleTap hold
// (approvers only, the question's own messages only), and the same errors.
func (b *Bot) HandleAnswer(ctx context.Context, t Tap, text string) (TapResult, error) {
	cb, err := ParseClarCallback(t.Data)
	if err != nil || cb.Option >= 0 {
		return TapResult{Toast: "Invalid form"}, fmt.Errorf("bot: answer form: %w: %q",
			ErrBadCallback, t.Data)
	}
	return b.handleClarTap(ctx, t, &text)
}

// clarFinishedText says how a finished clarification ended, for someone too late:
// "Already answered by NAME: TEXT", "This question has expired", "This question was
// cancelled".
func clarFinishedText(c store.Clarification) string {
	switch c.Status {
	case store.ClarificationAnswered:
		if c.Answer != nil {
			return "Already answered by " + c.Answer.By + ": " + Escape(c.Answer.Text)
		}
		return "Already answered"
	case store.ClarificationExpired:
		return "This question has expired"
	}
	return "This question was cancelled"
}

// ChatReply is a chat message sent in reply to another (Telegram reply_to_message):
// maybe the answer to a clarification whose reply prompt it answers.
type ChatReply struct {
	Channel string
	ChatID  string
	// ReplyTo is the message replied to (a Telegram message_id in decimal).
	ReplyTo  string
	UserID   string
	UserName string
	Text     string
	// ToBot: the message replied to is the bot's own and r is no command.
	ToBot bool
}

// ErrNotAReply: the message replied to asks for no answer (HandleReply); the adapter
// treats the message as any other, or, when the result has a Toast, replies with it.
var ErrNotAReply = errors.New("not a reply to a clarification")

// UnboundReply is what an approver is told who replied to a message of the bot that
// waits for no answer.
const UnboundReply = "That message waits for no answer, so nothing was answered. " +
	"To answer a question, tap ✍️ Answer on it again, or send /answer ID TEXT."

// HandleReply answers the clarification whose reply prompt r replies to, when r is
// from the approver that prompt was sent to (or any admin). Errors: ErrNotAReply (no
// such prompt: not for us), ErrNotAuthorized (someone else replied),
// gate.ErrAlreadyResolved (someone else answered first; the toast says who),
// gate.ErrExpired, ErrInternal. The TapResult's Toast is the reply to send.
func (b *Bot) HandleReply(ctx context.Context, r ChatReply) (TapResult, error) {
	c, p, err := b.gate.ClarificationByReply(r.Channel, r.ChatID, r.ReplyTo)
	switch {
	case errors.Is(err, gate.ErrNotFound):
		// An approver's text in reply to one of the bot's messages that asks for
		// none: most likely a reply prompt whose sending failed (docs/design.md,
		// "A lost reply"). Silence would leave them thinking they answered.
		var res TapResult
		if r.ToBot && b.access.Role(r.Channel, r.UserID) >= RoleApprover {
			res.Toast = UnboundReply
		}
		return res, fmt.Errorf("bot: reply: %w", ErrNotAReply)
	case err != nil:
		return TapResult{Toast: "Internal error"},
			fmt.Errorf("bot: reply: %w: %w", ErrInternal, err)
	}
	role := b.access.Role(r.Channel, r.UserID)
	if role < RoleApprover || (p.UserID != r.UserID && role < RoleAdmin) {
		return TapResult{Toast: "Not authorized"}, fmt.Errorf(
			"bot: reply to clarification %d by %s user %s: %w",
			c.ID, r.Channel, r.UserID, ErrNotAuthorized)
	}
	return b.answer(ctx, r.Channel, r.UserName, r.UserID, c.ID, gate.Reply{Text: r.Text})
}

// BindReply records that chat message ref of chatID asks userID for the answer of
// clarification id (a Telegram force_reply prompt); the adapter calls it once the
// prompt is sent.
func (b *Bot) BindReply(id uint64, channel, chatID, ref, userID string) error {
	return b.gate.BindReply(id, store.ReplyPrompt{Channel: channel, ChatID: chatID, Ref: ref,
		UserID: userID})
}

// answerCmd is the chat command "answer <id> <text>".
func (b *Bot) answerCmd(ctx context.Context, c *call) (string, error) {
	id, err := c.id(0)
	if err != nil {
		return "", err
	}
	res, err := b.answer(ctx, c.who.Channel, c.who.Name, c.who.ID, id,
		gate.Reply{Text: strings.Join(c.args[1:], " ")})
	switch {
	case err == nil:
		return fmt.Sprintf("Clarification %d answered.", id), nil
	case errors.Is(err, ErrInternal):
		return "", err
	}
	return "", fail(err, "clarification %d: %s", id, strings.ToLower(res.Toast[:1])+res.Toast[1:])
}
