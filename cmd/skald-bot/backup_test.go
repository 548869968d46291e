package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/store"
)

// pendingCheck makes a check the seed sends for approval and returns its request id.
func pendingCheck(t *testing.T, s *testServer, toolCallID string) string {
	t.Helper()
	code, out, errOut := runClient(t, "check", "--server", s.url,
		"--tool", "Bash", "--arg", "command=make",
		"--tool-call-id", toolCallID, "--wait", "0s", "--keep", "--json")
	var res struct {
		RequestID uint64 `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != exitPending || res.RequestID == 0 {
		t.Fatalf("check: exit %d %s %s: %v", code, out, errOut, err)
	}
	return testkit.ID(res.RequestID)
}

// dirEntries returns the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestBackupCommand(t *testing.T) {
	s := startServer(t, "/w")
	pendingCheck(t, s, "t1")
	if code, _, errOut := runClient(t, "rules", "add", "deny", "Read", "--path", "keys/*",
		"--server", s.url); code != 0 {
		t.Fatalf("rules add: %s", errOut)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "skald.db")

	code, out, errOut := runClient(t, "backup", file, "--server", s.url)
	fi, err := os.Stat(file)
	if code != 0 || err != nil ||
		out != file+": "+testkit.ID(uint64(fi.Size()))+" bytes, checked\n" || errOut != "" {
		t.Fatalf("backup: exit %d %q %q (%v)", code, out, errOut, err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if got, want := teststore.SnapshotFile(t, file), teststore.Snapshot(t, s.db); got != want {
		t.Fatalf("the copy differs:\ncopy   %s\nsource %s", got, want)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Fatalf("the directory holds %v, want the copy only", names)
	}

	// An existing FILE is kept: exit 2, nothing written, the server not asked.
	before, err := os.ReadFile(file)
	testkit.Must(t, err)
	pendingCheck(t, s, "t2")
	code, out, errOut = runClient(t, "backup", file, "--server", s.url)
	if code != 2 || out != "" || errOut != "skald-bot: "+file+
		" exists: give --force to replace it (see skald-bot backup --help)\n" {
		t.Fatalf("backup onto an existing file: exit %d %q %q", code, out, errOut)
	}
	if after, err := os.ReadFile(file); err != nil || !bytes.Equal(before, after) {
		t.Fatal("the existing file changed", err)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Fatalf("the directory holds %v after a refused backup", names)
	}

	// --force replaces it with a copy holding the new request; --json says what.
	code, out, errOut = runClient(t, "backup", file, "--force", "--json", "--server", s.url)
	var res struct {
		File  string `json:"file"`
		Bytes int64  `json:"bytes"`
	}
	fi, err = os.Stat(file)
	testkit.Must(t, err)
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.File != file ||
		res.Bytes != fi.Size() {
		t.Fatalf("backup --force --json: exit %d %q %q", code, out, errOut)
	}
	if p := teststore.SnapshotFile(t, file); strings.Count(p, `"status":"pending"`) != 2 {
		t.Fatalf("the replaced copy holds %s, want 2 pending requests", p)
	}
}

// TestBackupCommandWritesNothingOnError: whatever goes wrong, neither FILE nor
// FILE.tmp is left behind — and a FILE.tmp that is there already is not touched.
func TestBackupCommandWritesNothingOnError(t *testing.T) {
	s := startServer(t, "/w")
	var whole bytes.Buffer
	if _, err := s.db.WriteTo(&whole); err != nil {
		t.Fatal(err)
	}
	serve := func(contentType string, body []byte, abort bool) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Write(body)
			if abort {
				http.NewResponseController(w).Flush()
				panic(http.ErrAbortHandler) // the server goes away mid-copy
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, c := range []struct {
		name, server, msg string
	}{
		{
			"cut mid-copy",
			serve("application/octet-stream", whole.Bytes()[:whole.Len()/2], true),
			"GET /api/backup: after ",
		},
		{
			"not a database",
			serve("application/octet-stream", bytes.Repeat([]byte("skald "), 20000), false),
			"the copy does not check out: ",
		},
		{
			"a web page",
			serve("text/html", []byte("<html></html>"), false),
			`the answer is "text/html", not a database file`,
		},
		{"no server", refusedURL(t), "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runClient(t, "backup", filepath.Join(dir, "b.db"),
				"--server", c.server)
			if code != 1 || out != "" || !strings.Contains(errOut, c.msg) ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d %q %q, want 1 and %q", code, out, errOut, c.msg)
			}
			if names := dirEntries(t, dir); len(names) != 0 {
				t.Errorf("left behind: %v", names)
			}
		})
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "b.db")
	if err := os.WriteFile(file+".tmp", []byte("another backup's"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runClient(t, "backup", file, "--server", s.url)
	if code != 1 || !strings.Contains(errOut,
		"b.db.tmp exists: another backup is writing it, or one was interrupted") {
		t.Errorf("FILE.tmp exists: exit %d %q", code, errOut)
	}
	if b, err := os.ReadFile(file + ".tmp"); err != nil || string(b) != "another backup's" {
		t.Error("FILE.tmp was touched", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("FILE: %v, want none", err)
	}

	code, _, errOut = runClient(t, "backup", dir, "--force", "--server", s.url)
	if code != 2 || !strings.Contains(errOut, dir+" is a directory: name the file to write") {
		t.Errorf("backup onto a directory: exit %d %q", code, errOut)
	}
	code, _, errOut = runClient(t, "backup", filepath.Join(dir, "missing", "b.db"),
		"--server", s.url)
	if code != 2 ||
		!strings.Contains(errOut, filepath.Join(dir, "missing")+": no such directory") {
		t.Errorf("backup into a missing directory: exit %d %q", code, errOut)
	}
}

func TestCancelCommand(t *testing.T) {
	s := startServer(t, "/w")
	id := pendingCheck(t, s, "t1")
	code, out, errOut := runClient(t, "cancel", id, "--reason", "wrong branch", "--server", s.url)
	if code != 0 || out != "request "+id+" cancelled\n" || errOut != "" {
		t.Fatalf("cancel: exit %d %q %q", code, out, errOut)
	}
	q, err := s.db.Request(mustID(t, id))
	if err != nil || q.Status != store.Cancelled || q.Resolution.Note != "wrong branch" ||
		q.Resolution.By != "cli" {
		t.Fatalf("after cancel: %v %+v %+v", err, q, q.Resolution)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"cancel", id}, 1, "409: cancel " + id + ": already cancelled by cli via api"},
		{[]string{"cancel", "999"}, 1, "404: "},
		{[]string{"cancel", "x"}, 2, `id "x": want a positive integer`},
		{[]string{"cancel"}, 2, "accepts 1 arg(s), received 0"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, out, errOut := runClient(t, append(c.args, "--server", s.url)...)
			if code != c.code || out != "" || !strings.Contains(errOut, c.msg) ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d %q %q, want %d %q", c.args, code, out, errOut, c.code, c.msg)
			}
		})
	}
	if q2, err := s.db.Request(q.ID); err != nil || q2.Resolution.Note != "wrong branch" ||
		q2.Resolution.At != q.Resolution.At {
		t.Fatal("a refused cancel changed the request", err)
	}
	id2 := pendingCheck(t, s, "t2")
	code, out, _ = runClient(t, "cancel", id2, "--json", "--server", s.url)
	var got store.Request
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil ||
		testkit.ID(got.ID) != id2 || got.Status != store.Cancelled {
		t.Fatalf("cancel --json: exit %d %q (%v)", code, out, err)
	}
}

func mustID(t *testing.T, s string) uint64 {
	t.Helper()
	id, err := parseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestProcessBackupRestore: the real service, with an admin and an agent token. The
// agent token may not take a copy; the admin's copy, taken while the service runs,
// restores the service as it was: a request resolved after the copy is pending again.
func TestProcessBackupRestore(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfg := filepath.Join(dir, "skald.yaml")
	os.MkdirAll(filepath.Join(dir, "ws"), 0o755)
	err := os.WriteFile(cfg, []byte("data_dir: "+data+
		"\nworkspace_root: "+filepath.Join(dir, "ws")+
		"\napi:\n  listen: 127.0.0.1:0\n  token: admin-t-0123456789abcdef\n"+
		"  agent_tokens: [{token: agent-t-0123456789abcdef}]\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg)
	admin := []string{"SKALD_API_TOKEN=admin-t-0123456789abcdef"}
	agent := []string{"SKALD_API_TOKEN=agent-t-0123456789abcdef"}
	code, out, errOut := cliIn(t, nil, admin, "check", "--tool", "Bash", "--arg", "command=make",
		"--wait", "0s", "--keep", "--json", "--server", svc.url)
	var res struct {
		RequestID uint64 `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != exitPending || res.RequestID == 0 {
		t.Fatalf("check: exit %d %s %s: %v", code, out, errOut, err)
	}
	id := testkit.ID(res.RequestID)

	file := filepath.Join(dir, "backup.db")
	for _, env := range [][]string{agent, nil} {
		code, out, errOut := cliIn(t, nil, env, "backup", file, "--server", svc.url)
		want := "403: forbidden"
		if env == nil {
			want = "401: unauthorized"
		}
		if code != 1 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("backup with %v: exit %d %q %q, want 1 and %q", env, code, out, errOut, want)
		}
		if names := dirEntries(t, dir); strings.Contains(strings.Join(names, " "), "backup") {
			t.Fatalf("a refused backup left %v", names)
		}
	}
	if code, out, errOut := cliIn(t, nil, admin, "backup", file, "--server", svc.url); code != 0 ||
		!strings.HasSuffix(out, " bytes, checked\n") {
		t.Fatalf("backup: exit %d %q %q", code, out, errOut)
	}
	if code, _, errOut := cliIn(t, nil, admin, "approve", id, "--server", svc.url); code != 0 {
		t.Fatalf("approve: %s", errOut)
	}
	svc.stop(t)

	// Restore: the copy in place of skald.db.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "skald.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	svc = startService(t, cfg)
	code, out, errOut = cliIn(t, nil, admin, "pending", "--json", "--server", svc.url)
	if code != 0 || !strings.Contains(out, `"request_id": `+id+",") ||
		!strings.Contains(out, `"status": "pending"`) {
		t.Fatalf("pending after the restore: exit %d %s %s", code, out, errOut)
	}
	svc.stop(t)
}
