package httpserve_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/httpserve"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testkit.Must(t, err)
	return ln
}

// Serve answers requests while ready runs and until ctx is done, then returns nil; a
// failing ready stops the server with its error; a listener that fails ends Serve
// with the name and the address.
func TestServe(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	refused := errors.New("refused")
	for _, c := range []struct {
		name    string
		ready   func(ln net.Listener, cancel func()) error
		want    error
		message string
	}{
		{"served until ctx is done", func(ln net.Listener, cancel func()) error {
			resp, err := http.Get("http://" + ln.Addr().String() + "/")
			if err != nil {
				return err
			}
			_ = resp.Body.Close()
			cancel()
			return nil
		}, nil, ""},
		{"ready fails", func(net.Listener, func()) error { return refused }, refused, "refused"},
		{"listener fails", func(ln net.Listener, _ func()) error { return ln.Close() },
			net.ErrClosed, "hook: serve on 127.0.0.1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(testkit.Context(t, 30*time.Second))
			defer cancel()
			ln := listen(t)
			srv := httpserve.NewServer(ok, testkit.Logger())
			err := httpserve.Serve(ctx, srv, ln, time.Second, testkit.Logger(), "hook",
				func(context.Context) error { return c.ready(ln, cancel) })
			if c.want == nil {
				testkit.Must(t, err)
				return
			}
			testkit.WantErr(t, err, c.want, c.message)
			if c.want == refused && err != refused {
				t.Errorf("ready's error came back as %q, want it as it was", err)
			}
		})
	}
}
