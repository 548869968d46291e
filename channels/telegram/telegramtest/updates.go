package telegramtest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/go-telegram/bot/models"

	"github.com/skald-circle/skald-bot/internal/testkit/outage"
)

// queuedUpdate is an injected update not yet confirmed by the bot.
type queuedUpdate struct {
	id  int64
	raw json.RawMessage
}

// longPoll is a getUpdates call waiting for updates. err is set when another call
// terminates it (s.poll then no longer points to it).
type longPoll struct {
	offset  int64
	limit   int
	timeout time.Duration
	err     APIError
}

// Inject queues an update for the bot, as if a user had acted, and returns the
// update_id it got: ids are assigned 1, 2, 3… in injection order (u.ID is ignored),
// so the bot's offset works as on Telegram. A waiting getUpdates returns it at once.
// The chats it carries become known (the bot may answer there), and a callback query
// in it becomes answerable. The update stays pending until a getUpdates with a larger
// offset confirms it, or a webhook is set with drop_pending_updates.
//
// It returns an error wrapping ErrInvalidUpdate when u cannot be encoded (a
// MaybeInaccessibleMessage of an unknown Type); nothing is queued then.
func (s *Server) Inject(u models.Update) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.ID = s.nextUpdateID
	raw, err := json.Marshal(&u)
	if err != nil {
		return 0, fmt.Errorf("telegramtest: inject: %w: %v", ErrInvalidUpdate, err)
	}
	s.enqueueLocked(u, raw)
	return u.ID, nil
}

// InjectJSON is Inject for an update given as JSON, such as a fixture (see Fixture):
// its update_id is replaced by the next id and every other field is kept as given.
// It returns an error wrapping ErrInvalidUpdate when raw is not a JSON object that
// decodes into models.Update; nothing is queued then.
func (s *Server) InjectJSON(raw []byte) (int64, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return 0, fmt.Errorf("telegramtest: inject JSON: not an object: %w", ErrInvalidUpdate)
	}
	var u models.Update
	if err := json.Unmarshal(raw, &u); err != nil {
		return 0, fmt.Errorf("telegramtest: inject JSON: %w: %v", ErrInvalidUpdate, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u.ID = s.nextUpdateID
	fields["update_id"] = json.RawMessage(strconv.FormatInt(u.ID, 10))
	withID, err := json.Marshal(fields)
	if err != nil {
		return 0, fmt.Errorf("telegramtest: inject JSON: %w: %v", ErrInvalidUpdate, err)
	}
	s.enqueueLocked(u, withID)
	return u.ID, nil
}

func (s *Server) enqueueLocked(u models.Update, raw json.RawMessage) {
	s.nextUpdateID++
	s.queue = append(s.queue, queuedUpdate{id: u.ID, raw: raw})
	s.injected[u.ID] = raw
	for _, m := range []*models.Message{
		u.Message, u.EditedMessage, u.ChannelPost, u.EditedChannelPost,
	} {
		if m != nil {
			s.learnChatLocked(m.Chat, m.ID)
		}
	}
	if cq := u.CallbackQuery; cq != nil {
		if _, seen := s.callbacks[cq.ID]; !seen && cq.ID != "" {
			s.callbacks[cq.ID] = true
		}
		switch {
		case cq.Message.Message != nil:
			s.learnChatLocked(cq.Message.Message.Chat, cq.Message.Message.ID)
		case cq.Message.InaccessibleMessage != nil:
			m := cq.Message.InaccessibleMessage
			s.learnChatLocked(m.Chat, m.MessageID)
		}
	}
	s.notifyLocked()
}

// Redeliver puts an injected update back among the pending ones, as if the bot had
// never confirmed it — what a bot sees again when it restarts with an offset not past
// the update. A getUpdates whose offset is larger than id still confirms it without
// returning it, as on Telegram. It returns an error wrapping ErrUnknownUpdate for an
// id never injected.
func (s *Server) Redeliver(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.injected[id]
	if !ok {
		return fmt.Errorf("telegramtest: redeliver %d: %w", id, ErrUnknownUpdate)
	}
	i, found := slices.BinarySearchFunc(s.queue, id, func(q queuedUpdate, id int64) int {
		return cmp.Compare(q.id, id)
	})
	if !found {
		s.queue = slices.Insert(s.queue, i, queuedUpdate{id: id, raw: raw})
		s.notifyLocked()
	}
	return nil
}

// PendingUpdates returns how many injected updates are not yet confirmed (getWebhookInfo's
// pending_update_count).
func (s *Server) PendingUpdates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// getUpdates serves https://core.telegram.org/bots/api#getupdates: offset confirms
// the updates before it (a negative one counts from the end and forgets all before),
// limit is 1–100 (default 100), timeout 0–50 seconds. With nothing to return and a
// timeout, the call waits, ending an earlier waiting call with
// ErrTerminatedByOtherPoll (Client.cpp do_get_updates / abort_long_poll).
func (s *Server) getUpdates(p params) reply {
	if s.webhook.URL != "" {
		return fail(ErrWebhookActive)
	}
	offset, _ := p.int64Param("offset")
	limit := p.intParam("limit", 100, 1, 100)
	timeout := p.intParam("timeout", 0, 0, MaxPollTimeout)
	offset = s.confirmLocked(offset)
	if ups := s.pendingLocked(offset, limit); len(ups) > 0 || timeout == 0 || s.frame.Closed() {
		return reply{result: ups}
	}
	s.abortPollLocked(ErrTerminatedByOtherPoll)
	s.poll = &longPoll{offset: offset, limit: limit, timeout: time.Duration(timeout) * time.Second}
	return reply{poll: s.poll}
}

// confirmLocked forgets the updates an offset confirms and returns the first id to
// return (0: from the oldest pending).
func (s *Server) confirmLocked(offset int64) int64 {
	if offset < 0 {
		offset += s.nextUpdateID // -1 is the last update
	}
	if offset <= 0 {
		return 0
	}
	i := 0
	for i < len(s.queue) && s.queue[i].id < offset {
		i++
	}
	s.queue = s.queue[i:]
	return offset
}

func (s *Server) pendingLocked(offset int64, limit int) []json.RawMessage {
	ups := make([]json.RawMessage, 0, min(limit, len(s.queue)))
	for _, q := range s.queue {
		if len(ups) == limit {
			break
		}
		if q.id >= offset {
			ups = append(ups, q.raw)
		}
	}
	return ups
}

// abortPollLocked ends the waiting getUpdates, if any, with e.
func (s *Server) abortPollLocked(e APIError) {
	if s.poll != nil {
		s.poll.err = e
		s.poll = nil
		s.notifyLocked()
	}
}

// waitPoll waits, without s.mu held, until the long poll has updates to return, times
// out (an empty result), is terminated (its error), the server goes down (the
// outage) or closes (what it has). gone is true when the client went away: nothing is
// to be written then.
func (s *Server) waitPoll(ctx context.Context, lp *longPoll) (rep reply, gone bool) {
	timer := time.NewTimer(lp.timeout)
	defer timer.Stop()
	timedOut := false
	for {
		s.mu.Lock()
		if s.poll != lp {
			e := lp.err
			s.mu.Unlock()
			return fail(e), false
		}
		if o := s.frame.Outage(); o != outage.None { // the server went down under it
			s.poll = nil
			s.mu.Unlock()
			return reply{outage: o}, false
		}
		if ups := s.pendingLocked(lp.offset, lp.limit); len(ups) > 0 || s.frame.Closed() || timedOut {
			s.poll = nil
			s.mu.Unlock()
			return reply{result: ups}, false
		}
		changed := s.frame.Changed()
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			timedOut = true
		case <-ctx.Done():
			s.mu.Lock()
			if s.poll == lp {
				s.poll = nil
				s.notifyLocked()
			}
			s.mu.Unlock()
			return reply{}, true
		}
	}
}

var commandPattern = regexp.MustCompile(`^/[A-Za-z0-9_]{1,64}(@[A-Za-z0-9_]{3,32})?$`)

// MessageUpdate builds (does not inject) an update carrying a text message from a
// user in a chat, with the next message id of that chat, the current date, and a
// bot_command entity when the text starts with a command ("/rules" or
// "/rules@fake_approval_bot", the entity covering both parts, as Telegram sends it).
// The chat becomes known. Inject the result to deliver it.
func (s *Server) MessageUpdate(from models.User, chat models.Chat, text string) models.Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.chats[chat.ID]
	if !ok {
		cs = s.addChatLocked(chat)
	}
	m := &models.Message{
		ID: cs.nextID, From: &from, Chat: cs.chat, Date: int(s.now().Unix()), Text: text,
	}
	cs.nextID++
	cmd := text
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		cmd = text[:i]
	}
	if commandPattern.MatchString(cmd) {
		m.Entities = []models.MessageEntity{
			{Type: models.MessageEntityTypeBotCommand, Offset: 0, Length: utf16Count(cmd)},
		}
	}
	s.notifyLocked()
	return models.Update{Message: m}
}

// CallbackQueryUpdate builds (does not inject) the update Telegram sends when a user
// taps an inline button with callback data data under message messageID of chat
// chatID. When the bot sent that message, the update carries it in full (text,
// entities, keyboard); otherwise it carries an InaccessibleMessage (date 0, only the
// chat and id), as Telegram does for deleted or old messages. The callback query id
// is unique and becomes answerable once the update is injected.
func (s *Server) CallbackQueryUpdate(from models.User, chatID int64, messageID int,
	data string) models.Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextCallbackID++
	var msg models.MaybeInaccessibleMessage
	cs, ok := s.chats[chatID]
	if ok && cs.byID[messageID] != nil {
		msg = models.MaybeInaccessibleMessage{
			Type:    models.MaybeInaccessibleMessageTypeMessage,
			Message: s.messageJSON(cs, cs.byID[messageID]),
		}
	} else {
		chat := withChatType(models.Chat{ID: chatID})
		if ok {
			chat = cs.chat
		}
		msg = models.MaybeInaccessibleMessage{
			Type:                models.MaybeInaccessibleMessageTypeInaccessibleMessage,
			InaccessibleMessage: &models.InaccessibleMessage{Chat: chat, MessageID: messageID},
		}
	}
	return models.Update{CallbackQuery: &models.CallbackQuery{
		ID:           strconv.FormatInt(4000000000000000000+s.nextCallbackID, 10),
		From:         from,
		Message:      msg,
		ChatInstance: strconv.FormatInt(-6000000000000000000-abs(chatID), 10),
		Data:         data,
	}}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
