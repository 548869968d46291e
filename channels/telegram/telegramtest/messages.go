package telegramtest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"
)

// Content is one version of a message the bot sent: what sendMessage sent, or what
// an edit made of it.
type Content struct {
	// Method is the call that produced this version: "sendMessage", "editMessageText"
	// or "editMessageReplyMarkup".
	Method string
	// Text is the text parameter as the bot sent it, before entities parsing
	// (editMessageReplyMarkup keeps the previous version's).
	Text string
	// ParseMode is the parse_mode parameter as sent ("HTML"), empty for none.
	ParseMode string
	// PlainText is what the user sees: Text after entities parsing (&lt; is "<",
	// tags are gone). Equal to Text when there is no parse mode, and for Markdown and
	// MarkdownV2, which this server does not parse.
	PlainText string
	// Entities are the formatting entities parsed from the HTML, offsets and lengths
	// in UTF-16 code units, as the Bot API returns them. Entities Telegram would
	// detect on its own (URLs, mentions, bot commands) are not produced.
	Entities []models.MessageEntity
	// Keyboard is the inline keyboard shown under the message, nil for none. An edit
	// without reply_markup removes it, as on Telegram.
	Keyboard *models.InlineKeyboardMarkup
}

// CallbackData returns the callback_data of every button of the keyboard, row by
// row, left to right (empty strings for buttons of other kinds); nil without one.
func (c Content) CallbackData() []string {
	if c.Keyboard == nil {
		return nil
	}
	var out []string
	for _, row := range c.Keyboard.InlineKeyboard {
		for _, b := range row {
			out = append(out, b.CallbackData)
		}
	}
	return out
}

// SentMessage is a message the bot sent, with its current content and its history.
type SentMessage struct {
	ChatID    int64
	MessageID int
	// Content is what the message shows now.
	Content
	// History is every version, oldest first: History[0] is what sendMessage sent and
	// each successful edit appended one, so len(History)-1 is the number of edits.
	// Failed edits ("message is not modified", …) add nothing.
	History []Content
}

// version is a stored Content; markup is canonical keyboard JSON or nil.
type version struct {
	method, text, parseMode, plain string
	entities                       []models.MessageEntity
	markup                         []byte
}

func (v version) content() Content {
	return Content{
		Method: v.method, Text: v.text, ParseMode: v.parseMode, PlainText: v.plain,
		Entities: slices.Clone(v.entities), Keyboard: keyboard(v.markup),
	}
}

type storedMessage struct {
	id             int
	date, editDate int
	versions       []version // never empty
}

func (m *storedMessage) current() version { return m.versions[len(m.versions)-1] }

// chatState is a chat the bot can write to, and what it wrote there.
type chatState struct {
	chat     models.Chat
	nextID   int // the next message id in this chat
	messages []*storedMessage
	byID     map[int]*storedMessage
}

// AddChat makes a chat known, so the bot can send to it; an empty Type is inferred
// from the id (> 0 private, ≤ -1000000000000 supergroup, else group). Adding a known
// chat replaces its description and keeps its messages.
func (s *Server) AddChat(c models.Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addChatLocked(c)
	s.notifyLocked()
}

func (s *Server) addChatLocked(c models.Chat) *chatState {
	c = withChatType(c)
	if cs, ok := s.chats[c.ID]; ok {
		cs.chat = c
		return cs
	}
	cs := &chatState{chat: c, nextID: 1, byID: make(map[int]*storedMessage)}
	s.chats[c.ID] = cs
	return cs
}

// withChatType gives a chat without a Type the one its id implies: > 0 private,
// ≤ -1000000000000 supergroup (the -100… ids), else group.
func withChatType(c models.Chat) models.Chat {
	if c.Type == "" {
		switch {
		case c.ID > 0:
			c.Type = models.ChatTypePrivate
		case c.ID <= -1000000000000:
			c.Type = models.ChatTypeSupergroup
		default:
			c.Type = models.ChatTypeGroup
		}
	}
	return c
}

// learnChatLocked records a chat seen in an injected update and the id of a message
// in it, so the bot's next message there gets a larger id.
func (s *Server) learnChatLocked(c models.Chat, messageID int) {
	if c.ID == 0 {
		return
	}
	cs, ok := s.chats[c.ID]
	if !ok {
		cs = s.addChatLocked(c)
	}
	if messageID >= cs.nextID {
		cs.nextID = messageID + 1
	}
}

// chatLocked finds the chat a chat_id parameter names: an integer id, or
// "@username" of a known chat.
func (s *Server) chatLocked(chatID string) (*chatState, bool) {
	chatID = strings.TrimSpace(chatID)
	if name, ok := strings.CutPrefix(chatID, "@"); ok {
		for _, cs := range s.chats {
			if name != "" && strings.EqualFold(cs.chat.Username, name) {
				return cs, true
			}
		}
		return nil, false
	}
	id, err := strconv.ParseInt(chatID, 10, 64)
	if err != nil {
		return nil, false
	}
	cs, ok := s.chats[id]
	return cs, ok
}

// sendMessage serves https://core.telegram.org/bots/api#sendmessage.
func (s *Server) sendMessage(p params) reply {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return fail(ErrChatIDEmpty)
	}
	if p["text"] == "" {
		return fail(ErrTextEmpty)
	}
	markup, e := parseReplyMarkup(p["reply_markup"])
	if e != nil {
		return fail(*e)
	}
	cs, ok := s.chatLocked(p["chat_id"])
	if !ok {
		return fail(ErrChatNotFound)
	}
	v, e := parseText("sendMessage", p, ErrMessageTooLong)
	if e != nil {
		return fail(*e)
	}
	v.markup = markup
	m := &storedMessage{id: cs.nextID, date: int(s.now().Unix()), versions: []version{v}}
	cs.nextID++
	cs.messages = append(cs.messages, m)
	cs.byID[m.id] = m
	return reply{result: s.messageJSON(cs, m)}
}

// editMessageText serves https://core.telegram.org/bots/api#editmessagetext for
// messages of chats (not inline messages).
func (s *Server) editMessageText(p params) reply {
	if p["text"] == "" {
		return fail(ErrTextEmpty)
	}
	return s.editLocked(p, func(version) (version, *APIError) {
		return parseText("editMessageText", p, ErrEditTooLong)
	})
}

// editMessageReplyMarkup serves
// https://core.telegram.org/bots/api#editmessagereplymarkup for messages of chats.
func (s *Server) editMessageReplyMarkup(p params) reply {
	return s.editLocked(p, func(cur version) (version, *APIError) {
		cur.method = "editMessageReplyMarkup"
		return cur, nil
	})
}

// editLocked serves an edit of a message of a chat: it finds the message, parses
// reply_markup, and applies the version that next makes of the message's current one
// with that markup.
func (s *Server) editLocked(p params, next func(cur version) (version, *APIError)) reply {
	cs, m, e := s.messageToEditLocked(p)
	if e != nil {
		return fail(*e)
	}
	markup, e := parseReplyMarkup(p["reply_markup"])
	if e != nil {
		return fail(*e)
	}
	v, e := next(m.current())
	if e != nil {
		return fail(*e)
	}
	v.markup = markup
	return s.applyEditLocked(cs, m, v)
}

// messageToEditLocked finds the message an edit names by chat_id and message_id.
func (s *Server) messageToEditLocked(p params) (*chatState, *storedMessage, *APIError) {
	if p["inline_message_id"] != "" {
		return nil, nil, &APIError{Code: 400,
			Description: "Bad Request: inline messages are not served by telegramtest"}
	}
	id, ok := p.int64Param("message_id")
	if !ok || id <= 0 {
		e := ErrMessageIDMissing
		return nil, nil, &e
	}
	if strings.TrimSpace(p["chat_id"]) == "" {
		e := ErrChatIDEmpty
		return nil, nil, &e
	}
	cs, ok := s.chatLocked(p["chat_id"])
	if !ok {
		e := ErrChatNotFound
		return nil, nil, &e
	}
	m, ok := cs.byID[int(id)]
	if !ok {
		e := ErrMessageToEditNotFound
		return nil, nil, &e
	}
	return cs, m, nil
}

// applyEditLocked makes v the message's new version, unless it shows exactly what the
// message shows (same text after parsing, same entities, same keyboard).
func (s *Server) applyEditLocked(cs *chatState, m *storedMessage, v version) reply {
	cur := m.current()
	if cur.plain == v.plain && slices.Equal(cur.entities, v.entities) &&
		bytes.Equal(cur.markup, v.markup) {
		return fail(ErrNotModified)
	}
	m.versions = append(m.versions, v)
	m.editDate = int(s.now().Unix())
	return reply{result: s.messageJSON(cs, m)}
}

// parseText reads text and parse_mode into a version: the parse mode is checked, HTML
// parsed, and the length after parsing checked against MaxTextLength (tooLong is the
// method's answer to an over-long text).
func parseText(method string, p params, tooLong APIError) (version, *APIError) {
	v := version{method: method, text: p["text"], parseMode: p["parse_mode"], plain: p["text"]}
	if !utf8.ValidString(v.text) {
		e := ErrNotUTF8
		return v, &e
	}
	switch strings.ToLower(v.parseMode) {
	case "", "markdown", "markdownv2":
	case "html":
		plain, entities, err := parseHTML(v.text)
		if err != nil {
			return v, &APIError{Code: 400,
				Description: "Bad Request: can't parse entities: " + err.Error()}
		}
		v.plain, v.entities = plain, entities
	default:
		e := ErrUnsupportedParseMode
		return v, &e
	}
	if strings.TrimSpace(v.plain) == "" {
		e := ErrTextBlank
		return v, &e
	}
	if textLength(v.plain) > MaxTextLength {
		return v, &tooLong
	}
	return v, nil
}

// messageJSON is the Message object the Bot API returns for a sent or edited message.
func (s *Server) messageJSON(cs *chatState, m *storedMessage) *models.Message {
	me := s.me
	cur := m.current()
	return &models.Message{
		ID: m.id, From: &me, Chat: cs.chat, Date: m.date, EditDate: m.editDate,
		Text: cur.plain, Entities: slices.Clone(cur.entities), ReplyMarkup: keyboard(cur.markup),
	}
}

func sentMessage(cs *chatState, m *storedMessage) SentMessage {
	sm := SentMessage{ChatID: cs.chat.ID, MessageID: m.id, Content: m.current().content()}
	for _, v := range m.versions {
		sm.History = append(sm.History, v.content())
	}
	return sm
}

// Messages returns the messages the bot sent to a chat, in the order it sent them,
// each with its current content and history. It returns nil for an unknown chat.
func (s *Server) Messages(chatID int64) []SentMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.chats[chatID]
	if !ok {
		return nil
	}
	var out []SentMessage
	for _, m := range cs.messages {
		out = append(out, sentMessage(cs, m))
	}
	return out
}

// Message returns one message the bot sent; ok is false when it sent none with that
// id in that chat.
func (s *Server) Message(chatID int64, messageID int) (SentMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.chats[chatID]
	if !ok {
		return SentMessage{}, false
	}
	m, ok := cs.byID[messageID]
	if !ok {
		return SentMessage{}, false
	}
	return sentMessage(cs, m), true
}

// WaitMessages blocks until the bot has sent at least n messages to the chat, then
// returns them all (as Messages does). It returns an error wrapping the context's
// error or ErrClosed when they do not come.
func (s *Server) WaitMessages(ctx context.Context, chatID int64, n int) ([]SentMessage, error) {
	if err := s.Wait(ctx, func() bool { return len(s.Messages(chatID)) >= n }); err != nil {
		return nil, fmt.Errorf("telegramtest: wait for %d messages in chat %d (have %d): %w",
			n, chatID, len(s.Messages(chatID)), err)
	}
	return s.Messages(chatID), nil
}
