// Package torture holds the torture test of skald-bot: the real binary, killed with
// SIGKILL at random points and restarted while agents check and wait, approvers tap,
// click and call the API at once and cron runs wait and resume; afterwards nothing a
// caller was told about is lost and nothing was resolved twice (docs/torture.md).
// `go test -run Torture ./torture` runs the short form; SKALD_TORTURE=long the long
// one. The package has no code of its own.
package torture
