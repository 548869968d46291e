// Package httpserve runs the HTTP servers of the chat channels' webhook endpoints: the
// Slack app's in HTTP mode and the Telegram bot's in webhook mode (docs/design.md, "Chat
// prompts", channel endpoints). NewServer gives a server the limits of such an endpoint;
// Serve runs it for as long as a context lasts and then shuts it down, giving the
// requests in flight a grace period, so that a channel's Run owns its server.
//
// The API listener is not served here: api and cmd/skald-bot keep its own timeouts
// (docs/design.md, "Timeouts and limits").
package httpserve
