package slacktest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/slack-go/slack"
)

// Message is one chat.postMessage, chat.update or chat.postEphemeral call as the
// server recorded it, or (from Current) a message as it now reads. RawBlocks is
// shared with the server's records: do not modify it.
type Message struct {
	// Method is "chat.postMessage", "chat.update" or "chat.postEphemeral"; for Current,
	// the method that last changed the message.
	Method string
	// Channel is the conversation id.
	Channel string
	// TS is the message timestamp, Slack's message id ("seconds.micros"); for an
	// ephemeral, its message_ts.
	TS string
	// User is the user an ephemeral is shown to; empty otherwise.
	User string
	// Text is the text argument (the notification fallback when there are blocks).
	Text string
	// RawBlocks is the blocks argument exactly as sent; nil when the call sent none.
	// A chat.update without blocks leaves the message's old blocks — and buttons —
	// in place, which Current shows.
	RawBlocks json.RawMessage
	// Blocks is RawBlocks decoded by slack-go; empty when RawBlocks is nil.
	Blocks slack.Blocks
}

// HasBlocks reports whether the call carried a blocks argument (possibly "[]").
func (m Message) HasBlocks() bool { return m.RawBlocks != nil }

// HasActions reports whether the message's blocks hold an actions block: whether it
// shows buttons.
func (m Message) HasActions() bool {
	for _, b := range m.Blocks.BlockSet {
		if b.BlockType() == slack.MBTAction {
			return true
		}
	}
	return false
}

// newMessage builds a record; raw has passed checkBlocks, so it decodes.
func newMessage(method, channel, ts, user, text string, raw json.RawMessage) Message {
	m := Message{Method: method, Channel: channel, TS: ts, User: user, Text: text, RawBlocks: raw}
	if raw != nil {
		_ = json.Unmarshal(raw, &m.Blocks)
	}
	return m
}

// Ack is one Socket Mode acknowledgement the client sent: {"envelope_id": …,
// "payload": …} (fixture socket_mode_ack.json).
type Ack struct {
	// EnvelopeID is the acknowledged envelope.
	EnvelopeID string
	// Payload is the response payload, nil when the ack carried none (only
	// envelopes with accepts_response_payload may carry one, e.g. slash_commands).
	Payload json.RawMessage
	// Connection is the number of the Socket Mode connection it arrived on (1 for
	// the first connection ever accepted).
	Connection int
}

// Messages returns the chat.postMessage calls recorded for channel, oldest first, as
// they were posted (updates are in Updates and Current). It does not block.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.posts[channel])
}

// Updates returns the chat.update calls recorded for the message (channel, ts),
// oldest first. It does not block.
func (s *Server) Updates(channel, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.updates[msgKey{channel, ts}])
}

// Current returns the message (channel, ts) as it now reads after its updates, and
// false when no such message was posted. It does not block.
func (s *Server) Current(channel, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[msgKey{channel, ts}]
	return m, ok
}

// Ephemerals returns the chat.postEphemeral calls recorded, oldest first. It does
// not block.
func (s *Server) Ephemerals() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ephemerals)
}

// Acks returns every Socket Mode acknowledgement received, oldest first. It does not
// block.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acks)
}

// Calls returns how many requests the Web API method received, failed ones included.
// It does not block.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Connections returns how many Socket Mode connections were accepted since New
// (1 after the first connect, 2 after one reconnect). It does not block.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// WaitMessages blocks until at least n chat.postMessage calls are recorded for
// channel and returns them all, oldest first. It returns an error wrapping ctx.Err()
// when ctx ends first, or ErrClosed once the server is closed.
func (s *Server) WaitMessages(ctx context.Context, channel string, n int) ([]Message, error) {
	return waitAll(ctx, s, fmt.Sprintf("%d messages in %s", n, channel), n,
		func() []Message { return s.posts[channel] })
}

// WaitUpdates blocks until at least n chat.update calls are recorded for the message
// (channel, ts) and returns them all, oldest first. Errors as WaitMessages.
func (s *Server) WaitUpdates(ctx context.Context, channel, ts string, n int) ([]Message, error) {
	return waitAll(ctx, s, fmt.Sprintf("%d updates of %s/%s", n, channel, ts), n,
		func() []Message { return s.updates[msgKey{channel, ts}] })
}

// WaitEphemerals blocks until at least n chat.postEphemeral calls are recorded and
// returns them all, oldest first. Errors as WaitMessages.
func (s *Server) WaitEphemerals(ctx context.Context, n int) ([]Message, error) {
	return waitAll(ctx, s, fmt.Sprintf("%d ephemerals", n), n,
		func() []Message { return s.ephemerals })
}

// WaitAcks blocks until at least n acknowledgements of envelopeID are received and
// returns them all, oldest first. Errors as WaitMessages.
func (s *Server) WaitAcks(ctx context.Context, envelopeID string, n int) ([]Ack, error) {
	var out []Ack
	err := s.wait(ctx, fmt.Sprintf("%d acks of %s", n, envelopeID), func() bool {
		out = nil
		for _, a := range s.acks {
			if a.EnvelopeID == envelopeID {
				out = append(out, a)
			}
		}
		return len(out) >= n
	})
	return out, err
}

// WaitAck blocks until envelopeID is acknowledged and returns the first ack of it.
// Errors as WaitMessages.
func (s *Server) WaitAck(ctx context.Context, envelopeID string) (Ack, error) {
	acks, err := s.WaitAcks(ctx, envelopeID, 1)
	if err != nil {
		return Ack{}, err
	}
	return acks[0], nil
}

// waitAll waits (wait) until get, called with s.mu held, holds at least n items, and
// returns a copy of them.
func waitAll[T any](ctx context.Context, s *Server, what string, n int,
	get func() []T) ([]T, error) {
	var out []T
	err := s.wait(ctx, what, func() bool {
		out = slices.Clone(get())
		return len(out) >= n
	})
	return out, err
}

// WaitConnections blocks until at least n Socket Mode connections have been accepted
// since New (see Connections). Errors as WaitMessages.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.wait(ctx, fmt.Sprintf("%d Socket Mode connections", n), func() bool {
		return s.connections >= n
	})
}
