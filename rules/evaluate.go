package rules

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"iter"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// Evaluate decides one tool call for the permission group group: the Decision is the
// strictest of its paths' forms, or, without a path argument, the rules without a path
// filter's; a shell tool's call is decided through EvaluateShell. The package doc
// ("Evaluation") gives the steps, docs/design.md ("Deciding a call") the rules. Path
// patterns are resolved as the file system is at the call. Safe for concurrent use; a
// call with no path and nothing that looks like one allocates nothing and reads no file
// but an lstat of its first plain words in the workspace root (a symlink is a path).
func (s *Set) Evaluate(group string, c Call) Decision {
	ti := s.tools[c.Tool]
	if ti.shell > 0 {
		if d, _, ok := s.evaluateShellTool(group, c, s.opt.Shell[ti.shell-1]); ok {
			return d
		}
	}
	// With a base that cannot be resolved, no path of the call can be.
	bad := c.Cwd != "" && strings.IndexByte(c.Cwd, 0) >= 0 ||
		c.WorkingDir != "" && strings.IndexByte(c.WorkingDir, 0) >= 0
	if !ti.file() && ti.glob == "" && !s.hasPaths(&c) { // most calls: no pattern needed
		st := NoPath
		if bad {
			st = PathInvalid
		}
		return s.decide(s.view.Load().tier(group), &c, "", st)
	}
	for try := 0; ; try++ {
		v := s.view.Load()
		d, used := s.evaluate(v, group, &c, ti, bad)
		// The patterns must have held while the call's paths were resolved: else a
		// swap in between could pair a path with a pattern of another moment.
		if !used || s.held(v) {
			return d
		}
		if try == 2 { // the file system keeps changing under the call: a human decides
			if d.Action == Deny {
				return d
			}
			return Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid,
				Paths: d.Paths}
		}
	}
}

// hasPaths reports whether c's arguments hold a path argument (an Options.PathArgs key
// with a value other than null and "") or, anywhere, a string the scan decides
// (pathLike).
func (s *Set) hasPaths(c *Call) bool {
	args := c.Args
	if len(args) == 0 {
		return false
	}
	for _, k := range s.pathKeysOf(args) {
		if v, ok := args[k]; ok && v != nil && v != "" {
			return true
		}
	}
	n := 0
	pl := s.newPathLike(c, s.view.Load().names)
	return pl.of(args, 0, &n)
}

// evaluate is Evaluate on the view v; used reports whether a path needed v's patterns.
func (s *Set) evaluate(v *view, group string, c *Call, ti toolInfo, bad bool) (Decision, bool) {
	e := evaluation{s: s, v: v, group: group, bad: bad, inside: true}
	if c.Places != nil {
		e.places = c.Places.Write
		if ti.read {
			e.places = c.Places.Read
		}
	}
	for _, k := range s.pathKeysOf(c.Args) {
		v, ok := c.Args[k]
		if !ok || v == nil || v == "" {
			continue
		}
		switch v := v.(type) {
		case string:
			e.path(c, v)
		case []any:
			for _, el := range v {
				switch el := el.(type) {
				case nil:
				case string:
					if el != "" {
						e.path(c, el)
					}
				default:
					e.invalid(c)
				}
			}
		default:
			e.invalid(c)
		}
	}
	if ti.glob != "" {
		e.glob(c, c.Args[ti.glob])
	}
	webKey := "" // a web tool's URL is decided by the host rules, not as a path
	if ti.web > 0 {
		if _, ok := urlHost(c.Args[s.opt.Web[ti.web-1].Arg]); ok {
			webKey = s.opt.Web[ti.web-1].Arg
		}
	}
	scan := e.scanArgs(c, ti.glob, webKey, ti.file())
	var d Decision
	switch {
	case e.n > 0:
		e.best.Paths = e.n
		e.best.Inside = ti.file() && e.inside && e.best.PathState == PathOK
		d = e.best
	case ti.file():
		d = s.decidePath(e.tier(), c, ".") // a directory tool without a path searches its cwd
		if d.PathState == PathOK {
			var cache lstatCache
			d = s.withLinks(e.tier(), c, form{path: d.Path, proj: -1}, d, &cache)
		}
		d.Inside = d.PathState == PathOK && e.in(d.Path)
		if len(s.opt.Projects) > 0 && d.PathState == PathOK {
			pd, in := s.projectForm(e.tier(), c, ".", e.in)
			if severity(pd) > severity(d) {
				d = pd
			}
			d.Inside = d.Inside && in
		}
	case bad:
		d = s.decide(v.tier(group), c, "", PathInvalid)
	default:
		d = s.decide(v.tier(group), c, "", NoPath)
	}
	if scan.Action != Allow && severity(scan) > severity(d) {
		scan.Paths = d.Paths
		d = scan
	}
	return d, e.t != nil
}

// Bounds of the scan of a call's arguments (see Evaluate, step 5): deeper, more
// strings or more distinct words make the call unresolvable; a longer string cannot
// be a path the OS opens as a whole (its words still can).
const (
	maxScanDepth   = 16
	maxScanStrings = 1024
	maxScanWords   = 4096
	maxScanLen     = 4096
)

// scanArgs looks at every string anywhere in c.Args, other than the paths already
// decided (the strings of a PathArgs key, the glob of glob key), and returns the
// strictest decision of those that, or a word of which, a deny rule denies or lie in
// or hold a protected or denied place (see argScan.str), else the zero Decision. webKey
// is a web tool's http(s) URL argument, also left out; file: c's tool is a file tool.
func (e *evaluation) scanArgs(c *Call, globKey, webKey string, file bool) Decision {
	n := 0
	pl := e.s.newPathLike(c, e.v.names)
	for k, v := range c.Args {
		if !e.s.decided(k, globKey, webKey) && pl.of(v, 1, &n) {
			return e.scanSlow(*c, globKey, webKey, file)
		}
	}
	return Decision{} // most calls: nothing to resolve, nothing allocated
}

// decided reports whether the argument k was decided as the call's paths: a PathArgs
// key (its strings are paths; anything else in it made the call unresolvable) or the
// glob key; or as a URL, by the host rules: the web key.
func (s *Set) decided(k, globKey, webKey string) bool {
	if k == globKey || k == webKey && k != "" {
		return true
	}
	_, ok := s.pathKeys[k]
	return ok
}

// scanSlow is scanArgs for a call with a string to decide. It works on copies, which
// may move to the heap, so that calls without one allocate nothing.
func (e *evaluation) scanSlow(call Call, globKey, webKey string, file bool) Decision {
	ev := *e
	defer func() { e.t = ev.t }()
	c := &call
	sc := argScan{e: &ev, c: c, file: file}
	for k, v := range c.Args {
		if !ev.s.decided(k, globKey, webKey) && sc.value(v, 0) {
			break
		}
	}
	return sc.d
}

// pathLike tells whether a call's argument holds a string the scan decides: the
// call's names (view.names) and the directories its bare words are looked up in.
type pathLike struct {
	names placeNames
	root  string // the workspace root, where bare words are looked up
	other bool   // a base may not be the root: it may lie in a guarded place
	left  int    // the lstats of bare words still allowed before the scan decides
}

// maxBareLookups is how many lstats of bare words pathLike makes; beyond, the scan
// decides the call.
const maxBareLookups = 64

// newPathLike returns the pathLike of c.
func (s *Set) newPathLike(c *Call, names placeNames) pathLike {
	root := s.opt.WorkspaceRoot
	pl := pathLike{names: names, root: root, left: maxBareLookups}
	for _, b := range [2]string{c.Cwd, c.WorkingDir} {
		switch {
		case b == "", b == ".", b == root, len(b) == len(root)+1 && b[:len(root)] == root &&
			b[len(root)] == '/':
		default:
			pl.other = true
		}
	}
	return pl
}

// of reports whether v holds a string the scan decides (see argScan.str), or exceeds
// the scan's bounds; n counts the strings seen.
func (pl *pathLike) of(v any, depth int, n *int) bool {
	names := pl.names
	if depth > maxScanDepth {
		return true
	}
	switch v := v.(type) {
	case string:
		*n++
		if *n > maxScanStrings || looksLikePath(v) {
			return true
		}
		for w := range words(v) {
			if decidesWord(w, names) || bareWord(w) && pl.bare(w) {
				return true
			}
		}
		for w := range shellWords(v) {
			if expands(w, names) || homeWord(w) || lookAlike(w) {
				return true
			}
		}
		if shellJoins(v) || hasExtGlob(v) || strings.IndexByte(v, '^') >= 0 {
			return true // read as a shell or cmd.exe reads it in the scan (argScan.str)
		}
	case []any:
		for _, el := range v {
			if pl.of(el, depth+1, n) {
				return true
			}
		}
	case map[string]any:
		for _, el := range v {
			if pl.of(el, depth+1, n) {
				return true
			}
		}
	}
	return false
}

// bare reports whether the scan must decide the bare word w: a base may lie in a
// guarded place, w names a symlink in the workspace root, or the lookups ran out.
func (pl *pathLike) bare(w string) bool {
	switch {
	case pl.other || pl.left == 0:
		return true
	case pl.root == "":
		return false
	}
	pl.left--
	return linkIn(pl.root, w)
}

// bareWord reports whether w is a plain name a tool may open in its directory: no
// "/", not "." or "..", at most a file name's length. decidesWord words aside, only
// a symlink, or a directory in a guarded place, makes it lead there.
func bareWord(w string) bool {
	return w != "" && w != "." && w != ".." && len(w) <= 255 && strings.IndexByte(w, '/') < 0 &&
		strings.IndexByte(w, 0) < 0
}

// looksLikePath reports whether the scan decides the string v: it holds a "/", starts
// with "~" or ".", or is a file: URI, and could be a path the OS opens.
func looksLikePath(v string) bool {
	return len(v) <= maxScanLen && strings.IndexByte(v, 0) < 0 && pathShaped(v)
}

// pathShaped reports whether v holds a "/", starts with "~" or ".", or is a file: URI.
func pathShaped(v string) bool {
	return v != "" && (v[0] == '~' || v[0] == '.' || strings.IndexByte(v, '/') >= 0 ||
		isFileURI(v))
}

// argScan is one scan of a call's arguments.
type argScan struct {
	e     *evaluation
	c     *Call
	file  bool // c's tool is a file tool: holding a place does not count
	n     int
	depth int                 // how many shell strings enclose the one being read (reread)
	d     Decision            // the strictest so far: a deny ends the scan
	seen  map[string]struct{} // the words decided
	cache lstatCache
	// What bare words are decided (bare): every one when bareAll, else those naming
	// a symlink in a base; known once bareDone.
	bareDone, bareAll bool
	links             map[string]struct{}
}

// maxDirEntries is how many entries of a call's base directory the scan reads to find
// its symlinks; in a larger one every bare word is decided.
const maxDirEntries = 1 << 16

// bare reports whether the scan decides the bare word w (bareWord): it names a
// symlink in one of the call's bases, or a base lies in a guarded place, where any
// name lies too ("key" run in secrets/).
func (sc *argScan) bare(w string) bool {
	if !sc.bareDone {
		sc.bareDone = true
		sc.bareAll = sc.readBases()
	}
	if sc.bareAll {
		return true
	}
	_, ok := sc.links[w]
	return ok
}

// readBases fills sc.links with the symlinks of the call's bases, each resolved as
// "." would be, and reports whether every bare word must be decided instead: a base
// lies in a guarded place, cannot be resolved or read, or is too large to read.
func (sc *argScan) readBases() bool {
	s, c, t := sc.e.s, sc.c, sc.e.tier()
	var buf [8]form
	bases, ok := s.formsCached(c, ".", buf[:0], &sc.cache)
	if !ok {
		return true
	}
	for _, f := range bases {
		if s.inGuard(&t.at(f.proj).guards, c, f.path) != nil {
			return true
		}
	}
	for _, f := range bases {
		dir := f.path
		switch {
		case f.proj >= 0:
			dir = filepath.Join(s.projects[f.proj].root, dir)
		case !filepath.IsAbs(dir):
			dir = filepath.Join(s.opt.WorkspaceRoot, dir)
		}
		if !sc.readLinks(dir) {
			return true
		}
	}
	return false
}

// readLinks adds the names of the symlinks in dir to sc.links; false when dir cannot
// be read or holds more than maxDirEntries entries. A dir that does not exist holds
// none.
func (sc *argScan) readLinks(dir string) bool {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return true
	} else if err != nil {
		return false
	}
	defer f.Close()
	for n := 0; n <= maxDirEntries; {
		es, err := f.ReadDir(1024)
		for _, e := range es {
			if e.Type()&fs.ModeSymlink != 0 {
				if sc.links == nil {
					sc.links = map[string]struct{}{}
				}
				sc.links[e.Name()] = struct{}{}
			}
		}
		n += len(es)
		if err == io.EOF {
			return true
		} else if err != nil {
			return false
		}
	}
	return false
}

// value scans v at depth and reports whether the scan has its answer: a deny, or
// beyond its bounds.
func (sc *argScan) value(v any, depth int) bool {
	if depth > maxScanDepth {
		sc.d = Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
		return true
	}
	switch v := v.(type) {
	case string:
		if sc.n++; sc.n > maxScanStrings {
			sc.d = Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
			return true
		}
		return sc.str(v)
	case []any:
		for _, el := range v {
			if sc.value(el, depth+1) {
				return true
			}
		}
	case map[string]any:
		for _, el := range v {
			if sc.value(el, depth+1) {
				return true
			}
		}
	}
	return false
}

// str decides the string v: as a whole when it looks like a path (looksLikePath),
// and each of its words (wordSep), so that "cat secrets/key", "--file=secrets/key"
// or a bare "secrets" count too; a word a tool may expand into a path (expands) makes
// the call unresolvable, as does an option spelt with look-alike letters
// (lookAlike) — except for a file tool. A word that lies in a protected
// or denied place makes the call require; for a tool outside the file classes, a
// word the call's own rules deny, or under a protected place, denies it, and one
// that holds a guarded place (".", "/", a project's root) makes it require; a glob
// holds what lies under its literal directory. It reports whether the scan has its
// answer (value).
func (sc *argScan) str(v string) bool {
	if sc.e.bad {
		return false
	}
	if looksLikePath(v) && sc.word(v) {
		return true
	}
	// A file tool's other keys are contents, which it does not expand.
	if !sc.file {
		for w := range shellWords(v) {
			switch {
			case homeWord(w):
				if sc.word("~") {
					return true
				}
			case expands(w, sc.e.v.names) || lookAlike(w):
				// What it names, or means, is the tool's to know.
				bad := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
				if sc.add(bad) {
					return true
				}
			}
		}
	}
	if !sc.file && sc.otherReads(v) {
		return true
	}
	return sc.pieces(v) || !sc.file && shellJoins(v) && sc.shellRead(v)
}

// lookAlike is shell.LookAlikeOption for a word of a text: a word whose only look-alike
// is one en or em dash before an ASCII letter or digit ("—fix", "–v") is a sentence's
// dash, which no one reads as an option; "—-force" and "––force" are not.
func lookAlike(w string) bool {
	if !shell.LookAlikeOption(w) {
		return false
	}
	r, n := utf8.DecodeRuneInString(w)
	if r != '\u2013' && r != '\u2014' || n == len(w) {
		return true
	}
	c := w[n]
	alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	return !alnum || shell.LookAlikeOption("-"+w[n:])
}

// otherReads decides what v names as bash's extended globs and cmd.exe's "^" escapes
// read it (sec@(r)ets, !(x), sec^rets), and reports whether the scan has its answer.
func (sc *argScan) otherReads(v string) bool {
	if hasExtGlob(v) {
		for w := range shellWords(v) {
			if hasExtGlob(w) && sc.word(extGlobStar(w)) {
				return true
			}
		}
	}
	if strings.IndexByte(v, '^') >= 0 {
		return sc.str(uncaret(v)) // shorter than v: "^^" is "^"
	}
	return false
}

// hasExtGlob reports whether v holds an extended glob's "@(", "+(", "!(", "?(" or "*(".
func hasExtGlob(v string) bool {
	for i := 1; i < len(v); i++ {
		if v[i] == '(' && strings.IndexByte("@+!?*", v[i-1]) >= 0 {
			return true
		}
	}
	return false
}

// extGlobStar returns w with each extended glob's group ("@(a|b)") as "*", which
// matches at least what the group does.
func extGlobStar(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if i+1 < len(w) && w[i+1] == '(' && strings.IndexByte("@+!?*", w[i]) >= 0 {
			depth, j := 0, i+1
			for ; j < len(w); j++ {
				if w[j] == '(' {
					depth++
				} else if w[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			b.WriteByte('*')
			i = j
			continue
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// uncaret returns v as cmd.exe reads its "^" escapes: each "^" dropped, the byte after
// it kept (a last "^" continues the line: dropped). It is shorter than v when v holds a
// "^".
func uncaret(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '^' {
			if i++; i == len(v) {
				break
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// pieces decides the words (wordSep) of v that the scan decides (decidesWord, bare)
// and reports whether the scan has its answer.
func (sc *argScan) pieces(v string) bool {
	for w := range words(v) {
		if !decidesWord(w, sc.e.v.names) && !(bareWord(w) && sc.bare(w)) {
			continue
		}
		if _, done := sc.seen[w]; done {
			continue
		}
		if sc.seen == nil {
			sc.seen = map[string]struct{}{}
		}
		if sc.seen[w] = struct{}{}; len(sc.seen) > maxScanWords {
			sc.d = Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
			return true
		}
		if sc.word(w) {
			return true
		}
	}
	return false
}

// words yields the words of v, split at wordSep.
func words(v string) iter.Seq[string] { return splitWords(v, wordSep) }

// splitWords yields the non-empty runs of v between the runes sep reports.
func splitWords(v string, sep func(rune) bool) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(v) > 0 {
			i := strings.IndexFunc(v, func(r rune) bool { return !sep(r) })
			if i < 0 {
				return
			}
			v = v[i:]
			j := strings.IndexFunc(v, sep)
			if j < 0 {
				j = len(v)
			}
			if !yield(v[:j]) {
				return
			}
			v = v[j:]
		}
	}
}

// decidesWord reports whether the scan decides the word w: it looks like a path, is
// a glob, or is a name one of the places or projects has as a component (names, see
// view.names): only then may it name, hold or lie in one.
func decidesWord(w string, names placeNames) bool {
	if looksLikePath(w) || globIndex(w) >= 0 || unreadablePath(w, names) {
		return true
	}
	return names.has(w)
}

// globIndex returns the index in w of the first wildcard a shell globs — "*", "?",
// or a "[" that a "]" closes in the same component ("[2," and "[1/2]" are literal) —
// or -1.
func globIndex(w string) int {
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case '*', '?':
			return i
		case '[':
			j := i + 1
			if j < len(w) && (w[j] == '!' || w[j] == '^') {
				j++
			}
			if j < len(w) && w[j] == ']' {
				j++ // a "]" first is a member
			}
			for ; j < len(w) && w[j] != '/'; j++ {
				if w[j] == ']' {
					return i
				}
			}
		}
	}
	return -1
}

// shellMatch reports whether the glob component comp matches name as a shell
// matches it: a class "[!…]" is negated as "[^…]" is, and an extended glob's group
// ("@(a|b)", "!(x)") matches what "*" does, which is at least as much. err is
// path.Match's, for a malformed comp.
func shellMatch(comp, name string) (bool, error) {
	if hasExtGlob(comp) {
		comp = extGlobStar(comp)
	}
	if strings.Contains(comp, "[!") {
		b := []byte(comp)
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '[':
				if i+1 < len(b) && b[i+1] == '!' {
					b[i+1] = '^'
				}
				// Skip to the class's end, a "]" first being a member.
				for j := i + 2; j < len(b); j++ {
					if b[j] == ']' {
						i = j
						break
					}
				}
			}
		}
		comp = string(b)
	}
	return path.Match(comp, name)
}

// globReaches reports whether the glob w, whose first wildcard is at i, may reach a
// guarded place under its directory: its wildcard component may match a name of a
// place or project (view.names) or, in a base, one of its symlinks (argScan.bare), or
// a later component has a wildcard or is "..", which reach further.
func (sc *argScan) globReaches(w string, i int) bool {
	start := strings.LastIndexByte(w[:i], '/') + 1
	comp, rest, _ := strings.Cut(w[start:], "/")
	if strings.Contains(comp, "**") || globIndex(rest) >= 0 || strings.Contains(rest, "..") {
		return true
	}
	names := sc.e.v.names
	comp = names.folded(comp)
	match := func(name string) bool {
		ok, err := shellMatch(comp, names.folded(name))
		return ok || err != nil
	}
	for n := range names.set {
		if match(n) {
			return true
		}
	}
	if start == 0 {
		if !sc.bareDone {
			sc.bareDone = true
			sc.bareAll = sc.readBases()
		}
		for n := range sc.links {
			if match(n) {
				return true
			}
		}
	}
	return false
}

// unreadablePath reports whether w is a word the scan cannot read (over maxScanLen,
// or holding a NUL) that a tool could still turn into a path: path-shaped, or a part
// between NULs is a guarded name. Such a word makes the call unresolvable.
func unreadablePath(w string, names placeNames) bool {
	if len(w) <= maxScanLen && strings.IndexByte(w, 0) < 0 {
		return false
	}
	if pathShaped(w) {
		return true
	}
	for part := range strings.SplitSeq(w, "\x00") {
		if names.has(part) {
			return true
		}
	}
	return false
}

// wordSep reports whether r separates the words of a string the scan decides: space
// and the punctuation that joins a path to an option, a name or a list.
func wordSep(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("=(){},;:|&<>\"'`", r)
}

// word decides one word or string w of the scan (see str).
func (sc *argScan) word(w string) bool {
	if len(w) > maxScanLen || strings.IndexByte(w, 0) >= 0 {
		// Only words a tool could turn into a path get here (unreadablePath).
		return sc.add(Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid})
	}
	listing := false
	if i := globIndex(w); i >= 0 && !isFileURI(w) {
		// A glob lists the directory before its first wildcard, and reaches what lies
		// under it when it may match a place there.
		listing = !sc.globReaches(w, i)
		w = prefixDir(w[:i+1])
	}
	t := sc.e.tier()
	var buf [8]form
	fs, ok := sc.e.s.formsCached(sc.c, w, buf[:0], &sc.cache)
	if !ok && !sc.file && w != "" && w[0] != '~' { // a ~ word: homeWord, expands
		// Where it leads — through /proc/self or /dev/fd, a loop, a component the
		// service cannot inspect — is the tool's to know ("Unresolvable paths").
		bad := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
		if sc.add(bad) {
			return true
		}
	}
	decide := func(t *tier, path string, own bool) Decision {
		if !sc.file {
			// Any key may be a path the tool opens: decided as a path argument, except
			// that nothing but a guard makes it count when the rules would not deny.
			d := sc.e.s.decideOwn(t, sc.c, path, PathOK, own)
			switch {
			case d.Action == Deny:
				return d
			case listing && strings.HasPrefix(d.Reason, ReasonContains):
				return Decision{} // a listing of a directory holding a place reads none
			case d.Contains != "":
				return Decision{Action: Require, Reason: d.Reason, Contains: d.Contains,
					Path: path, PathState: PathOK}
			}
			return Decision{}
		}
		if g := sc.e.s.inGuard(&t.guards, sc.c, path); g != nil {
			return Decision{Action: Require, Reason: g.reasonIn, Contains: g.name,
				Path: path, PathState: PathOK}
		}
		return Decision{}
	}
	other := func(pt *tier, path string) Decision { return decide(pt, path, false) }
	for _, f := range fs {
		d := sc.e.s.outward(t, sc.c, f, decide(t.at(f.proj), f.path, f.proj < 0), other)
		if sc.add(d) {
			return true
		}
	}
	return false
}

// add keeps d when it is stricter than the scan's decision so far, and reports
// whether the scan has its answer: a deny.
func (sc *argScan) add(d Decision) bool {
	if d.Action != Allow && severity(d) > severity(sc.d) {
		sc.d = d
	}
	return sc.d.Action == Deny
}

// pathKeysOf returns the keys to read paths from: Options.PathArgs, or none when args
// holds none of them — found with fewer map lookups when args has fewer keys.
func (s *Set) pathKeysOf(args map[string]any) []string {
	if len(args) >= len(s.opt.PathArgs) {
		return s.opt.PathArgs
	}
	for k := range args {
		if _, ok := s.pathKeys[k]; ok {
			return s.opt.PathArgs
		}
	}
	return nil
}

// evaluation gathers the decisions of one call's paths (package doc, step 3).
type evaluation struct {
	s      *Set
	group  string
	v      *view // the view the call is decided on
	t      *tier // the group's tier in v, once a path needs it
	best   Decision
	n      int
	bad    bool     // the call's base directory cannot be resolved
	places []string // Call.Places of the tool's class
	inside bool     // every path so far lies in places (Decision.Inside)
}

// tier returns the group's tier in the call's view, noting that a path needed it.
func (e *evaluation) tier() *tier {
	if e.t == nil {
		e.t = e.v.tier(e.group)
	}
	return e.t
}

func (e *evaluation) add(d Decision) {
	if e.n == 0 || severity(d) > severity(e.best) {
		e.best = d
	}
	e.n++
	e.inside = e.inside && d.PathState == PathOK && e.in(d.Path)
}

// in reports whether the normalised path lies in one of e.places.
func (e *evaluation) in(path string) bool {
	for _, p := range e.places {
		if Under(path, p) {
			return true
		}
	}
	return false
}

// path adds the decisions of every form of the path argument p (see forms).
func (e *evaluation) path(c *Call, p string) {
	if e.bad {
		e.invalid(c)
		return
	}
	t := e.tier() // the view is taken before the paths are resolved (see Evaluate)
	var buf [8]form
	var cache lstatCache
	fs, ok := e.s.formsCached(c, p, buf[:0], &cache)
	for _, f := range fs {
		d := e.s.decideForm(t, c, f)
		if f.proj < 0 {
			d = e.s.withLinks(t, c, f, d, &cache)
		}
		e.add(d)
	}
	if !ok {
		e.invalid(c)
	}
}

// withLinks returns d, the decision of the form f of a call's path, or the stricter
// one the symlinks in the directory f names give (linkHeld). Only a form of the
// workspace is looked at: a project's form of the same path is the same directory.
func (s *Set) withLinks(t *tier, c *Call, f form, d Decision, cache *lstatCache) Decision {
	if d.Action == Deny || d.PathState != PathOK || d.Contains != "" {
		return d
	}
	var buf [256]byte
	dir := s.appendFormDir(buf[:0], f)
	if e := cache.entry(dir); e.err != nil || !e.dir { // most paths: a file, kept in cache
		return d
	}
	ld, found := s.linksIn(t, c, f.path, string(dir), cache)
	if !found || severity(ld) <= severity(d) {
		return d
	}
	if d.Action == Require && ld.PathState == PathOK { // as decideOwn: the rule's require
		ld.RuleID, ld.Note = d.RuleID, d.Note
	}
	return ld
}

// walk adds the decision the folders the glob components rest walk into give
// (globWalk), relative to the literal directory p, when one holds a guarded place.
func (e *evaluation) walk(c *Call, p, rest string) {
	comps := strings.Split(rest, "/")
	if len(comps) < 2 || e.bad || strings.Contains(comps[0], "**") { // nothing to walk
		return
	}
	t := e.tier()
	var buf [8]form
	var cache lstatCache
	fs, _ := e.s.formsCached(c, p, buf[:0], &cache) // unresolvable: decided as a path
	var dirs []string
	for _, f := range fs {
		if f.proj < 0 {
			dirs = append(dirs, e.s.formDir(f))
		}
	}
	d, found := e.s.globWalk(t, c, p, dirs, comps, &cache)
	switch {
	case !found:
	case e.n == 0:
		e.add(d)
	case severity(d) > severity(e.best):
		e.best = d
	}
}

func (e *evaluation) invalid(c *Call) { e.add(e.s.decide(e.tier(), c, "", PathInvalid)) }

// glob adds the literal directory of each alternative of a Glob pattern or Grep glob
// v, taken relative to the call's "path" when that is a string (package doc, step 1).
func (e *evaluation) glob(c *Call, v any) {
	switch v := v.(type) {
	case nil:
		return
	case string:
		if v == "" {
			return
		}
		alts, ok := expandBraces(v, nil)
		if !ok {
			e.invalid(c)
			return
		}
		for _, alt := range alts {
			if dotsAfterWildcard(alt) {
				e.invalid(c)
				continue
			}
			dir := globDir(alt)
			rest := globRest(alt, dir)
			if base, ok := c.Args["path"].(string); ok && base != "" && dir[0] != '/' {
				if dir == "." { // the call's "path" itself, already decided
					e.walk(c, base, rest)
					continue
				}
				dir = base + "/" + dir
			}
			e.path(c, dir)
			e.walk(c, dir, rest)
		}
	default:
		e.invalid(c)
	}
}

// maxAlternatives bounds the alternatives a glob's braces expand into; a glob with
// more is unresolvable.
const maxAlternatives = 64

// expandBraces appends to out the alternatives of the glob g's braces, nested ones
// included ("{a,b}/{c,d}" is four; "{x}" is "x"); an unbalanced brace is literal. It
// reports false beyond maxAlternatives.
func expandBraces(g string, out []string) ([]string, bool) {
	open := -1
	for i := 0; i < len(g); i++ {
		if g[i] == '\\' {
			i++
			continue
		}
		if g[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		if len(out) >= maxAlternatives {
			return out, false
		}
		return append(out, g), true
	}
	depth, start := 0, open+1
	var parts []string
	for i := open; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts = append(parts, g[start:i])
				start = i + 1
			}
		case '}':
			if depth--; depth == 0 {
				parts = append(parts, g[start:i])
				ok := true
				for _, p := range parts {
					if out, ok = expandBraces(g[:open]+p+g[i+1:], out); !ok {
						return out, false
					}
				}
				return out, true
			}
		}
	}
	// Unbalanced: the first brace is literal; later ones may still expand.
	rest, ok := expandBraces(g[open+1:], nil)
	if !ok {
		return out, false
	}
	for _, r := range rest {
		if len(out) >= maxAlternatives {
			return out, false
		}
		out = append(out, g[:open+1]+r)
	}
	return out, true
}

// dotsAfterWildcard reports whether a ".." component follows a component holding a
// wildcard in the glob g ("*/../../secrets/*"): the glob can then reach any directory
// above its literal one.
func dotsAfterWildcard(g string) bool {
	wild := false
	for g != "" {
		c := g
		if j := strings.IndexByte(g, '/'); j >= 0 {
			c, g = g[:j], g[j+1:]
		} else {
			g = ""
		}
		switch {
		case wild && c == "..":
			return true
		case strings.ContainsAny(c, "*?["):
			wild = true
		}
	}
	return false
}

// globKey is the argument of tool that holds a glob whose literal directory is a path
// of the call: Glob's "pattern", Grep's "glob"; "" for other tools.
func globKey(tool string) string {
	switch tool {
	case "Glob":
		return "pattern"
	case "Grep":
		return "glob"
	}
	return ""
}

// globDir is the literal directory of a glob: up to the last "/" before the first
// wildcard, escape or extended glob's group ("../secrets" of "../secrets/*", "." of
// "**/*.go" and of "@(secrets)/key", "/" of "/*"), or the whole glob when it has none.
func globDir(g string) string {
	i := strings.IndexAny(g, "*?[{\\")
	for j := 1; j < len(g) && (i < 0 || j < i); j++ {
		if g[j] == '(' && strings.IndexByte("@+!", g[j-1]) >= 0 {
			i = j - 1
			break
		}
	}
	if i < 0 {
		return g
	}
	j := strings.LastIndexByte(g[:i], '/')
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return g[:j]
}

// globRest is what follows the literal directory dir (globDir) in the glob g: ""
// when g has no wildcard.
func globRest(g, dir string) string {
	switch {
	case dir == g:
		return ""
	case dir == "." && !strings.HasPrefix(g, "./"):
		return g
	case dir == "/":
		return g[1:]
	}
	return g[len(dir)+1:]
}

// projectForm decides the call for the path p, against the same base as decidePath,
// in its form relative to another project holding it (appendForms), and reports
// whether that form lies in places (in). With no such form it returns the zero
// Decision and true.
func (s *Set) projectForm(t *tier, c *Call, p string, in func(string) bool) (Decision, bool) {
	abs, problem := resolveAbs(p, cmp.Or(c.Cwd, c.WorkingDir), s.opt.WorkspaceRoot, nil)
	if problem != "" {
		return Decision{}, true
	}
	f, ok := s.projectRel(abs)
	if !ok || f.path == s.relIn(abs, 0) {
		return Decision{}, true
	}
	return s.decideForm(t, c, f), in(f.path)
}

// decidePath decides the call for the path p (package doc, steps 1 and 2).
func (s *Set) decidePath(t *tier, c *Call, p string) Decision {
	if np, ok := s.normalize(c, p); ok {
		return s.decideForm(t, c, form{path: np, proj: -1})
	}
	return s.decide(t, c, "", PathInvalid)
}

// decideForm decides the call for the normalised form f of one of its paths (decide)
// in the workspace's tier t, or, for a form relative to another project, in that
// project's tier of t's group (tier.at).
func (s *Set) decideForm(t *tier, c *Call, f form) Decision {
	d := s.decideOwn(t.at(f.proj), c, f.path, PathOK, f.proj < 0)
	return s.outward(t, c, f, d, func(pt *tier, path string) Decision {
		return s.decideOwn(pt, c, path, PathOK, false)
	})
}

// decide decides the call for one of its paths (path and st; st NoPath for a call
// without one) in tier t: package doc, step 2. A path is taken as relative to the
// workspace root or absolute.
func (s *Set) decide(t *tier, c *Call, path string, st PathState) Decision {
	return s.decideOwn(t, c, path, st, true)
}

// decideOwn is decide for a path that is relative to another project unless own, t
// being that project's tier then.
func (s *Set) decideOwn(t *tier, c *Call, path string, st PathState, own bool) Decision {
	if st == PathOK && t.isProtected(path) {
		return Decision{Action: Deny, Reason: ReasonProtected, Path: path, PathState: PathOK}
	}
	d := Decision{Path: path, PathState: st}
	m := matcher{agent: c.AgentID, source: c.Source, path: path, pathState: st}
	m.host, m.hostOK = s.callHost(c)
	r := t.first(c.Tool, &m)
	switch {
	case r == nil:
		d.Action, d.Reason = Require, ReasonNoRule
	case r.action == Allow && st == PathInvalid:
		d.Action, d.Reason = Require, ReasonBadPath
	default:
		d.Action, d.Reason, d.RuleID, d.Note = r.action, ReasonRule, r.id, r.note
	}
	if d.Action == Deny || st != PathOK {
		return d
	}
	file := s.tools[c.Tool].file()
	g := (*guard)(nil)
	reason := ""
	if !file {
		if g = s.inDenied(&t.guards, c, path); g != nil {
			reason = g.reasonIn
		}
	}
	if g == nil {
		if g = s.containing(&t.guards, c, path, file, own); g != nil {
			reason = g.reason
		}
	}
	if g != nil {
		if d.Action == Allow {
			d.RuleID, d.Note = 0, ""
		}
		d.Action, d.Reason, d.Contains = Require, reason, g.name
	} else if k := s.tools[c.Tool]; k.write || !k.read {
		// A tool outside the file classes may write what its path names.
		if n := t.needsHuman(path, k.write); n != "" {
			d.Action, d.Reason, d.Contains, d.RuleID, d.Note = Require,
				ReasonNeedsHuman+": "+n, n, 0, ""
		}
	}
	return d
}

// severity orders decisions from the least to the most restrictive: allow, require,
// require that no bypass or fast-path may lift (Decision.Locked), deny (package doc, step 3).
func severity(d Decision) int {
	switch {
	case d.Action == Deny:
		return 3
	case d.Contains != "" || d.PathState == PathInvalid:
		return 2
	case d.Action == Require:
		return 1
	}
	return 0
}

// form is one normalised form of a path: relative to the workspace root or absolute
// (proj < 0), or relative to the other project Set.projects[proj] (appendForms).
type form struct {
	path string
	proj int
}

// forms appends to out the normalised forms of the path argument p of c (package doc,
// step 1), each once, and reports false when one of them cannot be resolved; the
// others are still appended. The forms relative to the workspace root, or absolute,
// come first, then those relative to another project (appendForms).
func (s *Set) forms(c *Call, p string, out []form) (_ []form, ok bool) {
	return s.formsCached(c, p, out, nil)
}

// formsCached is forms with its lstat answers kept in cache, when not nil.
func (s *Set) formsCached(c *Call, p string, out []form, cache *lstatCache) ([]form, bool) {
	if isFileURI(p) {
		q, ok := fileURIPath(p)
		if !ok {
			return out, false
		}
		p = q
	}
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return out, false
	}
	ok := true
	written := [2]string{p}
	n := 1
	if p[0] == '~' {
		if len(p) > 1 && p[1] != '/' || s.home == "" {
			ok = false // ~user, or no home to expand ~ to
		} else {
			written[1], n = s.home+p[1:], 2
		}
	}
	root := s.opt.WorkspaceRoot
	var bases [3]string // the distinct absolute bases of a relative path
	nb := 0
	for _, base := range [3]string{c.Cwd, c.WorkingDir, root} {
		switch {
		case base == "":
			continue
		case base[0] != '/' && root == "":
			ok = false
			continue
		case base[0] != '/':
			base = root + "/" + base
		}
		if !strings.Contains(base, "..") { // "src/" and "./src" are src; ".." is the OS's
			base = filepath.Clean(base)
		}
		if !slicesIndex(bases[:nb], base) {
			bases[nb], nb = base, nb+1
		}
	}
	var resolved [12]string // the distinct resolved paths: 2 written × 3 bases × 2 ways of ".."
	abs := resolved[:0]
	for _, w := range written[:n] {
		if w[0] != '/' && nb == 0 { // relative, with no base at all
			ok = false
			continue
		}
		for i := 0; i < max(nb, 1); i++ {
			full := w
			if w[0] != '/' {
				full = bases[i] + "/" + w
			} else if i > 0 {
				break
			}
			var dots bool // a ".." met after a symlink: the lexical form may differ
			if a, problem := resolveWith(full, root, nil, cache, &dots); problem == "" {
				abs = appendNew(abs, a)
			} else {
				ok = false
				dots = true
			}
			// The form a tool that cleans ".." first opens.
			if dots && strings.Contains(full, "..") {
				clean := filepath.Clean(full)
				if a, problem := resolveWith(clean, root, nil, cache, nil); problem == "" {
					abs = appendNew(abs, a)
				} else {
					ok = false
				}
			}
		}
	}
	return s.appendForms(out, abs), ok
}

// appendForms appends each resolved absolute path of abs relative to the workspace
// root, then, for each lying deeper in another project (Options.Projects), relative
// to the deepest one holding it, each once.
func (s *Set) appendForms(out []form, abs []string) []form {
	for _, a := range abs {
		out = appendNew(out, form{path: s.relIn(a, 0), proj: -1})
	}
	for _, a := range abs {
		if f, ok := s.projectRel(a); ok {
			out = appendNew(out, f)
		}
	}
	return out
}

// projectRel returns the resolved absolute path abs relative to the deepest other
// project holding it, when that one lies deeper than the workspace root.
func (s *Set) projectRel(abs string) (form, bool) {
	root := s.opt.WorkspaceRoot
	for i, p := range s.projects { // deepest first
		if len(p.root) <= len(root) && Under(abs, root) {
			return form{}, false // the own workspace is the deepest holding abs
		}
		if Under(abs, p.root) {
			return form{path: s.relIn(abs, i+1), proj: i}, true
		}
	}
	return form{}, false
}

func slicesIndex[T comparable](list []T, s T) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func appendNew[T comparable](list []T, s T) []T {
	if slicesIndex(list, s) {
		return list
	}
	return append(list, s)
}

// isFileURI reports whether s starts with the scheme "file:", in any case.
func isFileURI(s string) bool { return len(s) >= 5 && strings.EqualFold(s[:5], "file:") }

// fileURIPath is the absolute, percent-decoded path of a file: URI with no host or
// the host localhost ("file:///ws/a%20b" is "/ws/a b"); false for any other.
func fileURIPath(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Path == "" || u.Path[0] != '/' ||
		u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	return u.Path, true
}

// normalize normalises p as an argument of c against one base: Cwd, else WorkingDir.
func (s *Set) normalize(c *Call, p string) (string, bool) {
	abs, problem := resolveAbs(p, cmp.Or(c.Cwd, c.WorkingDir), s.opt.WorkspaceRoot, nil)
	if problem != "" {
		return "", false
	}
	return s.relIn(abs, 0), true
}

func (t *tier) isProtected(path string) bool {
	for _, p := range t.protected {
		if Under(path, p) {
			return true
		}
	}
	return false
}

// needsHuman returns the Options.NeedsHuman path that path is or lies under, or, when
// holds, that lies under path, whether or not it exists yet: rm -rf .claude removes
// settings.json, and mv x .github or tar x in the root may create .github/workflows.
// "" if none.
func (t *tier) needsHuman(path string, holds bool) string {
	for _, p := range t.needs {
		if Under(path, p) || holds && Under(p, path) {
			return p
		}
	}
	return ""
}

// Visible reports whether tool is shown to an agent in group (visibility): it
// is hidden when the first rule without a path_pattern whose tool_pattern matches it —
// group tier, then DefaultGroup, in (priority, id) order — is a deny. The agent and
// source filters are applied only when agentID / source is not empty: with an empty
// agentID a rule filtered on an agent is not excluded by that filter. A tool no rule
// matches is visible. Safe for concurrent use; allocates nothing.
func (s *Set) Visible(group, agentID, source, tool string) bool {
	m := matcher{agent: agentID, source: source, pathState: NoPath, visibility: true}
	r := s.view.Load().tier(group).first(tool, &m)
	return r == nil || r.action != Deny
}
