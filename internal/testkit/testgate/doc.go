// Package testgate drives a real gate.Manager in the tests of the packages that use it
// (bot, the channels, api, the gate's external tests), so that each does not repeat the
// steps that put a call in front of the human (docs/design.md, "Approval requests").
//
// Tests build the Manager itself over a store from teststore; testgate only calls it.
package testgate
