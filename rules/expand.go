package rules

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"strings"
	"unicode"

	"github.com/skald-circle/skald-bot/rules/shell"
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
func expands(w string, names placeNames) bool {
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
			marked && len(bytes.Trim(rest, "\x01")) == 0:
			return true // %USERPROFILE%\x, $HOME\x: a directory the tool knows
		case c == '\\':
			rest, marked = append(rest, '\\'), true
		case c == '$' && i+1 < len(w) && (w[i+1] == '{' || w[i+1] == '('):
			marked, rest = true, append(rest, anyText)
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
			marked, rest = true, append(rest, anyText)
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
			if k := cmdSubstring(w[j:]); j < len(w) && w[j] == '%' || k > 0 {
				// %NAME%, or its substring or substitution %NAME:~0,3% or %NAME:a=b%
				marked, rest, i = true, append(rest, anyText), j+k
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

// cmdSubstring returns the length of the ":~n,m%" or ":a=b%" that w starts with,
// the rest of cmd.exe's substring or substitution of a variable, else 0.
func cmdSubstring(w string) int {
	if len(w) < 3 || w[0] != ':' {
		return 0
	}
	end := strings.IndexByte(w, '%')
	if end < 0 || w[1] != '~' && strings.IndexByte(w[:end], '=') < 0 {
		return 0
	}
	return end
}

// anyText stands for an expansion in the rest of a word (expands): any text.
const anyText = 0x01

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
// "/", or a word of it (wordSep) is ".." or a name of names — where an anyText in it
// stands for any text and the word holds text besides (${X}rets, sec${X}rets: an
// expansion alone names nothing the call says).
func namesPath(b []byte, names placeNames) bool {
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
		if w := b[:i]; string(bytes.ReplaceAll(w, []byte{anyText}, nil)) == ".." {
			return true
		} else if i > 0 && names.has(string(w)) {
			return true
		} else if completes(w, names) {
			return true
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return false
}

// completes reports whether the word w, holding anyText and some other text, matches
// a name of names with each anyText standing for any text.
func completes(w []byte, names placeNames) bool {
	if bytes.IndexByte(w, anyText) < 0 || len(bytes.Trim(w, "\x01")) == 0 {
		return false
	}
	if names.fold {
		w = bytes.ToLower(w)
	}
	for n := range names.set {
		if matchAny(w, n) {
			return true
		}
	}
	return false
}

// matchAny reports whether name matches the pattern p, each anyText of which matches
// any run of bytes.
func matchAny(p []byte, name string) bool {
	star, at := -1, 0 // the last anyText seen in p, and where name was when it was
	for i, j := 0, 0; j < len(name) || i < len(p); {
		switch {
		case i < len(p) && p[i] == anyText:
			star, at = i, j
			i++
		case i < len(p) && j < len(name) && p[i] == name[j]:
			i, j = i+1, j+1
		case star >= 0 && at < len(name):
			at++
			i, j = star+1, at
		default:
			return false
		}
	}
	return true
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

// exprMark is what a variable, a command or a process substitution stands for in a
// word's literal (shellWord): expands reads it as an expansion, and a shell reads it
// again as one (argScan.reread).
const exprMark = "${_}"

// shellEnvs returns the expansion configs of one shell word: every variable set to
// exprMark, and every variable unset (for the words of ${x-…} and ${x:-…}); both stand
// each substitution for exprMark. A config is not safe for concurrent use.
func shellEnvs() (set, unset *expand.Config) {
	subst := func(w io.Writer, _ *syntax.CmdSubst) error {
		_, err := io.WriteString(w, exprMark)
		return err
	}
	proc := func(*syntax.ProcSubst) (string, error) { return exprMark, nil }
	set = &expand.Config{Env: expand.FuncEnviron(func(string) string { return exprMark }),
		CmdSubst: subst, ProcSubst: proc}
	unset = &expand.Config{Env: expand.ListEnviron(), CmdSubst: subst, ProcSubst: proc}
	return set, unset
}

// maxReread is how many times a string is read again as a shell string inside
// another (argScan.reread): the depth of "bash -c" nesting the shell tool follows.
const maxReread = shell.MaxDepth

// reread decides the literal v of a shell word as a string of its own (argScan.str),
// since a program may hand it to a shell again (sh -c, eval, su -c, ssh, find -exec
// sh -c): the word "cat sec\"r\"ets" of bash -c is cat secrets. A value still read as
// a shell reads it deeper than maxReread is unresolvable. It reports whether the scan
// has its answer.
func (sc *argScan) reread(v string) bool {
	if shellJoins(strings.ReplaceAll(v, exprMark, "")) {
		if sc.depth >= maxReread {
			return sc.add(Decision{Action: Require, Reason: ReasonBadPath,
				PathState: PathInvalid})
		}
	} else if sc.depth > maxReread {
		return sc.pieces(v) // nothing in it is read again
	}
	sc.depth++
	defer func() { sc.depth-- }()
	return sc.str(v)
}

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

// shellWord decides the shell word w, whose source is src: each of its brace
// alternatives, its quotes removed and its escapes decoded, is decided as the scan's
// strings are (reread: a program may hand it to a shell again) and, holding a variable
// or a substitution, is unresolvable when it could name a path (expands: a
// substitution alone is a value the call does not say, like a variable alone). More than
// maxAlternatives alternatives are unresolvable.
func (sc *argScan) shellWord(src string, w *syntax.Word) bool {
	bad := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
	names := sc.e.v.names
	param, op := false, false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			param = true
			return false // its words are words of their own (shellRead)
		case *syntax.ParamExp:
			param = true
			op = op || n.Exp != nil
		case *syntax.ArithmExp:
			param = true
		}
		return true
	})
	syntax.SplitBraces(w)
	set, unset := shellEnvs()
	n := 0
	for alt, err := range expand.BracesSeq(nil, w) {
		if n++; err != nil || n > maxAlternatives {
			return sc.add(bad)
		}
		lit, err := expand.Literal(set, alt)
		switch {
		case err != nil:
			if namesPath([]byte(src), names) && sc.add(bad) {
				return true
			}
		case param && expands(lit, names) && sc.add(bad):
			return true
		case lit != src && sc.reread(lit):
			return true
		}
		// An operator's word is the value where the variable is unset (${x:-secrets})
		// or set (${x:+secrets}).
		for _, env := range [...]*expand.Config{unset, set} {
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
