// Package slack is skald-bot's Slack app: the adapter between the chat logic of
// package bot and Slack, over github.com/slack-go/slack and its socketmode package —
// their only importer. It imports bot, nothing else of ours. What a prompt shows, how
// taps are bound to their messages and how replays are refused is told in
// docs/design.md, "Chat prompts"; this is how the adapter does it over Slack.
//
// # What it does
//
// A Channel is a bot.Channel: the Fanout calls Send to post an approval prompt to
// every channel of slack.channels, and Edit to show its outcome once the request is
// resolved — wherever it was resolved: a click here, Telegram, the API, the CLI, an
// expiry or a cancellation.
//
//   - Send posts the prompt with chat.postMessage as a Block Kit message (Blocks).
//     Its blocks, in order, by block_id: "header", plain text "🔐 Approval needed:
//     <tool>"; "fields" then "fields_2", sections of at most 10 mrkdwn fields (the
//     prompt's bot.Field lines); for a shell call "commands", one per line marked ✓ (allowed) or ❓
//     (needs the human); "arguments" in a ``` code block, at most 3,000 characters,
//     the middle cut to "…[N characters cut]…"; while pending "bypass", what ⏱ and 🔄
//     would cover; once finished "outcome", the outcome and the note; on a message
//     posted without its buttons "spare", a context block saying a copy left without
//     them is spare (bot.Prompt.Spare); while pending "actions", the buttons ✅
//     Approve (primary), ❌ Reject (danger), ⏱ <bypass_short> and 🔄 Session, action_ids
//     approve, reject, bypass_short and bypass_session, whose values are the callback
//     data "a:<request id>:<ok|no|b15|bs>" of bot.Callback. Plain text shows emoji
//     codes as typed. The message's ts is its reference, recorded on the request by
//     the Fanout.
//   - Edit updates the message with chat.update, always sending the new blocks: the
//     outcome, no actions block. (A chat.update without blocks keeps the old ones, and
//     the old buttons would stay live.)
//   - A 429 comes back as a *bot.RateLimitError carrying Retry-After, which the
//     Fanout waits out; an error retrying cannot fix (channel_not_found,
//     not_in_channel, message_not_found, a refused token) wraps bot.ErrPermanent.
//
// Run receives what users do:
//
//   - A click on a button (a block_actions interaction) goes to bot.HandleTap with
//     the user's id and name, the channel and the message ts; the tap counts only on
//     one of the request's own prompt messages and only for an approver.
//     The user gets the answer as an ephemeral message (chat.postEphemeral):
//     "Approved", "Not authorized", "Already approved by …". The prompt itself is
//     updated by the Fanout, as for any resolution.
//   - "/skald <command>" goes to bot.Command (help, whoami, pending, approve, reject,
//     rules, allow, deny, require, rmrule, setrule, groups, group, bypass, unbypass,
//     jobs, run, runs), with Slack's &amp; &lt; &gt; unescaped; the reply is
//     an ephemeral message in plain_text sections. Who may do what is bot.Access under
//     "slack": slack.approvers and slack.admins, by Slack user id (U…).
//   - Replies Slack answers 429 wait Retry-After (Options.Sleep, through
//     bot.WaitRateLimits) and are sent again, bot.MaxRateLimitWaits times at most.
//
// # Socket Mode and HTTP
//
// With slack.app_token set, Run uses Socket Mode: slack-go opens the WebSocket through
// apps.connections.open and reconnects by itself when the socket drops, when Slack
// sends a disconnect, or when Slack's pings stop; Run restarts the client with backoff
// should it give up. Every envelope is acknowledged as soon as it is read — the work
// runs afterwards on a goroutine Run owns — well within Slack's 3 seconds.
//
// Without it, Run serves HTTP on slack.http_listen: POST /slack/interactions (the
// app's Interactivity Request URL) and POST /slack/commands (the /skald command's
// Request URL). Each request's v0 signature is checked (Verify: HMAC-SHA256 of
// "v0:<timestamp>:<body>" with slack.signing_secret, compared in constant time,
// timestamps more than 5 minutes away refused): 401 and nothing changes otherwise.
// A genuine request is answered at once with an empty 200, the work done after.
//
// Slack delivers again when an ack is late. Each delivery's id — the envelope_id in
// Socket Mode, the trigger_id over HTTP — is recorded in the store for DeliveryTTL
// (store.SeenDelivery), and a delivery seen before is acknowledged but
// not run again: a click resolves once, a command runs once.
//
// # Wiring
//
//	ch, err := slack.New(slack.Options{
//		BotToken: cfg.Slack.BotToken.Reveal(), AppToken: cfg.Slack.AppToken.Reveal(),
//		SigningSecret: cfg.Slack.SigningSecret.Reveal(),
//		APIURL: cfg.Slack.APIURL, HTTPListen: cfg.Slack.HTTPListen,
//		Channels: cfg.Slack.Channels, Bot: b, Deliveries: db, Logger: log,
//	})
//	fan.Add(ch)      // prompts and outcomes
//	go ch.Run(ctx)   // clicks and commands; returns when ctx is done
//
// The access lists go to bot.New: bot.Access{"slack": {Approvers: …, Admins: …}}.
// The Slack app needs the bot scopes chat:write and commands, interactivity on, and
// the /skald slash command; deploy/slack-app-manifest.yaml in the repository is such
// an app, in Socket Mode.
//
// # Testing
//
// The tests run the real slack-go client against channels/slack/slacktest, a Slack
// Web API and Socket Mode server on 127.0.0.1, with the real bot, gate and store, in
// both modes.
package slack
