// Package teststore opens real bbolt stores in t.TempDir() for tests, closed when the
// test ends, and reads requests back from them.
//
// Snapshot and Unchanged compare a store's whole state before and after a call, for the
// tests that bad input gives a clear error and changes nothing.
package teststore
