package main

import (
	"net"
	"testing"
)

// closedPort returns the URL of a loopback port that was free a moment ago and is
// closed now.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
