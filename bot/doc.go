// Package bot is skald-bot's chat logic, shared by every chat channel: what an
// approval prompt says, what its buttons carry, who may tap them or run an admin
// command, and how prompts reach every configured chat and are edited to their
// outcome. The behaviour is told in docs/design.md, "Chat prompts"; this is how the
// package is built. It knows no chat service: the Telegram and Slack adapters
// (channels/telegram, channels/slack) translate between their API and this package.
// It imports gate, store and rules, nothing else of ours.
//
// # Prompts
//
// NewPrompt turns a stored request into a channel-neutral Prompt: a title, the fields
// (tool; caller — the agent token with its profile and agent, admin, local, or a cron
// job's run —; why, the gate's reason when more than a rule asked for a human; agent,
// source, context label, session, cwd, category or a claimed one, MCP server, request
// id, expiry), the arguments as indented JSON, while pending what ⏱ and 🔄 would cover
// and the keyboard ✅ Approve ❌ Reject / ⏱ 15 min 🔄 Session (the ⏱ label follows
// bypass_short), once finished the outcome line (OutcomeText: "✅ Approved by Jane
// Doe (100000001) · telegram · 14:03 UTC") and the note. Text the caller controls is
// shown through Escape (control and bidi characters as \uXXXX), names through
// EscapeName (non-ASCII escaped and flagged "⚠ non-ASCII"), and anything too long
// keeps its head and tail around "…[N characters cut]…" (docs/design.md, "Chat
// prompts"). Prompt.Telegram renders it for Telegram's HTML parse mode, escaped and at
// most 4096 characters after entity parsing; Prompt.Slack gives the pieces of a Block
// Kit message in escaped mrkdwn, the arguments block at most 3000 characters. The
// renderings are pinned by golden files under testdata/golden (go test ./bot -run
// Golden -update rewrites them).
//
// # Buttons and who may press them
//
// A button carries "a:<request_id>:<ok|no|b15|bs>" (Callback, ParseCallback): the
// Telegram callback_data, the Slack button value, at most 64 bytes. ParseCallback
// refuses anything else. Access maps each channel to its approvers and admins, by
// user id; an admin is also an approver, and in a group chat it is the user id that
// counts, never the chat.
//
// # The fan-out and its outbox
//
// Fanout implements gate.Notifier over every Channel: Show sends a new request's
// prompt to every (channel, target) in two phases — posted without buttons, the
// message recorded on the request (store.Message), then armed with an Edit that adds
// the buttons (docs/design.md, "Chat prompts") —; Update edits every message of a
// finished request to show its outcome without buttons, marking each final once
// edited (docs/design.md, "Chat prompts", one outcome edit per message). Each
// message is sent or edited on its own goroutine, so one failing chat never holds up
// another; failures are retried with exponential backoff (Retry), a *RateLimitError
// waits its retry_after (MaxRateLimitWaits times at most), an ErrPermanent error
// stops at once, and a message given up on is logged and reported to
// FanoutOptions.OnFailure. Run owns the retries and, at start-up, calls Reconcile:
// pending requests are shown where they have no message yet and their recorded
// messages edited to their state now (armed), and finished ones whose messages still
// show buttons are edited.
//
// # Taps and commands
//
// Bot.HandleTap resolves a request from a tapped button: authorized user, known
// request, and a tap on one of the request's own stored messages — then
// gate.Resolve with Via the channel and By "NAME (id)". It returns the toast to show.
// Bot.Command runs one admin command line (help, whoami, pending,
// approve, reject, rules, allow, deny, require, rmrule, setrule, groups, group,
// bypass, unbypass, jobs, run, runs) for a Who and returns a plain-text Reply; an
// error is one line and changes nothing. Job commands go through the Jobs interface,
// which cron implements.
//
// A reply to allow, deny, require or setrule ends with a precedence note when the rule
// just written decides nothing for some calls because an earlier unfiltered rule with
// another action already matches them (first match wins): "Note: rule 2
// (require Bash, priority 10) comes first for Bash; use priority=9 to take
// precedence.", or for a rule of default, "Note: for calls in group ci, rule 9 (allow
// Bash) comes first." rules.Shadowing finds the rules, PrecedenceNote words it;
// the command line's rules add and rules set print the same note.
//
// # Notices of finished runs
//
// Notices reads the gate's events and, for each run_finished that cron marks with
// notify (the job's notify policy: failure, always, never), posts one plain
// line to every target of every channel through Channel.Notify, retried as prompts
// are: "🗓 nightly-backup run 12: failed — step 2 (execute_cmd): exit status 1"
// (NoticeText). A run waiting for approval needs no notice: its prompt is one.
//
// # Wiring
//
// The gate needs the Fanout as its notifier and the Bot needs the gate, so:
//
//	fan := bot.NewFanout(bot.FanoutOptions{Store: db, BypassShort: short, Logger: log})
//	g, _ := gate.New(gate.Options{Store: db, Notifier: fan, ...})
//	b, _ := bot.New(bot.Options{Gate: g, Access: access, Jobs: jobs,
//		BypassShort: short, Logger: log})
//	tg := telegram.New(..., b)  // the adapter calls b.HandleTap and b.Command
//	fan.Add(tg)
//	go fan.Run(ctx)             // reconciles, then retries until ctx ends
//	n, _ := bot.NewNotices(bot.NoticesOptions{Events: g, Fanout: fan, Logger: log})
//	go n.Run(ctx)               // notices of finished runs
//
// # What an adapter does
//
//   - Implement Channel (var _ bot.Channel = (*Channel)(nil)): Send renders
//     p.Telegram() or p.Slack() with its buttons if any (the Fanout posts without) and
//     returns the message id (Telegram message_id in decimal) or ts; Edit renders p
//     with its buttons while pending, and a finished prompt without them (an empty
//     inline keyboard; blocks without the actions block); "message
//     is not modified" is a success; 429 becomes a *RateLimitError; an error that
//     retrying cannot fix (chat not found, bot blocked) wraps ErrPermanent. Notify
//     posts a plain-text notice, escaped or without markup, cut to the limit.
//   - On a button: call HandleTap with the message's chat and id and the user's id
//     and name, then answer at once with TapResult.Toast (answerCallbackQuery; a
//     Slack ephemeral message). HandleTap does only store work; the edits of the
//     messages happen later through Update.
//   - On a command: strip "/cmd@BotName" to "cmd" (ignoring commands for other
//     bots), unescape Slack's &amp; &lt; &gt;, call Command, and send Reply.Text as
//     plain text cut with Cut to the channel's limit.
//   - User ids are strings: Telegram ids in decimal, Slack ids as they are.
//
// # Plumbing the adapters share
//
// What both adapters need beside the chat logic is defined here, once: Workers, the
// tracked goroutines and deliveries an adapter's Run waits for (Close gives them a
// grace period, then cancels them); WaitRateLimits, the one bounded retry for rate
// limits, which waits each *RateLimitError's RetryAfter at most MaxRateLimitWaits
// times — the cap the Fanout and Notices apply too: a prompt still limited then is
// given up on, its request stays pending, and the next start's Reconcile sends it;
// LogTap, the one log line of a tap's outcome; Sleep, the default wait. They live in
// bot and not in a package under channels/ because the Fanout shares the cap, and
// bot cannot import a package that imports it (an adapter imports bot, never the
// reverse).
package bot
