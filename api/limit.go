package api

import (
	"net"
	"strconv"
	"sync"
	"time"
)

// tooManyConnections is written to a connection beyond the cap before it is closed.
var tooManyConnections = func() []byte {
	body := `{"error":"too many connections; try again later"}` + "\n"
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

// limitListener accepts at most cap(sem) connections at a time. A connection beyond
// that is answered 503 and closed at once, never held: a flood of slow clients cannot
// make the ones that follow wait.
type limitListener struct {
	net.Listener
	sem chan struct{} // one slot per open connection
}

func newLimitListener(ln net.Listener, max int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, max)}
}

// Accept returns the next connection within the cap; it refuses those beyond it on
// its way there. Errors are the listener's.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.sem <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
		default:
			// A few bytes into a fresh socket's buffer: the write does not block, and
			// the deadline makes sure of it.
			_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			_, _ = c.Write(tooManyConnections)
			_ = c.Close()
		}
	}
}

// limitConn gives its slot back when it is first closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
