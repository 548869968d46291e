package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a configured length of time: a Go duration ("90s", "15m", "24h",
// "1h30m") or whole days with an optional Go duration after them ("90d", "1d12h").
// Negative values are refused. A key left out (or null) gets its default; an explicit
// zero is refused for approval_timeout and bypass_short, and means "keep forever" for
// retention (see Config).
type Duration struct {
	time.Duration
	// given is set when the file gave the key a value (UnmarshalYAML ran), so a
	// written 0s is told apart from a key left out.
	given bool
}

const day = 24 * time.Hour

// ParseDuration parses s in the syntax Duration documents ("90s", "24h", "90d",
// "1d12h"). The error says what is accepted; it never returns a negative duration.
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("not a duration (use 90s, 15m, 24h or 90d)")
	if s == "" {
		return 0, bad
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseUint(s[:i], 10, 64)
		if err != nil {
			return 0, bad
		}
		if n > uint64(math.MaxInt64/int64(day)) {
			return 0, errors.New("duration too long")
		}
		days = time.Duration(n) * day
		s = s[i+1:]
		if s == "" {
			return days, nil
		}
		if s[0] < '0' || s[0] > '9' {
			return 0, bad
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, bad
	}
	if d < 0 {
		return 0, errors.New("must not be negative")
	}
	if d > math.MaxInt64-days {
		return 0, errors.New("duration too long")
	}
	return days + d, nil
}

// String returns whole days as "<n>d" and anything else as time.Duration does.
func (d Duration) String() string {
	if d.Duration > 0 && d.Duration%day == 0 {
		return strconv.FormatInt(int64(d.Duration/day), 10) + "d"
	}
	return d.Duration.String()
}

// MarshalText returns String, so JSON and YAML show "90d", not nanoseconds.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalYAML implements yaml.Unmarshaler. A bad value is reported as a YAML type
// error with its line, which Parse turns into a message naming the key.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		// yaml's own wording, so Parse names the key: "retention: a list is not a
		// duration".
		msg := fmt.Sprintf("line %d: cannot unmarshal %s into config.Duration",
			n.Line, n.ShortTag())
		return &yaml.TypeError{Errors: []string{msg}}
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		msg := fmt.Sprintf("line %d: %s: %v", n.Line, quote(n.Value), err)
		return &yaml.TypeError{Errors: []string{msg}}
	}
	d.Duration, d.given = v, true
	return nil
}
