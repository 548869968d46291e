package config

import (
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{"15m", 15 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"0", 0, ""},
		{"90d", 90 * 24 * time.Hour, ""},
		{"1d12h", 36 * time.Hour, ""},
		{"0d", 0, ""},
		{"", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"d", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"5", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"1w", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"-1d", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"+1d", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"1d-1h", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"1dd", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"1d 1h", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
		{"-5m", 0, "must not be negative"},
		{"106752d", 0, "duration too long"},
		{"106751d24h", 0, "duration too long"},
		{"99999999999999999999d", 0, "not a duration (use 90s, 15m, 24h or 90d)"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || got != 0 {
					t.Errorf("ParseDuration(%q) = %v, %v; want error %q",
						tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestDurationString(t *testing.T) {
	for d, want := range map[time.Duration]string{
		90 * 24 * time.Hour: "90d",
		24 * time.Hour:      "1d",
		36 * time.Hour:      "36h0m0s",
		15 * time.Minute:    "15m0s",
		0:                   "0s",
	} {
		if got := (Duration{Duration: d}).String(); got != want {
			t.Errorf("Duration(%v).String() = %q, want %q", time.Duration(d), got, want)
		}
		b := testkit.Marshal(t, Duration{Duration: d})
		if string(b) != `"`+want+`"` {
			t.Errorf("json of %v = %s", time.Duration(d), b)
		}
		back, err := ParseDuration(want)
		if err != nil || back != d {
			t.Errorf("ParseDuration(String(%v)) = %v, %v", time.Duration(d), back, err)
		}
	}
}
