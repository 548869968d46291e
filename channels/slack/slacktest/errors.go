package slacktest

import (
	"errors"

	"github.com/skald-circle/skald-bot/internal/testkit/loopback"
)

// Sentinel errors. Every function of this package wraps them with the operation
// ("slacktest: push interactive: no Socket Mode connection"); test them with errors.Is.
var (
	// ErrInvalidConfig is returned by New for a Config it cannot serve (a bot token
	// without the "xoxb-" prefix, an app token without "xapp-", a channel id listed
	// twice or empty, a negative ping interval).
	ErrInvalidConfig = errors.New("invalid config")

	// ErrNotConnected is returned by the Socket Mode controls (Push, PushBlockAction,
	// PushSlashCommand, Drop, Disconnect) when no Socket Mode client is connected.
	ErrNotConnected = errors.New("no Socket Mode connection")

	// ErrInvalidEnvelope is returned by Push for an envelope without a type or whose
	// payload is not a JSON object.
	ErrInvalidEnvelope = errors.New("invalid envelope")

	// ErrUnknownMethod is returned by FailNext and RateLimitNext for a Web API method
	// this server does not serve (a typo would otherwise inject a failure nobody sees).
	ErrUnknownMethod = errors.New("unknown Web API method")

	// ErrInvalidFailure is returned by FailNext for an empty error code and by
	// RateLimitNext for a negative Retry-After.
	ErrInvalidFailure = errors.New("invalid injected failure")

	// ErrClosed is returned by the wait helpers once the server is closed: what they
	// wait for can no longer happen.
	ErrClosed = loopback.ErrClosed
)
