package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// question is one pending clarification as the inbox shows it: the chat message's
// fields (bot.NewClarificationPrompt), the whole question and the options escaped for a
// reader (bot.Escape), which html/template then escapes for HTML.
type question struct {
	ID       uint64
	Prompt   bot.Prompt
	Question string
	Options  []option
	CSRF     string
}

// option is one answer a question offers: its index, the form's value, and its text.
type option struct {
	Index int
	Label string
}

func questionOf(c store.Clarification, csrf string) question {
	q := question{ID: c.ID, Prompt: bot.NewClarificationPrompt(c),
		Question: bot.Escape(c.Question), CSRF: csrf}
	for i, o := range c.Options {
		q.Options = append(q.Options, option{Index: i, Label: bot.Escape(o)})
	}
	return q
}

// questions returns every pending clarification's item, oldest first.
func (h *Handler) questions(csrf string) ([]question, error) {
	cs, err := h.gate.Clarifications()
	if err != nil {
		return nil, err
	}
	qs := make([]question, len(cs))
	for i, c := range cs {
		qs[i] = questionOf(c, csrf)
	}
	return qs, nil
}

// pendingCount is the badge: pending approval requests and clarifications; what it
// cannot read counts as none.
func (h *Handler) pendingCount() int {
	n := 0
	if pending, err := h.gate.Pending(); err == nil {
		n += len(pending)
	}
	if cs, err := h.gate.Clarifications(); err == nil {
		n += len(cs)
	}
	return n
}

// relayed reports whether the page's event stream passes event name on: the inbox's
// approval requests and clarifications coming and going.
func relayed(name string) bool {
	switch name {
	case gate.EventApprovalRequested, gate.EventApprovalResolved,
		gate.EventClarificationRequested, gate.EventClarificationResolved:
		return true
	}
	return false
}

// questionList is GET /inbox/questions: every pending clarification's article, for the
// page's script to refresh the list after its event stream reconnects.
func (h *Handler) questionList(w http.ResponseWriter, r *http.Request, sess session) error {
	qs, err := h.questions(sess.csrf)
	if err != nil {
		return err
	}
	return h.fragment(w, "question-list", qs)
}

// questionItem is GET /inbox/questions/{id}: one pending clarification's article, for
// the page's script when the event stream announces it; 404 once it is no longer
// pending.
func (h *Handler) questionItem(w http.ResponseWriter, r *http.Request, sess session) error {
	id, err := pathID(r, "clarification")
	if err != nil {
		return err
	}
	c, err := h.gate.Clarification(id)
	if err != nil {
		return err
	}
	if c.Status != store.ClarificationPending {
		return fmt.Errorf("%w: clarification %d is %s", api.ErrNotFound, id, c.Status)
	}
	return h.fragment(w, "question", questionOf(c, sess.csrf))
}

// answer is POST /clarifications/{id} with option (an option's index) or answer (free
// text): gate.AnswerClarification as the admin via web, the path of the API's resolve,
// so chat messages are edited as for any answer. A refusal (already answered, expired,
// an empty answer) is shown on the inbox and changes nothing.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, sess session) error {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		return h.inboxPage(w, r, sess, http.StatusBadRequest, "clarification id is not a number")
	}
	reply := gate.Reply{Text: r.PostForm.Get("answer"), By: actor.By, Via: actor.Via,
		Caller: store.CallerAdmin}
	if v := r.PostForm.Get("option"); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil {
			return h.inboxPage(w, r, sess, http.StatusBadRequest,
				fmt.Sprintf("option %q is not a number", shortText(v)))
		}
		reply.Option, reply.Text = &i, ""
		// The gate reads an option it does not know as no answer at all; say which.
		if c, err := h.gate.Clarification(id); err == nil && (i < 0 || i >= len(c.Options)) {
			return h.inboxPage(w, r, sess, http.StatusUnprocessableEntity,
				fmt.Sprintf("option %d is not one of the %d options", i+1, len(c.Options)))
		}
	}
	c, err := h.gate.AnswerClarification(r.Context(), id, reply)
	if err != nil {
		status, msg := api.ErrorOf(err)
		if status == http.StatusInternalServerError {
			h.log.Error("answer", "clarification", id, "err", err)
		}
		return h.inboxPage(w, r, sess, status, msg)
	}
	text := ""
	if c.Answer != nil {
		text = c.Answer.Text
	}
	return h.done(w, r, "/", fmt.Sprintf("Question %d answered: %s", id, shortText(text)))
}

// flashLen is the most characters of an answer the one-time message after it repeats.
const flashLen = 200

// shortText is s escaped for a reader (bot.Escape) on one line, its tail cut beyond
// flashLen characters.
func shortText(s string) string {
	s = strings.ReplaceAll(bot.Escape(s), "\n", " ")
	if utf8.RuneCountInString(s) <= flashLen {
		return s
	}
	return string([]rune(s)[:flashLen]) + "…"
}
