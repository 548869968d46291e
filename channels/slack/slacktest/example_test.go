package slacktest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
)

// A real slack-go client posts a prompt, then updates it without blocks: the record
// shows the update carried none, and the message still shows its buttons.
func Example() {
	srv, err := slacktest.New(slacktest.Config{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	api := slack.New(slacktest.DefaultBotToken, slack.OptionAPIURL(srv.URL()))

	button := slack.NewButtonBlockElement("approve", "a:42:ok",
		slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false))
	_, ts, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("Approval needed", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("actions", button)))
	if err != nil {
		panic(err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, slacktest.DefaultChannel, ts,
		slack.MsgOptionText("Approved", false)); err != nil {
		panic(err)
	}
	upd, err := srv.WaitUpdates(ctx, slacktest.DefaultChannel, ts, 1)
	if err != nil {
		panic(err)
	}
	cur, _ := srv.Current(slacktest.DefaultChannel, ts)
	fmt.Println(upd[0].Text, upd[0].HasBlocks(), len(cur.Blocks.BlockSet))

	_, err = slack.New("xoxb-wrong", slack.OptionAPIURL(srv.URL())).AuthTestContext(ctx)
	var e slack.SlackErrorResponse
	fmt.Println(errors.As(err, &e), e.Err)
	// Output:
	// Approved false 1
	// true invalid_auth
}
