package shell

import (
	"fmt"
	"testing"
)

// BenchmarkParseMatch parses a 5-command script and matches every command against
// 100 patterns, as deciding one Bash call does.
func BenchmarkParseMatch(b *testing.B) {
	const script = `cd src && git status --short | grep -v vendor > /dev/null; ` +
		`go test ./... 2>&1 | tail -n 20`
	patterns := make([]Pattern, 0, 100)
	for i := range 95 {
		patterns = append(patterns, MustCompile(fmt.Sprintf("tool%d sub%d *", i, i)))
	}
	for _, p := range []string{"git status *", "grep *", "go test *", "tail *", "cd *"} {
		patterns = append(patterns, MustCompile(p))
	}
	b.ReportAllocs()
	for b.Loop() {
		s := Parse(script)
		if len(s.Commands) != 5 {
			b.Fatalf("%d commands", len(s.Commands))
		}
		for i := range s.Commands {
			c := &s.Commands[i]
			allowed := false
			for _, p := range patterns {
				_ = p.Denies(c)
				allowed = allowed || p.Allows(c)
			}
			if !allowed {
				b.Fatalf("%q not allowed", c.Forms[0].Text)
			}
		}
	}
}

// BenchmarkMatch matches one form against 100 patterns.
func BenchmarkMatch(b *testing.B) {
	patterns := make([]Pattern, 0, 100)
	for i := range 100 {
		patterns = append(patterns, MustCompile(fmt.Sprintf("tool%d * --flag%d *", i, i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range patterns {
			p.Match("git status --short --branch")
		}
	}
}
