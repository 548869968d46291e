package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The helpers of the tests that run skald-bot as a process: the binary, built once
// per test run; a running process whose stderr is read line by line; the command
// line as a child process.

// raceBuild is set when the tests run with -race; the binary is then built with it.
var raceBuild = false

// serveGuard bounds how long a test waits for the process; it is a guard against a
// hang, never a synchronisation.
const serveGuard = 60 * time.Second

var buildOnce struct {
	sync.Once
	path string
	err  error
}

// skaldBinary builds skald-bot once per test run, into a temporary directory that
// TestMain removes (with -race when the tests run with it), and returns its path. It
// skips the test under -short.
func skaldBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildOnce.err = err
			return
		}
		dir, err := os.MkdirTemp("", "skald-bot-bin")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "skald-bot")
		// No VCS stamping: it fails where git is missing or distrusts the checkout.
		args := []string{"build", "-buildvcs=false", "-o", buildOnce.path}
		if raceBuild {
			args = append(args, "-race")
		}
		out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput()
		if err != nil {
			buildOnce.err = errors.New(string(out))
		}
	})
	if buildOnce.err != nil {
		t.Fatalf("go build: %v", buildOnce.err)
	}
	return buildOnce.path
}

// TestMain removes the binary built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildOnce.path != "" {
		os.RemoveAll(filepath.Dir(buildOnce.path))
	}
	os.Exit(code)
}

// skaldProcess is a running skald-bot whose stderr is read to its end by a goroutine
// of its own — so the process never blocks on a full pipe, however little the test
// reads — and kept, line by line, for waitFor and exit.
type skaldProcess struct {
	cmd  *exec.Cmd
	eof  chan struct{} // closed when stderr has been read to its end
	mu   sync.Mutex    // guards seen and changed
	seen []string      // stderr lines so far
	// changed is closed and replaced at each new line, waking waitFor.
	changed chan struct{}
	// taken marks the lines waitFor returned; the test's goroutine only.
	taken map[int]bool
}

// startSkald runs the binary with args and extra environment variables, in dir. The
// process is killed when the test ends, should it still run.
func startSkald(t *testing.T, dir string, env []string, args ...string) *skaldProcess {
	t.Helper()
	cmd := exec.Command(skaldBinary(t), args...)
	cmd.Dir = dir
	// TEST_ADMIN_TOKEN: the api.token of testConfig.
	cmd.Env = append(os.Environ(), "SKALD_CONFIG=", "SKALD_URL=", "SKALD_API_TOKEN=",
		"TEST_ADMIN_TOKEN="+adminToken)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	return startReading(t, cmd, stderr)
}

// startReading starts cmd and reads out, one of its pipes, for waitFor and exit. The
// process is killed when the test ends, should it still run.
func startReading(t *testing.T, cmd *exec.Cmd, out io.Reader) *skaldProcess {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &skaldProcess{cmd: cmd, eof: make(chan struct{}), changed: make(chan struct{}),
		taken: map[int]bool{}}
	go p.read(out)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.eof
			cmd.Wait()
		}
	})
	return p
}

func (p *skaldProcess) read(r io.Reader) {
	defer close(p.eof)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.mu.Lock()
		p.seen = append(p.seen, sc.Text())
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
	// A read error (the pipe closed by Wait) ends the lines as EOF does.
}

// lines returns every stderr line read so far.
func (p *skaldProcess) lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// waitFor returns the first line that contains every one of want and that no
// earlier waitFor returned, blocking until it is logged: lines logged in either
// order can be waited for one after the other. It fails the test when stderr ends
// first, or after serveGuard.
func (p *skaldProcess) waitFor(t *testing.T, want ...string) string {
	t.Helper()
	guard := time.NewTimer(serveGuard)
	defer guard.Stop()
	for {
		p.mu.Lock()
		lines, changed := p.seen, p.changed
		p.mu.Unlock()
		for i, line := range lines {
			if !p.taken[i] && containsAll(line, want) {
				p.taken[i] = true
				return line
			}
		}
		select {
		case <-changed:
		case <-p.eof:
			if len(p.lines()) == len(lines) {
				t.Fatalf("stderr ended before %q; got:\n%s", want, strings.Join(lines, "\n"))
			}
		case <-guard.C:
			t.Fatalf("no %q within %v; got:\n%s", want, serveGuard, strings.Join(lines, "\n"))
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// exit waits for the process to end (killing it after serveGuard) and returns its
// exit code (-1 when a signal killed it) and every stderr line.
func (p *skaldProcess) exit(t *testing.T) (int, []string) {
	t.Helper()
	guard := time.AfterFunc(serveGuard, func() { p.cmd.Process.Kill() })
	defer guard.Stop()
	<-p.eof
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode(), p.lines()
}

// signal sends sig to the process.
func (p *skaldProcess) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// signalExit sends sig, waits for the process to end and returns its stderr lines; it
// fails the test, showing them, when the exit code is not want (-1: killed by a signal).
func (p *skaldProcess) signalExit(t *testing.T, sig os.Signal, want int) []string {
	t.Helper()
	p.signal(t, sig)
	code, lines := p.exit(t)
	if code != want {
		t.Fatalf("after %v: exit %d, want %d; stderr:\n%s", sig, code, want,
			strings.Join(lines, "\n"))
	}
	return lines
}

// service is `skald-bot serve` running as a process.
type service struct {
	*skaldProcess
	// url is the API's base URL, "http://127.0.0.1:PORT", from the serving line.
	url string
	// token is the generated admin token ("" when the configuration names one).
	token string
}

// startService starts `serve --config cfg` in cfg's directory and returns once it
// logs that it is serving, with the API's bound address and the admin token it
// generated, if any.
func startService(t *testing.T, cfg string) *service {
	t.Helper()
	p := startSkald(t, filepath.Dir(cfg), nil, "serve", "--config", cfg)
	line := p.waitFor(t, "msg=serving")
	addr := logValue(line, "api")
	if addr == "" {
		t.Fatalf("the serving line names no API address: %s", line)
	}
	svc := &service{skaldProcess: p, url: "http://" + addr}
	for _, l := range p.lines() { // logged before "serving"
		if file := logValue(l, "file"); strings.Contains(l, `msg="admin token"`) && file != "" {
			tok, err := readAdminToken(file)
			if err != nil {
				t.Fatal(err)
			}
			svc.token = tok
		}
	}
	return svc
}

// logValue returns the value of key in a text log line (key=value), "" when absent.
func logValue(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// stop sends SIGTERM and waits for a clean exit.
func (s *service) stop(t *testing.T) {
	t.Helper()
	s.signalExit(t, syscall.SIGTERM, 0)
}

// kill ends the process with SIGKILL — no clean-up of any kind — and waits for it.
func (s *service) kill(t *testing.T) {
	t.Helper()
	s.signalExit(t, syscall.SIGKILL, -1)
}

// cli runs the binary with args, the SKALD_* variables cleared, and returns its exit
// code and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliIn(t, nil, nil, args...)
}

// cliIn runs the binary with args, stdin and extra environment variables (after
// clearing SKALD_*), and returns its exit code and output.
func cliIn(t *testing.T, stdin []byte, env []string,
	args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliRun(t, "", stdin, env, args...)
}

// cliRun is cliIn in dir ("" for the test's working directory).
func cliRun(t *testing.T, dir string, stdin []byte, env []string, args ...string) (code int,
	stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(skaldBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SKALD_URL=", "SKALD_API_TOKEN=", "SKALD_CONFIG=")
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}
