package cron

import (
	"fmt"
	"strings"
	"time"
	// Embed the zone database so CRON_TZ= works on a machine without one.
	_ "time/tzdata"

	robfig "github.com/robfig/cron/v3"
)

// Schedule is a parsed job schedule; Next(t) returns the first activation strictly
// after t, in t's location, or the zero time when there is none (an unsatisfiable spec
// such as "0 0 30 2 *"). It is robfig/cron's Schedule: the scheduler fires the job at
// the times it returns. robfig/cron v3.0.1 takes no clock, so schedules are tested
// through Next.
type Schedule = robfig.Schedule

// Parse parses a job schedule as robfig/cron v3.0.1's standard parser does:
//   - five fields "minute hour day-of-month month day-of-week" ("30 2 * * *",
//     "*/15 9-17 * * MON-FRI"); when both day fields are restricted either may match;
//   - a descriptor: @yearly (@annually), @monthly, @weekly, @daily (@midnight),
//     @hourly, or "@every <duration>" (Go syntax, "1h30m"), which fires that long after
//     the scheduler starts and then at that interval;
//   - optionally prefixed by "CRON_TZ=Area/City " (or the legacy "TZ=Area/City ") and
//     one space, so the fields are read in that zone; without it they are read in the
//     Engine's location. The zone database is embedded.
//
// Daylight saving time follows robfig/cron: a time that a spring-forward gap skips
// does not fire that day, and a time that a fall-back overlap repeats fires twice (see
// docs/jobs.md).
//
// Parse refuses, beyond robfig's own errors, what v3.0.1 gets wrong: a CRON_TZ=/TZ=
// prefix with nothing after it (robfig panics), and an "@every" shorter than one
// second, zero or negative (robfig silently runs those every second). Errors wrap
// ErrInvalidJob and their message is the parser's; Parse never panics.
func Parse(spec string) (s Schedule, err error) {
	if problem := precheck(spec); problem != "" {
		return nil, invalid(problem)
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, invalidf("unparsable spec: %v", r)
		}
	}()
	s, err = robfig.ParseStandard(spec)
	if err != nil {
		return nil, invalid(err.Error())
	}
	return s, nil
}

// precheck returns what Parse refuses before robfig sees spec, or "".
func precheck(spec string) string {
	rest := spec
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		_, after, ok := strings.Cut(spec, " ")
		if !ok || strings.TrimSpace(after) == "" {
			return "a CRON_TZ= or TZ= zone must be followed by one space and the schedule"
		}
		rest = strings.TrimSpace(after)
	}
	if d, ok := strings.CutPrefix(rest, "@every "); ok {
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err == nil && dur < time.Second {
			return fmt.Sprintf("@every %s: the interval must be at least 1s", strings.TrimSpace(d))
		}
	}
	return ""
}
