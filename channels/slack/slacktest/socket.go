package slacktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// writeTimeout bounds every WebSocket write, so a client that stopped reading cannot
// block a test forever.
const writeTimeout = 5 * time.Second

// upgrader accepts any Origin: slack-go's socketmode sends "Origin: https://api.slack.com".
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// socketConn is one Socket Mode connection.
type socketConn struct {
	n  int // connection number, 1-based, in accept order
	ws *websocket.Conn
	// retired is set (under Server.mu) once the connection was dropped or sent a
	// disconnect: nothing more is pushed to it.
	retired bool
	// writeMu serialises data-frame writes: gorilla/websocket allows one writer at a
	// time (control frames, the pings, may be written concurrently).
	writeMu sync.Mutex
}

// write sends one text frame.
func (c *socketConn) write(frame []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.writeLocked(frame)
}

// writeLocked sends one text frame; the caller holds c.writeMu.
func (c *socketConn) writeLocked(frame []byte) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	return c.ws.WriteMessage(websocket.TextMessage, frame)
}

// serveSocket is the Socket Mode endpoint, /socket?ticket=…: a ticket from
// apps.connections.open (used once; otherwise 401) opens a WebSocket that first gets a
// hello message (fixture socket_mode_hello.json), then the pushed envelopes and a ping
// every Config.PingInterval; every frame the client sends is read as an ack.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	if o := s.frame.Outage(); o != outage.None {
		s.mu.Unlock()
		o.Fail(w)
		return
	}
	if s.frame.Closed() || !s.tickets[ticket] {
		s.mu.Unlock()
		http.Error(w, "invalid or used ticket", http.StatusUnauthorized)
		return
	}
	delete(s.tickets, ticket)
	s.sockets.Add(1) // under s.mu and before closed is set: Close waits for it
	s.mu.Unlock()
	defer s.sockets.Done()

	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil { // the upgrader has answered the HTTP error
		s.log.Debug("socket upgrade failed", "err", err)
		return
	}
	defer ws.Close()
	s.mu.Lock()
	if s.frame.Closed() {
		s.mu.Unlock()
		return
	}
	s.connections++
	c := &socketConn{n: s.connections, ws: ws}
	s.conns = append(s.conns, c)
	hello := helloFrame(len(s.conns))
	c.writeMu.Lock() // hello goes out before any envelope pushed from now on
	s.notify()
	s.mu.Unlock()
	defer s.forget(c)
	s.log.Debug("socket connected", "connection", c.n)

	stop := make(chan struct{})
	var pinger sync.WaitGroup
	pinger.Go(func() { s.ping(c, stop) })
	defer pinger.Wait()
	defer close(stop)

	err = c.writeLocked(hello)
	c.writeMu.Unlock()
	if err != nil {
		s.log.Debug("socket hello failed", "connection", c.n, "err", err)
		return
	}
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			s.log.Debug("socket closed", "connection", c.n, "err", err)
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(frame, &ack) != nil || ack.EnvelopeID == "" {
			s.log.Debug("socket frame is not an ack", "connection", c.n)
			continue
		}
		if bytes.Equal(ack.Payload, []byte("null")) {
			ack.Payload = nil
		}
		s.mu.Lock()
		s.acks = append(s.acks,
			Ack{EnvelopeID: ack.EnvelopeID, Payload: ack.Payload, Connection: c.n})
		s.notify()
		s.mu.Unlock()
	}
}

// ping sends a WebSocket ping every Config.PingInterval until stop is closed.
func (s *Server) ping(c *socketConn, stop <-chan struct{}) {
	t := time.NewTicker(s.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			deadline := time.Now().Add(writeTimeout)
			if err := c.ws.WriteControl(websocket.PingMessage, nil, deadline); err != nil {
				return
			}
		}
	}
}

// forget removes c, whose handler is returning, from the open connections.
func (s *Server) forget(c *socketConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.conns, c); i >= 0 {
		s.conns = slices.Delete(s.conns, i, i+1)
		s.notify()
	}
}

// newest returns the most recent connection that is not retired, nil when there is
// none. With retire, it also retires it. The caller holds s.mu.
func (s *Server) newest(retire bool) *socketConn {
	for _, c := range slices.Backward(s.conns) {
		if !c.retired {
			c.retired = retire
			return c
		}
	}
	return nil
}

// Envelope is a Socket Mode message that carries a payload to the app
// (socketmode.Request on the client side).
type Envelope struct {
	// Type is the envelope type: "interactive", "slash_commands", "events_api".
	Type string
	// EnvelopeID identifies the delivery; the app acks it. Empty: Push makes a fresh
	// one. Push the same id again to redeliver, as Slack does when an ack is late.
	EnvelopeID string
	// Payload is the JSON object delivered (an interaction, a slash command, an event).
	Payload json.RawMessage
	// AcceptsResponsePayload tells the app its ack may carry a response payload
	// (true for slash_commands).
	AcceptsResponsePayload bool
	// RetryAttempt and RetryReason mark a redelivery (1, "timeout"); they are sent
	// only when RetryAttempt > 0.
	RetryAttempt int
	RetryReason  string
}

// Retry returns e as Slack redelivers it when the ack was late: same envelope id and
// payload, RetryAttempt one more, RetryReason reason ("timeout").
func (e Envelope) Retry(reason string) Envelope {
	e.RetryAttempt++
	e.RetryReason = reason
	return e
}

// Push sends e to the newest Socket Mode connection and returns it with its
// EnvelopeID filled in. It does not wait for the ack (see WaitAck). It returns an
// error wrapping ErrInvalidEnvelope for an envelope without a type or whose payload
// is not a JSON object, ErrNotConnected when no client is connected, or the write
// error when the connection fails under it.
func (s *Server) Push(e Envelope) (Envelope, error) {
	var obj map[string]json.RawMessage
	if e.Type == "" || json.Unmarshal(e.Payload, &obj) != nil || obj == nil {
		return e, fmt.Errorf("slacktest: push %q: %w: needs a type and a JSON object payload",
			e.Type, ErrInvalidEnvelope)
	}
	if e.EnvelopeID == "" {
		e.EnvelopeID = newEnvelopeID()
	}
	frame := map[string]any{
		"envelope_id": e.EnvelopeID, "payload": e.Payload, "type": e.Type,
		"accepts_response_payload": e.AcceptsResponsePayload,
	}
	if e.RetryAttempt > 0 {
		frame["retry_attempt"], frame["retry_reason"] = e.RetryAttempt, e.RetryReason
	}
	b, err := json.Marshal(frame)
	if err != nil {
		return e, fmt.Errorf("slacktest: push %s: %w", e.Type, err)
	}
	s.mu.Lock()
	c := s.newest(false)
	s.mu.Unlock()
	if c == nil {
		return e, fmt.Errorf("slacktest: push %s: %w", e.Type, ErrNotConnected)
	}
	if err := c.write(b); err != nil {
		return e, fmt.Errorf("slacktest: push %s on connection %d: %w", e.Type, c.n, err)
	}
	s.log.Debug("pushed envelope", "type", e.Type, "envelope_id", e.EnvelopeID, "connection", c.n)
	return e, nil
}

// Drop closes every Socket Mode connection not yet retired (by Drop or Disconnect)
// abruptly, without a close frame, as a network failure would; the client has to
// notice and reconnect through apps.connections.open. It returns an error wrapping
// ErrNotConnected when no client is connected. It does not wait for the reconnect
// (see WaitConnections).
func (s *Server) Drop() error {
	var live []*socketConn
	s.mu.Lock()
	for c := s.newest(true); c != nil; c = s.newest(true) {
		live = append(live, c)
	}
	s.mu.Unlock()
	if len(live) == 0 {
		return fmt.Errorf("slacktest: drop: %w", ErrNotConnected)
	}
	for _, c := range live {
		_ = c.ws.Close()
	}
	return nil
}

// Disconnect sends the newest connection a disconnect message with reason ("warning",
// "refresh_requested", "link_disabled"; fixture socket_mode_disconnect.json) and retires
// it: nothing more is pushed to it. The client is expected to close it and reconnect
// through apps.connections.open; Close closes it otherwise. It returns an error wrapping
// ErrNotConnected when no client is connected, or the write error.
func (s *Server) Disconnect(reason string) error {
	s.mu.Lock()
	c := s.newest(true)
	s.mu.Unlock()
	if c == nil {
		return fmt.Errorf("slacktest: disconnect: %w", ErrNotConnected)
	}
	if err := c.write(disconnectFrame(reason)); err != nil {
		return fmt.Errorf("slacktest: disconnect connection %d: %w", c.n, err)
	}
	return nil
}
