package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// The end-to-end suite: the real binary, run as `skald-bot serve` with a
// configuration of its own, against a Telegram Bot API server and a Slack Web API
// and Socket Mode server started in the test (telegramtest, slacktest), driven the
// way a user drives it — the Claude Code hook and the command line as child
// processes, taps, clicks and commands injected into the test servers. Nothing
// sleeps: the tests wait on the test servers' Wait helpers, on the service's log
// lines, and on the API.

// e2eDeadline bounds each end-to-end test's waits: a guard against a hang.
const e2eDeadline = 90 * time.Second

// The people of the suite: fake ids, as in the captured payloads in testdata.
var (
	// jane is the Telegram approver; the prompts go to her private chat.
	jane = models.User{ID: 100000001, FirstName: "Jane"}
	// alice is the Telegram admin.
	alice = models.User{ID: 100000002, FirstName: "Alice", LastName: "Admin"}
)

// slackApprover is the Slack user the suite clicks as (slacktest's default user).
const slackApprover = slacktest.DefaultUser

// slackForeign is a Slack channel the bot is not a member of: the prompts posted
// there fail for good and count as channel send errors.
const slackForeign = "C0FOREIGN01"

// e2e is one installation: a data dir and a workspace, the Telegram and Slack test
// servers, the configuration pointing at them, and the service while it runs.
type e2e struct {
	t   *testing.T
	ctx context.Context // the deadline of the test's waits
	dir string
	ws  string // workspace_root
	cfg string // the configuration file
	tg  *telegramtest.Server
	sl  *slacktest.Server
	svc *service
	api *api.Client
	// starts counts the service's starts: the Slack connections to wait for.
	starts int
	// adminToken is the API's configured admin token, "" when serve generates one.
	adminToken string
}

// newE2E starts both test servers, writes a configuration — API on 127.0.0.1:0,
// debug logs, Telegram prompts in Jane's chat, Slack prompts in slacktest's channel
// over Socket Mode, plus extra YAML — and starts the service.
func newE2E(t *testing.T, extra string) *e2e {
	t.Helper()
	return newE2EAPI(t, `{listen: "127.0.0.1:0"}`, "", extra)
}

// newE2EAPI is newE2E with the api section apiYAML, whose admin token adminToken the
// suite's API client sends.
func newE2EAPI(t *testing.T, apiYAML, adminToken, extra string) *e2e {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	t.Cleanup(cancel)
	tg, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{{ID: jane.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tg.Close)
	sl, err := slacktest.New(slacktest.Config{ForeignChannels: []string{slackForeign}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sl.Close)
	dir := t.TempDir()
	e := &e2e{t: t, ctx: ctx, dir: dir, ws: filepath.Join(dir, "workspace"),
		cfg: filepath.Join(dir, "skald.yaml"), tg: tg, sl: sl}
	e.adminToken = adminToken
	if err := os.MkdirAll(filepath.Join(e.ws, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`data_dir: %s
workspace_root: %s
log: {level: debug}
api: %s
telegram:
  token: %q
  api_url: %s
  chats: [%d]
  approvers: [%d]
  admins: [%d]
slack:
  bot_token: %s
  app_token: %s
  api_url: %s
  channels: [%s, %s]
  approvers: [%s]
%s`, filepath.Join(dir, "data"), e.ws, apiYAML, tg.Token(), tg.URL(), jane.ID, jane.ID, alice.ID,
		slacktest.DefaultBotToken, slacktest.DefaultAppToken, sl.URL(), slacktest.DefaultChannel,
		slackForeign, slackApprover, extra)
	if err := os.WriteFile(e.cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e.start()
	return e
}

// newE2EJob is newE2E with one job, name, scheduled every hour for agent ops, the rest
// of whose YAML is job (its steps and other keys, indented as a job's keys are). It
// starts the job's first run by hand (`skald-bot jobs run`) and returns once the
// command says run 1 is running.
func newE2EJob(t *testing.T, name, job string) *e2e {
	t.Helper()
	e := newE2E(t, "jobs:\n  - name: "+name+"\n    schedule: \"@every 1h\"\n"+
		"    agent_id: ops\n"+job)
	if code, out, errOut := e.cli("jobs", "run", name); code != 0 ||
		out != "run 1 of "+name+": running\n" {
		t.Fatalf("jobs run: exit %d %q %s", code, out, errOut)
	}
	return e
}

// cli runs the binary with args against the service and its configuration (--server,
// --config) and returns its exit code and output.
func (e *e2e) cli(args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	return cli(e.t, append(args, "--server", e.svc.url, "--config", e.cfg)...)
}

// start starts the service (again, after a stop or a kill) and returns once it
// serves and Slack's Socket Mode connection is open, so clicks can be pushed.
func (e *e2e) start() {
	e.t.Helper()
	e.svc = startService(e.t, e.cfg)
	tok := e.adminToken
	if tok == "" { // the token serve generated
		tok = e.svc.token
	}
	e.api = api.NewClient(e.svc.url, tok)
	e.starts++
	if err := e.sl.WaitConnections(e.ctx, e.starts); err != nil {
		e.t.Fatalf("Slack Socket Mode: %v\n%s", err, strings.Join(e.svc.lines(), "\n"))
	}
}

// hook runs `skald-bot hook claude-code` as Claude Code runs it — a child process,
// the PreToolUse JSON on stdin, SKALD_URL naming the service — and returns the
// decision it printed (see await).
func (e *e2e) hook(input []byte, args ...string) hookDecision {
	e.t.Helper()
	return e.await(e.hookAsync(input, args...))
}

// hookRun is what a hook process did: its exit code, its output, or the error that
// kept it from running.
type hookRun struct {
	code        int
	out, errOut string
	err         error
}

// hookAsync starts `skald-bot hook claude-code` as hook does and returns at once;
// await reads its decision. The process is killed, and waited for, when the test
// ends should it still run.
func (e *e2e) hookAsync(input []byte, args ...string) <-chan hookRun {
	e.t.Helper()
	_, ch := e.startHook(input, args...)
	return ch
}

// startHook is hookAsync that also returns the process, to signal it.
func (e *e2e) startHook(input []byte, args ...string) (*exec.Cmd, <-chan hookRun) {
	e.t.Helper()
	return e.startCLI(bytes.NewReader(input), append([]string{"hook", "claude-code"}, args...)...)
}

// startCLI starts the binary with args as an agent runs it — no token, SKALD_URL naming
// the service — reading stdin (nil: none), and returns at once; its run arrives on the
// channel. The process is killed, and waited for, when the test ends should it still run.
func (e *e2e) startCLI(stdin io.Reader, args ...string) (*exec.Cmd, <-chan hookRun) {
	e.t.Helper()
	cmd := exec.Command(skaldBinary(e.t), args...)
	cmd.Env = append(os.Environ(), "SKALD_API_TOKEN=", "SKALD_CONFIG=", "SKALD_URL="+e.svc.url)
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	ch := make(chan hookRun, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := cmd.Wait()
		r := hookRun{code: cmd.ProcessState.ExitCode(), out: out.String(), errOut: errOut.String()}
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			r.err = err
		}
		ch <- r
	}()
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd, ch
}

// await returns the decision of a hook started with hookAsync, after checking that
// it exited 0 and printed exactly one JSON object, a PreToolUse decision.
func (e *e2e) await(ch <-chan hookRun) hookDecision {
	e.t.Helper()
	var r hookRun
	select {
	case r = <-ch:
	case <-e.ctx.Done():
		e.t.Fatalf("the hook did not answer: %v\n%s",
			e.ctx.Err(), strings.Join(e.svc.lines(), "\n"))
	}
	if r.err != nil || r.code != 0 {
		e.t.Fatalf("hook: exit %d (%v), stdout %q, stderr %q", r.code, r.err, r.out, r.errOut)
	}
	dec := json.NewDecoder(strings.NewReader(r.out))
	dec.DisallowUnknownFields()
	var o hookOutput
	if err := dec.Decode(&o); err != nil || dec.More() ||
		o.HookSpecificOutput.HookEventName != "PreToolUse" {
		e.t.Fatalf("hook output %q: %v", r.out, err)
	}
	return o.HookSpecificOutput
}

// bashCall returns the fixture pretooluse_bash.json (session abc123) with another
// tool_use_id and command: the next shell call of the same Claude Code session.
func bashCall(t *testing.T, toolUseID, command string) []byte {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal(fixture(t, "pretooluse_bash.json"), &in); err != nil {
		t.Fatal(err)
	}
	in["tool_use_id"] = toolUseID
	in["tool_input"].(map[string]any)["command"] = command
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// telegramPrompt waits for the n-th message in Jane's chat and for the edit that arms
// it (a prompt is posted without buttons), checks that it is the prompt of a request
// with its four buttons, and returns it with the request id.
func (e *e2e) telegramPrompt(n int) (telegramtest.SentMessage, uint64) {
	e.t.Helper()
	m := e.telegramArmed(n)
	return m, e.promptID(m)
}

// telegramPromptOf waits for the prompt of request id in Jane's chat to be armed, and
// returns it: where requests made together are shown in no set order.
func (e *e2e) telegramPromptOf(id uint64) telegramtest.SentMessage {
	e.t.Helper()
	ok := "a:" + testkit.ID(id) + ":ok"
	m := e.telegramPromptWhere(fmt.Sprintf("of request %d", id),
		func(m telegramtest.SentMessage) bool { return m.CallbackData()[0] == ok })
	e.promptID(m)
	return m
}

// telegramPromptShowing waits for an armed prompt in Jane's chat whose text contains
// text, and returns it with its request id: the prompt of the call of a process that
// the test signals next, which no other message may stand in for.
func (e *e2e) telegramPromptShowing(text string) (telegramtest.SentMessage, uint64) {
	e.t.Helper()
	m := e.telegramPromptWhere("showing "+strconv.Quote(text), func(m telegramtest.SentMessage) bool {
		return strings.Contains(m.PlainText, text)
	})
	return m, e.promptID(m)
}

// telegramPromptWhere waits for a message with buttons in Jane's chat that match
// accepts, and returns it; when none comes, it fails the test naming the prompt desc.
func (e *e2e) telegramPromptWhere(desc string,
	match func(telegramtest.SentMessage) bool) telegramtest.SentMessage {
	e.t.Helper()
	var m telegramtest.SentMessage
	err := e.tg.Wait(e.ctx, func() bool {
		for _, m = range e.tg.Messages(jane.ID) {
			if len(m.CallbackData()) > 0 && match(m) {
				return true
			}
		}
		return false
	})
	if err != nil {
		e.t.Fatalf("no Telegram prompt %s: %v\n%s", desc, err, strings.Join(e.svc.lines(), "\n"))
	}
	return m
}

// promptID checks that Telegram message m is the prompt of a request with its four
// buttons, and returns the request id.
func (e *e2e) promptID(m telegramtest.SentMessage) uint64 {
	e.t.Helper()
	data := m.CallbackData()
	if len(data) != 4 {
		e.t.Fatalf("Telegram message %q has buttons %q, want a prompt's four", m.PlainText, data)
	}
	id, err := strconv.ParseUint(strings.Split(data[0], ":")[1], 10, 64)
	if err != nil || data[0] != "a:"+testkit.ID(id)+":ok" ||
		!strings.Contains(m.PlainText, "Request: #"+testkit.ID(id)) {
		e.t.Fatalf("Telegram prompt %q with buttons %q", m.PlainText, data)
	}
	return id
}

// telegramArmed waits for the n-th message in Jane's chat to show buttons (a prompt
// or a question is posted without them and armed by an edit) and returns it.
func (e *e2e) telegramArmed(n int) telegramtest.SentMessage {
	e.t.Helper()
	var m telegramtest.SentMessage
	err := e.tg.Wait(e.ctx, func() bool {
		msgs := e.tg.Messages(jane.ID)
		if len(msgs) < n {
			return false
		}
		m = msgs[n-1]
		return len(m.CallbackData()) > 0
	})
	if err != nil {
		e.t.Fatalf("no Telegram prompt: %v\n%s", err, strings.Join(e.svc.lines(), "\n"))
	}
	return m
}

// promptsRecorded waits until the service logs that request id's prompt was sent and
// recorded (the outbox) on both channels.
func (e *e2e) promptsRecorded(id uint64) {
	e.t.Helper()
	for _, ch := range []string{
		"channel=telegram", "channel=slack chat=" + slacktest.DefaultChannel,
	} {
		e.svc.waitFor(e.t, "msg=\"prompt sent\"", "request_id="+testkit.ID(id)+" ", ch)
	}
}

// tap injects Jane's tap on a button of Telegram message m and returns the toast the
// callback query was answered with.
func (e *e2e) tap(m telegramtest.SentMessage, data string) string {
	e.t.Helper()
	before := len(e.tg.Answers())
	update := e.tg.CallbackQueryUpdate(jane, jane.ID, m.MessageID, data)
	if _, err := e.tg.Inject(update); err != nil {
		e.t.Fatal(err)
	}
	answers, err := e.tg.WaitAnswers(e.ctx, before+1)
	if err != nil {
		e.t.Fatalf("the tap was not answered: %v\n%s", err, strings.Join(e.svc.lines(), "\n"))
	}
	return answers[before].Text
}

// waitTelegramEdited waits until Telegram message m has been edited after the edit
// that armed it (a version after the first with buttons) and returns it as it reads
// then.
func (e *e2e) waitTelegramEdited(m telegramtest.SentMessage) telegramtest.SentMessage {
	e.t.Helper()
	err := e.tg.Wait(e.ctx, func() bool {
		cur, _ := e.tg.Message(jane.ID, m.MessageID) // absent: no history, not edited
		for i, v := range cur.History {
			if v.Keyboard != nil {
				return len(cur.History) > i+1
			}
		}
		return false
	})
	if err != nil {
		e.t.Fatalf("Telegram prompt %d not edited: %v", m.MessageID, err)
	}
	cur, ok := e.tg.Message(jane.ID, m.MessageID)
	if !ok {
		e.t.Fatal("no such message")
	}
	return cur
}

// slackPrompt waits for the n-th message in slacktest's channel and returns it: a
// message with blocks (a prompt, a question) as its first update armed it (posted
// without buttons, they come with that update), a notice as posted.
func (e *e2e) slackPrompt(n int) slacktest.Message {
	e.t.Helper()
	msgs, err := e.sl.WaitMessages(e.ctx, slacktest.DefaultChannel, n)
	if err != nil {
		e.t.Fatalf("no Slack prompt: %v\n%s", err, strings.Join(e.svc.lines(), "\n"))
	}
	m := msgs[n-1]
	if !m.HasBlocks() {
		return m
	}
	ups, err := e.sl.WaitUpdates(e.ctx, slacktest.DefaultChannel, m.TS, 1)
	if err != nil {
		e.t.Fatalf("Slack prompt %s never armed: %v", m.TS, err)
	}
	return ups[0]
}

// slackFinished waits until Slack message ts no longer shows buttons and returns it
// as it reads then.
func (e *e2e) slackFinished(ts string) slacktest.Message {
	e.t.Helper()
	for {
		cur, ok := e.sl.Current(slacktest.DefaultChannel, ts)
		if ok && !cur.HasActions() {
			return cur
		}
		n := len(e.sl.Updates(slacktest.DefaultChannel, ts))
		if _, err := e.sl.WaitUpdates(e.ctx, slacktest.DefaultChannel, ts, n+1); err != nil {
			e.t.Fatalf("Slack message %s still shows buttons: %v", ts, err)
		}
	}
}

// chatOf is the private chat of a Telegram user with the bot.
func chatOf(u models.User) models.Chat {
	return models.Chat{ID: u.ID, Type: models.ChatTypePrivate, FirstName: u.FirstName}
}
