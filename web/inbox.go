package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/store"
)

// approval is one pending request as the inbox shows it: the chat prompt's fields,
// already escaped for a reader (bot.Escape), which html/template then escapes for
// HTML.
type approval struct {
	ID     uint64
	Prompt bot.Prompt
	// Commands are the script's commands the summary shows: as many as a chat prompt,
	// every one that is not allowed among them.
	Commands []bot.CommandLine
	Args     string
	Short    string // the ⏱ button's window, "15 min"
	CSRF     string
	Expires  time.Time
}

// inboxData is the inbox page: pending approval requests and clarifications.
type inboxData struct {
	Approvals []approval
	Questions []question
}

func (h *Handler) approvalOf(q store.Request, csrf string) approval {
	p := bot.NewPrompt(q, h.short)
	return approval{ID: q.ID, Prompt: p, Commands: p.ShownCommands(bot.MaxCommandsLen, nil),
		Args:  bot.Escape(p.Arguments),
		Short: bot.DurationLabel(h.short), CSRF: csrf, Expires: q.ExpiresAt}
}

func (h *Handler) inboxData(sess session) (inboxData, error) {
	pending, err := h.gate.Pending()
	if err != nil {
		return inboxData{}, err
	}
	d := inboxData{Approvals: make([]approval, len(pending))}
	for i, q := range pending {
		d.Approvals[i] = h.approvalOf(q, sess.csrf)
	}
	if d.Questions, err = h.questions(sess.csrf); err != nil {
		return inboxData{}, err
	}
	return d, nil
}

// inbox is GET /: the pending approval requests, then the pending clarifications,
// oldest first.
func (h *Handler) inbox(w http.ResponseWriter, r *http.Request, sess session) error {
	return h.inboxPage(w, r, sess, http.StatusOK, "")
}

func (h *Handler) inboxPage(w http.ResponseWriter, r *http.Request, sess session, status int,
	msg string) error {
	d, err := h.inboxData(sess)
	if err != nil {
		return err
	}
	h.render(w, r, status, "inbox", sess, page{Title: "Inbox", Nav: "inbox", Error: msg, Data: d})
	return nil
}

// inboxList is GET /inbox/approvals: every pending request's article, for the page's
// script to refresh the list after its event stream reconnects.
func (h *Handler) inboxList(w http.ResponseWriter, r *http.Request, sess session) error {
	d, err := h.inboxData(sess)
	if err != nil {
		return err
	}
	return h.fragment(w, "approvals", d)
}

// inboxItem is GET /inbox/approvals/{id}: one pending request's article, for the
// page's script when the event stream announces it; 404 once it is no longer pending.
func (h *Handler) inboxItem(w http.ResponseWriter, r *http.Request, sess session) error {
	id, err := pathID(r, "request")
	if err != nil {
		return err
	}
	q, err := h.gate.Request(id)
	if err != nil {
		return err
	}
	if q.Status != store.Pending {
		return fmt.Errorf("%w: request %d is %s", api.ErrNotFound, id, q.Status)
	}
	return h.fragment(w, "approval", h.approvalOf(q, sess.csrf))
}

func (h *Handler) fragment(w http.ResponseWriter, name string, data any) error {
	var buf bytes.Buffer
	if err := h.pages["inbox"].ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("web: render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes()) //nolint:errcheck // the browser went away
	return nil
}

// resolve is POST /approvals/{id} with action approve, reject, short (approve with the
// ⏱ bypass) or session (approve with the 🔄 bypass) and an optional note: the API's
// resolve path, so chat messages are edited as for any resolution. A refusal (already
// resolved, expired) is shown on the inbox.
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, sess session) error {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		return h.inboxPage(w, r, sess, http.StatusBadRequest, "request id is not a number")
	}
	body := api.ResolveRequest{Action: api.ActionApprove, Note: r.PostForm.Get("note")}
	what := "approved"
	switch a := r.PostForm.Get("action"); a {
	case "approve":
	case "reject":
		body.Action, what = api.ActionReject, "rejected"
	case "short":
		secs := int64(h.short / time.Second)
		body.BypassSecs = &secs
		what = "approved, with a " + bot.DurationLabel(h.short) + " bypass"
	case "session":
		secs := int64(0)
		body.BypassSecs = &secs
		what = "approved, with a bypass for the session"
	default:
		body.Action = a
	}
	ans, err := api.NewAnswer(body, actor, store.CallerAdmin)
	if err == nil {
		_, err = h.gate.Resolve(r.Context(), id, ans)
	}
	if err != nil {
		status, msg := api.ErrorOf(err)
		if status == http.StatusInternalServerError {
			h.log.Error("resolve", "request_id", id, "err", err)
		}
		return h.inboxPage(w, r, sess, status, msg)
	}
	return h.done(w, r, "/", fmt.Sprintf("Request %d %s.", id, what))
}

// writeTimeout bounds each write of the event stream: a browser that stops reading
// is cut off.
const writeTimeout = 30 * time.Second

// events is GET /events: the gate's approval and clarification events as Server-Sent
// Events, for the open inbox. It lasts until the browser leaves, the server stops or the
// gate drops it as slow (the browser then reconnects).
func (h *Handler) events(w http.ResponseWriter, r *http.Request, _ session) error {
	err := api.StreamEvents(w, r, h.gate, h.log, ": skald-bot inbox\n\n", writeTimeout, relayed)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	return nil
}
