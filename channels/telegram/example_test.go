package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/bot"
	"github.com/skald-circle/skald-bot/channels/telegram"
	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// A Channel shows a prompt with its buttons, then its outcome without them. Here
// against the test server, with the store, gate and Bot the service wires.
func Example() {
	srv, _ := telegramtest.New(telegramtest.Config{Chats: []models.Chat{{ID: 100000001}}})
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "telegram-example")
	defer os.RemoveAll(dir)
	root, _ := filepath.EvalSymlinks(dir)
	db, _ := store.Open(filepath.Join(dir, "skald.db"), store.Options{})
	defer db.Close()
	g, _ := gate.New(gate.Options{Store: db, Rules: rules.Options{WorkspaceRoot: root}})
	b, _ := bot.New(bot.Options{Gate: g})

	tg, err := telegram.New(telegram.Options{
		Token:   srv.Token(),
		APIURL:  srv.URL(),
		Chats:   []int64{100000001},
		Handler: b,
		Store:   db,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	r := store.Request{ID: 42, SessionID: "demo", ToolName: "Bash", Status: store.Pending,
		Arguments: json.RawMessage(`{"command":"make deploy"}`)}
	ref, _ := tg.Send(ctx, "100000001", bot.NewPrompt(r, 15*time.Minute))
	m, _ := srv.Message(100000001, 1)
	fmt.Println(ref, strings.Split(m.PlainText, "\n")[0], m.CallbackData())

	r.Status = store.Approved
	r.Resolution = &store.Resolution{By: "Jane Doe (100000001)", Via: "telegram",
		At: time.Date(2026, 3, 1, 14, 3, 0, 0, time.UTC)}
	_ = tg.Edit(ctx, "100000001", ref, bot.NewPrompt(r, 15*time.Minute))
	m, _ = srv.Message(100000001, 1)
	lines := strings.Split(m.PlainText, "\n")
	fmt.Println(lines[len(lines)-1], m.Keyboard == nil)
	// Output:
	// 1 🔐 Approval needed: Bash [a:42:ok a:42:no a:42:b15 a:42:bs]
	// ✅ Approved by Jane Doe (100000001) · telegram · 14:03 UTC true
}
