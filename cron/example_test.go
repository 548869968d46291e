package cron_test

import (
	"fmt"
	"time"

	"github.com/skald-circle/skald-bot/cron"
)

// A nightly job at 02:30 in Rome across 2026's spring-forward: 02:30 does not exist on
// 29 March, so robfig/cron skips that day.
func ExampleParse() {
	s, err := cron.Parse("CRON_TZ=Europe/Rome 30 2 * * *")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC)
	for range 3 {
		t = s.Next(t)
		fmt.Println(t.Format(time.RFC3339))
	}
	_, err = cron.Parse("CRON_TZ=Europe/Rome 30 2 * *")
	fmt.Println(err)
	// Output:
	// 2026-03-28T01:30:00Z
	// 2026-03-30T00:30:00Z
	// 2026-03-31T00:30:00Z
	// expected exactly 5 fields, found 4: [30 2 * *]
}
