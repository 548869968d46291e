package bot

import "errors"

// Sentinel errors of package bot. Every error the package returns wraps one of these, or
// one of the gate's sentinels (gate.ErrNotFound, gate.ErrAlreadyResolved, …), with the
// operation, so callers test them with errors.Is. What a chat user sees is the short
// text of a Reply or a TapResult, never the chain.
var (
	// ErrBadCallback: callback data (a Telegram callback_data, a Slack button value)
	// that is not "a:<request id>:<ok|no|b15|bs>" — forged, from an older version,
	// overlong or truncated.
	ErrBadCallback = errors.New("bad callback data")
	// ErrNotAuthorized: the user is not an approver (or, for admin commands, not an
	// admin) of the channel the tap or command came from.
	ErrNotAuthorized = errors.New("not authorized")
	// ErrNotBound: a tap on a message that is not one of the request's stored prompt
	// messages, e.g. a message left over from a recreated database.
	ErrNotBound = errors.New("message is not a prompt of this request")
	// ErrUnknownCommand: the first word of a command line is no admin command.
	ErrUnknownCommand = errors.New("unknown command")
	// ErrUsage: a command with missing or extra arguments, a bad id, number or
	// duration, an unknown or repeated key, or unbalanced quotes.
	ErrUsage = errors.New("usage")
	// ErrNoJobs: run or runs when no Jobs implementation is configured.
	ErrNoJobs = errors.New("no jobs configured")
	// ErrUnknownJob: run or runs naming a job that Jobs.List does not return.
	ErrUnknownJob = errors.New("unknown job")
	// ErrInternal: a failure the user cannot fix (the store failed); the full error
	// is logged, the user sees "internal error".
	ErrInternal = errors.New("internal error")
	// ErrPermanent is returned (wrapped) by a Channel when retrying cannot help: the
	// chat does not exist, the bot was removed or blocked, the request was refused as
	// malformed. The Fanout then stops retrying that message at once.
	ErrPermanent = errors.New("permanent channel error")
)
