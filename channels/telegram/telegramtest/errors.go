package telegramtest

import (
	"errors"

	"github.com/skald-circle/skald-bot/internal/testkit/loopback"
)

// Sentinel errors of this package's Go API (not of the Bot API it serves: those are
// the APIError values of apierror.go). Every function wraps them with the operation
// ("telegramtest: fail next \"sendMesage\": unknown Bot API method"); test them with
// errors.Is.
var (
	// ErrInvalidConfig is returned by New for a Config it cannot serve: a token not of
	// the form "<bot id>:<secret>" (digits, a colon, then letters, digits, _ or -), or
	// a chat without an id.
	ErrInvalidConfig = errors.New("invalid config")

	// ErrUnknownMethod is returned by FailNext for a method this server does not serve
	// (a typo would otherwise inject a failure that never fires).
	ErrUnknownMethod = errors.New("unknown Bot API method")

	// ErrInvalidFailure is returned by FailNext for an APIError whose Code is not an
	// HTTP error status (400–599) or whose Description is empty.
	ErrInvalidFailure = errors.New("invalid injected failure")

	// ErrInvalidUpdate is returned by Inject and InjectJSON for an update that does not
	// encode to, or decode from, a JSON object of the Update type.
	ErrInvalidUpdate = errors.New("invalid update")

	// ErrUnknownUpdate is returned by Redeliver for an update id that was never
	// injected.
	ErrUnknownUpdate = errors.New("unknown update")

	// ErrUnknownFixture is returned by Fixture for a name that is not one of the
	// embedded testdata files.
	ErrUnknownFixture = errors.New("unknown fixture")

	// ErrNotLoopback is returned by PostWebhook for a URL whose host is not a loopback
	// address or "localhost": tests never leave the machine.
	ErrNotLoopback = errors.New("not a loopback address")

	// ErrClosed is returned by the wait helpers once the server is closed: what they
	// wait for can no longer happen.
	ErrClosed = loopback.ErrClosed
)
