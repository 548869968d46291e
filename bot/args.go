package bot

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/shlex"
)

// splitLine splits a command line into words with shell-like quoting:
// 'single' and "double" quotes group words, a backslash escapes the next character.
// Unlike a shell, # does not start a comment ("approve 7 see #12" keeps "#12"), and
// the curly double quotes “ ” „ that phone keyboards type count as ". Unbalanced
// quotes and a trailing backslash are errors wrapping ErrUsage.
func splitLine(line string) ([]string, error) {
	line = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`).Replace(line)
	words, err := shlex.Split(escapeHashes(line))
	if err != nil {
		why := "unbalanced quotes"
		if strings.Contains(err.Error(), "escape") {
			why = "a backslash at the end of the line"
		}
		return nil, fmt.Errorf("%w: %s", ErrUsage, why)
	}
	return words, nil
}

// escapeHashes puts a backslash before every # that is outside quotes, so that shlex
// reads it as a plain character rather than the start of a comment.
func escapeHashes(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	var b strings.Builder
	var quote rune // 0, '\'' or '"'
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			}
		case r == '\\':
			escaped = true
		case quote == '"':
			if r == '"' {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#':
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// keyValues parses key=value words: each key must be one of allowed and appear once.
// Errors wrap ErrUsage and name the word.
func keyValues(words []string, allowed ...string) (map[string]string, error) {
	kv := make(map[string]string, len(words))
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("%w: %s is not key=value", ErrUsage, quoteShort(w))
		}
		if !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("%w: unknown key %s (want %s)",
				ErrUsage, quoteShort(k), strings.Join(allowed, ", "))
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("%w: key %s given twice", ErrUsage, quoteShort(k))
		}
		kv[k] = v
	}
	return kv, nil
}

// parsePriority parses a rule priority; the range is the gate's to check.
func parsePriority(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%w: priority %s is not a whole number", ErrUsage, quoteShort(s))
	}
	return n, nil
}
