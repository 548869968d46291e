package torture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/slack/slacktest"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// binary is the skald-bot built by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skald-torture")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binary = filepath.Join(dir, "skald-bot")
	out, err := exec.Command("go", "build", "-buildvcs=false", "-o", binary,
		"github.com/skald-circle/skald-bot/cmd/skald-bot").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const adminToken = "torture-admin-token-0123456789"

var jane = models.User{ID: 100000001, FirstName: "Jane"}

// figures are what the torture test counts, for docs/torture.md.
type figures struct {
	kills, requests, resolutions, duplicates, taps, clicks, apiCalls, runs, orphans atomic.Int64
}

// proc is one running skald-bot serve.
type proc struct {
	cmd   *exec.Cmd
	url   string
	done  chan struct{} // closed when stderr is read to its end
	mu    sync.Mutex
	lines []string
}

func start(t *testing.T, ctx context.Context, cfg string) *proc {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--config", cfg)
	cmd.Env = append(os.Environ(), "SKALD_CONFIG=", "SKALD_URL=", "SKALD_API_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	serving := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			l := sc.Text()
			p.mu.Lock()
			p.lines = append(p.lines, l)
			p.mu.Unlock()
			if strings.Contains(l, "msg=serving") {
				select {
				case serving <- l:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case l := <-serving:
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "api="); ok {
				p.url = "http://" + strings.Trim(v, `"`)
			}
		}
	case <-p.done:
		_ = cmd.Wait()
		t.Fatalf("serve exited before serving:\n%s", p.log())
	case <-ctx.Done():
		t.Fatalf("serve did not start: %v\n%s", ctx.Err(), p.log())
	}
	return p
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// end signals p and waits for it to exit.
func (p *proc) end(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	<-p.done
	_ = p.cmd.Wait()
}

// TestTorture: see the package doc and docs/torture.md.
func TestTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	kills, agents, perAgent := 20, 4, 4
	if os.Getenv("SKALD_TORTURE") == "long" {
		kills, agents, perAgent = 100, 50, 4
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tg, err := telegramtest.New(telegramtest.Config{
		Chats: []models.Chat{{ID: jane.ID, Type: models.ChatTypePrivate}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sl, err := slacktest.New(slacktest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(filepath.Join(ws, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "skald.yaml")
	yaml := fmt.Sprintf(`data_dir: %s
workspace_root: %s
log: {level: debug}
api: {listen: "127.0.0.1:0", token: %q}
telegram:
  token: %q
  api_url: %s
  chats: [%d]
  approvers: [%d]
slack:
  bot_token: %s
  app_token: %s
  api_url: %s
  channels: [%s]
  approvers: [%s]
jobs:
  - name: mark
    schedule: "@every 1000h"
    agent_id: cron
    overlap: allow
    steps:
      - tool: execute_cmd
        args: {cmd: "echo ran >> data/marker.log"}
`, filepath.Join(dir, "data"), ws, adminToken, tg.Token(), tg.URL(), jane.ID, jane.ID,
		slacktest.DefaultBotToken, slacktest.DefaultAppToken, sl.URL(), slacktest.DefaultChannel,
		slacktest.DefaultUser)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}

	var (
		fig  figures
		mu   sync.Mutex                  // guards told and seen
		told = map[uint64]gate.Verdict{} // every request a caller was told about, its last verdict
		bad  []string                    // violations
	)
	note := func(format string, args ...any) {
		mu.Lock()
		bad = append(bad, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var seq atomic.Int64
	ops := make(chan struct{}, 1024)
	op := func() {
		select {
		case ops <- struct{}{}:
		default:
		}
	}

	for k := 0; k <= kills; k++ {
		p := start(t, ctx, cfg)
		c := api.NewClient(p.url, adminToken)
		if err := sl.WaitConnections(ctx, k+1); err != nil {
			t.Fatalf("Slack Socket Mode: %v\n%s", err, p.log())
		}
		gctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		final := k == kills
		if !final {
			// Agents: new calls that need a human, and replays of the ones told.
			for a := range agents {
				wg.Go(func() {
					for j := 0; j < perAgent && gctx.Err() == nil; j++ {
						n := seq.Add(1)
						id := strconv.FormatInt(n, 10)
						call := gate.Call{ToolName: "Bash", SessionID: "agent-" + strconv.Itoa(a),
							ToolCallID: "tc-" + id,
							Arguments:  map[string]any{"command": "rm -rf build-" + id}}
						res, err := c.Check(gctx, api.CheckRequest{Call: call})
						if err != nil {
							continue
						}
						fig.apiCalls.Add(1)
						op()
						if res.Decision == gate.VerdictAllow || res.RequestID == 0 {
							note("call %s allowed without a human: %+v", call.ToolCallID, res)
							continue
						}
						mu.Lock()
						told[res.RequestID] = res.Decision
						mu.Unlock()
					}
				})
			}
			// API approvers, with duplicates and conflicting answers.
			wg.Go(func() {
				for range 2 * perAgent {
					in, err := c.Inbox(gctx)
					if err != nil {
						return
					}
					for _, q := range in.Approvals {
						var inner sync.WaitGroup
						for _, action := range []string{"approve", "reject"} {
							inner.Go(func() {
								_, err := c.Resolve(gctx, q.ID, api.ResolveRequest{Action: action})
								switch {
								case err == nil:
									fig.resolutions.Add(1)
								case errors.Is(err, api.ErrConflict):
									fig.duplicates.Add(1)
								}
								op()
							})
						}
						inner.Wait()
					}
				}
			})
			// Telegram taps and Slack clicks on whatever shows buttons.
			wg.Go(func() {
				for _, m := range tg.Messages(jane.ID) {
					if gctx.Err() != nil {
						return
					}
					if data := m.CallbackData(); len(data) >= 2 {
						u := tg.CallbackQueryUpdate(jane, jane.ID, m.MessageID,
							data[m.MessageID%2])
						if _, err := tg.Inject(u); err == nil {
							fig.taps.Add(1)
							op()
						}
					}
				}
				for _, m := range sl.Messages(slacktest.DefaultChannel) {
					if gctx.Err() != nil {
						return
					}
					cur, ok := sl.Current(slacktest.DefaultChannel, m.TS)
					if !ok || !strings.Contains(string(cur.RawBlocks), `"type":"actions"`) {
						continue
					}
					id, ok := requestOf(string(cur.RawBlocks))
					if !ok {
						continue
					}
					v := bot.Callback{RequestID: id, Action: bot.ActionApprove}.String()
					_, err := sl.PushBlockAction(slacktest.BlockAction{MessageTS: m.TS, Value: v})
					if err == nil {
						fig.clicks.Add(1)
						op()
					}
				}
			})
			// Cron: a run whose step waits for approval.
			wg.Go(func() {
				if _, err := c.RunJob(gctx, "mark"); err == nil {
					fig.runs.Add(1)
					op()
				}
			})
			// Kill at a random point: after a random number of operations.
			idle := make(chan struct{})
			go func() { wg.Wait(); close(idle) }()
			want := 2 + rng.IntN(3*agents*perAgent)
		wait:
			for range want {
				select {
				case <-ops:
				case <-idle:
					break wait
				case <-gctx.Done():
					break wait
				}
			}
			p.end(syscall.SIGKILL)
			fig.kills.Add(1)
			stop()
			wg.Wait()
			continue
		}

		// The last start: settle everything, then check. A prompt is posted without
		// buttons and armed only once its message is recorded, so every message
		// still showing buttons once every request is finished is an orphan: its
		// request is resolved, or no request records it.
		settle(t, gctx, c, &fig)
		orphans := buttonsLeft(gctx, tg, sl)
		if len(orphans) > 0 {
			// A cron run resumed by this start may have asked after settle.
			settle(t, gctx, c, &fig)
			orphans = buttonsLeft(gctx, tg, sl)
		}
		for _, o := range orphans {
			id, _ := requestOf(o.data)
			state := "recorded by no request"
			if q, err := c.Request(gctx, id, 0); err == nil {
				state = "request " + strconv.FormatUint(id, 10) + " " + string(q.Status)
				for _, m := range q.Messages {
					if m.Channel == o.channel && m.Ref == o.ref {
						state += ", recorded"
					}
				}
			}
			t.Errorf("orphan prompt: %s message %s still shows buttons (%s)",
				o.channel, o.ref, state)
		}
		fig.orphans.Store(int64(len(orphans)))
		stop()
		p.end(syscall.SIGTERM)
	}

	db := filepath.Join(dir, "data", "skald.db")
	if err := store.Verify(db); err != nil {
		t.Errorf("store.Verify: %v", err)
	}
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	audit, err := s.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[uint64]int{}
	for _, a := range audit {
		switch a.Action {
		case "request.approved", "request.rejected", "request.expired", "request.cancelled":
			ends[a.RequestID]++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range told {
		r, err := s.Request(id)
		if err != nil {
			t.Errorf("request %d a caller was told about: %v", id, err)
			continue
		}
		if r.Status == store.Pending {
			t.Errorf("request %d still pending after settling", id)
		}
		if ends[id] != 1 {
			t.Errorf("request %d: %d resolutions in the audit, want 1", id, ends[id])
		}
	}
	fig.requests.Store(int64(len(told)))
	for _, b := range bad {
		t.Error(b)
	}
	// Every cron step that ran: at most once per run that reached it.
	runs, err := s.RunsByStatus(store.RunSucceeded, store.RunInterrupted, store.RunFailed,
		store.RunRejected, store.RunExpired, store.RunCancelled)
	if err != nil {
		t.Fatal(err)
	}
	started, succeeded := 0, 0
	for _, r := range runs {
		if len(r.Steps) > 0 && r.Steps[0].StartedAt.IsZero() == false {
			started++
			if r.Steps[0].Status == string(store.RunSucceeded) {
				succeeded++
			}
		}
	}
	lines := 0
	if b, err := os.ReadFile(filepath.Join(ws, "data", "marker.log")); err == nil {
		lines = strings.Count(string(b), "\n")
	}
	if lines < succeeded || lines > started {
		t.Errorf("the cron step ran %d times; %d runs succeeded, %d started it",
			lines, succeeded, started)
	}
	t.Logf("kills %d, requests %d, API resolutions %d, duplicates refused %d, taps %d, "+
		"clicks %d, runs %d (step ran %d), orphan prompts %d, time %s",
		fig.kills.Load(), fig.requests.Load(), fig.resolutions.Load(), fig.duplicates.Load(),
		fig.taps.Load(), fig.clicks.Load(), fig.runs.Load(),
		lines, fig.orphans.Load(), time.Since(began).Round(time.Second))
}

// shown is a chat message still showing buttons: its channel, its ref and the data
// of its buttons.
type shown struct{ channel, ref, data string }

// buttonsLeft waits, 30 seconds at most, until no message on either test server
// shows buttons, and returns the ones that still do.
func buttonsLeft(ctx context.Context, tg *telegramtest.Server, sl *slacktest.Server) []shown {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tgLeft := func() []shown {
		var out []shown
		for _, m := range tg.Messages(jane.ID) {
			if m.Keyboard != nil && len(m.Keyboard.InlineKeyboard) > 0 {
				out = append(out, shown{"telegram", strconv.Itoa(m.MessageID),
					`"` + strings.Join(m.CallbackData(), ",")})
			}
		}
		return out
	}
	_ = tg.Wait(ctx, func() bool { return len(tgLeft()) == 0 })
	out := tgLeft()
	for _, m := range sl.Messages(slacktest.DefaultChannel) {
		for ctx.Err() == nil {
			cur, ok := sl.Current(slacktest.DefaultChannel, m.TS)
			if !ok || !strings.Contains(string(cur.RawBlocks), `"type":"actions"`) {
				break
			}
			// Its edit may still be in flight: wait for the next update.
			n := len(sl.Updates(slacktest.DefaultChannel, m.TS))
			_, _ = sl.WaitUpdates(ctx, slacktest.DefaultChannel, m.TS, n+1)
		}
		if cur, ok := sl.Current(slacktest.DefaultChannel, m.TS); ok &&
			strings.Contains(string(cur.RawBlocks), `"type":"actions"`) {
			out = append(out, shown{"slack", m.TS, string(cur.RawBlocks)})
		}
	}
	return out
}

// settle resolves every pending request through the API until none is left.
func settle(t *testing.T, ctx context.Context, c *api.Client, fig *figures) {
	t.Helper()
	for ctx.Err() == nil {
		in, err := c.Inbox(ctx)
		if err != nil {
			t.Fatalf("inbox: %v", err)
		}
		if len(in.Approvals) == 0 {
			return
		}
		for _, q := range in.Approvals {
			if _, err := c.Resolve(ctx, q.ID, api.ResolveRequest{Action: "reject"}); err == nil {
				fig.resolutions.Add(1)
			} else if errors.Is(err, api.ErrConflict) {
				fig.duplicates.Add(1)
			}
		}
	}
}

// requestOf finds the request id in a Slack prompt's blocks ("a:<id>:ok").
func requestOf(blocks string) (uint64, bool) {
	i := strings.Index(blocks, `"a:`)
	if i < 0 {
		return 0, false
	}
	rest := blocks[i+3:]
	j := strings.IndexByte(rest, ':')
	if j < 0 {
		return 0, false
	}
	id, err := strconv.ParseUint(rest[:j], 10, 64)
	return id, err == nil
}
