package main

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// freeAddr returns a loopback address "127.0.0.1:PORT" that was free a moment ago,
// for a service that must listen at an address known in advance. Another listener
// may take it in between; the service's start then fails with "address in use".
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// refusedURL returns the URL of a loopback port that refuses connections until the
// test ends: a socket bound to it that does not listen keeps any other listener —
// a parallel test's service — from taking the port.
func refusedURL(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return "http://127.0.0.1:" + strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
}
