// Package netaddr checks the host:port addresses that skald-bot listens on: the API's
// api.listen (docs/design.md, "HTTP API") and the channels' webhook listeners.
// ListenProblem is the one definition of a valid address.
//
// The package sits below config and the channels because config imports the channels:
// neither can hold the check for the other.
package netaddr
