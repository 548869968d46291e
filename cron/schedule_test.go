package cron_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
)

func mustParse(t *testing.T, spec string) cron.Schedule {
	t.Helper()
	s, err := cron.Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	return s
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fires lists the activations of s in [from, to).
func fires(s cron.Schedule, from, to time.Time) []string {
	var out []string
	start := from.Add(-time.Nanosecond)
	for next := s.Next(start); !next.IsZero() && next.Before(to); next = s.Next(next) {
		out = append(out, next.Format(time.RFC3339))
	}
	return out
}

// TestRomeAcrossDST checks "CRON_TZ=Europe/Rome 30 2 * * *" across 2026's changes as
// robfig/cron v3.0.1 defines them (its TestNext DST cases for America/New_York,
// fixtures next_cases.json, show the same rules): on 29 March the clocks jump from
// 02:00 to 03:00, 02:30 does not exist and the job does not run that day; on 25
// October they fall back from 03:00 to 02:00, 02:30 happens twice and the job runs
// twice, an hour apart.
func TestRomeAcrossDST(t *testing.T) {
	rome, err := time.LoadLocation("Europe/Rome")
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, "CRON_TZ=Europe/Rome 30 2 * * *")
	tests := []struct {
		name     string
		from, to string
		want     []string
	}{
		{"spring forward: no run on 29 March",
			"2026-03-27T00:00:00+01:00", "2026-04-01T00:00:00+02:00", []string{
				"2026-03-27T02:30:00+01:00",
				"2026-03-28T02:30:00+01:00",
				"2026-03-30T02:30:00+02:00",
				"2026-03-31T02:30:00+02:00",
			}},
		{"fall back: two runs on 25 October",
			"2026-10-23T00:00:00+02:00", "2026-10-27T00:00:00+01:00", []string{
				"2026-10-23T02:30:00+02:00",
				"2026-10-24T02:30:00+02:00",
				"2026-10-25T02:30:00+02:00",
				"2026-10-25T02:30:00+01:00",
				"2026-10-26T02:30:00+01:00",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fires(s, at(t, tt.from).In(rome), at(t, tt.to).In(rome))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("runs\n%s\nwant\n%s",
					strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// The zone comes from the spec, not from the time Next is given: from UTC the
	// same instants come back, in UTC.
	if got := s.Next(at(t, "2026-03-28T12:00:00Z")); got.Format(time.RFC3339) !=
		"2026-03-30T00:30:00Z" {
		t.Errorf("Next after the spring-forward from UTC: %s", got.Format(time.RFC3339))
	}
	if got := s.Next(at(t, "2026-10-25T00:30:00Z")); got.Format(time.RFC3339) !=
		"2026-10-25T01:30:00Z" {
		t.Errorf("Next after the first 02:30 of 25 October, from UTC: %s",
			got.Format(time.RFC3339))
	}
}

// TestActivationFixtures runs robfig/cron's TestActivation cases (testdata/
// activation_cases.json) through Parse: the spec fires at a time when Next of a
// second before is that time.
func TestActivationFixtures(t *testing.T) {
	var f struct {
		Layout string `json:"time_layout_go"`
		Cases  []struct {
			Time, Spec string
			Fires      bool
		}
	}
	testkit.ReadJSON(t, "activation_cases.json", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range f.Cases {
		tm, err := time.ParseInLocation(f.Layout, c.Time, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		s := mustParse(t, c.Spec)
		if got := s.Next(tm.Add(-time.Second)).Equal(tm); got != c.Fires {
			t.Errorf("%q at %s: fires %v, want %v", c.Spec, c.Time, got, c.Fires)
		}
	}
}

// TestParseFixtures checks the standard parser's cases of testdata/parse_cases.json and
// the behaviour observed of v3.0.1 in testdata/probe_results.json, where Parse refuses
// what robfig accepts wrongly (a bare CRON_TZ= panics, @every 0s runs every second).
func TestParseFixtures(t *testing.T) {
	var pc struct {
		MustFail []struct {
			Spec, Parser  string
			ErrorContains *string `json:"error_contains"`
		} `json:"must_fail"`
		MustParse []struct{ Spec, Parser string } `json:"must_parse"`
	}
	testkit.ReadJSON(t, "parse_cases.json", &pc)
	n := 0
	for _, c := range pc.MustFail {
		if c.Parser != "standard" {
			continue
		}
		n++
		_, err := cron.Parse(c.Spec)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", c.Spec)
			continue
		}
		testkit.WantErr(t, err, cron.ErrInvalidJob)
		if c.ErrorContains != nil && !strings.Contains(err.Error(), *c.ErrorContains) {
			t.Errorf("Parse(%q): %q does not say %q", c.Spec, err, *c.ErrorContains)
		}
	}
	for _, c := range pc.MustParse {
		if c.Parser == "standard" {
			n++
			mustParse(t, c.Spec)
		}
	}
	if n < 8 {
		t.Fatalf("only %d standard cases", n)
	}

	var pr struct {
		Probes []struct{ Spec, Result, Detail string }
	}
	testkit.ReadJSON(t, "probe_results.json", &pr)
	refusedHere := map[string]string{
		"CRON_TZ=UTC": "a CRON_TZ= or TZ= zone must be followed by one space and the schedule",
		"@every 0s":   "@every 0s: the interval must be at least 1s",
		"@every -1m":  "@every -1m: the interval must be at least 1s",
	}
	for _, p := range pr.Probes {
		_, err := cron.Parse(p.Spec)
		switch {
		case refusedHere[p.Spec] != "":
			if err == nil || err.Error() != refusedHere[p.Spec] {
				t.Errorf("Parse(%q) = %v, want %q", p.Spec, err, refusedHere[p.Spec])
			}
		case p.Result == "ok":
			if err != nil {
				t.Errorf("Parse(%q): %v", p.Spec, err)
			}
		case p.Result == "error":
			// The probe's detail starts with robfig's message, which Parse keeps.
			want, _, _ := strings.Cut(p.Detail, " (")
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Parse(%q) = %v, want %q", p.Spec, err, want)
			}
		default:
			t.Fatalf("probe %q: unexpected result %q", p.Spec, p.Result)
		}
	}
}

func TestParseMore(t *testing.T) {
	for _, spec := range []string{"CRON_TZ=", "TZ= ", "CRON_TZ=Europe/Rome ", "@every 500ms"} {
		if _, err := cron.Parse(spec); err == nil {
			t.Errorf("Parse(%q) succeeded", spec)
		}
	}
	s := mustParse(t, "@every 1h30m")
	if got := s.Next(at(t, "2026-01-01T00:00:00Z")); !got.Equal(at(t, "2026-01-01T01:30:00Z")) {
		t.Errorf("@every 1h30m: %s", got)
	}
	s = mustParse(t, "TZ=Asia/Kolkata @daily")
	if got := s.Next(at(t, "2026-01-01T00:00:00Z")); !got.Equal(at(t, "2026-01-01T18:30:00Z")) {
		t.Errorf("TZ=Asia/Kolkata @daily: %s", got)
	}
	if got := mustParse(t, "0 0 30 2 *").Next(at(t, "2026-01-01T00:00:00Z")); !got.IsZero() {
		t.Errorf("30 February fires at %s", got)
	}
}
