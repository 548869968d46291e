package slack_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/channels/slack"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// The fuzz seeds name the pending request's prompt with these placeholders.
const (
	tsMark = "{{TS}}"
	idMark = "{{ID}}"
)

func seeds(f *testing.F, names ...string) {
	f.Helper()
	for _, n := range names {
		f.Add(string(testkit.ReadFile(f, n)))
	}
}

// postFuzzed posts body to path of e's HTTP listener, signed now, and stops e. It
// fails the test unless the answer is 200, or 400 with the store as the snapshot
// before; it returns the status.
func (e *env) postFuzzed(path string, body []byte, before string) int {
	e.t.Helper()
	req, err := slacktest.NewSignedRequest(testkit.Context(e.t, 30*time.Second),
		e.base+path, secret, e.clock.Now(), body)
	testkit.Must(e.t, err)
	status := e.do(req)
	e.stop()
	switch status {
	case http.StatusOK:
	case http.StatusBadRequest:
		teststore.Unchanged(e.t, e.db, before)
	default:
		e.t.Fatalf("status %d for body %q", status, body)
	}
	return status
}

// FuzzInteractionPayload posts any interaction payload, signed, while a request waits
// with its prompt posted: block_actions, view_submission and other fixtures, clicks on
// the prompt by an approver and by a stranger, junk. The Channel answers 200 or 400,
// never panics; a 400 changes nothing; the request is resolved only by a click of an
// approver on its own prompt.
func FuzzInteractionPayload(f *testing.F) {
	seeds(f, "block_actions_payload.json", "block_actions_open_modal_payload.json",
		"block_actions_payload_enterprise_install.json", "view_submission_payload.json",
		"socket_mode_interactive_shortcut.json")
	click := func(user, ts, value string) string {
		return `{"type":"block_actions","user":{"id":"` + user + `","name":"x"},` +
			`"trigger_id":"1.2.` + user + `",` +
			`"container":{"type":"message","message_ts":"` + ts + `",` +
			`"channel_id":"` + slacktest.DefaultChannel + `"},` +
			`"channel":{"id":"` + slacktest.DefaultChannel + `"},` +
			`"actions":[{"action_id":"approve","type":"button","value":"` + value + `"}]}`
	}
	for _, s := range []string{
		click(approver, tsMark, "a:"+idMark+":ok"), click(approver, tsMark, "a:"+idMark+":no"),
		click(stranger, tsMark, "a:"+idMark+":ok"), click(approver, "1.000001", "a:"+idMark+":ok"),
		click(approver, tsMark, "a:999:ok"), click(approver, tsMark, "r:"+idMark),
		click(admin, tsMark, "a:0:bs"),
		"", "{}", "null", `{"type":"block_actions"}`, `{"type":"block_actions","actions":[{}]}`,
		"\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		e := newSlackEnv(t, httpMode, envOptions{})
		req, ts := e.require("s1", "Bash", map[string]any{"command": "make deploy"})
		id := strconv.FormatUint(req.ID, 10)
		payload = strings.ReplaceAll(strings.ReplaceAll(payload, tsMark, ts), idMark, id)
		before := teststore.Snapshot(t, e.db)
		body := []byte("payload=" + url.QueryEscape(payload))
		status := e.postFuzzed(slack.PathInteractions, body, before)
		got := e.request(req.ID)
		if got.Status == store.Pending {
			return
		}
		if status != http.StatusOK || !strings.Contains(payload, ts) ||
			!strings.Contains(payload, "a:"+id+":") || got.Resolution == nil ||
			!strings.Contains(got.Resolution.By, approver) &&
				!strings.Contains(got.Resolution.By, admin) {
			t.Fatalf("request %s by %+v after payload %q", got.Status, got.Resolution, payload)
		}
	})
}

// FuzzSlashCommandBody posts any slash command body, signed: the fixtures, commands of
// an admin, an approver and a stranger, junk. The Channel answers 200 or 400, never
// panics; a 400 changes nothing; rules change only for an admin's command.
func FuzzSlashCommandBody(f *testing.F) {
	seeds(f, "slash_command_body.txt", "slash_command_body_enterprise.txt",
		"slash_command_body_skald_rules_derived.txt", "view_submission_form_body.txt")
	cmd := func(user, text string) string {
		return url.Values{"user_id": {user}, "user_name": {"x"},
			"channel_id": {slacktest.DefaultChannel}, "command": {"/skald"}, "text": {text},
			"trigger_id": {"9.9." + user}}.Encode()
	}
	for _, s := range []string{
		cmd(admin, "allow Bash 'git status *'"), cmd(approver, "allow Bash 'git status *'"),
		cmd(stranger, "deny Read *"), cmd(admin, "rmrule 1"), cmd(approver, "pending"),
		cmd(stranger, "help"), cmd(admin, `setrule 1 "unterminated`), cmd(admin, "&amp;&lt;&gt;"),
		"", "user_id=&channel_id=", "%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		e := newSlackEnv(t, httpMode, envOptions{})
		rulesBefore, err := e.db.Rules()
		testkit.Must(t, err)
		before := teststore.Snapshot(t, e.db)
		e.postFuzzed(slack.PathCommands, []byte(body), before)
		rulesAfter, err := e.db.Rules()
		testkit.Must(t, err)
		if testkit.JSON(rulesAfter) != testkit.JSON(rulesBefore) &&
			!strings.Contains(body, admin) {
			t.Fatalf("rules changed by body %q", body)
		}
	})
}
