package telegramtest

import (
	"fmt"
	"net/http"
)

// APIError is a Bot API error answer, written with the HTTP status Code as
// {"ok":false,"error_code":Code,"description":Description}, plus "parameters" holding
// retry_after when RetryAfter > 0 and migrate_to_chat_id when MigrateToChatID is not 0
// (https://core.telegram.org/bots/api#responseparameters). go-telegram/bot v1.19.0 reads
// 400 as bot.ErrorBadRequest (*bot.MigrateError with migrate_to_chat_id), 401
// bot.ErrorUnauthorized, 403 bot.ErrorForbidden, 404 bot.ErrorNotFound, 409
// bot.ErrorConflict, 429 *bot.TooManyRequestsError, any other code a plain error.
// APIError is comparable: errors.Is(err, ErrNotModified) holds for an equal value.
type APIError struct {
	// Code is both the HTTP status and the error_code field.
	Code int
	// Description is the human-readable text, as Telegram words it.
	Description string
	// RetryAfter is parameters.retry_after in seconds; 0 leaves it out.
	RetryAfter int
	// MigrateToChatID is parameters.migrate_to_chat_id; 0 leaves it out.
	MigrateToChatID int64
}

// Error returns the description and code, e.g. "telegram 400: Bad Request: chat not found".
func (e APIError) Error() string {
	return fmt.Sprintf("telegram %d: %s", e.Code, e.Description)
}

// The errors this server answers with, worded exactly as the Bot API server words
// them (tdlib/telegram-bot-api Client.cpp fail_query_with_error prefixes "Bad Request: ",
// "Forbidden: "…; the fixtures error_*.json are real captures of the same texts).
// FailNext accepts any of them, or any other APIError.
var (
	// ErrNotModified answers an edit whose text, entities and inline keyboard are those
	// the message already shows (fixture error_message_not_modified.json).
	ErrNotModified = APIError{Code: 400, Description: "Bad Request: message is not modified: " +
		"specified new message content and reply markup are exactly the same as a current " +
		"content and reply markup of the message"}

	// ErrMessageTooLong answers a sendMessage whose text is over 4096 characters after
	// entities parsing (fixture error_message_too_long.json).
	ErrMessageTooLong = APIError{Code: 400, Description: "Bad Request: message is too long"}

	// ErrEditTooLong answers an editMessageText whose text is over 4096 characters after
	// entities parsing, and an answerCallbackQuery whose text is over 200 characters:
	// for those the Bot API passes Telegram's raw MESSAGE_TOO_LONG through.
	ErrEditTooLong = APIError{Code: 400, Description: "Bad Request: MESSAGE_TOO_LONG"}

	// ErrButtonDataInvalid answers a reply_markup with a callback_data over 64 bytes
	// (fixture error_button_data_invalid.json).
	ErrButtonDataInvalid = APIError{Code: 400, Description: "Bad Request: BUTTON_DATA_INVALID"}

	// ErrQueryTooOld answers answerCallbackQuery for a callback query id that was never
	// delivered, was already answered, or was expired with ExpireCallbackQuery
	// (fixture error_query_too_old.json).
	ErrQueryTooOld = APIError{Code: 400, Description: "Bad Request: query is too old and " +
		"response timeout expired or query ID is invalid"}

	// ErrChatNotFound answers a call naming a chat this server does not know
	// (fixture error_chat_not_found.json).
	ErrChatNotFound = APIError{Code: 400, Description: "Bad Request: chat not found"}

	// ErrChatIDEmpty answers a call without chat_id.
	ErrChatIDEmpty = APIError{Code: 400, Description: "Bad Request: chat_id is empty"}

	// ErrTextEmpty answers sendMessage or editMessageText without text.
	ErrTextEmpty = APIError{Code: 400, Description: "Bad Request: message text is empty"}

	// ErrTextBlank answers a text that is empty or only white space once entities are
	// parsed (for example "<b></b>").
	ErrTextBlank = APIError{Code: 400, Description: "Bad Request: message must be non-empty"}

	// ErrNotUTF8 answers a text that is not valid UTF-8 (tdlib's clean_input_string).
	ErrNotUTF8 = APIError{Code: 400, Description: "Bad Request: strings must be encoded in UTF-8"}

	// ErrMessageIDMissing answers an edit without a usable message_id.
	ErrMessageIDMissing = APIError{Code: 400,
		Description: "Bad Request: message identifier is not specified"}

	// ErrMessageToEditNotFound answers an edit of a message the bot did not send in that
	// chat.
	ErrMessageToEditNotFound = APIError{Code: 400,
		Description: "Bad Request: message to edit not found"}

	// ErrUnsupportedParseMode answers a parse_mode other than HTML, Markdown or
	// MarkdownV2 (case-insensitive) or empty.
	ErrUnsupportedParseMode = APIError{Code: 400,
		Description: "Bad Request: unsupported parse_mode"}

	// ErrBotBlocked is not produced by this server on its own; inject it with FailNext
	// to play a user who blocked the bot (fixture error_bot_blocked.json).
	ErrBotBlocked = APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"}

	// ErrUnauthorized answers any call whose URL carries another token
	// (fixture error_unauthorized.json).
	ErrUnauthorized = APIError{Code: 401, Description: "Unauthorized"}

	// ErrNotFound answers a method this server does not serve, or a path that is not
	// /bot<token>/<method>.
	ErrNotFound = APIError{Code: 404, Description: "Not Found"}

	// ErrWebhookActive answers getUpdates while a webhook is set.
	ErrWebhookActive = APIError{Code: 409, Description: "Conflict: can't use getUpdates method " +
		"while webhook is active; use deleteWebhook to delete the webhook first"}

	// ErrTerminatedByOtherPoll ends a waiting getUpdates when another getUpdates arrives
	// that would wait too (another poller on the same token).
	ErrTerminatedByOtherPoll = APIError{Code: 409, Description: "Conflict: terminated by other " +
		"getUpdates request; make sure that only one bot instance is running"}

	// ErrTerminatedBySetWebhook ends a waiting getUpdates when a webhook is set.
	ErrTerminatedBySetWebhook = APIError{Code: 409,
		Description: "Conflict: terminated by setWebhook request"}
)

// TooManyRequests returns the flood-control answer: HTTP 429 with the description
// "Too Many Requests: retry after N" and parameters.retry_after N (seconds), as in
// fixture error_too_many_requests.json. go-telegram/bot returns it as
// *bot.TooManyRequestsError{RetryAfter: N}.
func TooManyRequests(retryAfter int) APIError {
	return APIError{
		Code:        http.StatusTooManyRequests,
		Description: fmt.Sprintf("Too Many Requests: retry after %d", retryAfter),
		RetryAfter:  retryAfter,
	}
}

// ServerError returns a 5xx answer with the standard status text as description, e.g.
// ServerError(502) is {"ok":false,"error_code":502,"description":"Bad Gateway"}.
// go-telegram/bot returns it as a plain error ("error response from telegram for
// method …, 502 Bad Gateway").
func ServerError(code int) APIError {
	return APIError{Code: code, Description: http.StatusText(code)}
}
