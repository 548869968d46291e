package shell

import (
	"strings"
	"sync"
	"testing"
)

func TestParseCached(t *testing.T) {
	a, b := ParseCached("git status"), ParseCached("git status")
	if a != b || len(a.Commands) != 1 || a.Commands[0].Program != "git" {
		t.Fatalf("ParseCached twice: %p %p %+v, want one parse of git status", a, b, a)
	}
	if c := ParseCached("git status "); c == a {
		t.Errorf("another text gave the same script")
	}
	long := "echo " + strings.Repeat("x", cacheScript)
	if ParseCached(long) == ParseCached(long) {
		t.Errorf("a script over %d bytes was cached", cacheScript)
	}
	// The generations stay bounded, and a script read in between survives a turn.
	for i := range 3 * cacheEntries {
		ParseCached("echo " + strings.Repeat("y", i%64) + string(rune('a'+i%26)) +
			strings.Repeat("z", i/64))
		if i%100 == 0 && ParseCached("git status") != a && i < cacheEntries {
			t.Fatalf("git status dropped after %d scripts", i)
		}
	}
	parsed.Lock()
	n := len(parsed.cur) + len(parsed.old)
	parsed.Unlock()
	if n > 2*cacheEntries {
		t.Errorf("cache holds %d scripts, over %d", n, 2*cacheEntries)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				s := ParseCached("ls " + string(rune('a'+(i+j)%26)))
				if len(s.Commands) != 1 {
					t.Errorf("%d commands", len(s.Commands))
				}
			}
		})
	}
	wg.Wait()
}
