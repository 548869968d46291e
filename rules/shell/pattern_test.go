package shell

import (
	"errors"
	"strings"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"git status", "git status", true},
		{"git status", "git status --short", false},
		{"git status", "git statusx", false},
		{"git status *", "git status", true},
		{"git status *", "git status --short", true},
		{"git status *", "git statusx", false},
		{"git status*", "git statusx", true},
		{"npm run test:*", "npm run test", true},
		{"npm run test:*", "npm run test --watch", true},
		{"npm run test:*", "npm run test:unit", false},
		{"npm run test:*", "npm run testx", false},
		{"*", "anything at all", true},
		{"*", "", true},
		{"rm -rf *", "rm -fr /", false},
		{"rm *", "rm -fr /", true},
		{"rm *", "rm", true},
		{"rm *", "rmdir x", false},
		{"* --force", "git push --force", true},
		{"* --force", "git push --force-with-lease", false},
		{"git * --force *", "git push origin --force main", true},
		{"git * --force *", "git push origin main", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{"/bin/rm *", "rm -rf /", true},
		{"/usr/local/bin/go test *", "go test ./...", true},
		{"./data/git status", "./data/git status", true},
		{"git status *", "./data/git status", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+"~"+tt.text, func(t *testing.T) {
			p, err := Compile(tt.pattern)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := p.Match(tt.text); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
			}
			if got := Match(tt.pattern, tt.text); got != tt.want {
				t.Errorf("package Match = %v, want %v", got, tt.want)
			}
			if p.String() != tt.pattern {
				t.Errorf("String() = %q", p.String())
			}
		})
	}
	if (Pattern{}).Match("") {
		t.Error("the zero Pattern matched")
	}
}

func TestCompileErr(t *testing.T) {
	tests := []struct{ name, pattern, want string }{
		{"empty", "", "is empty"},
		{"blank", "   ", "is empty"},
		{"leading space", " git", "begins or ends with a space"},
		{"trailing space", "git ", "begins or ends with a space"},
		{"double space", "git  status", "two spaces in a row"},
		{"newline", "git\nstatus", "control character"},
		{"tab", "git\tstatus", "control character"},
		{"too long", strings.Repeat("a", MaxPattern+1), "longer than 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.pattern)
			if !errors.Is(err, ErrBadPattern) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile(%q) error = %v, want ErrBadPattern holding %q",
					tt.pattern, err, tt.want)
			}
			if p.Match("") || p.Match(tt.pattern) {
				t.Error("the failed pattern matches")
			}
			if Match(tt.pattern, tt.pattern) {
				t.Error("package Match matched a bad pattern")
			}
		})
	}
}

func TestPatternAllocs(t *testing.T) {
	p := MustCompile("git * --force *")
	n := testing.AllocsPerRun(100, func() {
		p.Match("git push origin --force main")
	})
	if n != 0 {
		t.Errorf("Match allocates %v times", n)
	}
}

// TestPatternProgram checks that every text a pattern with a program word matches
// starts with that word, over TestPatternMatch's texts and more.
func TestPatternProgram(t *testing.T) {
	texts := []string{"", "git", "git status", "git status --short", "git statusx", "gitx",
		"rm", "rm -rf /", "rmdir x", "make", "make all", "npm run test", "npm run test:unit",
		"sudo rm -rf /", "a b", "ab", "a"}
	for _, tc := range []struct {
		pattern, program string
		ok               bool
	}{
		{"git status *", "git", true},
		{"git *", "git", true},
		{"git status", "git", true},
		{"make", "make", true},
		{"rm -rf *", "rm", true},
		{"sudo rm *", "sudo", true},
		{"git*", "", false},
		{"g* status", "", false},
		{"*", "", false},
		{"* b", "", false},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			p, err := Compile(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			program, ok := p.Program()
			if program != tc.program || ok != tc.ok {
				t.Fatalf("Program() = %q, %v; want %q, %v", program, ok, tc.program, tc.ok)
			}
			for _, text := range texts {
				if ok && p.Match(text) && FirstWord(text) != program {
					t.Errorf("matches %q, whose first word is not %q", text, program)
				}
			}
		})
	}
}
