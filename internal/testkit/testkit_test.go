package testkit_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestClock(t *testing.T) {
	c := testkit.NewClock(testkit.T0)
	if got := c.Now(); !got.Equal(testkit.T0) {
		t.Fatalf("Now = %v, want %v", got, testkit.T0)
	}
	if got := c.Add(time.Minute); !got.Equal(testkit.T0.Add(time.Minute)) || !c.Now().Equal(got) {
		t.Fatalf("Add = %v, Now = %v", got, c.Now())
	}
	var zero testkit.Clock
	if zero.Now().IsZero() {
		t.Fatal("a zero Clock reads the zero time, want time.Now")
	}
}

func TestWantErrPasses(t *testing.T) {
	sentinel := errors.New("not found")
	testkit.WantErr(t, fmt.Errorf("store: rule 7: %w", sentinel), sentinel, "rule 7", "not found")
}

func TestJSON(t *testing.T) {
	if got := testkit.JSON(map[string]int{"a": 1}); got != `{"a":1}` {
		t.Fatalf("JSON = %s", got)
	}
	if got := testkit.JSON(func() {}); got == "" {
		t.Fatal("JSON of a func gave no error text")
	}
}

func TestLoggerDiscards(t *testing.T) {
	if testkit.Logger().Enabled(t.Context(), slog.LevelError) {
		t.Fatal("the quiet logger is enabled for errors")
	}
}

// Wait returns a record logged before or after it is called, and ctx's error when
// none comes.
func TestLogsWait(t *testing.T) {
	var l testkit.Logs
	log := l.Logger().With("component", "x")
	log.Info("first", "n", 1)
	ctx := testkit.Context(t, 30*time.Second)
	want := []string{"first", "component=x", "n=1"}
	if got, err := l.Wait(ctx, []string{"nothing"}, want); err != nil ||
		got != "INFO first component=x n=1" {
		t.Fatalf("Wait = %q, %v", got, err)
	}
	done := make(chan string)
	go func() {
		got, err := l.Wait(ctx, []string{"second"})
		if err != nil {
			got = err.Error()
		}
		done <- got
	}()
	log.Warn("second")
	if got := <-done; got != "WARN second component=x" {
		t.Errorf("Wait = %q", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := l.Wait(cctx, []string{"third"})
	testkit.WantErr(t, err, context.Canceled, "waiting for a log record")
	if n := len(l.Find("component=x")); n != 2 {
		t.Errorf("Find: %d records, want 2:\n%s", n, l.All())
	}
}

func TestReadEventSkipsComments(t *testing.T) {
	r := bufio.NewReader(strings.NewReader(
		": hello\n\n: ping\n\nevent: a\ndata: {}\n\nevent: b\n\n"))
	if name, data := testkit.ReadEvent(t, r); name != "a" || data != "{}" {
		t.Fatalf("first event %q %q", name, data)
	}
	if name, data := testkit.ReadEvent(t, r); name != "b" || data != "" {
		t.Fatalf("second event %q %q", name, data)
	}
}

func TestDirIsRealWithSubdirs(t *testing.T) {
	dir := testkit.Dir(t, "ws/secrets", "data")
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		t.Fatalf("Dir = %s, real path %s (%v)", dir, real, err)
	}
	for _, d := range []string{"ws/secrets", "data"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Fatalf("%s: %v", d, err)
		}
	}
}

// Serve serves on loopback until stop, and stop cancels the context serve was given
// and waits for serve to return; a second stop does nothing.
func TestServe(t *testing.T) {
	returned := make(chan struct{})
	url, stop := testkit.Serve(t, func(ctx context.Context, ln net.Listener) error {
		defer close(returned)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter,
			_ *http.Request) {
			fmt.Fprint(w, "ok")
		})}
		go func() {
			<-ctx.Done()
			_ = srv.Close()
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q, want one on 127.0.0.1", url)
	}
	resp, err := http.Get(url)
	testkit.Must(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "ok" {
		t.Fatalf("GET %s = %q, %v", url, b, err)
	}
	stop()
	select {
	case <-returned:
	default:
		t.Fatal("stop returned before serve did")
	}
	stop()
}

// FileBytes reads what was written, and FileUnchanged passes while the file still holds
// it.
func TestFileBytes(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	testkit.WriteFile(t, name, "abc")
	before := testkit.FileBytes(t, name)
	if string(before) != "abc" {
		t.Fatalf("FileBytes = %q, want abc", before)
	}
	testkit.FileUnchanged(t, name, before)
}
