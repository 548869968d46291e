// Package testkit holds the test helpers every package's tests share: a settable
// clock, error matching, JSON comparison, file contents before and after a call, a
// quiet logger, contexts that end with the test, a server run on loopback until the
// test ends and the outages of the test servers. It imports nothing of this module, so
// any package's internal tests may use it; the helpers that need a store are in
// teststore, those that drive the gate in testgate.
package testkit
