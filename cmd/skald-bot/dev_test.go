package main

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// `dev telegram` as a user runs it, with the real binary: the telegram lines it prints
// configure serve, the prompt of a waiting check shows in its terminal with its
// buttons, an "a" typed into it approves (the check prints approved and exits 0), and
// Ctrl-C stops it with exit 0. A tap before any prompt, and one after the prompt lost
// its buttons, say which of the two it is.
func TestProcessDevTelegram(t *testing.T) {
	cmd := exec.Command(skaldBinary(t), "dev", "telegram")
	cmd.Env = append(os.Environ(), "SKALD_CONFIG=", "SKALD_URL=", "SKALD_API_TOKEN=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	dev := startReading(t, cmd, stdout)
	dev.waitFor(t, "fake Telegram Bot API at http://127.0.0.1:")
	if _, err := stdin.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	dev.waitFor(t, "no prompt with buttons to tap yet")
	var telegram []string
	for _, key := range []string{"telegram:", "  token: ", "  api_url: ", "  chats: ",
		"  approvers: ", "  admins: "} {
		telegram = append(telegram, dev.waitFor(t, key))
	}

	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "skald.yaml")
	yaml := "data_dir: " + filepath.Join(dir, "data") + "\nworkspace_root: " + ws +
		"\napi: {listen: \"127.0.0.1:0\"}\n" + strings.Join(telegram, "\n") + "\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg)

	check := exec.Command(skaldBinary(t), "check", "--tool", "Bash", "--arg",
		"command=rm -rf build", "--wait", "2m", "--server", svc.url)
	check.Env = cmd.Env
	var out, errOut bytes.Buffer
	check.Stdout, check.Stderr = &out, &errOut
	if err := check.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- check.Wait() }()
	t.Cleanup(func() {
		if check.ProcessState == nil {
			_ = check.Process.Kill()
			<-done
		}
	})

	// Messages are numbered as shown, not by Telegram's ids, which count the user's.
	dev.waitFor(t, "── message 1 ──")
	dev.waitFor(t, "rm -rf build")
	dev.waitFor(t, "[1] ✅ Approve", "[2] ❌ Reject")

	// Another local process cannot rewrite the prompt: the public test token gets 401,
	// and the run's own token only serves a POST without a query (no web fetch).
	token := strings.Trim(strings.TrimPrefix(telegram[1], "  token: "), `"`)
	api := strings.TrimPrefix(telegram[2], "  api_url: ")
	if token == telegramtest.DefaultToken || !strings.HasPrefix(token, "7000000001:") {
		t.Errorf("token %q, want a random one of the bot", token)
	}
	edit := func(id int) url.Values {
		return url.Values{"chat_id": {"100000001"}, "message_id": {strconv.Itoa(id)},
			"text": {"Script: ls"}}
	}
	for _, tc := range []struct {
		name string
		call func(id int) (*http.Response, error)
		want int
	}{
		{"public token", func(id int) (*http.Response, error) {
			return http.PostForm(api+"/bot"+telegramtest.DefaultToken+"/editMessageText",
				edit(id))
		}, http.StatusUnauthorized},
		{"GET with query", func(id int) (*http.Response, error) {
			return http.Get(api + "/bot" + token + "/editMessageText?" + edit(id).Encode())
		}, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for id := 1; id <= 4; id++ {
				resp, err := tc.call(id)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.want {
					t.Errorf("message %d: status %d, want %d", id, resp.StatusCode, tc.want)
				}
			}
		})
	}
	// /pending's answer comes after any edit the calls above made: none is shown.
	if _, err := stdin.Write([]byte("/pending\n")); err != nil {
		t.Fatal(err)
	}
	dev.waitFor(t, "1 pending:")
	for _, l := range dev.lines() {
		if strings.Contains(l, "Script: ls") {
			t.Errorf("forged edit shown: %q", l)
		}
	}
	if _, err := stdin.Write([]byte("x\na\n")); err != nil {
		t.Fatal(err)
	}
	dev.waitFor(t, `"x": type a, r, 15, s, a number from 1 to`)
	dev.waitFor(t, "tapped ✅ Approve on message 1")
	dev.waitFor(t, "→ Approved")
	if err := <-done; err != nil || !strings.HasPrefix(out.String(), "approved") {
		t.Errorf("check: %v %q %q", err, out.String(), errOut.String())
	}
	dev.waitFor(t, "Approved by You")
	if _, err := stdin.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	dev.waitFor(t, "message 1 has no buttons any more (answered, expired or cancelled)")
	lines := dev.signalExit(t, os.Interrupt, 0)
	if last := lines[len(lines)-1]; last != "stopped" {
		t.Errorf("last line %q, want stopped", last)
	}
	svc.stop(t)
}
