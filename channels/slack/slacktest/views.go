package slacktest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// OpenedView is a views.open call this server served: the trigger it used and the
// view as sent (JSON).
type OpenedView struct {
	ID        string
	TriggerID string
	View      json.RawMessage
}

// CallbackID and PrivateMetadata are the view's fields of those names.
func (v OpenedView) CallbackID() string      { return v.field("callback_id") }
func (v OpenedView) PrivateMetadata() string { return v.field("private_metadata") }

func (v OpenedView) field(name string) string {
	var m map[string]any
	_ = json.Unmarshal(v.View, &m)
	s, _ := m[name].(string)
	return s
}

// viewsOpen serves views.open: the bot token, a trigger_id and a modal view with a
// title and at most 100 blocks, as Slack checks them; the view is recorded.
func (s *Server) viewsOpen(w http.ResponseWriter, r *http.Request, args url.Values) {
	trigger := args.Get("trigger_id")
	if trigger == "" {
		writeError(w, &apiError{code: "invalid_arguments"})
		return
	}
	var v map[string]any
	if json.Unmarshal([]byte(args.Get("view")), &v) != nil ||
		v["type"] != "modal" || v["title"] == nil {
		writeError(w, &apiError{code: "invalid_arguments"})
		return
	}
	if bs, _ := v["blocks"].([]any); len(bs) == 0 || len(bs) > 100 {
		writeError(w, &apiError{code: "invalid_arguments"})
		return
	}
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("V%09d", s.seq)
	s.views = append(s.views, OpenedView{ID: id, TriggerID: trigger,
		View: json.RawMessage(args.Get("view"))})
	s.notify()
	s.mu.Unlock()
	v["id"], v["team_id"], v["app_id"], v["bot_id"] = id, TeamID, AppID, BotID
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "view": v})
}

// Views returns the views opened so far, oldest first.
func (s *Server) Views() []OpenedView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.views)
}

// WaitViews blocks until at least n views were opened and returns them all.
func (s *Server) WaitViews(ctx context.Context, n int) ([]OpenedView, error) {
	return waitAll(ctx, s, fmt.Sprintf("%d views", n), n,
		func() []OpenedView { return s.views })
}

// ViewSubmission is a user's submission of an opened view: what
// PushViewSubmission and ViewSubmissionBody turn into a view_submission payload
// (fixture view_submission_payload.json).
type ViewSubmission struct {
	// UserID and UserName are who submitted. Empty: DefaultUser, "jane.approver".
	UserID, UserName string
	// View is the view submitted; its callback_id, private_metadata and blocks are
	// sent back.
	View OpenedView
	// Values are the inputs: block_id → action_id → value.
	Values map[string]map[string]string
}

// ViewSubmissionPayload returns the view_submission payload JSON of v.
func (s *Server) ViewSubmissionPayload(v ViewSubmission) json.RawMessage {
	v.UserID = cmp.Or(v.UserID, DefaultUser)
	v.UserName = cmp.Or(v.UserName, fixtureUserName)
	var view map[string]any
	_ = json.Unmarshal(v.View.View, &view)
	if view == nil {
		view = map[string]any{}
	}
	values := map[string]any{}
	for block, acts := range v.Values {
		m := map[string]any{}
		for action, val := range acts {
			m[action] = map[string]any{"type": "plain_text_input", "value": val}
		}
		values[block] = m
	}
	view["id"], view["team_id"], view["app_id"] = v.View.ID, TeamID, AppID
	view["state"] = map[string]any{"values": values}
	return marshal(map[string]any{
		"type": "view_submission", "team": map[string]any{"id": TeamID},
		"user": map[string]any{"id": v.UserID, "username": v.UserName, "name": v.UserName,
			"team_id": TeamID},
		"api_app_id": AppID, "token": VerificationToken, "trigger_id": newTriggerID(),
		"view": view, "response_urls": []any{},
	})
}

// PushViewSubmission pushes v as an "interactive" envelope (Socket Mode).
func (s *Server) PushViewSubmission(v ViewSubmission) (Envelope, error) {
	return s.Push(Envelope{Type: "interactive", Payload: s.ViewSubmissionPayload(v)})
}

// ViewSubmissionBody returns the HTTP-mode body of v, "payload=<JSON>" (fixture
// view_submission_form_body.txt); sign it with NewSignedRequest.
func (s *Server) ViewSubmissionBody(v ViewSubmission) []byte {
	return interactionBody(s.ViewSubmissionPayload(v))
}
