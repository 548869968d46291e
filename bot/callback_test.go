package bot

import (
	"errors"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/store"
)

func TestParseCallback(t *testing.T) {
	good := []struct {
		data string
		want Callback
	}{
		{"a:1:ok", Callback{1, ActionApprove}},
		{"a:42:no", Callback{42, ActionReject}},
		{"a:42:b15", Callback{42, ActionBypassShort}},
		{"a:42:bs", Callback{42, ActionBypassSession}},
		{"a:18446744073709551615:bs", Callback{18446744073709551615, ActionBypassSession}},
	}
	for _, tc := range good {
		t.Run(tc.data, func(t *testing.T) {
			got, err := ParseCallback(tc.data)
			if err != nil || got != tc.want {
				t.Errorf("ParseCallback(%q) = %v, %v; want %v", tc.data, got, err, tc.want)
			}
			if got.String() != tc.data {
				t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.data)
			}
		})
	}
	bad := []struct{ data, why string }{
		{"", "want a:<request id>"},
		{"a:42", "want a:<request id>"},
		{"a:42:ok:extra", "want a:<request id>"},
		{"b:42:ok", "want a:<request id>"},
		{"A:42:ok", "want a:<request id>"},
		{"a::ok", "missing id"},
		{"a:x:ok", `id "x" is not a number`},
		{"a:-1:ok", `id "-1" is not a number`},
		{"a:+1:ok", `id "+1" is not a number`},
		{"a: 1:ok", `is not a number`},
		{"a:0:ok", "id 0 does not exist"},
		{"a:042:ok", "leading zeros"},
		{"a:18446744073709551616:ok", "out of range"},
		{"a:42:yes", `unknown action "yes"`},
		{"a:42:OK", `unknown action "OK"`},
		{"a:42:", `unknown action ""`},
		{"a:42:ok\n", `unknown action "ok\n"`},
		{"a:1:" + strings.Repeat("x", 61), "65 bytes, at most 64"},
		{`{"action":"approve","id":42}`, "want a:<request id>"},
	}
	for _, tc := range bad {
		t.Run(tc.data, func(t *testing.T) {
			_, err := ParseCallback(tc.data)
			if !errors.Is(err, ErrBadCallback) {
				t.Fatalf("ParseCallback(%q) error = %v, want ErrBadCallback", tc.data, err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("ParseCallback(%q) error = %q, want it to say %q", tc.data, err, tc.why)
			}
		})
	}
}

func TestParseCallbackQuotesLongDataShort(t *testing.T) {
	_, err := ParseCallback(strings.Repeat("é", 2000))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error = %q; want a short error", err)
	}
}

func TestCallbackFitsTelegram(t *testing.T) {
	for _, a := range []Action{
		ActionApprove, ActionReject, ActionBypassShort, ActionBypassSession,
	} {
		if s := (Callback{RequestID: ^uint64(0), Action: a}).String(); len(s) > MaxCallbackData {
			t.Errorf("%q is %d bytes, over %d", s, len(s), MaxCallbackData)
		}
	}
}

// FuzzParseCallback checks that ParseCallback never panics, that what it accepts is
// canonical (it encodes back to the same bytes, within 64 bytes), and that every
// valid Callback round-trips. The seed corpus runs in every go test.
func FuzzParseCallback(f *testing.F) {
	for _, s := range []string{"a:1:ok", "a:42:no", "a:7:b15", "a:9:bs", "a:0:ok", "a:01:ok",
		"a:x:ok", "a:1:ok:", "", ":", "::", "a:18446744073709551616:bs", "a:1:\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		c, err := ParseCallback(data)
		if err != nil {
			if !errors.Is(err, ErrBadCallback) {
				t.Fatalf("ParseCallback(%q) error %v does not wrap ErrBadCallback", data, err)
			}
			return
		}
		if c.String() != data || len(data) > MaxCallbackData || c.RequestID == 0 {
			t.Fatalf("ParseCallback(%q) accepted %v, which encodes to %q", data, c, c.String())
		}
	})
}

func FuzzCallbackRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(^uint64(0), uint8(3))
	f.Add(uint64(0), uint8(1))
	actions := []Action{ActionApprove, ActionReject, ActionBypassShort, ActionBypassSession}
	f.Fuzz(func(t *testing.T, id uint64, a uint8) {
		c := Callback{RequestID: id, Action: actions[int(a)%len(actions)]}
		got, err := ParseCallback(c.String())
		if id == 0 {
			if !errors.Is(err, ErrBadCallback) {
				t.Fatalf("id 0 accepted: %v, %v", got, err)
			}
			return
		}
		if err != nil || got != c {
			t.Fatalf("round trip of %v: %v, %v", c, got, err)
		}
	})
}

// FuzzParseClarCallback checks that ParseClarCallback never panics, that an error
// wraps ErrBadCallback, that what it accepts is canonical (it encodes back to the same
// bytes, within 64 bytes, a non-zero id and an option of store.MaxOptions or the ✍️
// Answer button), and that every valid ClarCallback round-trips. The seed corpus runs
// in every go test.
func FuzzParseClarCallback(f *testing.F) {
	for _, s := range []string{"q:1:0", "q:7:9", "q:7:w", "q:42:10", "q:0:1", "q:01:1", "q:1:01",
		"q:1:-1", "q:1:+1", "q:1:W", "q:x:1", "q:1:1:", "a:1:ok", "", ":", "q::",
		"q:18446744073709551615:w", "q:18446744073709551616:w", "q:1:\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		c, err := ParseClarCallback(data)
		if err != nil {
			if !errors.Is(err, ErrBadCallback) {
				t.Fatalf("ParseClarCallback(%q) error %v does not wrap ErrBadCallback", data, err)
			}
			return
		}
		if c.String() != data || len(data) > MaxCallbackData || c.ID == 0 ||
			c.Option < -1 || c.Option >= store.MaxOptions {
			t.Fatalf("ParseClarCallback(%q) accepted %+v, which encodes to %q",
				data, c, c.String())
		}
		if back, err := ParseClarCallback(c.String()); err != nil || back != c {
			t.Fatalf("round trip of %+v: %+v, %v", c, back, err)
		}
	})
}
