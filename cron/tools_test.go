package cron_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// linkedWorkspace makes a workspace root with data/, secrets/key, a symlink data/vault →
// ../secrets and a symlink data/key → ../secrets/key, and returns its Env.
func linkedWorkspace(t *testing.T) cron.Env {
	t.Helper()
	base := testkit.Dir(t, "data/sub", "secrets")
	testkit.WriteFile(t, filepath.Join(base, "secrets/key"), "hunter2")
	testkit.WriteFile(t, filepath.Join(base, "data/a.txt"), "alpha")
	for link, target := range map[string]string{
		"data/vault": "../secrets", "data/key": "../secrets/key",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	return cron.Env{Root: base, WorkDir: base}
}

func runTool(t *testing.T, env cron.Env, tool string, args map[string]any) (cron.Result, error) {
	t.Helper()
	return cron.Builtins()[tool].Run(context.Background(), env, args)
}

func TestExecuteCmd(t *testing.T) {
	env := linkedWorkspace(t)
	env.WorkDir = filepath.Join(env.Root, "data")
	t.Setenv("SKALD_API_TOKEN", "sekret-token")
	t.Setenv("CRON_TEST_VISIBLE", "yes")

	res, err := runTool(t, env, "execute_cmd",
		map[string]any{"cmd": `pwd; echo "[$SKALD_API_TOKEN][$CRON_TEST_VISIBLE]"`})
	if err != nil || res.ExitCode != 0 || res.Output != env.WorkDir+"\n[][yes]\n" {
		t.Errorf("in the working directory, without SKALD_*: %+v %v", res, err)
	}
	res, err = runTool(t, env, "execute_cmd", map[string]any{"cmd": "pwd", "cwd": "sub"})
	if err != nil || res.Output != filepath.Join(env.WorkDir, "sub")+"\n" {
		t.Errorf("cwd relative to the working directory: %+v %v", res, err)
	}
	res, err = runTool(t, env, "execute_cmd",
		map[string]any{"cmd": "echo out; echo err >&2; exit 7"})
	if err == nil || err.Error() != "exit status 7" || res.ExitCode != 7 ||
		res.Output != "out\nerr\n" {
		t.Errorf("failing command: %+v %v", res, err)
	}
	res, err = runTool(t, env, "execute_cmd",
		map[string]any{"cmd": "head -c 20000 /dev/zero | tr '\\0' x; echo END"})
	if err != nil || len(res.Output) != cron.MaxOutput ||
		!strings.HasSuffix(res.Output, "xxEND\n") {
		t.Errorf("long output: %d bytes, ends %q, %v",
			len(res.Output), res.Output[max(0, len(res.Output)-8):], err)
	}
	_, err = runTool(t, env, "execute_cmd", map[string]any{"cmd": "true", "cwd": "vault"})
	testkit.WantErr(t, err, cron.ErrSecrets,
		`cwd: path "vault": a secrets directory is never listed, read or written`)
	_, err = runTool(t, env, "execute_cmd", map[string]any{"cmd": "true", "timeout": "-1s"})
	testkit.WantErr(t, err, cron.ErrBadArgs, "timeout -1s must be positive")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = cron.Builtins()["execute_cmd"].Run(ctx, env, map[string]any{"cmd": "echo never"})
	if err == nil || !errors.Is(err, context.Canceled) || res.ExitCode != -1 {
		t.Errorf("cancelled: %+v %v", res, err)
	}
}

func TestFileToolsAndTheSecretsRule(t *testing.T) {
	env := linkedWorkspace(t)
	refused := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "secrets/key"}},
		{"read_file", map[string]any{"path": "data/../secrets/key"}},
		{"read_file", map[string]any{"path": "data/key"}},       // symlink to secrets/key
		{"read_file", map[string]any{"path": "data/vault/key"}}, // through a symlinked directory
		{"read_file", map[string]any{"path": "data/vault/../secrets/key"}},
		{"read_file", map[string]any{"path": filepath.Join(env.Root, "secrets/key")}},
		{"list_files", map[string]any{"path": "secrets"}},
		{"list_files", map[string]any{"path": "data/vault"}},
		{"write_file", map[string]any{"path": "secrets/new", "content": "x"}},
		{"write_file", map[string]any{"path": "data/vault/new", "content": "x"}},
		{"write_file", map[string]any{"path": "data/key", "content": "x"}},
	}
	for _, c := range refused {
		t.Run(c.tool, func(t *testing.T) {
			res, err := runTool(t, env, c.tool, c.args)
			testkit.WantErr(t, err, cron.ErrSecrets, fmt.Sprintf(
				"path %q: a secrets directory is never listed, read or written", c.args["path"]))
			if res.Output != "" || res.ExitCode != 1 {
				t.Errorf("%s %v: %+v", c.tool, c.args, res)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(env.Root, "secrets/key"))
	if err != nil || string(b) != "hunter2" {
		t.Error("a refused write changed secrets/key", err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "secrets/new")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused write created a file in secrets/")
	}

	res, err := runTool(t, env, "list_files", map[string]any{"path": "."})
	if err != nil || res.Output != "data/\n" {
		t.Errorf("listing the root shows %q (%v), want secrets/ left out", res.Output, err)
	}
	res, err = runTool(t, env, "list_files", map[string]any{"path": "data"})
	if err != nil || res.Output != "a.txt\nsub/\n" {
		t.Errorf("listing data shows %q (%v), want the symlinks into secrets left out",
			res.Output, err)
	}

	res, err = runTool(t, env, "write_file",
		map[string]any{"path": "data/new/deep/b.txt", "content": "bravo"})
	if err != nil || res.Output != "wrote 5 bytes to data/new/deep/b.txt\n" {
		t.Errorf("write: %+v %v", res, err)
	}
	res, err = runTool(t, env, "read_file", map[string]any{"path": "data/new/deep/b.txt"})
	if err != nil || res.Output != "bravo" {
		t.Errorf("read back: %+v %v", res, err)
	}
	env.WorkDir = filepath.Join(env.Root, "data")
	res, err = runTool(t, env, "read_file", map[string]any{"path": "a.txt"})
	if err != nil || res.Output != "alpha" {
		t.Errorf("a relative path resolves against the working directory: %+v %v", res, err)
	}

	big := strings.Repeat("é", cron.MaxOutput) + "END" // 2 bytes a character
	testkit.WriteFile(t, filepath.Join(env.Root, "data/big.txt"), big)
	res, err = runTool(t, env, "read_file", map[string]any{"path": "big.txt"})
	if err != nil || len(res.Output) > cron.MaxOutput || len(res.Output) < cron.MaxOutput-1 ||
		!strings.HasSuffix(res.Output, "éEND") || !strings.HasPrefix(res.Output, "é") {
		t.Errorf("a big file: %d bytes, %v", len(res.Output), err)
	}

	_, err = runTool(t, env, "read_file", map[string]any{"path": "missing"})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	_, err = runTool(t, env, "read_file", map[string]any{"path": "sub"})
	if err == nil || err.Error() != "sub is a directory (use list_files)" {
		t.Errorf("reading a directory: %v", err)
	}
	_, err = runTool(t, env, "read_file", map[string]any{"path": "a\x00b"})
	testkit.WantErr(t, err, cron.ErrBadArgs, "NUL")
}

func TestHTTPRequest(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, err := io.ReadAll(r.Body)
			testkit.Must(t, err)
			w.Header().Set("X-Seen", r.Header.Get("X-Token"))
			fmt.Fprintf(w, "%s %s", r.Method, body)
		case "/fail":
			http.Error(w, "broken", http.StatusInternalServerError)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	env := linkedWorkspace(t)

	res, err := runTool(t, env, "http_request", map[string]any{"method": "post",
		"url": srv.URL + "/echo", "headers": map[string]any{"X-Token": "abc"}, "body": "ping"})
	if err != nil || res.ExitCode != 0 || !strings.HasPrefix(res.Output, "HTTP/1.1 200 OK\n") ||
		!strings.Contains(res.Output, "\nX-Seen: abc\n") ||
		!strings.HasSuffix(res.Output, "\n\nPOST ping") {
		t.Errorf("POST: %+v %v", res, err)
	}
	res, err = runTool(t, env, "http_request",
		map[string]any{"method": "GET", "url": srv.URL + "/fail"})
	if err == nil || err.Error() != "HTTP status 500 Internal Server Error" ||
		res.ExitCode != 500 || !strings.HasSuffix(res.Output, "broken\n") {
		t.Errorf("500: %+v %v", res, err)
	}
	res, err = runTool(t, env, "http_request", map[string]any{"method": "GET",
		"url": srv.URL + "/slow?token=sekret", "timeout": "200ms"})
	testkit.WantErr(t, err, cron.ErrTimeout, "GET "+srv.URL+"/slow: timed out after 200ms")
	if strings.Contains(err.Error(), "sekret") || res.ExitCode != 1 {
		t.Errorf("timeout: %+v %v", res, err)
	}
	_, err = runTool(t, env, "http_request", map[string]any{"url": srv.URL})
	testkit.WantErr(t, err, cron.ErrBadArgs, "method is required")
}
