package slacktest_test

import (
	"errors"
	"testing"

	"github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
)

// newSlackServer starts a server closed at the end of the test.
func newSlackServer(t *testing.T, cfg slacktest.Config) *slacktest.Server {
	t.Helper()
	srv, err := slacktest.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// newAPI returns a real slack-go client of srv with the given bot token and the
// default app token.
func newAPI(srv *slacktest.Server, botToken string) *slack.Client {
	return slack.New(botToken, slack.OptionAPIURL(srv.URL()),
		slack.OptionAppLevelToken(slacktest.DefaultAppToken))
}

// slackError returns the error code of a slack.SlackErrorResponse, failing otherwise.
func slackError(t *testing.T, err error) string {
	t.Helper()
	var e slack.SlackErrorResponse
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a slack.SlackErrorResponse", err, err)
	}
	return e.Err
}

// promptBlocks is a prompt-like message: header, section, and an actions block with
// two buttons whose values are approve and reject.
func promptBlocks(approve, reject string) []slack.Block {
	return []slack.Block{
		slack.NewHeaderBlock(
			slack.NewTextBlockObject(slack.PlainTextType, "Approval needed", false, false)),
		slack.NewSectionBlock(
			slack.NewTextBlockObject(slack.MarkdownType, "*Tool:* Bash", false, false), nil, nil),
		slack.NewActionBlock("actions",
			slack.NewButtonBlockElement("approve", approve,
				slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false),
			).WithStyle(slack.StylePrimary),
			slack.NewButtonBlockElement("reject", reject,
				slack.NewTextBlockObject(slack.PlainTextType, "Reject", false, false),
			).WithStyle(slack.StyleDanger),
		),
	}
}
