package netaddr_test

import (
	"testing"

	"github.com/skald-circle/skald-bot/internal/netaddr"
)

func TestListenProblem(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:8080", ""},
		{":0", ""},
		{"[::1]:65535", ""},
		{"localhost", "must be host:port"},
		{"", "must be host:port"},
		{"127.0.0.1:65536", "port must be a number from 0 to 65535"},
		{"127.0.0.1:http", "port must be a number from 0 to 65535"},
		{"127.0.0.1:00", "port must be a number from 0 to 65535"},
		{"127.0.0.1:-1", "port must be a number from 0 to 65535"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if got := netaddr.ListenProblem(tc.addr); got != tc.want {
				t.Errorf("ListenProblem(%q) = %q, want %q", tc.addr, got, tc.want)
			}
		})
	}
}
