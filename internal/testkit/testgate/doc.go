// Package testgate builds and drives a real gate.Manager in the tests of the packages
// that use it (bot, the channels, api, cron, web, the gate's external tests), so that
// each does not repeat the set-up or the steps that put a call in front of the human
// (docs/design.md, "Approval requests"): New and Over build a Manager over a store from
// teststore, Run runs it for the test, Require registers a request.
package testgate
