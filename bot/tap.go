package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/store"
)

// Tap is a button tapped under a prompt, as an adapter received it: a Telegram
// callback query, a Slack block_actions click.
type Tap struct {
	// Channel is the adapter's Channel.Name(): "telegram" or "slack".
	Channel string
	// ChatID and MessageRef name the message the button is on: a Telegram chat id
	// and message_id in decimal, a Slack channel id and message ts.
	ChatID     string
	MessageRef string
	// UserID is who tapped (a Telegram user id in decimal, a Slack user id);
	// UserName their display name, for the record ("" when unknown).
	UserID   string
	UserName string
	// Data is the callback_data or the button's value: "a:<id>:<action>".
	Data string
}

// TapResult is what to tell the user who tapped.
type TapResult struct {
	// Toast is the short answer to show (Telegram answerCallbackQuery text, a Slack
	// ephemeral message), at most 200 characters: "Approved", "Rejected", "Approved ·
	// ⏱ 15 min bypass", "Already approved by NAME", "This request has expired", "Not
	// authorized", "Unknown request", "Invalid button", "Internal error".
	Toast string
	// Resolved is true when this tap resolved the request.
	Resolved bool
	// Request is the request as stored after the tap; zero when the tap named no
	// request it may see (bad data, not authorized, unknown, not bound).
	Request store.Request
	// Ask, set by a clarification's "✍️ Answer" button, asks the adapter to get the
	// approver's free-text answer.
	Ask *AskAnswer
}

// HandleTap acts on the button t names (docs/design.md, "Chat prompts": buttons, taps
// bound to their message, always allow): it resolves a request ("a:"), adds an offered
// rule ("r:", admins only) or answers a clarification ("q:"), by "NAME (id)" via
// t.Channel. It does store work only; Fanout.Update edits the messages later. The
// TapResult always carries the toast. The error is nil when the tap took effect, else
// it wraps ErrBadCallback, ErrNotAuthorized, ErrNotBound, ErrOfferUsed,
// ErrOfferExpired, gate.ErrNotFound, gate.ErrAlreadyResolved, gate.ErrExpired or
// ErrInternal (a store failure, logged); nothing changes on an error.
func (b *Bot) HandleTap(ctx context.Context, t Tap) (TapResult, error) {
	if strings.HasPrefix(t.Data, "r:") {
		return b.handleOfferTap(ctx, t)
	}
	if strings.HasPrefix(t.Data, "q:") {
		return b.handleClarTap(ctx, t, nil)
	}
	cb, err := ParseCallback(t.Data)
	if err != nil {
		b.log.Warn("tap with bad callback data", "channel", t.Channel, "user_id", t.UserID,
			"err", err)
		return TapResult{Toast: "Invalid button"}, fmt.Errorf("bot: tap: %w", err)
	}
	if b.access.Role(t.Channel, t.UserID) < RoleApprover {
		b.log.Warn("tap by a user who is not an approver", "channel", t.Channel,
			"user_id", t.UserID, "request_id", cb.RequestID)
		return TapResult{Toast: "Not authorized"}, fmt.Errorf(
			"bot: tap on request %d by %s user %s: %w",
			cb.RequestID, t.Channel, t.UserID, ErrNotAuthorized)
	}
	req, err := b.gate.Request(cb.RequestID)
	switch {
	case errors.Is(err, gate.ErrNotFound):
		return TapResult{Toast: "Unknown request"}, fmt.Errorf("bot: tap: %w", err)
	case err != nil:
		b.log.Error("reading a tapped request", "request_id", cb.RequestID, "err", err)
		return TapResult{Toast: "Internal error"}, fmt.Errorf("bot: tap: %w: %w", ErrInternal, err)
	}
	if !bound(req, t) {
		b.log.Warn("tap on a message that is not a prompt of its request",
			"request_id", cb.RequestID, "channel", t.Channel, "chat", t.ChatID,
			"ref", t.MessageRef, "user_id", t.UserID)
		return TapResult{Toast: "Unknown request"}, fmt.Errorf(
			"bot: tap on request %d from %s %s message %s: %w",
			cb.RequestID, t.Channel, t.ChatID, t.MessageRef, ErrNotBound)
	}
	who := actor(t.Channel, t.UserName, t.UserID)
	res := gate.Answer{Approve: cb.Action != ActionReject, By: who.By, Via: who.Via}
	switch cb.Action {
	case ActionBypassShort:
		secs := int64(b.short.Seconds())
		res.BypassSecs = &secs
	case ActionBypassSession:
		secs := int64(0)
		res.BypassSecs = &secs
	}
	out, err := b.gate.Resolve(ctx, cb.RequestID, res)
	switch {
	case err == nil:
		if res.Approve {
			b.offer(out, b.access.Role(t.Channel, t.UserID), t.Channel, t.ChatID, t.MessageRef)
		}
		return TapResult{Toast: tapToast(cb.Action, b.short), Resolved: true, Request: out}, nil
	case errors.Is(err, gate.ErrAlreadyResolved):
		res := TapResult{Toast: clip(finishedText(out), 200), Request: out}
		return res, fmt.Errorf("bot: tap: %w", err)
	case errors.Is(err, gate.ErrExpired):
		req.Status = store.Expired
		res := TapResult{Toast: "This request has expired", Request: req}
		return res, fmt.Errorf("bot: tap: %w", err)
	case errors.Is(err, gate.ErrNotFound):
		return TapResult{Toast: "Unknown request"}, fmt.Errorf("bot: tap: %w", err)
	}
	b.log.Error("resolving a tapped request", "request_id", cb.RequestID, "err", err)
	return TapResult{Toast: "Internal error"}, fmt.Errorf("bot: tap: %w: %w", ErrInternal, err)
}

// bound reports whether the tapped message is one of the request's prompts.
func bound(r store.Request, t Tap) bool {
	for _, m := range r.Messages {
		if m.Channel == t.Channel && m.ChatID == t.ChatID && m.Ref == t.MessageRef {
			return true
		}
	}
	return false
}

func tapToast(a Action, short time.Duration) string {
	switch a {
	case ActionReject:
		return "Rejected"
	case ActionBypassShort:
		return "Approved · ⏱ " + DurationLabel(short) + " bypass"
	case ActionBypassSession:
		return "Approved · 🔄 session bypass"
	}
	return "Approved"
}

// finishedText says how a finished request ended, for someone who came too late:
// "Already approved by NAME", "Already rejected by NAME", "This request has expired",
// "This request was cancelled".
func finishedText(r store.Request) string {
	by := ""
	if r.Resolution != nil && r.Resolution.By != "" {
		by = " by " + r.Resolution.By
	}
	switch r.Status {
	case store.Approved:
		return "Already approved" + by
	case store.Rejected:
		return "Already rejected" + by
	case store.Expired:
		return "This request has expired"
	case store.Cancelled:
		return "This request was cancelled"
	}
	return "This request is already " + string(r.Status)
}

// LogTap logs the outcome of a HandleTap the adapter ran: Info when it resolved the
// request or the request had already finished, Warn when it was refused (bad data,
// not authorized, unknown, not bound), Error for ErrInternal. attrs are added.
func LogTap(log *slog.Logger, t Tap, res TapResult, err error, attrs ...any) {
	attrs = append(attrs, "user_id", t.UserID, "chat", t.ChatID, "message", t.MessageRef,
		"toast", res.Toast)
	if res.Request.ID != 0 {
		attrs = append(attrs, "request_id", res.Request.ID, "status", string(res.Request.Status))
	}
	switch {
	case err == nil && strings.HasPrefix(t.Data, "r:"):
		log.Info("offered rule added by a tap", attrs...)
	case err == nil && strings.HasPrefix(t.Data, "q:"):
		log.Info("clarification tap", attrs...)
	case err == nil:
		log.Info("request resolved by a tap", attrs...)
	case errors.Is(err, ErrInternal):
		log.Error("tap failed", append(attrs, "err", err)...)
	case res.Request.ID != 0: // already resolved, expired
		log.Info("tap on a finished request", append(attrs, "err", err)...)
	default:
		log.Warn("tap refused", append(attrs, "err", err)...)
	}
}
