package telegramtest

import (
	"encoding/json"

	"github.com/go-telegram/bot/models"
)

// parseReplyMarkup checks a reply_markup parameter as the Bot API does
// (Client.cpp get_reply_markup / get_inline_keyboard_button, then Telegram's
// BUTTON_DATA_INVALID for a callback_data over 64 bytes) and returns its inline
// keyboard as canonical JSON, or nil when it has none (absent, another kind of
// markup, or no buttons at all: {"inline_keyboard":[]} removes a keyboard).
func parseReplyMarkup(raw string) ([]byte, *APIError) {
	if raw == "" {
		return nil, nil
	}
	bad := func(description string) *APIError {
		return &APIError{Code: 400, Description: "Bad Request: " + description}
	}
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return nil, bad("can't parse reply keyboard markup JSON object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, bad("object expected as reply markup")
	}
	ik, ok := obj["inline_keyboard"]
	if !ok {
		return nil, nil // a reply keyboard, force reply or keyboard removal: not recorded
	}
	rows, ok := ik.([]any)
	if !ok {
		return nil, bad(`field "inline_keyboard" of the InlineKeyboardMarkup must be an Array`)
	}
	dataInvalid := false
	buttons := 0
	for _, row := range rows {
		cells, ok := row.([]any)
		if !ok {
			return nil, bad(
				`field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays`)
		}
		for _, cell := range cells {
			b, ok := cell.(map[string]any)
			if !ok {
				return nil, bad("can't parse inline keyboard button: " +
					"InlineKeyboardButton must be an Object")
			}
			text, has := b["text"]
			if !has {
				return nil, bad(`can't parse inline keyboard button: Can't find field "text"`)
			}
			if _, ok := text.(string); !ok {
				return nil, bad(`can't parse inline keyboard button: ` +
					`Field "text" must be of type String`)
			}
			if !hasButtonKind(b) {
				return nil, bad("can't parse inline keyboard button: " +
					"Text buttons are unallowed in the inline keyboard")
			}
			if data, ok := b["callback_data"].(string); ok && len(data) > MaxCallbackDataBytes {
				dataInvalid = true
			}
			buttons++
		}
	}
	if dataInvalid {
		e := ErrButtonDataInvalid
		return nil, &e
	}
	if buttons == 0 {
		return nil, nil
	}
	var kb models.InlineKeyboardMarkup
	if err := json.Unmarshal([]byte(raw), &kb); err != nil {
		return nil, bad("can't parse reply keyboard markup JSON object")
	}
	var kept [][]models.InlineKeyboardButton
	for _, row := range kb.InlineKeyboard {
		if len(row) > 0 {
			kept = append(kept, row)
		}
	}
	kb.InlineKeyboard = kept
	canonical, err := json.Marshal(kb)
	if err != nil {
		return nil, bad("can't parse reply keyboard markup JSON object")
	}
	return canonical, nil
}

// hasButtonKind reports whether an inline button says what it does: a non-empty url
// or callback_data (an empty one counts as absent, as in the Bot API), or one of the
// other documented kinds.
func hasButtonKind(b map[string]any) bool {
	for _, k := range []string{"url", "callback_data"} {
		if s, ok := b[k].(string); ok && s != "" {
			return true
		}
	}
	for _, k := range []string{"web_app", "login_url", "switch_inline_query",
		"switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "callback_game"} {
		if _, ok := b[k]; ok {
			return true
		}
	}
	if pay, _ := b["pay"].(bool); pay {
		return true
	}
	// go-telegram/bot always sends "copy_text":{"text":""}; only a non-empty one counts.
	if ct, ok := b["copy_text"].(map[string]any); ok {
		if t, _ := ct["text"].(string); t != "" {
			return true
		}
	}
	return false
}

// keyboard decodes canonical keyboard JSON into a fresh value (nil for none), so no
// caller shares the server's copy.
func keyboard(canonical []byte) *models.InlineKeyboardMarkup {
	if canonical == nil {
		return nil
	}
	var kb models.InlineKeyboardMarkup
	if json.Unmarshal(canonical, &kb) != nil {
		return nil
	}
	return &kb
}
