package testkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// T0 is the tests' start of time: a fixed instant, so that golden output is stable.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Clock is a settable clock for the Now options of the packages under test. The zero
// Clock reads time.Now (the fake one inside a synctest bubble) until Set is called.
// Safe for concurrent use.
type Clock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

// NewClock returns a Clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the time last Set, or time.Now when none was.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		return time.Now()
	}
	return c.now
}

// Set sets the time Now returns.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Add moves the clock by d and returns the new time; a zero Clock starts from
// time.Now.
func (c *Clock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = time.Now()
	}
	c.now = c.now.Add(d)
	return c.now
}

// WantErr fails the test at once unless err wraps target (errors.Is), and marks it
// failed for each of parts the message does not contain.
func WantErr(t testing.TB, err, target error, parts ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want one wrapping %v", err, target)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
}

// Must fails the test at once when err is not nil.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// JSON returns v encoded as JSON, or the encoding error's text.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// ID returns id in decimal, as paths, commands and messages spell an id.
func ID(id uint64) string { return strconv.FormatUint(id, 10) }

// Marshal returns v encoded as JSON. It fails the test on an error.
func Marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return b
}

// Context returns a context that ends with the test, or after limit, so that a hang
// fails the test instead of stalling the suite.
func Context(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	return ctx
}

// Serve runs serve on a new listener on 127.0.0.1 until stop is called or the test
// ends, and returns the listener's URL ("http://127.0.0.1:port"). stop cancels serve's
// context, waits for serve to return and marks the test failed when it returned an
// error; it may be called more than once. Serve fails the test at once when it cannot
// listen.
func Serve(t testing.TB, serve func(context.Context, net.Listener) error) (url string,
	stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), stop
}

// Logger returns a logger for components whose logs the test does not read: it
// discards everything, unless the tests run with -v and SKALD_TEST_LOG set, when it
// writes debug logs to stderr.
func Logger() *slog.Logger {
	if testing.Verbose() && os.Getenv("SKALD_TEST_LOG") != "" {
		opts := &slog.HandlerOptions{Level: slog.LevelDebug}
		return slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	return slog.New(slog.DiscardHandler)
}

// ReadEvent reads one Server-Sent Event from r and returns its name and data, skipping
// comments and lines before the event. It fails the test when r ends or fails first.
func ReadEvent(t testing.TB, r *bufio.Reader) (name, data string) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read event: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && name != "":
			return name, data
		}
	}
}

// ReadFile returns the contents of testdata/name in the directory of the package under
// test. It fails the test on an error.
func ReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadJSON decodes testdata/name, as ReadFile finds it, into v. It fails the test on
// an error.
func ReadJSON(t testing.TB, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(ReadFile(t, name), v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// FileBytes returns the content of the file name. It fails the test at once on an
// error.
func FileBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FileUnchanged fails the test (and goes on) when the file name no longer holds
// before, as FileBytes read it: a check that nothing was written.
func FileUnchanged(t testing.TB, name string, before []byte) {
	t.Helper()
	if !bytes.Equal(before, FileBytes(t, name)) {
		t.Errorf("%s changed on disk", filepath.Base(name))
	}
}

// WriteFile writes text to the file name (mode 0644), truncating it in place when it
// exists. It fails the test on an error.
func WriteFile(t testing.TB, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Dir returns a new directory below t.TempDir() by its real path (symlinks resolved, as
// the rules resolve workspace paths), with each of subdirs (slash-separated, relative)
// created in it. It fails the test on an error.
func Dir(t testing.TB, subdirs ...string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range subdirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Files creates each of files (slash-separated, relative to dir) holding "x", with
// the directories above it. It fails the test on an error.
func Files(t testing.TB, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		name := filepath.Join(dir, filepath.FromSlash(f))
		Must(t, os.MkdirAll(filepath.Dir(name), 0o755))
		Must(t, os.WriteFile(name, []byte("x"), 0o600))
	}
}

// CommandHead returns the first 40 bytes of command c (all of it when shorter): how a
// prompt line, a summary line or an inbox item starts it before any cut.
func CommandHead(c string) string {
	if len(c) > 40 {
		return c[:40]
	}
	return c
}
