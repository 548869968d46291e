// Package teststore opens real bbolt stores in t.TempDir() for tests, closed when the
// test ends, and reads requests back from them.
//
// Snapshot and Unchanged compare a store's whole state before and after a call, for the
// tests that bad input gives a clear error and changes nothing.
//
// It imports store, so store's internal tests (package store) cannot use it: those read
// the store through its methods, and store's external tests (package store_test) use
// teststore.
package teststore
