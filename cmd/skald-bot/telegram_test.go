package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

// serve with telegram.token set runs the Telegram channel (against a test Bot API
// server named by telegram.api_url): /whoami is answered with the user's role; a
// check that needs approval is prompted in the configured chat with its buttons;
// approving it from the command line edits the prompt to the outcome, buttons gone.
func TestProcessTelegram(t *testing.T) {
	srv, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{{ID: 100000001}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	url := "http://" + freeAddr(t)
	cfg := filepath.Join(dir, "skald.yaml")
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "data_dir: " + filepath.Join(dir, "data") +
		"\nworkspace_root: " + filepath.Join(dir, "ws") +
		"\napi:\n  listen: " + strings.TrimPrefix(url, "http://") +
		"\ntelegram:\n  token: " + srv.Token() + "\n  api_url: " + srv.URL() +
		"\n  chats: [100000001]\n  approvers: [100000001]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	jane := models.User{ID: 100000001, FirstName: "Jane"}
	update := srv.MessageUpdate(jane, models.Chat{ID: 100000001}, "/whoami")
	if _, err := srv.Inject(update); err != nil {
		t.Fatal(err)
	}
	msgs, err := srv.WaitMessages(ctx, 100000001, 1)
	if err != nil {
		t.Fatalf("no reply to /whoami: %v", err)
	}
	if msgs[0].Text != "Jane · id 100000001 · telegram · approver" {
		t.Errorf("whoami: %q", msgs[0].Text)
	}

	code, out, errOut := cli(t, "check", "--tool", "Bash", "--arg", "command=make deploy",
		"--session", "s1",
		"--wait", "0s", "--keep", "--json", "--config", cfg)
	var res api.CheckResult
	if err := json.Unmarshal([]byte(out), &res); err != nil ||
		code != exitPending || res.RequestID == 0 {
		t.Fatalf("check: exit %d %s %s: %v", code, out, errOut, err)
	}
	// Posted without buttons, then armed by an edit.
	err = srv.Wait(ctx, func() bool {
		msgs = srv.Messages(100000001)
		return len(msgs) >= 2 && len(msgs[1].CallbackData()) > 0
	})
	if err != nil {
		t.Fatalf("no prompt: %v", err)
	}
	prompt := msgs[1]
	id := testkit.ID(res.RequestID)
	buttons := "a:" + id + ":ok a:" + id + ":no a:" + id + ":b15 a:" + id + ":bs"
	if !strings.Contains(prompt.PlainText, "Request: #"+id) ||
		strings.Join(prompt.CallbackData(), " ") != buttons {
		t.Errorf("prompt %q with buttons %v", prompt.PlainText, prompt.CallbackData())
	}

	if code, out, errOut := cli(t, "approve", testkit.ID(res.RequestID), "--config", cfg); code != 0 {
		t.Fatalf("approve: exit %d %s %s", code, out, errOut)
	}
	err = srv.Wait(ctx, func() bool {
		m, ok := srv.Message(100000001, prompt.MessageID)
		if !ok {
			t.Fatal("no such message")
		}
		return len(m.History) == 3 // posted, armed, approved
	})
	if err != nil {
		t.Fatalf("prompt not edited: %v", err)
	}
	m, ok := srv.Message(100000001, prompt.MessageID)
	if !ok || m.Keyboard != nil || !strings.Contains(m.PlainText, "✅ Approved by cli · ") {
		t.Errorf("edited prompt (keyboard %v):\n%s (found %v)", m.Keyboard, m.PlainText, ok)
	}
	svc.stop(t)
}
