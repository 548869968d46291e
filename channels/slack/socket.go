package slack

import (
	"context"
	"sync"
	"time"

	slackgo "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// The backoff between restarts of slack-go's Socket Mode client, when it stops on an
// error it does not retry itself (apps.connections.open refusing the app token).
const (
	restartBackoff    = time.Second
	maxRestartBackoff = 5 * time.Minute
)

// runSocket receives over Socket Mode until ctx is done: one goroutine keeps slack-go's
// client connected, this one reads its events, acknowledging each envelope at once.
func (c *Channel) runSocket(ctx context.Context) error {
	sm := socketmode.New(c.api)
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.keepConnected(sctx, sm) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-sm.Events:
			c.onSocketEvent(ctx, sm, ev)
		}
	}
}

// keepConnected runs slack-go's client, which reconnects by itself when the socket
// drops, Slack sends a disconnect, or pings stop coming (30 s); when it returns
// anyway, keepConnected restarts it after a backoff that doubles up to
// maxRestartBackoff, starting over once a run lasted that long.
func (c *Channel) keepConnected(ctx context.Context, sm *socketmode.Client) {
	wait := restartBackoff
	for {
		start := time.Now()
		err := sm.RunContext(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > maxRestartBackoff {
			wait = restartBackoff
		}
		c.log.Error("Socket Mode client stopped; restarting", "err", err, "in", wait)
		if c.sleep(ctx, wait) != nil {
			return
		}
		wait = min(2*wait, maxRestartBackoff)
	}
}

// onSocketEvent handles one event of slack-go's client: interactive and
// slash_commands envelopes are handed to the workers and then acknowledged; other
// envelopes are acknowledged and ignored; connection events are logged.
func (c *Channel) onSocketEvent(ctx context.Context, sm *socketmode.Client, ev socketmode.Event) {
	switch ev.Type {
	case socketmode.EventTypeConnecting:
		c.log.Debug("Socket Mode connecting")
	case socketmode.EventTypeConnected:
		c.log.Info("Socket Mode connected")
	case socketmode.EventTypeHello:
		c.log.Debug("Socket Mode hello")
	case socketmode.EventTypeConnectionError:
		c.log.Warn("Socket Mode connection failed; slack-go retries", "err", eventErr(ev))
	case socketmode.EventTypeInvalidAuth:
		c.log.Error("Socket Mode: Slack refused the app-level token")
	case socketmode.EventTypeIncomingError, socketmode.EventTypeErrorBadMessage,
		socketmode.EventTypeErrorWriteFailed:
		c.log.Warn("Socket Mode error", "type", string(ev.Type), "err", eventErr(ev))
	case socketmode.EventTypeInteractive:
		takeAs(ctx, c, sm, ev, c.handleInteraction)
	case socketmode.EventTypeSlashCommand:
		takeAs(ctx, c, sm, ev, c.handleCommand)
	default:
		c.ackOnly(ctx, sm, ev)
	}
}

// takeAs takes ev (take) with handle as its work when its data is a T; an envelope
// with other data is acknowledged and ignored.
func takeAs[T any](ctx context.Context, c *Channel, sm *socketmode.Client, ev socketmode.Event,
	handle func(ctx context.Context, key string, v T)) {
	v, ok := ev.Data.(T)
	if !ok {
		c.ackOnly(ctx, sm, ev)
		return
	}
	c.take(ctx, sm, ev, func(ctx context.Context, key string) { handle(ctx, key, v) })
}

// take hands an envelope's work to the workers, then acknowledges the envelope. When
// Run is stopping it neither takes nor acknowledges it, so Slack delivers it again
// after the restart.
func (c *Channel) take(ctx context.Context, sm *socketmode.Client, ev socketmode.Event,
	work handler) {
	if ev.Request == nil || ev.Request.EnvelopeID == "" {
		c.log.Warn("Socket Mode envelope without an envelope_id ignored", "type", string(ev.Type))
		return
	}
	id := ev.Request.EnvelopeID
	if !c.work.Go(func(ctx context.Context) { work(ctx, "slack:envelope:"+id) }) {
		c.log.Warn("shutting down: envelope left unacknowledged for Slack to redeliver",
			"envelope_id", id)
		return
	}
	c.ackOnly(ctx, sm, ev)
}

// ackOnly acknowledges an envelope without a payload (a no-op for events that carry
// none).
func (c *Channel) ackOnly(ctx context.Context, sm *socketmode.Client, ev socketmode.Event) {
	if ev.Request == nil || ev.Request.EnvelopeID == "" {
		return
	}
	if err := sm.AckCtx(ctx, ev.Request.EnvelopeID, nil); err != nil {
		c.log.Warn("acknowledging a Socket Mode envelope",
			"envelope_id", ev.Request.EnvelopeID, "type", string(ev.Type), "err", err)
		return
	}
	c.log.Debug("acknowledged",
		"envelope_id", ev.Request.EnvelopeID, "type", string(ev.Type),
		"retry", ev.Request.RetryAttempt)
}

// eventErr digs the error out of a socketmode event's data.
func eventErr(ev socketmode.Event) any {
	switch d := ev.Data.(type) {
	case *slackgo.ConnectionErrorEvent:
		return d.ErrorObj
	case *slackgo.IncomingEventError:
		return d.ErrorObj
	case *socketmode.ErrorBadMessage:
		return d.Cause
	case *socketmode.ErrorWriteFailed:
		return d.Cause
	case error:
		return d
	}
	return ev.Data
}
