package bot

import (
	"errors"
	"strconv"
	"testing"
)

// FuzzParseOfferData checks that parseOfferData never panics, that what it accepts is
// canonical ("r:" and the id in decimal, then ":2" or nothing, within 64 bytes) and
// that anything else wraps ErrBadCallback. The seed corpus runs in every go test.
func FuzzParseOfferData(f *testing.F) {
	for _, s := range []string{"r:1", "r:42", "r:0", "r:01", "r:", "r:x", "r:1:", "r:1:2",
		"r:1:02", "a:1:ok", "",
		"r:18446744073709551615", "r:18446744073709551616", "r:-1", "r:+1", "r: 1", "r:1\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		id, alt, err := parseOfferData(data)
		if err != nil {
			if !errors.Is(err, ErrBadCallback) {
				t.Fatalf("parseOfferData(%q) error %v does not wrap ErrBadCallback", data, err)
			}
			return
		}
		want := "r:" + strconv.FormatUint(id, 10)
		if alt {
			want += ":2"
		}
		if id == 0 || want != data || len(data) > MaxCallbackData {
			t.Fatalf("parseOfferData(%q) accepted %d", data, id)
		}
	})
}
