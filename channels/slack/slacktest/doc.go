// Package slacktest is a Slack server for skald-bot's tests: the Web API methods the
// Slack channel uses and a Socket Mode endpoint, on 127.0.0.1, spoken to by the real
// github.com/slack-go/slack client (v0.35.0) and its socketmode package. It also
// builds signed HTTP-mode requests, for the bot's own /slack/interactions and
// /slack/commands endpoints.
//
// It is a normal package, not a _test one, so that channels/slack tests and the
// end-to-end suite can share it. What the Slack channel must do with what this server
// sends is told in docs/design.md, "Chat prompts". Everything it sends and accepts follows Slack's
// documentation and the real payloads in testdata/ (captured, with fake ids), which it
// embeds as templates.
//
// # Starting it
//
//	srv, err := slacktest.New(slacktest.Config{})
//	if err != nil { t.Fatal(err) }
//	t.Cleanup(srv.Close)
//	api := slack.New(slacktest.DefaultBotToken,
//		slack.OptionAPIURL(srv.URL()), // "http://127.0.0.1:PORT/api/", trailing slash included
//		slack.OptionAppLevelToken(slacktest.DefaultAppToken))
//
// The workspace is fixed: team TeamID, app AppID, bot BotUserID/BotID, the channels
// of Config.Channels (DefaultChannel unless set) where the bot is a member, and
// Config.ForeignChannels where it is not.
//
// # Web API
//
// Served under /api/: auth.test, apps.connections.open, chat.postMessage,
// chat.update, chat.postEphemeral. Errors are Slack's: HTTP 200 with
// {"ok":false,"error":"…"}, which slack-go returns as slack.SlackErrorResponse —
// not_authed, invalid_auth (a wrong token), not_allowed_token_type (the app token on a
// chat method, the bot token on apps.connections.open), channel_not_found,
// not_in_channel, message_not_found, no_text, user_not_in_channel,
// invalid_blocks_format, and invalid_blocks with response_metadata.messages for
// blocks that break a Block Kit limit (more than 50 blocks, section text over 3000
// characters, header text over 150, button value over 2000, …; see blocks.go). Any
// other method answers HTTP 404 {"ok":false,"error":"unknown_method"}, a
// slack.StatusCodeError to slack-go.
//
// FailNext and RateLimitNext inject one-shot failures on the next call of a method;
// a 429 with Retry-After comes back from slack-go as *slack.RateLimitedError.
// LoseReplyNext serves the next call of a method and then drops its connection, a
// reply lost after Slack acted.
//
// Every chat call is recorded: Messages (per channel), Updates (per message),
// Ephemerals, and Current, the message as it now reads. A chat.update without blocks
// keeps the old blocks, as Slack does — which leaves old buttons live — and its
// record says so (Message.HasBlocks is false). WaitMessages, WaitUpdates and
// WaitEphemerals block until the records arrive or the context ends; there is no
// need to sleep.
//
// # Socket Mode
//
// apps.connections.open, with the app-level token in the Authorization header,
// answers a one-time ws://127.0.0.1:PORT/socket?ticket=… URL. A connection there
// gets a hello message, then WebSocket pings every Config.PingInterval. The test
// pushes envelopes to the newest connection: PushBlockAction (an "interactive"
// block_actions envelope, built from the message and button the server holds),
// PushSlashCommand (a "slash_commands" envelope), or any Envelope with Push. Every
// envelope gets a fresh envelope_id; pushing Envelope.Retry("timeout") redelivers the
// same one, as Slack does when an ack is late. Acks are recorded (Acks, WaitAck,
// WaitAcks) with their payload and connection number. Drop closes the sockets
// abruptly; Disconnect sends a disconnect message; either way the client must reconnect
// through apps.connections.open, which Connections and WaitConnections count.
//
// # HTTP mode
//
// BlockActionBody and SlashCommandBody build the form bodies Slack posts to an app's
// Request URLs; NewSignedRequest signs one with v0 signing (Sign) at a chosen time, so
// tests can send stale timestamps or wrong signatures.
//
// # Concurrency
//
// A Server is safe for concurrent use. Its goroutines (one per Socket Mode connection
// and its pinger) stop in Close, which waits for them.
package slacktest
