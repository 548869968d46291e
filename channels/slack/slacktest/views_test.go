package slacktest_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestViewsOpenAndSubmission(t *testing.T) {
	srv := newServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	view := slack.ModalViewRequest{Type: slack.VTModal, CallbackID: "cb", PrivateMetadata: "meta",
		Title: slack.NewTextBlockObject(slack.PlainTextType, "T", false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("b",
			slack.NewTextBlockObject(slack.PlainTextType, "L", false, false), nil,
			&slack.PlainTextInputBlockElement{Type: slack.METPlainTextInput, ActionID: "a"})}}}
	res, err := api.OpenViewContext(ctx, "1.2.3", view)
	testkit.Must(t, err)
	got := srv.Views()
	if len(got) != 1 || got[0].ID != res.ID || got[0].TriggerID != "1.2.3" ||
		got[0].CallbackID() != "cb" || got[0].PrivateMetadata() != "meta" {
		t.Fatalf("views %+v, answer %+v", got, res)
	}
	for name, c := range map[string]struct {
		token, trigger string
		view           slack.ModalViewRequest
		want           string
	}{
		"no blocks":   {slacktest.DefaultBotToken, "1.2.4", slack.ModalViewRequest{Type: slack.VTModal, Title: view.Title}, "invalid_arguments"},
		"wrong token": {"xoxb-wrong", "1.2.5", view, "invalid_auth"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := newAPI(srv, c.token).OpenViewContext(ctx, c.trigger, c.view)
			if got := slackError(t, err); got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
		})
	}
	if n := len(srv.Views()); n != 1 {
		t.Errorf("%d views after the refused calls", n)
	}
	var cb slack.InteractionCallback
	p := srv.ViewSubmissionPayload(slacktest.ViewSubmission{View: got[0],
		Values: map[string]map[string]string{"b": {"a": "typed"}}})
	testkit.Must(t, json.Unmarshal(p, &cb))
	if cb.Type != slack.InteractionTypeViewSubmission || cb.View.CallbackID != "cb" ||
		cb.View.PrivateMetadata != "meta" || cb.View.State.Values["b"]["a"].Value != "typed" ||
		cb.User.ID != slacktest.DefaultUser {
		t.Fatalf("payload %s", p)
	}
}
