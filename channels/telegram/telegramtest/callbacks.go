package telegramtest

import (
	"context"
	"fmt"
	"unicode/utf8"
)

// CallbackAnswer is a successful answerCallbackQuery call
// (https://core.telegram.org/bots/api#answercallbackquery).
type CallbackAnswer struct {
	// CallbackQueryID is the id of the answered callback query.
	CallbackQueryID string
	// Text is the notification shown to the user (a toast, or an alert when
	// ShowAlert); empty for none.
	Text string
	// ShowAlert is true for an alert instead of a toast.
	ShowAlert bool
	// URL is the url parameter, empty for none.
	URL string
	// CacheTime is cache_time in seconds.
	CacheTime int
}

// answerCallbackQuery serves https://core.telegram.org/bots/api#answercallbackquery.
// A callback query can be answered once, after it was injected and before
// ExpireCallbackQuery; anything else is ErrQueryTooOld, as Telegram answers a late,
// repeated or unknown query.
func (s *Server) answerCallbackQuery(p params) reply {
	id := p["callback_query_id"]
	if !s.callbacks[id] {
		return fail(ErrQueryTooOld)
	}
	if utf8.RuneCountInString(p["text"]) > MaxAnswerTextLength {
		return fail(ErrEditTooLong)
	}
	s.callbacks[id] = false
	s.answers = append(s.answers, CallbackAnswer{
		CallbackQueryID: id,
		Text:            p["text"],
		ShowAlert:       p.boolParam("show_alert"),
		URL:             p["url"],
		CacheTime:       p.intParam("cache_time", 0, 0, 1<<31-1),
	})
	return reply{result: true}
}

// Answers returns the successful answerCallbackQuery calls, oldest first.
func (s *Server) Answers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CallbackAnswer(nil), s.answers...)
}

// WaitAnswers blocks until at least n callback queries were answered, then returns
// the answers (as Answers does). It returns an error wrapping the context's error or
// ErrClosed when they do not come.
func (s *Server) WaitAnswers(ctx context.Context, n int) ([]CallbackAnswer, error) {
	if err := s.Wait(ctx, func() bool { return len(s.Answers()) >= n }); err != nil {
		return nil, fmt.Errorf("telegramtest: wait for %d callback answers (have %d): %w",
			n, len(s.Answers()), err)
	}
	return s.Answers(), nil
}

// ExpireCallbackQuery makes a callback query too old to answer, as Telegram does
// after its response timeout: answerCallbackQuery then gets ErrQueryTooOld. It does
// nothing for an id already answered or expired.
func (s *Server) ExpireCallbackQuery(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callbacks[id] = false
	s.notifyLocked()
}
