// Package telegram is skald-bot's Telegram channel: the adapter between the Telegram
// Bot API, through github.com/go-telegram/bot (this package is its only importer), and
// the chat logic of package bot. It shows approval prompts with their buttons, edits
// them to their outcome, answers taps, and runs the admin commands typed in a chat. It
// imports bot and nothing else of ours. What a prompt shows, how taps are bound to
// their messages and how replays are refused is told in docs/design.md, "Chat
// prompts"; this is how the adapter does it over Telegram.
//
//	tg, err := telegram.New(telegram.Options{
//		Token:   cfg.Telegram.Token.Reveal(),
//		APIURL:  cfg.Telegram.APIURL,
//		Chats:   cfg.Telegram.Chats,
//		Handler: b,  // the *bot.Bot: taps and commands
//		Store:   db, // the *store.DB: offset and handled updates
//		Logger:  log,
//	})
//	fan.Add(tg)     // the Fanout calls Send and Edit
//	go tg.Run(ctx)  // takes updates until ctx is done
//
// # Prompts and outcomes
//
// Channel implements bot.Channel. Send posts a prompt (bot.Prompt.Telegram: HTML
// parse mode, escaped, at most 4096 characters) to a configured chat with the
// inline keyboard ✅ Approve ❌ Reject / ⏱ <bypass_short> 🔄 Session, whose
// callback_data is bot's "a:<request id>:<ok|no|b15|bs>", and returns the
// message_id. Edit replaces the text with the outcome and sends an empty keyboard,
// so the buttons go; "message is not modified" and "message to edit not found"
// (deleted in the chat) count as done. Errors tell the Fanout what to do: a 429
// becomes a *bot.RateLimitError carrying retry_after (found with errors.As; the
// library's IsTooManyRequestsError misses wrapped errors), and what retrying cannot
// fix — chat not found, bot blocked, a group upgraded to a supergroup (the error
// names the new id) — wraps bot.ErrPermanent.
//
// # Receiving updates
//
// Run asks getMe for the bot's username, then takes updates until its context ends:
//
//   - By long polling, the default. A webhook left over from an earlier setup is
//     deleted first (getUpdates answers 409 while one is set). The library's poller
//     feeds one worker that handles each update to its end before the next
//     (WithNotAsyncHandlers, WithWorkers(1): by default the library starts an
//     untracked goroutine per update). A 409 Conflict — another process polling
//     the same token — is logged as such, and the library retries with a growing
//     backoff.
//   - By webhook, when Webhook.URL is set: Run listens on Webhook.Listen, then calls
//     setWebhook with the secret token. Deliveries go to the Channel's own handler,
//     not the library's (which answers 200 to a wrong secret): a missing
//     or wrong X-Telegram-Bot-Api-Secret-Token gets 401 — compared in constant time,
//     before anything else, whatever the path —, then another path 404, another
//     method 405.
//
// A replay acts once. The library keeps its offset in memory only, so
// the Channel stores the last handled update_id after each update (Store.PutMeta,
// key "telegram.offset.<bot id>") and passes it as the initial offset at the next
// start; an offset older than the 24 hours Telegram keeps updates is not used. Every
// update_id is also recorded before it is handled (Store.SeenDelivery, 25 hours), so
// an update delivered twice — a webhook retry, a replay — acts once.
// The library confirms a batch with its next getUpdates, once the worker took the
// batch's last update, so a crash while an update is handled can lose that one
// update (the user taps or types again); none is ever handled twice.
//
// # Taps
//
// A tap on a prompt's button (a callback query) goes to Handler.HandleTap with the
// user's id and name and the message's chat and message id, which the request must
// have stored (a message too old to be sent whole still has both).
// Every callback query is answered, and the slow work never comes first: the
// resolution is a few milliseconds of store work, so the Channel waits for it up to
// Options.TapWait (1 s) to answer with its toast ("Approved", "Already approved by
// …", "Not authorized"), else answers "⏳ Working on it…" and lets it finish. The
// edits of the request's messages, on every chat and channel, happen afterwards:
// the gate has the Fanout make them once the resolution is committed.
//
// # Commands
//
// A message "/cmd args" — or "/cmd@BotName args" in a group; one for another bot is
// ignored — goes to Handler.Command as "cmd args" with the user's id and name, and
// the reply is sent back as plain text, cut to 4096 characters, as a reply to the
// command. The roles are bot's: help and whoami answer anyone, other commands tell a
// stranger "not authorized". "/start" is help. An edited message never runs a
// command again: edits are not asked for, and ignored should they come.
//
// # Rate limits
//
// Every 429 is honoured: Send and Edit hand the retry_after to the Fanout; answers
// to taps and replies to commands wait it out here (Options.Sleep, through
// bot.WaitRateLimits), bot.MaxRateLimitWaits times in a row at most, then are
// dropped and logged.
//
// # Logs
//
// Through log/slog with component=telegram. The token never appears in a log or an
// error, nor a webhook URL's path (it may hold a secret): only its host.
package telegram
