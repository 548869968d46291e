package slack

import (
	"strings"
	"testing"
)

// chunks splits at line ends, keeps every piece within max, cuts an overlong line
// with bot's marker, and says how many lines it left out after n pieces.
func TestChunks(t *testing.T) {
	line := strings.Repeat("x", 40)
	for _, c := range []struct {
		name string
		text string
		max  int
		n    int
		want []string
	}{
		{"short", "a\nb", 10, 3, []string{"a\nb"}},
		{"split at line ends", line + "\n" + line + "\n" + line, 90, 5,
			[]string{line + "\n" + line, line}},
		{"an overlong line", strings.Repeat("y", 100), 50, 3,
			[]string{strings.Repeat("y", 21) + "\n… (cut, 79 more characters)"}},
		{"too many pieces", strings.Repeat(line+"\n", 9) + line, 40, 3,
			[]string{line, line, "… (cut, 8 more lines)"}},
		{"astral runes count twice", "😀😀😀\nz", 6, 3, []string{"😀😀😀", "z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := chunks(c.text, c.max, c.n)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("%s: %q, want %q", c.name, got, c.want)
			}
			for _, p := range got {
				if units(p) > c.max {
					t.Errorf("%s: piece of %d units, more than %d", c.name, units(p), c.max)
				}
			}
		})
	}
}
