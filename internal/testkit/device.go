package testkit

import (
	"io/fs"
	"os"
	"testing"
)

// Device returns the path of a device node under /dev that holds data (a disk, a
// console, a terminal; not null, zero, full, random, urandom or tty), skipping the
// test when the machine has none.
func Device(t testing.TB) string {
	t.Helper()
	harmless := map[string]bool{"null": true, "zero": true, "full": true, "random": true,
		"urandom": true, "tty": true}
	entries, err := os.ReadDir("/dev")
	if err != nil {
		t.Skipf("no /dev: %v", err)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeDevice != 0 && !harmless[e.Name()] {
			return "/dev/" + e.Name()
		}
	}
	t.Skip("no device node in /dev")
	return ""
}
