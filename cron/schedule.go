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

// Parse parses a job schedule as robfig/cron v3.0.1's standard parser does
// (docs/jobs.md, "Schedules"): five fields, or a descriptor (@yearly, @monthly, @weekly,
// @daily, @hourly, "@every <Go duration>" counted from the scheduler's start), optionally
// after "CRON_TZ=Area/City " (or "TZ=Area/City ") to read the fields in that zone, else
// in the Engine's location; daylight saving time is robfig's. Beyond robfig's errors it
// refuses a zone prefix with nothing after it (robfig panics) and an "@every" under one
// second (robfig runs it every second). Errors wrap ErrInvalidJob and carry the
// parser's message; Parse never panics.
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
