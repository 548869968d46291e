package telegramtest_test

import (
	"context"
	"fmt"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/channels/telegram/telegramtest"
)

// The bot sends a prompt through the real client; the test reads what Telegram would
// show, and sees Telegram's own error for HTML it would refuse.
func Example() {
	srv, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{{ID: 100000001}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	b, err := bot.New(srv.Token(), bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	_, err = b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID: 100000001, Text: "<b>Run</b> rm -rf &lt;dir&gt;?", ParseMode: models.ParseModeHTML,
		ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{
			{Text: "✅ Approve", CallbackData: "a:42:ok"},
			{Text: "❌ Reject", CallbackData: "a:42:no"},
		}}},
	})
	fmt.Println(err)
	m := srv.Messages(100000001)[0]
	fmt.Println(m.PlainText, m.CallbackData())

	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 100000001, Text: "1 < 2",
		ParseMode: models.ParseModeHTML})
	fmt.Println(err)
	// Output:
	// <nil>
	// Run rm -rf <dir>? [a:42:ok a:42:no]
	// bad request, Bad Request: can't parse entities: Unsupported start tag "" at byte offset 2
}
