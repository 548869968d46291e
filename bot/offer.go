package bot

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// OfferTTL is how long the "➕ Always" button of a follow-up stays: once it passes,
// the sweep removes the button.
const OfferTTL = time.Hour

// OfferSweepEvery is how often Run looks for offers past OfferTTL.
const OfferSweepEvery = time.Minute

// ActionAlways is the "➕ Always" button of a follow-up; its data is "r:<request id>",
// or "r:<request id>:2" for the button of the offer's second choice (Offer.Alt).
const ActionAlways Action = "always"

// offersKey is the store meta key of the offers not yet closed.
const offersKey = "bot/offers"

// FollowUp is a plain-text message with buttons, posted as a reply to a prompt.
type FollowUp struct {
	// Text is plain text, caller text already escaped; the channel sends it as
	// plain text.
	Text string
	// Buttons are the buttons; nil once the offer is closed (an edit removes them).
	Buttons [][]Button
}

// Replier is a Channel that can post follow-ups: both adapters are. A Channel that
// is not gets no offers.
type Replier interface {
	// Reply posts m to target as a reply to message replyTo ("" for none: a plain
	// message) and returns its reference. Errors as for Channel.Send.
	Reply(ctx context.Context, target, replyTo string, m FollowUp) (ref string, err error)
	// EditReply replaces follow-up ref of target with m, its buttons included (an
	// empty keyboard removes them). Errors as for Channel.Edit.
	EditReply(ctx context.Context, target, ref string, m FollowUp) error
}

// Offer is a "➕ Always" follow-up (docs/design.md, "Chat prompts"): the allow
// rules that would have let an approved request through, offered in one chat to
// its admins until ExpiresAt. It is stored until its message shows it closed.
type Offer struct {
	RequestID uint64 `json:"request_id"`
	Tool      string `json:"tool"`
	Channel   string `json:"channel"`
	ChatID    string `json:"chat_id"`
	// ReplyTo is the prompt message replied to, "" for none; Ref the follow-up
	// message once sent.
	ReplyTo string       `json:"reply_to,omitempty"`
	Ref     string       `json:"ref,omitempty"`
	Rules   []rules.Rule `json:"rules"`
	// Alt is a second choice, with a button of its own: the subdomains of a web
	// call's site beside its exact host; nil for none.
	Alt       []rules.Rule `json:"alt,omitempty"`
	ExpiresAt time.Time    `json:"expires_at"`
	// Armed is set once the follow-up, posted without its button, was edited to
	// show it (docs/design.md, "Chat prompts").
	Armed bool `json:"armed,omitempty"`
	// Used is set once a tap claimed it; Closing is the text its message is edited
	// to once used or expired, kept until the edit succeeds.
	Used    bool   `json:"used,omitempty"`
	Closing string `json:"closing,omitempty"`
}

func (o Offer) same(p Offer) bool {
	return o.RequestID == p.RequestID && o.Channel == p.Channel && o.ChatID == p.ChatID
}

// followUp is the message of o: open with its button, or closed with text.
func (o Offer) followUp() FollowUp {
	if o.Closing != "" {
		return FollowUp{Text: o.Closing}
	}
	data := "r:" + strconv.FormatUint(o.RequestID, 10)
	lines, buttons := offerChoice(o.Rules, data, "primary")
	if len(o.Alt) > 0 {
		l, b := offerChoice(o.Alt, data+":2", "")
		lines = append(append(lines, "or"), l...)
		buttons = append(buttons, b...)
	}
	text := fmt.Sprintf("Request #%d (%s) was approved. Allow calls like it from now on?\n%s",
		o.RequestID, shownValue(o.Tool, true, 60), strings.Join(lines, "\n"))
	return FollowUp{Text: text, Buttons: buttons}
}

// offerChoice returns the lines that list the rules rs of a follow-up and the row of
// their button, whose data is data.
func offerChoice(rs []rules.Rule, data, style string) ([]string, [][]Button) {
	var lines, shown []string
	port := ""
	for _, r := range rs {
		line := ruleText(r)
		if r.HostPattern != "" {
			line = strings.TrimSuffix(line, r.HostPattern) + hostShown(r.HostPattern)
			port = " (any port)"
		}
		lines = append(lines, "  "+Escape(line))
		shown = append(shown, cmp.Or(r.CommandPattern, hostShown(r.HostPattern), r.ToolPattern))
	}
	label := "➕ Always: " + shownValue(strings.Join(shown, ", "), false, 60) + port
	return lines, [][]Button{{{Label: label, Action: ActionAlways, Data: data, Style: style}}}
}

// Errors of ClaimOffer.
var (
	// ErrOfferUsed: the offer's rules were added already.
	ErrOfferUsed = errors.New("the rule was already added")
	// ErrOfferExpired: the offer is past its OfferTTL.
	ErrOfferExpired = errors.New("the offer has expired")
)

func (f *Fanout) now() time.Time {
	if f.clock != nil {
		return f.clock()
	}
	return time.Now()
}

func (f *Fanout) loadOffers() ([]Offer, error) {
	b, err := f.meta.GetMeta(offersKey)
	if err != nil || b == nil {
		return nil, err
	}
	var os []Offer
	if err := json.Unmarshal(b, &os); err != nil {
		return nil, fmt.Errorf("bot: stored offers: %w", err)
	}
	return os, nil
}

func (f *Fanout) saveOffers(os []Offer) error {
	if len(os) == 0 {
		return f.meta.PutMeta(offersKey, nil)
	}
	b, err := json.Marshal(os)
	if err != nil {
		return err
	}
	return f.meta.PutMeta(offersKey, b)
}

// changeOffer applies fn to the stored offer like o, under the offers lock, and
// stores the result (fn returning false drops it). It returns the offer as
// changed, and false when there is none.
func (f *Fanout) changeOffer(o Offer,
	fn func(*Offer) (keep bool, err error)) (Offer, bool, error) {
	f.offMu.Lock()
	defer f.offMu.Unlock()
	os, err := f.loadOffers()
	if err != nil {
		return Offer{}, false, err
	}
	i := slices.IndexFunc(os, o.same)
	if i < 0 {
		return Offer{}, false, nil
	}
	keep, err := fn(&os[i])
	if err != nil {
		return os[i], true, err
	}
	out := os[i]
	if !keep {
		os = slices.Delete(os, i, i+1)
	}
	return out, true, f.saveOffers(os)
}

// Offer stores o, with ExpiresAt OfferTTL from now, and posts it soon on a goroutine
// Run owns (retried like a prompt). A second offer for the same request and chat is
// ignored. Errors: no store for offers, or the store's.
func (f *Fanout) Offer(o Offer) error {
	if f.meta == nil {
		return errors.New("bot: offer: no store for offers")
	}
	o.ExpiresAt, o.Ref, o.Armed, o.Used, o.Closing = f.now().Add(OfferTTL), "", false, false, ""
	f.offMu.Lock()
	os, err := f.loadOffers()
	if err == nil && !slices.ContainsFunc(os, o.same) {
		err = f.saveOffers(append(os, o))
	}
	f.offMu.Unlock()
	if err != nil {
		return fmt.Errorf("bot: offer for request %d: %w", o.RequestID, err)
	}
	f.offerTask(o)
	return nil
}

// offerTask posts o, or edits it to its closing text, on Run's goroutines.
func (f *Fanout) offerTask(o Offer) {
	ch := f.channel(o.Channel)
	rp, ok := ch.(Replier)
	if !ok {
		// The channel is gone from the configuration: forget the offer once it
		// would have expired.
		if !f.now().Before(o.ExpiresAt) {
			_, _, err := f.changeOffer(o, func(*Offer) (bool, error) { return false, nil })
			if err != nil {
				f.log.Error("dropping an offer", "request_id", o.RequestID, "err", err)
			}
		}
		return
	}
	key := msgKey{id: o.RequestID, channel: o.Channel, chat: o.ChatID, ref: "offer"}
	if !f.claim(key) {
		// A step of this offer is running: it runs another once it is done, which
		// sees the stored offer as it is then.
		f.mu.Lock()
		f.offerAgain[key] = true
		f.mu.Unlock()
		return
	}
	t := &task{key: key, done: func(error) {}}
	t.try = func(ctx context.Context) error { return f.offerStep(ctx, rp, o) }
	t.after = func() {
		f.mu.Lock()
		again := f.offerAgain[key]
		delete(f.offerAgain, key)
		f.mu.Unlock()
		if again {
			f.offerTask(o)
		}
	}
	f.soon(t)
}

// offerStep sends the stored offer like o when it has no message yet (without its
// button, then armed: the two phases of a prompt), or edits its message once it is
// closed or expired, dropping it then.
func (f *Fanout) offerStep(ctx context.Context, rp Replier, o Offer) error {
	cur, ok, err := f.changeOffer(o, func(*Offer) (bool, error) { return true, nil })
	if err != nil || !ok {
		return err
	}
	if cur.Ref == "" {
		if cur.Used || !f.now().Before(cur.ExpiresAt) {
			_, _, err := f.changeOffer(o, func(*Offer) (bool, error) { return false, nil })
			return err
		}
		m := cur.followUp()
		m.Buttons = nil
		m.Text += "\n\n⏳ Its button follows. If none appears, this is a spare copy: " +
			"use the offer that has it."
		ref, err := rp.Reply(ctx, cur.ChatID, cur.ReplyTo, m)
		if err == nil && ref == "" {
			err = fmt.Errorf("%w: the channel returned no message reference", ErrPermanent)
		}
		if err != nil {
			return fmt.Errorf("bot: send the offer of request %d to %s %s: %w",
				o.RequestID, o.Channel, o.ChatID, err)
		}
		cur, _, err = f.changeOffer(o, func(s *Offer) (bool, error) {
			s.Ref = ref
			return true, nil
		})
		if err != nil {
			return err
		}
		f.log.Debug("offer sent", "request_id", o.RequestID, "channel", o.Channel,
			"chat", o.ChatID, "ref", ref)
	}
	if !cur.Armed && cur.Closing == "" && !cur.Used && f.now().Before(cur.ExpiresAt) {
		if err := rp.EditReply(ctx, cur.ChatID, cur.Ref, cur.followUp()); err != nil {
			return fmt.Errorf("bot: arm the offer of request %d on %s %s: %w",
				o.RequestID, o.Channel, o.ChatID, err)
		}
		cur, _, err = f.changeOffer(o, func(s *Offer) (bool, error) {
			s.Armed = true
			return true, nil
		})
		if err != nil {
			return err
		}
		f.offerEvent(cur, "sent")
	}
	if cur.Closing == "" && !f.now().Before(cur.ExpiresAt.Add(usedGrace(cur))) {
		cur.Closing = cur.followUp().Text + "\n\n⌛ Offer expired; nothing was added."
		if cur.Used {
			// Claimed, then never closed (the process stopped in between).
			cur.Closing = cur.followUp().Text + "\n\nClosed."
		}
		if _, _, err := f.changeOffer(o, func(s *Offer) (bool, error) {
			s.Closing = cur.Closing
			return true, nil
		}); err != nil {
			return err
		}
	}
	if cur.Closing == "" {
		return nil
	}
	if err := rp.EditReply(ctx, cur.ChatID, cur.Ref, cur.followUp()); err != nil {
		return fmt.Errorf("bot: close the offer of request %d on %s %s: %w",
			o.RequestID, o.Channel, o.ChatID, err)
	}
	if _, _, err = f.changeOffer(o, func(*Offer) (bool, error) { return false, nil }); err != nil {
		return err
	}
	f.offerEvent(cur, "closed")
	return nil
}

func (f *Fanout) offerEvent(o Offer, event string) {
	if f.onOffer != nil {
		f.onOffer(o, event)
	}
}

// usedGrace is how long after its expiry a claimed offer waits for its tap to close
// it, before the sweep does.
func usedGrace(o Offer) time.Duration {
	if o.Used {
		return OfferSweepEvery
	}
	return 0
}

// soon runs t's first attempt now on a goroutine Run owns, then retries it as a
// failed send is retried.
func (f *Fanout) soon(t *task) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.stopped:
		f.releaseLocked(t.key)
	case f.runCtx == nil:
		f.queued = append(f.queued, t)
	default:
		ctx := f.runCtx
		f.wg.Go(func() {
			if finished, _ := f.attempt(ctx, t); finished {
				f.finish(t)
				return
			}
			f.retryLoop(ctx, t)
		})
	}
}

// ClaimOffer marks used the open offer of request id whose follow-up is message ref
// of chat on channel, and returns it. Errors: ErrNotBound when there is none (or
// it is not that message), ErrOfferUsed, ErrOfferExpired, or the store's. Nothing
// changes on an error.
func (f *Fanout) ClaimOffer(id uint64, channel, chat, ref string) (Offer, error) {
	if f.meta == nil {
		return Offer{}, ErrNotBound
	}
	key := Offer{RequestID: id, Channel: channel, ChatID: chat}
	o, ok, err := f.changeOffer(key, func(s *Offer) (bool, error) {
		switch {
		case s.Ref == "" || s.Ref != ref:
			return true, ErrNotBound
		case s.Used:
			return true, ErrOfferUsed
		case !f.now().Before(s.ExpiresAt) || s.Closing != "":
			return true, ErrOfferExpired
		}
		s.Used = true
		return true, nil
	})
	if err == nil && !ok {
		err = ErrNotBound
	}
	return o, err
}

// ReleaseOffer undoes ClaimOffer of o, when adding its rules failed.
func (f *Fanout) ReleaseOffer(o Offer) error {
	_, _, err := f.changeOffer(o, func(s *Offer) (bool, error) {
		s.Used = false
		return true, nil
	})
	return err
}

// CloseOffer edits the follow-up of claimed offer o to text, without its button,
// soon (retried; kept in the store until it succeeds).
func (f *Fanout) CloseOffer(o Offer, text string) error {
	_, _, err := f.changeOffer(o, func(s *Offer) (bool, error) {
		s.Closing = text
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("bot: close the offer of request %d: %w", o.RequestID, err)
	}
	f.offerTask(o)
	return nil
}

// SweepOffers removes the button of every offer past its OfferTTL, sends the offers
// not sent yet, arms the ones sent but not armed and finishes the closings still to
// do (after a restart). Run calls it every OfferSweepEvery; the edits run on Run's
// goroutines. It returns the store's error.
func (f *Fanout) SweepOffers() error {
	if f.meta == nil {
		return nil
	}
	f.offMu.Lock()
	os, err := f.loadOffers()
	f.offMu.Unlock()
	if err != nil {
		return fmt.Errorf("bot: sweep offers: %w", err)
	}
	now := f.now()
	for _, o := range os {
		if o.Ref == "" || !o.Armed || o.Closing != "" || !now.Before(o.ExpiresAt) {
			f.offerTask(o)
		}
	}
	return nil
}

// sweepLoop runs SweepOffers every OfferSweepEvery until ctx is done.
func (f *Fanout) sweepLoop(ctx context.Context) {
	t := time.NewTicker(OfferSweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if f.lost.Swap(false) {
				f.log.Info("reconciling the outbox after a send or edit was given up on")
				if err := f.Reconcile(ctx); err != nil && ctx.Err() == nil {
					f.log.Error("reconciling the outbox", "err", err)
				}
				continue
			}
			if err := f.SweepOffers(); err != nil {
				f.log.Error("sweeping offers", "err", err)
			}
		}
	}
}

// offer posts the "➕ Always" follow-up of approved request r in chat of channel,
// replying to replyTo, when an admin approved it and a rule could have allowed it.
// Failures are logged: the approval stands either way.
func (b *Bot) offer(r store.Request, role Role, channel, chat, replyTo string) {
	if b.followUps == nil || role < RoleAdmin || r.Status != store.Approved || chat == "" {
		return
	}
	rs, alt := alwaysRules(r), []rules.Rule(nil)
	var args map[string]any
	if err := json.Unmarshal(r.Arguments, &args); err != nil {
		args = nil // no URL: a web tool's call gets no offer
	}
	if host, web := b.gate.WebHost(r.ToolName, args); web {
		rs, alt = hostRules(r, host)
	}
	if len(rs) == 0 {
		return
	}
	o := Offer{RequestID: r.ID, Tool: r.ToolName, Channel: channel, ChatID: chat,
		ReplyTo: replyTo, Rules: rs, Alt: alt}
	if err := b.followUps.Offer(o); err != nil {
		b.log.Error("offering a rule", "request_id", r.ID, "err", err)
	}
}

// promptIn is the ref of r's prompt message in chat of channel, "" when none.
func promptIn(r store.Request, channel, chat string) string {
	for _, m := range r.Messages {
		if m.Channel == channel && m.ChatID == chat {
			return m.Ref
		}
	}
	return ""
}

// parseOfferData decodes "r:<request id>", the data of a "➕ Always" button, or
// "r:<request id>:2", that of its second choice (alt).
func parseOfferData(data string) (id uint64, alt bool, err error) {
	rest, ok := strings.CutPrefix(data, "r:")
	if !ok || len(data) > MaxCallbackData {
		return 0, false, fmt.Errorf("bot: callback data %s: %w: want r:<request id>",
			quoteShort(data), ErrBadCallback)
	}
	rest, alt = strings.CutSuffix(rest, ":2")
	id, err = parseID(rest)
	if err != nil {
		return 0, false, fmt.Errorf("bot: callback data %s: %w: %s", quoteShort(data),
			ErrBadCallback, err)
	}
	return id, alt, nil
}

// handleOfferTap adds the rules of the offer a "➕ Always" button names, for an
// admin of t.Channel and only from that offer's own follow-up message, audited as
// the admin, then closes the offer. Errors wrap ErrBadCallback, ErrNotAuthorized,
// ErrNotBound, ErrOfferUsed, ErrOfferExpired, a gate sentinel (the rule was
// refused) or ErrInternal; no rule is added then.
func (b *Bot) handleOfferTap(ctx context.Context, t Tap) (TapResult, error) {
	id, alt, err := parseOfferData(t.Data)
	if err != nil {
		return TapResult{Toast: "Invalid button"}, fmt.Errorf("bot: tap: %w", err)
	}
	if b.access.Role(t.Channel, t.UserID) < RoleAdmin {
		b.log.Warn("always-allow tap by a user who is not an admin", "channel", t.Channel,
			"user_id", t.UserID, "request_id", id)
		return TapResult{Toast: "Not authorized: only an admin can add rules"},
			fmt.Errorf("bot: always-allow tap on request %d by %s user %s: %w",
				id, t.Channel, t.UserID, ErrNotAuthorized)
	}
	if b.followUps == nil {
		return TapResult{Toast: "Unknown request"}, fmt.Errorf("bot: tap: %w", ErrNotBound)
	}
	o, err := b.followUps.ClaimOffer(id, t.Channel, t.ChatID, t.MessageRef)
	switch {
	case errors.Is(err, ErrNotBound):
		return TapResult{Toast: "Unknown request"}, fmt.Errorf(
			"bot: always-allow tap on request %d from %s %s message %s: %w",
			id, t.Channel, t.ChatID, t.MessageRef, ErrNotBound)
	case errors.Is(err, ErrOfferUsed):
		return TapResult{Toast: "The rule was already added"}, fmt.Errorf("bot: tap: %w", err)
	case errors.Is(err, ErrOfferExpired):
		return TapResult{Toast: "This offer has expired"}, fmt.Errorf("bot: tap: %w", err)
	case err != nil:
		b.log.Error("claiming an offer", "request_id", id, "err", err)
		return TapResult{Toast: "Internal error"}, fmt.Errorf("bot: tap: %w: %w", ErrInternal, err)
	}
	chosen := o.Rules
	if alt {
		if chosen = o.Alt; len(chosen) == 0 {
			if rerr := b.followUps.ReleaseOffer(o); rerr != nil {
				b.log.Error("releasing an offer", "request_id", id, "err", rerr)
			}
			return TapResult{Toast: "Invalid button"}, fmt.Errorf(
				"bot: tap: %w: request %d has no second choice", ErrBadCallback, id)
		}
	}
	who := actor(t.Channel, t.UserName, t.UserID)
	var added []string
	for _, r := range chosen {
		group, err := b.gate.Rules(r.GroupID)
		if err == nil {
			var def []rules.Rule
			if r.GroupID != rules.DefaultGroup {
				def, err = b.gate.Rules(rules.DefaultGroup)
			}
			r.Priority = alwaysPriority(r.ToolPattern, append(group, def...))
		}
		var out rules.Rule
		if err == nil {
			r.Note = fmt.Sprintf("always allow, from request %d", o.RequestID)
			out, err = b.gate.CreateRule(r, who)
		}
		if err != nil {
			b.log.Error("adding an offered rule", "request_id", id, "rule", ruleText(r),
				"err", err)
			if len(added) == 0 {
				if rerr := b.followUps.ReleaseOffer(o); rerr != nil {
					b.log.Error("releasing an offer", "request_id", id, "err", rerr)
				}
				return TapResult{Toast: clip("Could not add the rule: "+err.Error(), 200)},
					fmt.Errorf("bot: tap: %w", err)
			}
			break
		}
		added = append(added, fmt.Sprintf("Added rule %d: %s", out.ID, ruleText(out)))
	}
	text := Escape(strings.Join(added, "\n")) + "\n— by " + who.By
	if err := b.followUps.CloseOffer(o, text); err != nil {
		b.log.Error("closing an offer", "request_id", id, "err", err)
	}
	return TapResult{Toast: clip(strings.Join(added, "; "), 200)}, nil
}
