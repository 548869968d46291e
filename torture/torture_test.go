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
	"slices"
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
	// resumed counts the runs that went on after a kill; steps the cron steps that ran,
	// edited those of them that ran under a config whose steps were not their run's.
	resumed, steps, edited atomic.Int64
}

// proc is one running skald-bot serve.
type proc struct {
	cmd   *exec.Cmd
	url   string
	done  chan struct{} // closed when stderr is read to its end
	mu    sync.Mutex
	lines []string
}

// startServe starts `skald-bot serve` with the config file cfg and returns it once it
// logs that it serves, with the API URL it logged; it fails the test when the process
// exits first or ctx ends.
func startServe(t *testing.T, ctx context.Context, cfg string) *proc {
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
	kills, agents, perAgent, limit := 20, 4, 4, 10*time.Minute
	if os.Getenv("SKALD_TORTURE") == "long" {
		// The cron runs' prompts and steps take minutes more on a loaded machine.
		kills, agents, perAgent, limit = 100, 50, 4, 25*time.Minute
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
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
	// The config of start gen: the job's steps carry gen, so that a run resumed after
	// a restart has configured steps other than the ones it stored, and its marker
	// lines say which it ran.
	writeConfig := func(gen int) {
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
    notify: always
    steps:
%s%s`, filepath.Join(dir, "data"), ws, adminToken, tg.Token(), tg.URL(), jane.ID, jane.ID,
			slacktest.DefaultBotToken, slacktest.DefaultAppToken, sl.URL(),
			slacktest.DefaultChannel, slacktest.DefaultUser, markStep(1, gen), markStep(2, gen))
		if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
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

	var starts []time.Time // when each start's process was launched
	for k := 0; k <= kills; k++ {
		writeConfig(k)
		starts = append(starts, time.Now())
		p := startServe(t, ctx, cfg)
		c := api.NewClient(p.url, adminToken)
		if err := sl.WaitConnections(ctx, k+1); err != nil {
			t.Fatalf("Slack Socket Mode: %v\n%s", err, p.log())
		}
		gctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		final := k == kills
		if !final {
			// Cron: runs whose two steps each wait for approval, started before the
			// rest, so that every start has some to suspend, resume or cut short.
			var shows []string
			for range 2 {
				r, err := c.RunJob(gctx, "mark")
				if err != nil {
					// The API serves before the scheduler is ready: a trigger then
					// gets 500 (the scheduler is not running).
					t.Logf("start %d: run job: %v", k, err)
					continue
				}
				fig.runs.Add(1)
				shows = append(shows, "cron job mark, run "+strconv.FormatUint(r.ID, 10)+"\n")
			}
			// Until both (nearly) wait for their first approval: their prompts are
			// armed on Telegram.
			wctx, wcancel := context.WithTimeout(gctx, 20*time.Second)
			_ = tg.Wait(wctx, func() bool {
				left := slices.Clone(shows)
				for _, m := range tg.Messages(jane.ID) {
					left = slices.DeleteFunc(left, func(s string) bool {
						return m.Keyboard != nil && strings.Contains(m.PlainText, s)
					})
				}
				return len(left) == 0
			})
			wcancel()
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
			// Cron: one more run, which a kill may cut short as it starts.
			wg.Go(func() {
				if _, err := c.RunJob(gctx, "mark"); err == nil {
					fig.runs.Add(1)
					op()
				}
			})
			// Kill at a random point: after a random number of operations.
			idle := make(chan struct{})
			go func() { wg.Wait(); close(idle) }()
			want := 2 + rng.IntN(6*agents*perAgent) // taps on the runs' prompts count too
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
		// request is resolved, or no request records it. The runs that waited across
		// the last kill are approved to their end first, so that they resume under a
		// config whose steps differ from the ones they stored.
		driveCron(t, gctx, c, tg, &fig)
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
	checkCron(t, s, ws, starts, &fig)
	t.Logf("kills %d, requests %d, API resolutions %d, duplicates refused %d, "+
		"taps %d, clicks %d, runs %d (resumed after a kill %d), "+
		"cron steps run %d (under an edited config %d), orphan prompts %d, time %s",
		fig.kills.Load(), fig.requests.Load(), fig.resolutions.Load(), fig.duplicates.Load(),
		fig.taps.Load(), fig.clicks.Load(), fig.runs.Load(), fig.resumed.Load(), fig.steps.Load(),
		fig.edited.Load(), fig.orphans.Load(), time.Since(began).Round(time.Second))
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

// markStep is step n of the job in the config of start gen: an execute_cmd, which
// needs approval, that appends "g<gen> <token>" to data/step<n>.log and prints the
// token, unique to this execution, which the run stores as the step's output.
func markStep(n, gen int) string {
	return fmt.Sprintf("      - tool: execute_cmd\n        args: {cmd: 't=$$$$-$(date +%%s%%N); "+
		"echo \"g%d $t\" >> data/step%d.log; echo $t'}\n", gen, n)
}

// driveCron brings every run of job mark to its end: it approves each request a
// run waits on, and waits, through the Telegram server, for a running one to ask its
// next step or end (notify: always, so an end posts a notice).
func driveCron(t *testing.T, ctx context.Context, c *api.Client, tg *telegramtest.Server,
	fig *figures) {
	t.Helper()
	for ctx.Err() == nil {
		sent := tg.CallCount("sendMessage")
		runs, err := c.Runs(ctx, "mark")
		if err != nil {
			t.Fatalf("runs: %v", err)
		}
		running := false
		for _, r := range runs {
			switch r.Status {
			case store.RunRunning:
				running = true
			case store.RunWaitingApproval:
				running = true
				approve := api.ResolveRequest{Action: "approve"}
				if _, err := c.Resolve(ctx, r.RequestID, approve); err == nil {
					fig.resolutions.Add(1)
				}
			}
		}
		if !running {
			return
		}
		more := func() bool { return tg.CallCount("sendMessage") > sent }
		if err := tg.Wait(ctx, more); err != nil {
			t.Fatalf("waiting for the runs to go on: %v", err)
		}
	}
}

// checkCron checks the runs of job mark against the marker files in ws: every step
// the store records as succeeded appended its line exactly once, with the generation
// of the steps the run stored when it started — not of the config it resumed under —;
// a line no succeeded step accounts for comes only from a step a kill interrupted;
// an approved step ran, unless a kill interrupted it; a run that resumed after a kill
// is marked config_changed. starts are the launch times of each start, to tell which
// config a step ran under.
func checkCron(t *testing.T, s *store.DB, ws string, starts []time.Time, fig *figures) {
	t.Helper()
	runs, err := s.RunsByStatus(store.RunSucceeded, store.RunInterrupted, store.RunFailed,
		store.RunRejected, store.RunExpired, store.RunCancelled, store.RunDenied,
		store.RunWaitingApproval, store.RunRunning)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		lines := map[string]int{} // "g<gen> <token>" → times written
		b, err := os.ReadFile(filepath.Join(ws, "data", "step"+strconv.Itoa(n)+".log"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(b)) {
			lines[strings.TrimSuffix(l, "\n")]++
		}
		interrupted := 0
		for _, r := range runs {
			if r.Status == store.RunWaitingApproval || r.Status == store.RunRunning {
				t.Errorf("run %d still %s after settling", r.ID, r.Status)
			}
			if n == 1 && r.ConfigChanged {
				fig.resumed.Add(1)
			}
			if len(r.Steps) < n || len(r.Plan) < n {
				continue
			}
			st, plan := r.Steps[n-1], r.Plan[n-1]
			var gen int
			cmd, _ := plan.Args["cmd"].(string)
			num := cmd[strings.Index(cmd, "echo")+len(`echo "g`):]
			if _, err := fmt.Sscanf(num, "%d", &gen); err != nil {
				t.Fatalf("run %d step %d: stored command %q: %v", r.ID, n, cmd, err)
			}
			switch st.Status {
			case string(store.RunSucceeded):
				fig.steps.Add(1)
				line := fmt.Sprintf("g%d %s", gen, strings.TrimSpace(st.Output))
				if lines[line] != 1 {
					t.Errorf("run %d step %d (stored steps of start %d) succeeded with %q: "+
						"written %d times, want once", r.ID, n, gen, line, lines[line])
				}
				delete(lines, line)
				under := 0
				for k, at := range starts {
					if !st.StartedAt.Before(at) {
						under = k
					}
				}
				if under != gen {
					fig.edited.Add(1)
					if !r.ConfigChanged {
						t.Errorf("run %d of start %d ran step %d under start %d's config, "+
							"not marked config_changed", r.ID, gen, n, under)
					}
				}
			case string(store.RunRunning), string(store.RunInterrupted):
				interrupted++
			default:
				if st.RequestID == 0 {
					break
				}
				if q, err := s.Request(st.RequestID); err == nil && q.Status == store.Approved {
					t.Errorf("run %d step %d: request %d approved, step %s, run %s; want it run",
						r.ID, n, st.RequestID, st.Status, r.Status)
				}
			}
		}
		left := 0
		for _, c := range lines {
			left += c
		}
		if left > interrupted {
			t.Errorf("step %d: %d marker lines no succeeded step accounts for, but %d "+
				"interrupted: %v", n, left, interrupted, lines)
		}
	}
	if fig.resumed.Load() == 0 || fig.edited.Load() == 0 {
		t.Errorf("%d runs resumed after a kill, %d steps ran under an edited config; "+
			"want some of each", fig.resumed.Load(), fig.edited.Load())
	}
}
