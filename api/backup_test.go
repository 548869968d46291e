package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestBackup(t *testing.T) {
	at := time.Date(2026, 11, 29, 3, 0, 0, 0, time.FixedZone("CET", 3600))
	e := newAPIEnv(t, func(o *api.Options) { o.Now = func() time.Time { return at } })
	ctx := context.Background()
	if _, err := e.admin.CreateRule(ctx, rules.Rule{ToolPattern: "Read", Action: rules.Deny,
		Priority: 7, Note: "no"}); err != nil {
		t.Fatal(err)
	}
	e.pending(e.admin, "s1", "t1")
	e.pending(e.admin, "s1", "t2")
	want := teststore.Snapshot(t, e.db)

	// The headers of the raw answer.
	req, err := http.NewRequest("GET", e.url+"/api/backup", nil)
	testkit.Must(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 ||
		resp.Header.Get("Content-Type") != "application/octet-stream" ||
		resp.Header.Get("Content-Disposition") !=
			`attachment; filename=skald-20261129T020000Z.db` ||
		resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("GET /api/backup: %v %d %v", err, resp.StatusCode, resp.Header)
	}

	// The client's copy opens with the same rules, groups and pending requests.
	path := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.admin.Backup(ctx, f)
	f.Close()
	if err != nil || n != int64(len(raw)) {
		t.Fatalf("Backup = %d, %v; the raw answer had %d bytes", n, err, len(raw))
	}
	if got := teststore.SnapshotFile(t, path); got != want {
		t.Fatalf("the copy differs:\ncopy   %s\nsource %s", got, want)
	}

	// HEAD: the headers, no copy.
	req, err = http.NewRequest("HEAD", e.url+"/api/backup", nil)
	testkit.Must(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 ||
		resp.ContentLength > 0 {
		t.Fatalf("HEAD: %v %+v", err, resp)
	}
}

func TestBackupNeedsTheAdminToken(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	e.wantError("GET", "/api/backup", "", "", http.StatusUnauthorized, "unauthorized")
	e.wantError("GET", "/api/backup", "wrong", "", http.StatusUnauthorized, "unauthorized")
	e.wantError("GET", "/api/backup", agentToken, "", http.StatusForbidden, "forbidden")
	var buf bytes.Buffer
	if _, err := e.client(agentToken).Backup(ctx, &buf); !errors.Is(err, api.ErrForbidden) ||
		buf.Len() != 0 {
		t.Fatalf("agent token: %v, %d bytes", err, buf.Len())
	}
	if _, err := e.client("").Backup(ctx, &buf); !errors.Is(err, api.ErrUnauthorized) ||
		buf.Len() != 0 {
		t.Fatalf("no token: %v, %d bytes", err, buf.Len())
	}
}

// failingStore is the env's store whose copy fails after limit bytes (at once when
// limit is 0).
type failingStore struct {
	*store.DB
	limit int
}

var errDisk = errors.New("read error")

func (f failingStore) WriteTo(w io.Writer) (int64, error) {
	if f.limit == 0 {
		return 0, fmt.Errorf("store: write copy: %w", errDisk)
	}
	var b bytes.Buffer
	if _, err := f.DB.WriteTo(&b); err != nil {
		return 0, err
	}
	n, err := w.Write(b.Bytes()[:min(f.limit, b.Len()/2)])
	if err != nil {
		return int64(n), err
	}
	return int64(n), fmt.Errorf("store: write copy: %w", errDisk)
}

// TestBackupFailure: a copy that fails before its first byte is a JSON 500; one that
// fails later cuts the connection, so the client sees a copy cut short and the status
// line cannot pass it off as whole.
func TestBackupFailure(t *testing.T) {
	ctx := context.Background()
	fail := func(limit int) func(*api.Options) {
		return func(o *api.Options) {
			o.Store = failingStore{DB: o.Store.(*store.DB), limit: limit}
		}
	}
	e := newAPIEnv(t, fail(0))
	before := teststore.Snapshot(t, e.db)
	e.wantError("GET", "/api/backup", adminToken, "", http.StatusInternalServerError,
		"internal error")
	teststore.Unchanged(t, e.db, before)

	e = newAPIEnv(t, fail(1<<30))
	var buf bytes.Buffer
	n, err := e.admin.Backup(ctx, &buf)
	if !errors.Is(err, io.ErrUnexpectedEOF) ||
		!strings.Contains(err.Error(), "GET /api/backup: after ") || n == 0 {
		t.Fatalf("a copy cut short: %d bytes, %v; want io.ErrUnexpectedEOF after some bytes",
			n, err)
	}
	if err := store.Verify(writeFile(t, buf.Bytes())); err == nil {
		t.Fatal("the half copy verifies")
	}
}

// writeFile writes data to a new file in t.TempDir() and returns its path.
func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBackupGivesUpOnAStalledClient: a client that stops reading does not hold the
// copy's read transaction open: once a write waits longer than the stall timeout,
// the server ends the copy and cuts the connection.
func TestBackupGivesUpOnAStalledClient(t *testing.T) {
	api.SetBackupStall(t, 200*time.Millisecond)
	var logs testkit.Logs
	e := newAPIEnv(t, func(o *api.Options) { o.Logger = logs.Logger() })
	// More than a connection's buffers hold (Linux: a send buffer of 4 MiB at most by
	// default): 8 requests of 1 MiB.
	for i := range 8 {
		_, _, err := e.db.CreateRequest(store.Request{SessionID: "big", ToolCallID: fmt.Sprint(i),
			ToolName: "Write", GroupID: "default",
			Arguments: json.RawMessage(`{"content":"` + strings.Repeat("x", 1<<20-20) + `"}`),
			ExpiresAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /api/backup HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
		"Authorization: Bearer %s\r\n\r\n", adminToken)
	// Read nothing until the server gives up.
	got, err := logs.Wait(t.Context(), []string{"backup cut short"}, []string{"backup sent"})
	testkit.Must(t, err)
	if strings.Contains(got, "backup sent") {
		t.Fatal("the whole copy was sent to a client that read nothing")
	}
	// Now take what the buffers hold, through a wide window.
	if err := conn.(*net.TCPConn).SetReadBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) || n >= 8<<20 {
		t.Fatalf("stalled client: %d, read %d bytes, %v; want a copy cut short",
			resp.StatusCode, n, err)
	}
}

// TestBackupFromAnotherServer: an answer that is not a database file is refused before
// anything is written.
func TestBackupFromAnotherServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>hello</html>")
	}))
	defer srv.Close()
	var buf bytes.Buffer
	_, err := api.NewClient(srv.URL, "").Backup(context.Background(), &buf)
	if err == nil ||
		!strings.Contains(err.Error(), `the answer is "text/html", not a database file`) ||
		buf.Len() != 0 {
		t.Fatalf("Backup from a web page: %v, %d bytes", err, buf.Len())
	}
}
