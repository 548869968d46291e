// Package telegramtest is a Telegram Bot API server on 127.0.0.1 for tests. The
// channels/telegram tests and the end-to-end suite point the real
// github.com/go-telegram/bot client at it (bot.WithServerURL(srv.URL())), act as
// Telegram users by injecting updates, and read back what the bot sent. It is a
// normal package so that tests of other packages can import it; nothing else should.
// What the Telegram channel must do with what this server sends is told in
// docs/design.md, "Chat prompts".
//
//	srv, err := telegramtest.New(telegramtest.Config{Chats: []models.Chat{{ID: 100000001}}})
//	if err != nil { t.Fatal(err) }
//	t.Cleanup(srv.Close)
//	b, _ := bot.New(srv.Token(), bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
//	// … the code under test sends a prompt; a user taps Approve:
//	msgs, _ := srv.WaitMessages(ctx, 100000001, 1)
//	srv.Inject(srv.CallbackQueryUpdate(jane, 100000001, msgs[0].MessageID, "a:42:ok"))
//	answers, _ := srv.WaitAnswers(ctx, 1)
//
// # What it serves
//
// The methods getMe, getUpdates, sendMessage, editMessageText,
// editMessageReplyMarkup, answerCallbackQuery, setWebhook, deleteWebhook and
// getWebhookInfo at <URL>/bot<token>/<method> (GET or POST, only POST without a query
// with Config.PostOnly; parameters in the query, form-urlencoded, multipart — what
// go-telegram/bot sends — or JSON; method names case-insensitive). Answers are the
// documented envelopes {"ok":true,"result":…} and
// {"ok":false,"error_code":N,"description":…, "parameters":{"retry_after":N}} with
// HTTP status N
// (https://core.telegram.org/bots/api#making-requests). Another token gets 401
// Unauthorized, another method or path 404 Not Found. Error texts are Telegram's own,
// taken from the Bot API server's source (tdlib/telegram-bot-api Client.cpp, tdlib
// MessageEntity.cpp) and from real captures (testdata/error_*.json); the APIError
// values of this package list them.
//
// The checks Telegram makes and a bot can get wrong are made here too:
//
//   - parse_mode HTML is parsed as tdlib parses it: the tags b strong i em u ins s
//     strike del a code pre tg-spoiler tg-emoji blockquote and span
//     class="tg-spoiler", balanced; the entities &lt; &gt; &amp; &quot; and numeric
//     ones. A "<" that does not open a supported tag is "Bad Request: can't parse
//     entities: Unsupported start tag …" with tdlib's wording and byte offset.
//     One rule is stricter than Telegram, and says so in its description: a "&" that
//     does not start one of those entities is refused, as the docs require, where the
//     real server would show it literally.
//   - the text is at most MaxTextLength (4096) characters after entities parsing,
//     counted in Unicode code points as tdlib counts them (not UTF-16 units, the unit
//     of entity offsets); over it sendMessage answers "message is too long" and
//     editMessageText "MESSAGE_TOO_LONG", the two texts Telegram uses.
//   - inline keyboard buttons need a text and a kind; callback_data is 1–64 bytes,
//     UTF-8 (over 64: BUTTON_DATA_INVALID; an empty one counts as absent, so the
//     button has no kind: "Text buttons are unallowed in the inline keyboard").
//   - an edit that changes nothing (same text after parsing, same entities, same
//     keyboard; an edit without reply_markup removes the keyboard, which is a change)
//     is "message is not modified"; editing a message the bot did not send in that
//     chat is "message to edit not found".
//   - a callback query can be answered once; a second answer, an unknown id, or one
//     made too old with ExpireCallbackQuery is "query is too old …".
//   - only known chats can be written to, else "chat not found": the chats of
//     Config.Chats and AddChat, and every chat an injected update carries (a user
//     writing to the bot). Message ids count up per chat.
//
// Not served: inline messages, Markdown parsing (the text is kept as sent), entities
// Telegram detects by itself (URLs, mentions, commands) in what the bot sends,
// webhook delivery (see PostWebhook), files and every other method. The Bot API's
// 3-second throttle of repeated 409 answers and its one-setWebhook-per-second limit
// are not imitated.
//
// # Long polling
//
// Injected updates get update_id 1, 2, 3… and stay pending until a getUpdates with a
// larger offset confirms them (a negative offset takes the last ones and forgets the
// rest), so a confirmed update is never returned again unless a test calls Redeliver.
// A getUpdates with a timeout (cut to 50 s) and nothing to return waits; it returns as
// soon as an update is injected, ends when its client goes away or the server closes,
// and is ended with 409 "terminated by other getUpdates request" when another poll
// arrives, or "terminated by setWebhook request" when a webhook is set. While a
// webhook is set (by the bot, or left over via SetWebhook), getUpdates answers 409
// "can't use getUpdates method while webhook is active".
//
// # Test controls
//
// Inject and InjectJSON (for Fixture bytes) queue updates; MessageUpdate and
// CallbackQueryUpdate build the common ones. FailNext makes the next call of a method
// fail with any APIError (TooManyRequests(n), ErrTerminatedByOtherPoll,
// ErrNotModified, ServerError(502)…); LoseReplyNext serves the next call and then
// drops its connection, a reply lost after Telegram acted. Messages, Message,
// Answers, Calls, CallCount and Webhook read what the bot did; Wait, WaitCalls,
// WaitMessages and WaitAnswers block until it happened, woken by each change, never
// by a timer. PostWebhook delivers an update to a webhook handler as Telegram does,
// with the secret token header.
//
// All Server methods are safe for concurrent use. The server starts no goroutine of
// its own beyond net/http's; Close answers the waiting getUpdates calls and waits for
// every call in progress.
package telegramtest
