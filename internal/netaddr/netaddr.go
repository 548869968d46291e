package netaddr

import (
	"net"
	"strconv"
)

// ListenProblem says what is wrong with addr as a host:port to listen on, "" when
// nothing is: "must be host:port", or "port must be a number from 0 to 65535". Port 0
// (any free port) is valid; the host may be empty (all interfaces).
func ListenProblem(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "must be host:port"
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return "port must be a number from 0 to 65535"
	}
	return ""
}
