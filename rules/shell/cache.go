package shell

import "sync"

// Limits of the cache of ParseCached.
const (
	// cacheEntries is how many scripts each of the cache's two generations holds.
	cacheEntries = 512
	// cacheScript is the longest script the cache keeps, in bytes.
	cacheScript = 4 << 10
)

// parsed caches Parse by script text in two generations: a hit in the old one
// moves the script to the new one, and a full new one replaces the old. Parse is
// pure, so a cached Script is what Parse would return now.
var parsed scriptCache

type scriptCache struct {
	sync.Mutex
	cur, old map[string]*Script
}

// ParseCached is Parse for a script an agent may send again (git status, go test):
// the same script text gives the same *Script, which the caller must not modify.
// It is safe for concurrent use and keeps at most 1,024 scripts of up to 4 KiB.
func ParseCached(script string) *Script {
	if len(script) > cacheScript {
		s := Parse(script)
		return &s
	}
	parsed.Lock()
	s, ok := parsed.cur[script]
	if !ok {
		if s, ok = parsed.old[script]; ok {
			parsed.put(script, s)
		}
	}
	parsed.Unlock()
	if ok {
		return s
	}
	p := Parse(script)
	s = &p
	parsed.Lock()
	parsed.put(script, s)
	parsed.Unlock()
	return s
}

func (c *scriptCache) put(script string, s *Script) {
	if c.cur == nil || len(c.cur) >= cacheEntries {
		c.old, c.cur = c.cur, make(map[string]*Script, cacheEntries)
	}
	c.cur[script] = s
}
