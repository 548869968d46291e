package slacktest_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestSignMatchesFixtureVectors(t *testing.T) {
	for _, name := range []string{
		"request_signing_docs_example.json", "request_signing_slackgo_vector.json",
	} {
		var v struct {
			Secret      string `json:"signing_secret"`
			Timestamp   string `json:"timestamp"`
			Body        string `json:"body"`
			Expected    string `json:"expected_signature"`
			WrongSecret string `json:"wrong_signing_secret"`
		}
		if err := json.Unmarshal(testkit.ReadFile(t, name), &v); err != nil {
			t.Fatal(err)
		}
		if got := slacktest.Sign(v.Secret, v.Timestamp, []byte(v.Body)); got != v.Expected {
			t.Errorf("%s: Sign = %s, want %s", name, got, v.Expected)
		}
		if v.WrongSecret != "" &&
			slacktest.Sign(v.WrongSecret, v.Timestamp, []byte(v.Body)) == v.Expected {
			t.Errorf("%s: the wrong secret signs the same", name)
		}
	}
	// The docs example's body is byte for byte slash_command_body.txt.
	if got := slacktest.Sign("8f742231b10e8888abcd99yyyzzz85a5", "1531420618",
		testkit.ReadFile(t, "slash_command_body.txt")); got !=
		"v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503" {
		t.Errorf("Sign(slash_command_body.txt) = %s", got)
	}

	var signed struct {
		Secret  string            `json:"signing_secret"`
		Headers map[string]string `json:"headers"`
	}
	err := json.Unmarshal(testkit.ReadFile(t, "block_actions_signed_request.json"), &signed)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := strconv.ParseInt(signed.Headers["X-Slack-Request-Timestamp"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	req, err := slacktest.NewSignedRequest(t.Context(), "http://127.0.0.1/slack/interactions",
		signed.Secret, time.Unix(sec, 0), testkit.ReadFile(t, "block_actions_form_body.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range signed.Headers {
		if got := req.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

func TestSignedRequestsPassSlackGoVerifier(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	const secret = "8f742231b10e8888abcd99yyyzzz85a5"
	body := srv.BlockActionBody(slacktest.BlockAction{UserID: "U0APPROVER1", Value: "a:42:ok"})

	verify := func(sentAt time.Time, secretUsed string) error {
		req, err := slacktest.NewSignedRequest(t.Context(), "http://127.0.0.1/slack/interactions",
			secretUsed, sentAt, body)
		if err != nil {
			t.Fatal(err)
		}
		sv, err := slack.NewSecretsVerifier(req.Header, secret)
		if err != nil {
			return err
		}
		if _, err := sv.Write(body); err != nil {
			return err
		}
		return sv.Ensure()
	}
	// slack-go's verifier reads the wall clock, so these requests are signed "now".
	if err := verify(time.Now(), secret); err != nil {
		t.Fatalf("fresh signed request: %v", err)
	}
	if err := verify(time.Now().Add(-6*time.Minute), secret); err == nil {
		t.Fatal("a request signed 6 minutes ago passed")
	}
	if err := verify(time.Now(), "another-secret"); err == nil {
		t.Fatal("a request signed with another secret passed")
	}

	_, err := slacktest.NewSignedRequest(t.Context(), "://bad", secret, time.Now(), body)
	if err == nil || !strings.HasPrefix(err.Error(), "slacktest: signed request: ") {
		t.Fatalf("bad target: %v", err)
	}
}

func TestHTTPBodiesParseWithSlackGo(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	click := slacktest.BlockAction{UserID: "U0APPROVER1", Value: "a:42:ok", TriggerID: "1.2.abc"}
	req := httptest.NewRequest("POST", "/slack/interactions",
		bytes.NewReader(srv.BlockActionBody(click)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cb, err := slack.InteractionCallbackParse(req)
	if err != nil {
		t.Fatal(err)
	}
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U0APPROVER1" ||
		cb.TriggerID != "1.2.abc" || len(cb.ActionCallback.BlockActions) != 1 ||
		cb.ActionCallback.BlockActions[0].Value != "a:42:ok" {
		t.Fatalf("callback %+v", cb)
	}

	slash := slacktest.SlashCommand{UserID: "U0ADMIN0001", Text: `allow Bash note="a b"`}
	req = httptest.NewRequest("POST", "/slack/commands",
		bytes.NewReader(srv.SlashCommandBody(slash)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cmd, err := slack.SlashCommandParse(req)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Command != "/skald" || cmd.Text != `allow Bash note="a b"` ||
		cmd.UserID != "U0ADMIN0001" || cmd.TeamID != slacktest.TeamID || cmd.TriggerID == "" {
		t.Fatalf("slash command %+v", cmd)
	}
}

func TestBlockActionDefaultsAreTheFixture(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	var got, want map[string]any
	if err := json.Unmarshal(srv.BlockActionPayload(slacktest.BlockAction{}), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(testkit.ReadFile(t, "block_actions_payload.json"),
		&want); err != nil {
		t.Fatal(err)
	}
	// Fresh per click: trigger_id, action_ts; response_url points at the server.
	for _, m := range []map[string]any{got, want} {
		delete(m, "trigger_id")
		delete(m, "response_url")
		delete(m["actions"].([]any)[0].(map[string]any), "action_ts")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("default payload\n%s\nwant the fixture\n%s",
			testkit.JSON(got), testkit.JSON(want))
	}
}

func TestBlockActionUsesTheMessageButtons(t *testing.T) {
	srv := newSlackServer(t, slacktest.Config{})
	ctx := testkit.Context(t, 20*time.Second)
	api := newAPI(srv, slacktest.DefaultBotToken)
	_, ts, err := api.PostMessageContext(ctx, slacktest.DefaultChannel,
		slack.MsgOptionText("prompt", false),
		slack.MsgOptionBlocks(promptBlocks("a:42:ok", "a:42:no")...))
	if err != nil {
		t.Fatal(err)
	}
	type action struct {
		ActionID string `json:"action_id"`
		BlockID  string `json:"block_id"`
		Value    string `json:"value"`
		Style    string `json:"style"`
		Text     struct {
			Text string `json:"text"`
		} `json:"text"`
	}
	click := func(a slacktest.BlockAction) (action, string, int) {
		var p struct {
			Message struct {
				TS     string            `json:"ts"`
				Blocks []json.RawMessage `json:"blocks"`
			} `json:"message"`
			Actions []action `json:"actions"`
		}
		if err := json.Unmarshal(srv.BlockActionPayload(a), &p); err != nil {
			t.Fatal(err)
		}
		return p.Actions[0], p.Message.TS, len(p.Message.Blocks)
	}

	// The newest message of the channel, its button found by action_id.
	got, msgTS, blocks := click(slacktest.BlockAction{ActionID: "approve"})
	want := action{ActionID: "approve", BlockID: "actions", Value: "a:42:ok", Style: "primary"}
	if msgTS != ts || blocks != 3 ||
		got.ActionID != want.ActionID || got.BlockID != want.BlockID ||
		got.Value != want.Value || got.Style != want.Style || got.Text.Text != "Approve" {
		t.Fatalf("click approve: %+v on %s with %d blocks", got, msgTS, blocks)
	}
	// Set fields win over the button's (a forged value).
	got, _, _ = click(slacktest.BlockAction{MessageTS: ts, ActionID: "approve", Value: "a:99:ok"})
	if got.Value != "a:99:ok" || got.ActionID != "approve" {
		t.Fatalf("forged click: %+v", got)
	}
	// No such button: the fixture's button with the fields set.
	got, _, _ = click(slacktest.BlockAction{MessageTS: ts, Value: "gone"})
	if got.Value != "gone" || got.ActionID != "uSoeH" {
		t.Fatalf("click on a missing button: %+v", got)
	}
	// After an update that removed the buttons, the payload shows the new blocks.
	if _, _, _, err := api.UpdateMessageContext(ctx, slacktest.DefaultChannel, ts,
		slack.MsgOptionText("done", false), slack.MsgOptionBlocks(slack.NewDividerBlock()),
	); err != nil {
		t.Fatal(err)
	}
	got, _, blocks = click(slacktest.BlockAction{MessageTS: ts, ActionID: "approve"})
	if blocks != 1 || got.Value != "click_me_123" {
		t.Fatalf("click after update: %+v with %d blocks", got, blocks)
	}
}
