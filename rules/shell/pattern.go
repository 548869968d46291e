package shell

import (
	"fmt"
	"strings"
)

// MaxPattern is the longest command pattern Compile accepts, in bytes.
const MaxPattern = 1024

// Pattern is a compiled command pattern. The zero Pattern matches nothing.
// Matching allocates nothing; a Pattern is safe for concurrent use.
type Pattern struct {
	src   string
	parts []string // the literal runs between the stars
	// star marks a pattern that holds a star: parts[0] must begin the text, the
	// last part end it, the others follow in order.
	star bool
	// bare is the text the pattern also matches when it ends in " *": the pattern
	// without that ending.
	bare    string
	hasBare bool
	// words are the pattern's words without a star, or with one only after an "="
	// (--output=*): the options it spells.
	words []string
}

// Compile compiles a command pattern (see the package doc). It returns an error
// wrapping ErrBadPattern when the pattern is empty, longer than MaxPattern, has
// spaces at an end or two in a row, or holds a control character.
func Compile(pattern string) (Pattern, error) {
	bad := func(problem string) (Pattern, error) {
		return Pattern{}, fmt.Errorf("%w %q: %s", ErrBadPattern, pattern, problem)
	}
	switch {
	case strings.TrimSpace(pattern) == "":
		return bad("is empty")
	case len(pattern) > MaxPattern:
		return bad(fmt.Sprintf("is longer than %d bytes", MaxPattern))
	case pattern[0] == ' ' || pattern[len(pattern)-1] == ' ':
		return bad("begins or ends with a space")
	case strings.Contains(pattern, "  "):
		return bad("has two spaces in a row; commands are matched with their words " +
			"joined by one space")
	}
	for _, r := range pattern {
		if r < 0x20 || r == 0x7f {
			return bad("holds a control character")
		}
	}
	src := pattern
	if rest, ok := strings.CutSuffix(pattern, ":*"); ok && rest != "" {
		pattern = rest + " *"
	}
	if first, rest, ok := strings.Cut(pattern, " "); ok {
		pattern = ProgramName(first) + " " + rest
	} else {
		pattern = ProgramName(pattern)
	}
	p := Pattern{src: src, parts: strings.Split(pattern, "*")}
	for _, w := range strings.Split(pattern, " ") {
		if i := strings.IndexByte(w, '*'); i < 0 || i > 0 && strings.IndexByte(w[:i], '=') >= 0 {
			p.words = append(p.words, w)
		}
	}
	p.star = len(p.parts) > 1
	if bare, ok := strings.CutSuffix(pattern, " *"); ok {
		p.bare, p.hasBare = bare, true
	}
	return p, nil
}

// MustCompile is Compile for patterns known to be valid; it panics on an error.
func MustCompile(pattern string) Pattern {
	p, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.src }

// Match reports whether the text of a command form matches the pattern.
func (p Pattern) Match(text string) bool {
	if len(p.parts) == 0 {
		return false
	}
	if p.hasBare && text == p.bare {
		return true
	}
	if !p.star {
		return text == p.parts[0]
	}
	first, last := p.parts[0], p.parts[len(p.parts)-1]
	if len(text) < len(first)+len(last) || !strings.HasPrefix(text, first) ||
		!strings.HasSuffix(text, last) {
		return false
	}
	text = text[len(first) : len(text)-len(last)]
	for _, part := range p.parts[1 : len(p.parts)-1] {
		i := strings.Index(text, part)
		if i < 0 {
			return false
		}
		text = text[i+len(part):]
	}
	return true
}

// Program returns the first word (shell.FirstWord) of every text p matches, and false
// when texts of different first words may match (a star within the first word).
func (p Pattern) Program() (string, bool) {
	if len(p.parts) == 0 {
		return "", false
	}
	first := p.parts[0]
	if i := strings.IndexByte(first, ' '); i >= 0 {
		return first[:i], true
	}
	if !p.star {
		return first, true
	}
	return "", false
}

// FirstWord returns text up to its first space: a command text's program.
func FirstWord(text string) string {
	if i := strings.IndexByte(text, ' '); i >= 0 {
		return text[:i]
	}
	return text
}

// Match reports whether pattern matches the command text; it returns false when the
// pattern does not compile.
func Match(pattern, text string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Match(text)
}

// Denies reports whether p matches any form of c: a deny pattern denies the command.
func (p Pattern) Denies(c *Command) bool {
	for i := range c.Forms {
		if p.Match(c.Forms[i].Text) {
			return true
		}
	}
	return false
}

// Allows reports whether p matches the form of c that allow patterns decide and
// spells each of its risky options (Spells). It is false for an unknown or
// delegated command.
func (p Pattern) Allows(c *Command) bool {
	text, ok := c.AllowText()
	return ok && p.Match(text) && p.Spells(c.Risky)
}

// Spells reports whether each of the risky words (Command.Risky) is a word of the
// pattern as written, or, for --opt=VALUE, a word of the pattern starting with
// --opt= (git log --output=* spells --output=out.txt). A star alone spells nothing.
func (p Pattern) Spells(risky []string) bool {
	for _, r := range risky {
		name, _, hasVal := strings.Cut(r, "=")
		ok := false
		for _, w := range p.words {
			if w == r || hasVal && strings.HasPrefix(w, name+"=") &&
				(!strings.Contains(w, "*") || strings.Index(w, "*") > len(name)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// AllowText returns the text of the form allow patterns decide, and false when no
// pattern may allow c (it is unknown, or delegated to other commands).
func (c *Command) AllowText() (string, bool) {
	if c.Unknown {
		return "", false
	}
	for i := range c.Forms {
		if c.Forms[i].Allow {
			return c.Forms[i].Text, true
		}
	}
	return "", false
}
