package rules

import (
	"errors"
	"iter"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A tool may expand a word of its arguments before it opens it: a shell its
// variables, escapes and "~user", Windows its %VAR%, a URL parser its percent-escapes.
// What such a word names is not in the call, so the argument scan cannot decide it;
// when it could name a path (docs/design.md, "Path arguments": it holds a "/" or, the
// expansions dropped, a name of a guarded place) the call is unresolvable.

// maxExpandWord is the longest word whose expansions are taken apart; a longer word
// with an expansion may name a path.
const maxExpandWord = 512

// shellWords yields the words of v as a shell or a tool splits them before expanding:
// at white space, quotes and backticks only, so that "${HOME}/x" and "se\crets" stay
// whole.
func shellWords(v string) iter.Seq[string] {
	return splitWords(v, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '\'' || r == '`'
	})
}

// expands reports whether the word w (a shellWords word) holds what a tool may expand
// and could then name a path: "~user/…", a file: URI that names no local path, or an
// expansion — $NAME, ${…}, $(…), %NAME%, a %hh escape or a backslash — in a word that
// holds a "/" or, with its expansions dropped and its escapes decoded, "/", "..", or a
// name of names (view.names); an expansion that starts the word and is followed by a
// backslash (%USERPROFILE%\x) is a directory too. A price ("$5", "50%") expands
// nothing. It allocates nothing.
func expands(w string, names map[string]struct{}) bool {
	switch {
	case w == "":
		return false
	case w[0] == '~' && len(w) > 1 && w[1] != '/' && strings.IndexByte(w, '/') > 0:
		return true // ~user/…, ~+/…: a directory the gate does not know
	case isFileURI(w):
		if _, ok := fileURIPath(w); !ok && len(w) > len("file:") {
			return true
		}
	case strings.Contains(w, "://"):
		return false // a URL: its escapes are the server's
	}
	if !strings.ContainsAny(w, `$\%`) {
		return false
	}
	if len(w) > maxExpandWord {
		return true
	}
	var buf [maxExpandWord]byte
	rest, marked := buf[:0], false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '\\' && i > 0 && (w[i-1] == '}' || w[i-1] == '%' || nameByte(w[i-1])) &&
			marked && len(rest) == 0:
			return true // %USERPROFILE%\x, $HOME\x: a directory the tool knows
		case c == '\\':
			rest, marked = append(rest, '\\'), true
		case c == '$' && i+1 < len(w) && (w[i+1] == '{' || w[i+1] == '('):
			marked = true
			if w[i+1] == '(' {
				i++ // the command's words are words of their own
				continue
			}
			if j := strings.IndexByte(w[i:], '}'); j > 0 {
				i += j
				continue
			}
			return true // an open ${: what follows is part of it
		case c == '$' && i+1 < len(w) && nameStart(w[i+1]):
			marked = true
			for i+1 < len(w) && nameByte(w[i+1]) {
				i++
			}
		case c == '%' && i+2 < len(w) && hexByte(w[i+1]) && hexByte(w[i+2]):
			marked = true
			rest = append(rest, unhex(w[i+1])<<4|unhex(w[i+2]))
			i += 2
		case c == '%' && i+1 < len(w) && nameStart(w[i+1]):
			j := i + 1
			for j < len(w) && nameByte(w[j]) {
				j++
			}
			if j < len(w) && w[j] == '%' {
				marked, i = true, j // %NAME%
				continue
			}
			rest = append(rest, c)
		default:
			rest = append(rest, c)
		}
	}
	if !marked {
		return false
	}
	if strings.IndexByte(w, '/') >= 0 {
		return true
	}
	// The rest, with a backslash as an escape (dropped) and as a separator.
	var joined [maxExpandWord]byte
	j := joined[:0]
	for _, c := range rest {
		if c != '\\' {
			j = append(j, c)
		}
	}
	if namesPath(j, names) {
		return true
	}
	for len(rest) > 0 {
		i := 0
		for i < len(rest) && rest[i] != '\\' {
			i++
		}
		if namesPath(rest[:i], names) {
			return true
		}
		rest = rest[min(i+1, len(rest)):]
	}
	return false
}

// homeWord reports whether the word w, after any "NAME=", is the home directory's
// variable alone ($HOME, ${HOME}, %USERPROFILE%): it stands for "~".
func homeWord(w string) bool {
	if i := strings.LastIndexByte(w, '='); i >= 0 {
		w = w[i+1:]
	}
	switch w {
	case "$HOME", "${HOME}", "%USERPROFILE%", "%HOMEPATH%":
		return true
	}
	return false
}

// namesPath reports whether the expanded rest b of a word may name a path: it holds a
// "/", or a word of it (wordSep) is ".." or a name of names.
func namesPath(b []byte, names map[string]struct{}) bool {
	for _, c := range b {
		if c == '/' || c == 0 {
			return true
		}
	}
	for len(b) > 0 {
		i := 0
		for i < len(b) && !wordSepByte(b[i]) {
			i++
		}
		if w := b[:i]; string(w) == ".." {
			return true
		} else if _, ok := names[string(w)]; ok && i > 0 {
			return true
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return false
}

// wordSepByte is wordSep for one byte; a byte of a multi-byte rune is no separator.
func wordSepByte(c byte) bool { return c < 0x80 && wordSep(rune(c)) }

func nameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func nameByte(c byte) bool { return nameStart(c) || '0' <= c && c <= '9' }

func hexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// A shell joins what the pieces of a string (shellWords, words) keep apart: quotes
// join ("sec"rets/key), "\" escapes, $'…' decodes and braces expand ({sec,x}rets). The
// scan reads a string that holds any of these as a shell would too (argScan.shellRead).

// shellJoins reports whether a shell may read v into words its pieces do not show: v
// holds a quote, a backslash, a backtick, "$(", "$'", "<(", a brace with a comma or
// "..", or "${". It allocates nothing.
func shellJoins(v string) bool {
	return strings.ContainsAny(v, "\"'`\\") || strings.Contains(v, "$(") ||
		strings.Contains(v, "<(") || strings.Contains(v, ">(") ||
		strings.Contains(v, "${") || strings.IndexByte(v, '{') >= 0 &&
		(strings.IndexByte(v, ',') >= 0 || strings.Contains(v, ".."))
}

// shellEnv stands every variable for "${}", which expands marks as an expansion.
var shellEnv = &expand.Config{Env: expand.FuncEnviron(func(string) string { return "${}" })}

// shellRead decides the shell words of v (see shellWord), those inside a substitution
// included, and reports whether the scan has its answer. A string the shell parser
// cannot read (prose: "it's") or longer than maxScanLen is decided on its words with
// the quotes and backslashes dropped, as a shell would join them.
func (sc *argScan) shellRead(v string) bool {
	var f *syntax.File
	err := errTooLong
	if len(v) <= maxScanLen {
		f, err = syntax.NewParser().Parse(strings.NewReader(v), "")
	}
	if err != nil {
		return sc.pieces(strings.Map(func(r rune) rune {
			if r == '"' || r == '\'' || r == '\\' {
				return -1
			}
			return r
		}, v))
	}
	var ws []*syntax.Word
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			ws = append(ws, w)
		}
		return true
	})
	for _, w := range ws { // shellWord expands braces in place: not while walking
		if sc.shellWord(v[w.Pos().Offset():w.End().Offset()], w) {
			return true
		}
	}
	return false
}

var errTooLong = errors.New("too long")

// shellWord decides the shell word w, whose source is src: a word holding a command
// or process substitution is unresolvable when it could name a path (namesPath of its
// source: a "/", "..", a name of a place); otherwise each of its brace alternatives,
// its quotes removed and its escapes decoded, is decided as the scan's pieces are, or,
// holding a variable, is unresolvable when it could name a path (expands). More than
// maxAlternatives alternatives are unresolvable.
func (sc *argScan) shellWord(src string, w *syntax.Word) bool {
	bad := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
	names := sc.e.v.names
	subst, param, op := false, false, false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			subst = true
		case *syntax.ParamExp:
			param = true
			op = op || n.(*syntax.ParamExp).Exp != nil
		case *syntax.ArithmExp:
			param = true
		}
		return !subst
	})
	if subst {
		return namesPath([]byte(src), names) && sc.add(bad)
	}
	syntax.SplitBraces(w)
	n := 0
	for alt, err := range expand.BracesSeq(nil, w) {
		if n++; err != nil || n > maxAlternatives {
			return sc.add(bad)
		}
		lit, err := expand.Literal(shellEnv, alt)
		switch {
		case err != nil:
			if namesPath([]byte(src), names) && sc.add(bad) {
				return true
			}
		case param:
			if expands(lit, names) && sc.add(bad) {
				return true
			}
		case lit != src:
			if looksLikePath(lit) && sc.word(lit) || sc.pieces(lit) {
				return true
			}
		}
		// An operator's word is the value where the variable is unset (${x:-secrets})
		// or set (${x:+secrets}).
		for _, env := range [...]*expand.Config{unsetEnv, shellEnv} {
			if !op {
				break
			}
			if lit, err := expand.Literal(env, alt); err == nil &&
				(looksLikePath(lit) && sc.word(lit) || sc.pieces(lit)) {
				return true
			}
		}
	}
	return false
}

// unsetEnv leaves every variable unset, for the words of ${x-…} and ${x:-…}.
var unsetEnv = &expand.Config{Env: expand.ListEnviron()}
