package shell

import (
	"maps"
	"slices"
	"strings"
)

// use is what a word of a command does with the file system.
type use uint8

const (
	useNone  use = iota // no path: an option, a subcommand, a pattern, a URL, a count
	useArg              // may be a path: decided by the guards
	useRead             // a file the command reads
	useWrite            // a file the command writes, creates or removes
	useList             // a file listing the files it opens: the gate cannot tell which
)

// wordUse is the use of one word, the path starting at byte cut (after --opt= or -o).
type wordUse struct {
	use use
	cut int
	// rel is 1 + the index of the word whose directory a relative path is taken
	// in (the link of ln -s TARGET LINK), or 0: the command's. relDir: that word
	// is the directory itself (ln -s -t DIR, several targets).
	rel    int
	relDir bool
	pkg    pkgKind // what a go package pattern names
	derive derive  // a name the command writes, derived from the word
}

// derive is a name a command writes that its word does not spell but gives: the
// backup DEST+SUFFIX of cp -S, the pieces PREFIXaa of split, the file X of gunzip
// X.gz, the program ./NAME of go build ./cmd/NAME.
type derive uint8

const (
	deriveNone  derive = iota
	deriveDir          // an unknown name in the word's folder: the folder is written
	deriveStrip        // the word without its extension (gunzip X.gz writes X)
	deriveBase         // the word's last element, in the working directory (go build)
)

// pkgKind is what a package pattern of the go command names.
type pkgKind uint8

const (
	pkgNone   pkgKind = iota
	pkgDir            // a local directory: ./cmd, ../x, /abs
	pkgTree           // a local tree: ./..., ./cmd/..., ./x...
	pkgModule         // the module's packages: all, example.com/m/..., ...
)

// kind is what an option of a known program does.
type kind uint8

const (
	kFlag      kind = iota // no value, harmless
	kVal                   // a value that is no path
	kPath                  // a path value, decided by the guards
	kRead                  // a file it reads
	kWrite                 // a file it writes: the option writes
	kTarget                // the directory it copies or moves into (cp -t): written
	kDir                   // the directory it works in (git -C, tar -C)
	kData                  // curl's data: @FILE is read
	kRun                   // runs a program or code, given as its value
	kRunFlag               // runs a program or code, without a value
	kWriteFlag             // makes the operands (sed -i) or start paths (find -delete) written
	kOutFlag               // writes into its working directory (curl -O)
	kFollow                // follows symlinks while it recurses (grep -R, cp -L, tar -h)
	kWriteVal              // no path; it writes where the gate does not look (go test -fuzz)
	kList                  // a file (- for stdin) listing the files it opens (wc --files0-from)
	kListIn                // it reads the names of the files it opens from its input (zip -@)
	kListOps               // its operands list the files it opens, else its input (md5sum -c)
)

// risky reports whether an option of kind k writes a file or runs a program: a
// command pattern allows a command with one only when it spells the option.
func (k kind) risky() bool {
	switch k {
	case kWrite, kRun, kRunFlag, kWriteFlag, kOutFlag, kFollow, kWriteVal:
		return true
	}
	return false
}

// hasValue reports whether an option of kind k takes a value.
func (k kind) hasValue() bool {
	switch k {
	case kFlag, kRunFlag, kWriteFlag, kOutFlag, kFollow, kListIn, kListOps:
		return false
	}
	return true
}

// program is what the parser knows of a program's options and operands (the table
// of docs/design.md, "Shell commands"). An option it does not list is read by the
// generic rule: the VALUE of --opt=VALUE, -o=VALUE and of -oVALUE holding a "/" may
// be a path.
type program struct {
	short map[byte]kind
	long  map[string]kind
	// single: long options take one dash (-exec, -coverprofile) and short letters
	// are not combined (go, find).
	single bool
	// abbrev: a long option may be written as a prefix of its name (getopt, git): a
	// prefix of a listed name has that name's kind.
	abbrev bool
	// strict: an option it does not list is risky, as its options are all known (go
	// build, test, run, install, vet).
	strict bool
	// operands sets the uses of the operands (indexes into u.words), after the
	// options are read. nil: each may be a path.
	operands func(u *usage, ops []int)
	// cwd: with no path operand, it reads the directory it runs in (ls, grep -r).
	cwd func(u *usage, ops []int) bool
	// posix: its options end at the first operand (xargs: the rest is a command).
	posix bool
}

// usage is what one command does with the file system, as its words tell.
type usage struct {
	words []string
	uses  []wordUse // by word; the program's is useNone
	risky []string  // the options that write or run, as written
	// seen counts the kinds of the options given.
	seen     map[kind]int
	letters  string // the short letters given, for mode letters (tar -x, grep -r)
	longs    []string
	readsCwd bool // it reads the directory it runs in, or the one dir names
	repo     bool // it reads the whole repository of that directory (git show)
	runsPkgs bool // it runs the code of the packages it names (go test, go run)
	// writesPkgs: it rewrites the files of the packages it names (go fmt, go fix).
	writesPkgs bool
	writeCwd   bool // it writes into that directory
	// writesRepo: it writes the whole work tree of the repository of that directory
	// (git checkout BRANCH, git pull).
	writesRepo bool
	dir        int   // the word naming the directory it works in (git -C), or 0
	dirs       []int // the words of every such value, -CDIR and --directory=DIR too
	paths      []int // the words of path values (tar -f)
	target     int   // 1 + the word of the directory -t names, or 0
	// blind says why the gate cannot see what it opens or runs: it reads the names
	// of the files it opens from its input (zip -@, md5sum -c with no operand, patch
	// < diff), or runs inline code that opens or runs more (an awk program with
	// system, a sed script with e or w). "" when it does not.
	blind string
	// runsCmd says why it runs a command its words give (git -c alias.x=!cmd, git
	// bisect run): like an interpreter, no pattern may allow it. "" when it does not.
	runsCmd string
	// unknown: the program is not in the table; what it does with its arguments is
	// not known, so they may be written.
	unknown bool
}

func (u *usage) set(i int, x use, cut int) {
	if i < len(u.uses) && x > u.uses[i].use {
		u.uses[i] = wordUse{use: x, cut: cut}
	}
}

func (u *usage) has(k kind) bool { return u.seen[k] > 0 }

// derives records that the command writes the name d derives from each of words ops.
func (u *usage) derives(ops []int, d derive) {
	for _, i := range ops {
		u.uses[i].derive = d
	}
}

// classify reads the words of one command (its program first, after the wrappers)
// and returns its usage.
func classify(words []string) *usage {
	u := &usage{words: words, uses: make([]wordUse, len(words)), seen: map[kind]int{}}
	prog := ProgramName(words[0])
	switch prog {
	case "git":
		u.git()
		return u
	case "go":
		u.goTool()
		return u
	case "find":
		u.find()
		return u
	case "7z", "7za", "7zr", "7zz":
		u.sevenZip()
		return u
	}
	p := programs[prog]
	if p == nil {
		p = &genericProgram
		u.unknown = true
	}
	ops := u.options(p, 1)
	if p.operands != nil {
		p.operands(u, ops)
	} else {
		for _, i := range ops {
			cut := 0
			if p == &genericProgram && isAssignWord(u.words[i]) {
				cut = strings.IndexByte(u.words[i], '=') + 1 // of=PATH
			}
			u.set(i, useArg, cut)
			if p == &genericProgram && goPackage(u.words[i]) == pkgTree {
				u.uses[i].pkg = pkgTree // staticcheck ./..., golangci-lint run ./...
			}
		}
	}
	if u.has(kListOps) {
		u.listOps(ops, prog+" reads the names of the files it opens from its input")
	}
	if u.has(kFollow) && u.blind == "" {
		u.blind = followsLinks(prog)
	}
	if p.cwd != nil && p.cwd(u, ops) {
		u.readsCwd = true
	}
	return u
}

var genericProgram = program{}

// followsLinks is why a program that follows the symlinks it meets (grep -R, cp -L,
// find -L, tar -h) is blind: where they lead, at any depth, is not in the call.
func followsLinks(prog string) string {
	return prog + " follows the symlinks it meets"
}

// options reads the options of p in words[from:] and returns the indexes of the
// operands. Options may follow operands (getopt permutes), up to "--".
func (u *usage) options(p *program, from int) []int {
	var ops []int
	words := u.words
	for i := from; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			for j := i + 1; j < len(words); j++ {
				ops = append(ops, j)
			}
			break
		}
		if len(w) < 2 || w[0] != '-' {
			ops = append(ops, i)
			if p.posix {
				for j := i + 1; j < len(words); j++ {
					ops = append(ops, j)
				}
				break
			}
			continue
		}
		if strings.HasPrefix(w, "--") || p.single {
			i = u.long(p, i)
			continue
		}
		i = u.shorts(p, i)
	}
	return ops
}

// long reads the long option at words[i] and returns the index of its last word.
func (u *usage) long(p *program, i int) int {
	w := u.words[i]
	body := strings.TrimLeft(w, "-")
	name, _, hasVal := strings.Cut(body, "=")
	eq := len(w) - len(body) + len(name) + 1 // where the value starts
	if p.single {
		name = strings.TrimPrefix(name, "test.") // go test binary flags
	}
	k, known := p.lookup(name)
	if !known {
		if p.strict {
			u.risky = append(u.risky, w)
		}
		if hasVal {
			u.set(i, useArg, eq)
		}
		return i
	}
	u.note(k, w, name)
	if !k.hasValue() {
		return i
	}
	return u.optionValue(k, i, hasVal, eq)
}

// optionValue records the value of option k at words[i]: inline, from byte at of
// words[i], else the next word when there is one. It returns the index of the
// option's last word.
func (u *usage) optionValue(k kind, i int, inline bool, at int) int {
	if inline {
		u.value(k, i, at)
		return i
	}
	if i+1 < len(u.words) {
		u.value(k, i+1, 0)
		return i + 1
	}
	return i
}

// lookup returns the kind of the long option name, by a prefix when p allows it.
func (p *program) lookup(name string) (kind, bool) {
	if k, ok := p.long[name]; ok {
		return k, true
	}
	if !p.abbrev || name == "" {
		return 0, false
	}
	found, best := false, kFlag
	for n, k := range p.long {
		if strings.HasPrefix(n, name) {
			if !found || k.risky() && !best.risky() || k > best && k.risky() == best.risky() {
				best = k
			}
			found = true
		}
	}
	return best, found
}

// shorts reads a cluster of short options at words[i] (-rn, -oFILE, -o FILE) and
// returns the index of its last word.
func (u *usage) shorts(p *program, i int) int {
	w := u.words[i]
	for j := 1; j < len(w); j++ {
		c := w[j]
		k, known := p.short[c]
		if !known {
			switch {
			case j+1 < len(w) && w[j+1] == '=': // -o=VALUE
				u.set(i, useArg, j+2)
				return i
			case strings.IndexByte(w[j+1:], '/') >= 0: // -oPATH
				u.set(i, useArg, j+1)
				return i
			}
			u.letters += string(c)
			continue
		}
		u.letters += string(c)
		u.note(k, w, string(c))
		if !k.hasValue() {
			continue
		}
		cut := j + 1
		if cut < len(w) && w[cut] == '=' {
			cut++
		}
		return u.optionValue(k, i, j+1 < len(w), cut)
	}
	return i
}

// note records an option of kind k written as w.
func (u *usage) note(k kind, w, name string) {
	u.seen[k]++
	if len(name) > 1 {
		u.longs = append(u.longs, name)
	}
	if k.risky() && (len(u.risky) == 0 || u.risky[len(u.risky)-1] != w) {
		u.risky = append(u.risky, w)
	}
	if k == kOutFlag {
		u.writeCwd = true
	}
	if k == kListIn && u.blind == "" {
		u.blind = ProgramName(u.words[0]) + " " + w +
			" reads the names of the files it opens from its input"
	}
}

// listOps makes the operands ops files that list the files the command opens; with
// none, it reads those names from its input, which is why.
func (u *usage) listOps(ops []int, why string) {
	for _, i := range ops {
		u.set(i, useList, 0)
	}
	if len(ops) == 0 && u.blind == "" {
		u.blind = why
	}
}

// value sets the use of an option's value at words[i][cut:].
func (u *usage) value(k kind, i, cut int) {
	switch k {
	case kPath, kRun:
		u.set(i, useArg, cut)
		if k == kPath {
			u.paths = append(u.paths, i)
		}
	case kDir:
		u.set(i, useArg, cut)
		u.dirs = append(u.dirs, i)
		if cut == 0 {
			u.dir = i
		}
	case kRead:
		u.set(i, useRead, cut)
	case kList:
		u.set(i, useList, cut)
	case kWrite, kTarget:
		u.set(i, useWrite, cut)
		if k == kTarget {
			u.target = i + 1
		}
	case kData:
		if at := strings.IndexByte(u.words[i][cut:], '@'); at >= 0 {
			u.set(i, useRead, cut+at+1)
		}
	}
}

// Operand rules shared by the table.

func opsWrite(u *usage, ops []int) {
	for _, i := range ops {
		u.set(i, useWrite, 0)
	}
}

// opsWriteIf: the operands are written when an option that rewrites them is given
// (gofmt -w, prettier --write, eslint --fix), else they may be paths.
func opsWriteIf(u *usage, ops []int) {
	x := useArg
	if u.has(kWriteFlag) {
		x = useWrite
	}
	for _, i := range ops {
		u.set(i, x, 0)
	}
}

// opsWriteUnlessCheck: the operands are written unless an option only checks them
// (black, rustfmt, isort: --check, --diff, --check-only; rustfmt --emit).
func opsWriteUnlessCheck(u *usage, ops []int) {
	x := useWrite
	if containsAny(u.longs, "check", "diff", "check-only", "emit") {
		x = useArg
	}
	for _, i := range ops {
		u.set(i, x, 0)
	}
}

// opsLast: the last operand is the destination (cp a b, cp a b dir/), unless -t
// named it.
func opsLast(u *usage, ops []int) {
	for n, i := range ops {
		if n == len(ops)-1 && n > 0 && !u.has(kTarget) {
			u.set(i, useWrite, 0)
		} else {
			u.set(i, useArg, 0)
		}
	}
}

// removesOps: as opsLast, but given the long option remove (rsync
// --remove-source-files) the sources are removed: every operand is written.
func removesOps(remove string) func(u *usage, ops []int) {
	return func(u *usage, ops []int) {
		if containsAny(u.longs, remove) {
			opsWrite(u, ops)
			return
		}
		opsLast(u, ops)
	}
}

// installOps: install -d makes every operand a directory; else as opsLast.
func installOps(u *usage, ops []int) {
	if strings.ContainsRune(u.letters, 'd') || containsAny(u.longs, "directory") {
		opsWrite(u, ops)
		return
	}
	opsLast(u, ops)
}

// gioOps: gio's first operand is its command: trash, remove, move, rename, mkdir,
// save and set write their operands, copy its last; launch and open run the
// program a desktop file or a file's type names; the others (list, info, cat, tree,
// …) may take paths.
func gioOps(u *usage, ops []int) {
	if len(ops) == 0 {
		return
	}
	rest := ops[1:]
	switch u.words[ops[0]] {
	case "trash", "remove", "rm", "move", "mv", "rename", "mkdir", "save", "set":
		opsWrite(u, rest)
	case "copy", "cp":
		opsLast(u, rest)
	case "launch", "open":
		u.runsCmd = "gio " + u.words[ops[0]] + " runs a program its desktop files name"
		fallthrough
	default:
		for _, i := range rest {
			u.set(i, useArg, 0)
		}
	}
}

// cpOps: as opsLast, but a copy made as a link (cp -l, -s, --link, --symbolic-link,
// clusters such as -al, and link F1 F2) is an alias of its sources, which are then
// written as much as the copy, as with ln.
func cpOps(u *usage, ops []int) {
	opsLast(u, ops)
	if ProgramName(u.words[0]) != "link" && !strings.ContainsAny(u.letters, "ls") &&
		!longGiven(u.words, "link", "symbolic-link") {
		return
	}
	for _, i := range ops {
		u.set(i, useWrite, 0)
	}
}

// longGiven reports whether words, up to "--", give one of the long options names,
// in full or abbreviated (--l for --link).
func longGiven(words []string, names ...string) bool {
	for _, w := range words {
		if w == "--" {
			return false
		}
		name, ok := strings.CutPrefix(w, "--")
		if name, _, _ = strings.Cut(name, "="); !ok || name == "" {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, name) {
				return true
			}
		}
	}
	return false
}

// lnOps: ln makes its last operand (or one name in -t DIR, or in its directory
// for a single operand) an alias of the others, which are written as much as the
// link: a write. A symbolic link's target is taken relative to the link's
// directory, except with -r (--relative): ln then reads it from the directory it runs
// in, like a hard link's, and works out the relative link itself.
func lnOps(u *usage, ops []int) {
	symbolic := (strings.ContainsRune(u.letters, 's') || containsAny(u.longs, "symbolic")) &&
		!strings.ContainsRune(u.letters, 'r') && !containsAny(u.longs, "relative")
	targets, rel, relDir := ops, 0, false
	switch {
	case u.target > 0:
		rel, relDir = u.target, true
	case len(ops) >= 2:
		targets = ops[:len(ops)-1]
		last := ops[len(ops)-1]
		u.set(last, useWrite, 0)
		rel, relDir = last+1, len(ops) > 2
	case len(ops) == 1:
		u.writeCwd = true // the link is made in the directory it runs in
	}
	for _, i := range targets {
		u.set(i, useWrite, 0)
		if symbolic {
			u.uses[i].rel, u.uses[i].relDir = rel, relDir
		}
	}
}

// backupOps: as f, but a backup named by a suffix (cp -b -S SUFFIX, --suffix)
// DEST+SUFFIX may be any name in the destination's folder: that folder is written.
func backupOps(f func(u *usage, ops []int)) func(u *usage, ops []int) {
	return func(u *usage, ops []int) {
		f(u, ops)
		if len(ops) > 0 && u.target == 0 && suffixGiven(u) {
			u.derives(ops[len(ops)-1:], deriveDir)
		}
	}
}

// suffixGiven reports whether -S or a prefix of --suffix was given.
func suffixGiven(u *usage) bool {
	return strings.ContainsRune(u.letters, 'S') || containsAny(u.longs, "suffix")
}

// splitOps: split FILE PREFIX writes PREFIXaa, PREFIXab, …: PREFIX's folder is
// written; with no PREFIX, xaa, … in the directory it runs in.
func splitOps(u *usage, ops []int) {
	for n, i := range ops {
		switch n {
		case 0:
			u.set(i, useArg, 0)
		case 1:
			u.set(i, useWrite, 0)
			u.derives(ops[1:2], deriveDir)
		}
	}
	if len(ops) < 2 {
		u.writeCwd = true
	}
}

// csplitOps: csplit FILE PATTERN… writes PREFIX00, …, PREFIX -f names (its folder
// is written), or xx00, … in the directory it runs in.
func csplitOps(u *usage, ops []int) {
	if len(ops) > 0 {
		u.set(ops[0], useArg, 0)
	}
	prefix := false
	for i, x := range u.uses {
		if x.use == useWrite {
			u.derives([]int{i}, deriveDir)
			prefix = true
		}
	}
	if !prefix {
		u.writeCwd = true
	}
}

// arOps: ar's first operand is its key (x extracts into the directory it runs in;
// d, m, q, r, s write the archive, its second); the members may be paths.
func arOps(u *usage, ops []int) {
	if len(ops) == 0 {
		return
	}
	key := u.letters + u.words[ops[0]]
	for n, i := range ops[1:] {
		if n == 0 && strings.ContainsAny(key, "dmqrs") {
			u.set(i, useWrite, 0)
		} else {
			u.set(i, useArg, 0)
		}
	}
	if strings.ContainsRune(key, 'x') {
		u.writeCwd = true
	}
}

// fdOps: as grepOps, but fd -x/-X CMD runs CMD over what it finds, which CMD may
// write: its search paths (or the directory it runs in) are written.
func fdOps(u *usage, ops []int) {
	grepOps(u, ops)
	if !u.has(kRun) {
		return
	}
	found := false
	for n, i := range ops {
		if n > 0 || patternGiven(u) {
			u.set(i, useWrite, 0)
			found = true
		}
	}
	for _, i := range u.paths {
		u.uses[i].use = useWrite
		found = true
	}
	if !found {
		u.writeCwd = true
	}
}

// sshOps: ssh's first operand is the host; the others are the command a shell runs
// there, which may be this machine: they may be paths, and a script is scanned as one.
func sshOps(u *usage, ops []int) {
	for _, i := range ops[min(1, len(ops)):] {
		u.set(i, useArg, 0)
	}
}

// opsFirstNone: the first operand is no path (a mode, an owner, a pattern), the
// others are written when write is set.
func opsFirstNone(write bool) func(u *usage, ops []int) {
	return func(u *usage, ops []int) {
		for n, i := range ops {
			switch {
			case n == 0:
			case write:
				u.set(i, useWrite, 0)
			default:
				u.set(i, useArg, 0)
			}
		}
	}
}

// opsNames: operands are names (packages, scripts, URLs) unless written as a path.
func opsNames(u *usage, ops []int) {
	for _, i := range ops {
		if pathLike(u.words[i]) {
			u.set(i, useArg, 0)
		}
	}
}

func opsNone(*usage, []int) {}

// curlOps: operands are URLs; a file: URL reads its path.
func curlOps(u *usage, ops []int) {
	for _, i := range ops {
		w := u.words[i]
		if len(w) > 5 && strings.EqualFold(w[:5], "file:") {
			cut := 5
			for cut < len(w) && w[cut] == '/' && cut < 7 {
				cut++
			}
			if strings.HasPrefix(strings.ToLower(w[cut:]), "localhost/") {
				cut += len("localhost")
			} else if cut == 7 {
				cut-- // file:///x: the path is /x
			}
			u.set(i, useRead, cut)
		}
	}
}

// pathLike reports whether a name word is written as a path: it holds a "/" or
// starts with "." or "~".
func pathLike(w string) bool {
	return strings.ContainsRune(w, '/') || strings.HasPrefix(w, ".") ||
		strings.HasPrefix(w, "~")
}

// grepOps: the first operand is the pattern unless -e or -f gave one.
func grepOps(u *usage, ops []int) {
	for n, i := range ops {
		if n > 0 || patternGiven(u) {
			u.set(i, useArg, 0)
		}
	}
}

func patternGiven(u *usage) bool {
	return strings.ContainsAny(u.letters, "ef") || containsAny(u.longs, "regexp", "file")
}

func containsAny(list []string, names ...string) bool {
	for _, x := range list {
		for _, n := range names {
			if strings.HasPrefix(n, x) && x != "" {
				return true
			}
		}
	}
	return false
}

// grepCwd: grep recursing without a file operand reads its directory; rg always
// recurses.
func grepCwd(u *usage, ops []int) bool {
	first := 1
	if patternGiven(u) {
		first = 0
	}
	recursive := alwaysRecurse[ProgramName(u.words[0])] || grepRecursive(u.words)
	return recursive && len(ops) <= first
}

// alwaysRecurse are the searchers that recurse without being asked.
var alwaysRecurse = setOf("rg", "ag", "ack", "fd", "fdfind")

// grepRecursive reports whether grep's words may make it recurse: -r, -R, any
// prefix of --recursive or --dereference-recursive, -d/--directories with a value
// other than read or skip, in clusters (-sd recurse, -drecurse) too. A value of
// another option that looks like one counts: in doubt, it recurses.
func grepRecursive(words []string) bool {
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			return false
		}
		if long, ok := strings.CutPrefix(w, "--"); ok {
			name, val, hasVal := strings.Cut(long, "=")
			switch {
			case name == "":
			case strings.HasPrefix("recursive", name),
				strings.HasPrefix("dereference-recursive", name):
				return true
			case strings.HasPrefix("directories", name):
				if !hasVal && i+1 < len(words) {
					i++
					val = words[i]
				}
				if val != "read" && val != "skip" {
					return true
				}
			}
			continue
		}
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		for j := 1; j < len(w); j++ {
			switch c := w[j]; {
			case c == 'r' || c == 'R':
				return true
			case c == 'd':
				val := strings.TrimPrefix(w[j+1:], "=")
				if j+1 == len(w) && i+1 < len(words) {
					i++
					val = words[i]
				}
				if val != "read" && val != "skip" {
					return true
				}
				j = len(w)
			case strings.IndexByte("efABCmD", c) >= 0:
				if j+1 == len(w) {
					i++ // the value is the next word
				}
				j = len(w)
			}
		}
	}
	return false
}

func noOperand(u *usage, ops []int) bool {
	for _, i := range ops {
		if u.uses[i].use != useNone {
			return false
		}
	}
	return true
}

// sedOps: the script is the first operand unless -e or -f gave one; the files are
// written under -i. A script that runs a command or opens a file (sedRuns) is
// inline code the gate cannot follow; a script from -f FILE one it cannot read.
func sedOps(u *usage, ops []int) {
	scriptGiven := strings.ContainsAny(u.letters, "ef") || containsAny(u.longs, "expression",
		"file")
	for n, i := range ops {
		switch {
		case n == 0 && !scriptGiven:
			u.inline(u.words[i], u.words[i], sedRuns)
		case u.has(kWriteFlag):
			u.set(i, useWrite, 0)
		default:
			u.set(i, useArg, 0)
		}
	}
	for i, w := range u.words {
		if i > 0 && (w == "-e" || w == "--expression") && i+1 < len(u.words) {
			u.inline(u.words[i+1], u.words[i+1], sedRuns)
		} else if v, ok := strings.CutPrefix(w, "--expression="); ok {
			u.inline(v, w, sedRuns)
		}
	}
	if u.has(kRead) { // -f FILE: a script the gate does not read
		u.risky = append(u.risky, "-f")
		u.runsCmd = "sed -f runs a script the gate cannot read"
	}
}

// inline records the inline program prog of an awk or sed command, written as w:
// when runs says it may run a command or open a file, w is risky and the command
// blind, since the gate cannot follow the code.
func (u *usage) inline(prog, w string, runs func(string) bool) {
	if !runs(prog) {
		return
	}
	u.risky = append(u.risky, w)
	if u.blind == "" {
		u.blind = ProgramName(u.words[0]) + " runs inline code that runs a command or " +
			"opens a file the gate cannot see"
	}
}

// sedRuns reports whether a sed script may run a command or open a file its words
// do not name: an e, r, R, w or W command, or an s command with the e or w flag. It
// errs on the side of yes: a command or an address it does not read counts.
func sedRuns(script string) bool {
	n := len(script)
	for i := 0; i < n; {
		switch script[i] {
		case ' ', '\t', '\n', ';', '{', '}':
			i++
			continue
		}
		var ok bool
		if i, ok = sedAddress(script, i); !ok {
			return true
		}
		if i < n && script[i] == ',' {
			if i, ok = sedAddress(script, i+1); !ok {
				return true
			}
		}
		for i < n && (script[i] == ' ' || script[i] == '!') {
			i++
		}
		if i >= n {
			return true // an address without a command
		}
		c := script[i]
		i++
		switch c {
		case '{':
			continue
		case 's', 'y':
			if i >= n || script[i] == '\\' || script[i] == '\n' {
				return true
			}
			delim := script[i]
			i++
			for range 2 { // the regex and the replacement
				if i, ok = sedDelimited(script, i, delim); !ok {
					return true
				}
			}
			for i < n && strings.IndexByte("gpiImM0123456789", script[i]) >= 0 {
				i++
			}
			if i < n && strings.IndexByte("ewW", script[i]) >= 0 {
				return true
			}
		case 'a', 'i', 'c', '#':
			for i < n && (script[i] != '\n' || script[i-1] == '\\') {
				i++ // text or a comment, to the end of the line
			}
		case ':', 'b', 't', 'T', 'v':
			for i < n && script[i] != ';' && script[i] != '\n' && script[i] != '}' {
				i++ // a label
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F':
		case 'q', 'Q', 'l', 'L':
			for i < n && (script[i] == ' ' || script[i] >= '0' && script[i] <= '9') {
				i++ // an exit code or a line length
			}
		default:
			return true // e, r, R, w, W and what the gate does not read
		}
		for i < n && (script[i] == ' ' || script[i] == '\t') {
			i++
		}
		if i < n && script[i] != ';' && script[i] != '\n' && script[i] != '}' {
			return true
		}
	}
	return false
}

// sedAddress returns the index after the sed address at script[i] (a line number,
// first~step, $, +N, ~N, /regex/ or \cregexc with its I and M flags), i when there
// is none; ok is false when the address does not end.
func sedAddress(script string, i int) (int, bool) {
	n := len(script)
	digits := func(i int) int {
		for i < n && script[i] >= '0' && script[i] <= '9' {
			i++
		}
		return i
	}
	if i >= n {
		return i, true
	}
	switch c := script[i]; {
	case c >= '0' && c <= '9':
		i = digits(i)
		if i < n && script[i] == '~' {
			i = digits(i + 1)
		}
	case c == '$':
		i++
	case c == '+' || c == '~':
		i = digits(i + 1)
	case c == '/' || c == '\\':
		delim := byte('/')
		if c == '\\' {
			if i+1 >= n || script[i+1] == '\n' {
				return i, false
			}
			delim, i = script[i+1], i+1
		}
		var ok bool
		if i, ok = sedDelimited(script, i+1, delim); !ok {
			return i, false
		}
		for i < n && (script[i] == 'I' || script[i] == 'M') {
			i++
		}
	}
	return i, true
}

// sedDelimited returns the index after the delim that ends the part of a sed
// regex or replacement starting at script[i], a backslash escaping the next byte;
// ok is false when none ends it.
func sedDelimited(script string, i int, delim byte) (int, bool) {
	for ; i < len(script); i++ {
		switch script[i] {
		case '\\':
			i++
		case delim:
			return i + 1, true
		}
	}
	return i, false
}

// awkOps: the program is the first operand unless -f gave a file (which the gate
// does not read: an awk program it cannot see); VAR=VALUE operands are
// assignments. A program that runs a command or opens a file (awkRuns) is inline
// code the gate cannot follow.
func awkOps(u *usage, ops []int) {
	progGiven := u.has(kRun)
	if progGiven {
		u.runsCmd = ProgramName(u.words[0]) + " runs a program the gate cannot read"
	}
	for n, i := range ops {
		w := u.words[i]
		switch {
		case n == 0 && !progGiven:
			u.inline(w, w, awkRuns)
		case isAssignWord(w):
		default:
			u.set(i, useArg, 0)
		}
	}
}

// awkRuns reports whether an awk program may run a command or open a file: system(),
// getline, an extension (@include, @load), a coprocess, or a > or | that redirects a
// print or printf statement (outside its parentheses and strings; a > elsewhere is a
// comparison). It errs on the side of yes.
func awkRuns(prog string) bool {
	if strings.Contains(prog, "system") || strings.Contains(prog, "getline") ||
		strings.ContainsAny(prog, "@") || strings.Contains(prog, "|&") {
		return true
	}
	inPrint, depth := false, 0
	for i := 0; i < len(prog); i++ {
		switch c := prog[i]; {
		case c == '"':
			for i++; i < len(prog) && prog[i] != '"'; i++ {
				if prog[i] == '\\' {
					i++
				}
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ';' || c == '\n' || c == '{' || c == '}':
			inPrint, depth = false, 0
		case c == 'p' && strings.HasPrefix(prog[i:], "print") &&
			(i == 0 || !awkIdent(prog[i-1])):
			inPrint = true
			i += len("print") - 1
		case (c == '>' || c == '|') && inPrint && depth <= 0:
			return true
		}
	}
	return false
}

func awkIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// patchOps: patch writes its first operand and reads the second (the patch); given
// none, it writes the files its patch names, from -i FILE or its input, which the
// gate cannot see: the patch lists the files it opens.
func patchOps(u *usage, ops []int) {
	for n, i := range ops {
		if n == 0 {
			u.set(i, useWrite, 0)
		} else {
			u.set(i, useArg, 0)
		}
	}
	if len(ops) > 0 {
		return
	}
	for i := range u.uses {
		if u.uses[i].use == useRead { // -i PATCHFILE
			u.uses[i].use = useList
		}
	}
	if !u.has(kRead) {
		u.blind = "patch reads the names of the files it writes from its input"
	}
}

// cpioOps: cpio -p copies into its operand; cpio -i writes the files its archive
// names into its directory or -D DIR. The operands of -i and -t are patterns.
func cpioOps(u *usage, ops []int) {
	if strings.ContainsRune(u.letters, 'p') || containsAny(u.longs, "pass-through") {
		opsWrite(u, ops)
	}
	if strings.ContainsRune(u.letters, 'i') || containsAny(u.longs, "extract") {
		u.risky = append(u.risky, "-i")
		u.writeDirs()
	}
}

// ddOps: of=FILE is written, if=FILE read.
func ddOps(u *usage, ops []int) {
	for _, i := range ops {
		w := u.words[i]
		switch {
		case strings.HasPrefix(w, "of="):
			u.set(i, useWrite, 3)
		case strings.HasPrefix(w, "if="):
			u.set(i, useRead, 3)
		}
	}
}

// makeOps: targets are names; a VAR=VALUE operand overrides a variable, and make
// runs the values of SHELL, CC and the like.
func makeOps(u *usage, ops []int) {
	for _, i := range ops {
		if isAssignWord(u.words[i]) {
			u.risky = append(u.risky, u.words[i])
		}
	}
}

// downloadOps: operands are URLs; wget writes into its directory unless -O or -P
// says where, or it only looks.
func downloadOps(u *usage, ops []int) {
	if ProgramName(u.words[0]) == "wget" && !u.has(kWrite) && !u.has(kTarget) &&
		!containsAny(u.longs, "spider") {
		u.writeCwd = true
	}
}

// tarOps: tar -x (and unzip) writes into its directory or -C DIR; tar -c writes
// the archive -f names.
func tarOps(u *usage, ops []int) {
	mode := u.letters
	if len(u.words) > 1 && !strings.HasPrefix(u.words[1], "-") {
		mode += u.words[1] // old style: tar xzf f.tar
	}
	extract := strings.ContainsAny(mode, "x") || containsAny(u.longs, "extract", "get")
	if oldStyle := mode[len(u.letters):]; strings.ContainsRune(oldStyle, 'h') &&
		u.blind == "" {
		u.risky = append(u.risky, u.words[1])
		u.blind = followsLinks("tar") // tar chf: h dereferences like -h
	}
	create := strings.ContainsAny(mode, "cruA") || containsAny(u.longs, "create", "append",
		"update", "catenate", "concatenate", "delete")
	for n, i := range ops {
		if n == 0 && len(u.words) > 1 && i == 1 && !strings.HasPrefix(u.words[1], "-") {
			continue // the mode letters
		}
		u.set(i, useArg, 0)
	}
	if extract {
		u.risky = append(u.risky, "-x")
		u.writeDirs()
	}
	if create && len(u.words) > 1 && !strings.HasPrefix(u.words[1], "-") &&
		strings.Contains(u.words[1], "f") && len(ops) > 1 {
		u.set(ops[1], useWrite, 0) // tar czf ARCHIVE …
	}
	if create {
		for _, i := range u.paths {
			u.set(i, useWrite, u.uses[i].cut)
		}
		if containsAny(u.longs, "remove-files") { // it removes what it adds
			for _, i := range ops {
				if u.uses[i].use == useArg {
					u.set(i, useWrite, 0)
				}
			}
		}
	}
}

// writeDirs makes the directories the command works in (tar -C DIR, -CDIR,
// --directory=DIR) written, else the one it runs in.
func (u *usage) writeDirs() {
	for _, i := range u.dirs {
		u.set(i, useWrite, u.uses[i].cut)
	}
	if len(u.dirs) == 0 {
		u.writeCwd = true
	}
}

// sevenZip reads 7z's command, its switches and its operands (the command, the
// archive, then the files or the names inside the archive). a and u write the
// archive and read the files (every file where it runs when none is named; -sdel
// removes them); d and rn write the archive; e and x write into -oDIR, else where it
// runs (-so: to its output); l, t, h, i and b read. -i@LIST and -ai@LIST list the
// files it opens; -l (p7zip) follows symlinks.
func (u *usage) sevenZip() {
	var ops []int
	out, toStdout, del := 0, false, false
	for i := 1; i < len(u.words); i++ {
		w := u.words[i]
		sw := strings.ToLower(w)
		switch {
		case w == "--":
			for j := i + 1; j < len(u.words); j++ {
				ops = append(ops, j)
			}
			i = len(u.words)
		case len(w) < 2 || w[0] != '-':
			ops = append(ops, i)
		case strings.HasPrefix(sw, "-o"):
			out = i
		case sw == "-so":
			toStdout = true
		case sw == "-sdel":
			del = true
			u.risky = append(u.risky, w)
		case sw == "-l":
			u.risky = append(u.risky, w)
			u.blind = followsLinks("7z")
		case strings.HasPrefix(sw, "-w"):
			u.set(i, useWrite, 2) // its working directory for the new archive
		case strings.HasPrefix(sw, "-i") || strings.HasPrefix(sw, "-ai") ||
			strings.HasPrefix(sw, "-x") || strings.HasPrefix(sw, "-ax"):
			if at := strings.IndexByte(w, '@'); at >= 0 && strings.Contains(sw[:at], "i") {
				u.set(i, useList, at+1)
			} else if at >= 0 {
				u.set(i, useRead, at+1)
			} else if bang := strings.IndexByte(w, '!'); bang >= 0 {
				u.set(i, useArg, bang+1)
			}
		}
	}
	if len(ops) == 0 {
		return
	}
	cmd, args := strings.ToLower(u.words[ops[0]]), ops[1:]
	switch cmd {
	case "a", "u", "d", "rn":
		u.risky = append(u.risky, u.words[ops[0]])
		if len(args) == 0 {
			return
		}
		u.set(args[0], useWrite, 0)
		if cmd == "d" || cmd == "rn" {
			return // names inside the archive
		}
		x := useArg
		if del {
			x = useWrite
		}
		for _, i := range args[1:] {
			u.set(i, x, 0)
		}
		if len(args) == 1 {
			u.readsCwd = true
			u.writeCwd = del
		}
	case "e", "x":
		u.risky = append(u.risky, u.words[ops[0]])
		if len(args) > 0 {
			u.set(args[0], useArg, 0)
		}
		switch {
		case toStdout:
		case out > 0:
			u.set(out, useWrite, 2)
		default:
			u.writeCwd = true
		}
	case "l", "t", "h", "i", "b":
		for _, i := range args {
			u.set(i, useArg, 0)
		}
	default: // a command it does not know: it may write where it runs
		u.risky = append(u.risky, u.words[ops[0]])
		for _, i := range args {
			u.set(i, useArg, 0)
		}
		u.writeCwd = true
	}
}

func unzipOps(u *usage, ops []int) {
	for _, i := range ops {
		u.set(i, useArg, 0)
	}
	if !u.has(kTarget) && !strings.ContainsAny(u.letters, "lptvZ") {
		u.writeCwd = true
	}
}

// unpackOps returns the operands of an unpacker that writes the directory it runs in
// when extracts (nil: always) says it extracts; its operands may be paths.
func unpackOps(extracts func(u *usage, ops []int) bool) func(u *usage, ops []int) {
	return func(u *usage, ops []int) {
		for _, i := range ops {
			u.set(i, useArg, 0)
		}
		if extracts == nil || extracts(u, ops) {
			u.writeCwd = true
		}
	}
}

// renameOps: rename EXPR FILES (Perl's, the rename of many distributions) and rename
// FROM TO FILES (util-linux's) move every operand; EXPR, and -e EXPR, is Perl code,
// which the gate follows only as a plain s/// or y/// (tr///) with no code in it.
func renameOps(u *usage, ops []int) {
	expr := -1
	for i, w := range u.words {
		if i > 0 && w == "-e" && i+1 < len(u.words) {
			expr = i + 1
			break
		}
	}
	if expr < 0 && len(ops) > 0 {
		expr, ops = ops[0], ops[1:]
	}
	if expr > 0 {
		u.inline(u.words[expr], u.words[expr], perlRuns)
	}
	for _, i := range ops {
		u.set(i, useWrite, 0)
	}
}

// perlRuns reports whether a rename expression may be more than a substitution: it
// is not s/A/B/ or y/A/B/ (tr) with / delimiters, flags of gimsx only, and no $, @,
// {, } or \ that could interpolate or nest code. It errs on the side of yes.
func perlRuns(expr string) bool {
	rest, ok := strings.CutPrefix(expr, "s/")
	if !ok {
		if rest, ok = strings.CutPrefix(expr, "y/"); !ok {
			if rest, ok = strings.CutPrefix(expr, "tr/"); !ok {
				return true
			}
		}
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || strings.Trim(parts[2], "gimsx") != "" {
		return true
	}
	return strings.ContainsAny(parts[0]+parts[1], "$@{}\\")
}

// compressOps: gzip FILE replaces FILE, unless it writes to stdout or only tests.
func compressOps(u *usage, ops []int) {
	toOut := strings.ContainsAny(u.letters, "clt") || containsAny(u.longs, "stdout",
		"to-stdout", "list", "test")
	keep := toOut || strings.ContainsRune(u.letters, 'k') || containsAny(u.longs, "keep")
	for _, i := range ops {
		if keep {
			u.set(i, useArg, 0)
		} else {
			u.set(i, useWrite, 0)
		}
	}
	if toOut {
		return
	}
	// The file it writes: X of X.gz decompressed, X.gz of X compressed; under -S
	// SUFFIX any name in X's folder.
	prog := ProgramName(u.words[0])
	switch {
	case suffixGiven(u):
		u.derives(ops, deriveDir)
	case strings.Contains(prog, "un") || strings.ContainsRune(u.letters, 'd') ||
		containsAny(u.longs, "decompress", "uncompress"):
		u.derives(ops, deriveStrip)
	}
}

func shorts(s string, k kind) map[byte]kind {
	m := make(map[byte]kind, len(s))
	for i := 0; i < len(s); i++ {
		m[s[i]] = k
	}
	return m
}

// merge returns one map holding the entries of ms, a later map's winning.
func merge[K comparable](ms ...map[K]kind) map[K]kind {
	out := map[K]kind{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

func longs(k kind, names ...string) map[string]kind {
	m := make(map[string]kind, len(names))
	for _, n := range names {
		m[n] = k
	}
	return m
}

// configPrograms are the programs that run configuration or code they find in the
// directory they work in or one above it, with the files they look for there; a
// file starting with ~/ is looked for in the home directory only.
var configPrograms = func() map[string][]string {
	m := map[string][]string{}
	add := func(files []string, names ...string) {
		for _, n := range names {
			m[n] = files
		}
	}
	add([]string{".git/config", ".git/hooks/pre-commit", "~/.gitconfig",
		"~/.config/git/config"}, "git")
	add([]string{"Makefile", "makefile", "GNUmakefile"}, "make", "gmake")
	add([]string{"package.json", ".npmrc", ".yarnrc.yml", "node_modules/x/index.js",
		"~/.npmrc"},
		"npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "node", "deno")
	add([]string{"go.mod", "go.work", "~/.config/go/env"}, "go")
	add([]string{"sitecustomize.py", "x.py", "pyproject.toml"}, "python", "python2",
		"python3", "pip", "pip3", "pytest", "tox", "uv", "poetry")
	add([]string{"Cargo.toml", ".cargo/config.toml", "~/.cargo/config.toml"}, "cargo")
	add([]string{"Rakefile", "Gemfile"}, "rake", "bundle")
	add([]string{"pom.xml", "build.gradle", "justfile", "CMakeLists.txt", "build.ninja"},
		"mvn", "gradle", "just", "cmake", "ninja", "meson")
	return m
}()

// The table of known programs (docs/design.md, "Shell commands").
var programs = map[string]*program{}

// noFilePrograms open no file their words name: a word of theirs that is not
// literal hides no path.
var noFilePrograms = []string{"echo", "printf", "true", "false", "sleep", "seq", "yes",
	"whoami", "id", "uname", "pwd", "hostname", "basename", "dirname", "expr", "nproc",
	"arch", "tty", "logname", "groups", "cal"}

func init() {
	add := func(p *program, names ...string) {
		for _, n := range names {
			programs[n] = p
		}
	}
	cwdIfNone := func(u *usage, ops []int) bool { return noOperand(u, ops) }
	add(&program{operands: opsNone}, noFilePrograms...)
	// date -f FILE prints each line it cannot read as a date.
	add(&program{abbrev: true, short: merge(shorts("fr", kRead), shorts("ds", kVal)),
		long:     merge(longs(kRead, "file", "reference"), longs(kVal, "date", "set")),
		operands: opsNone}, "date")
	add(&program{abbrev: true, short: shorts("ncs", kVal), long: longs(kVal, "lines",
		"bytes", "sleep-interval", "pid", "max-unchanged-stats")}, "head", "tail")
	add(&program{abbrev: true, long: longs(kList, "files0-from")}, "wc")
	add(&program{abbrev: true, short: shorts("L", kFollow), long: merge(longs(kFollow,
		"dereference"), longs(kList, "files0-from")), cwd: cwdIfNone}, "ls", "dir", "vdir", "du")
	add(&program{abbrev: true, short: merge(shorts("o", kWrite), shorts("LPIH", kVal),
		shorts("l", kFollow)),
		long: longs(kWrite, "output"), cwd: cwdIfNone}, "tree")
	add(&program{abbrev: true, short: merge(shorts("efABCmdD", kVal), shorts("f", kRead),
		shorts("R", kFollow)),
		long: merge(longs(kFollow, "dereference-recursive"), longs(kVal, "regexp",
			"max-count", "after-context", "before-context", "context", "include", "exclude",
			"exclude-dir", "label", "color", "colour", "binary-files", "devices",
			"directories"),
			longs(kRead, "file", "exclude-from")),
		operands: grepOps, cwd: grepCwd}, "grep", "egrep", "fgrep")
	add(&program{abbrev: true,
		short: merge(shorts("efgtTmABCMj", kVal), shorts("f", kRead), shorts("L", kFollow)),
		long: merge(longs(kRun, "pre", "hostname-bin"), longs(kFollow, "follow"),
			longs(kVal, "regexp", "glob", "iglob", "type", "type-not", "max-count",
				"after-context", "before-context", "context", "max-depth", "pre-glob",
				"sort", "sortr", "replace", "encoding", "threads", "color", "colors"),
			longs(kRead, "file", "ignore-file")),
		operands: grepOps, cwd: grepCwd}, "rg")
	// ag, ack and fd follow symlinks only when asked to.
	add(&program{abbrev: true, short: merge(shorts("f", kFollow), shorts("Gmp", kVal)),
		long: merge(longs(kFollow, "follow"), longs(kRun, "pager"),
			longs(kRead, "path-to-ignore"), longs(kVal, "file-search-regex", "max-count",
				"depth", "ignore", "ignore-dir", "workers", "color-line-number",
				"color-match", "color-path")),
		operands: grepOps, cwd: grepCwd}, "ag")
	add(&program{abbrev: true, short: merge(shorts("x", kListIn), shorts("ABCm", kVal)),
		long: merge(longs(kFollow, "follow"), longs(kRun, "pager", "output"),
			longs(kList, "files-from"), longs(kRead, "ackrc"), longs(kVal, "type",
				"after-context", "before-context", "context", "max-count", "match",
				"ignore-dir", "ignore-file", "type-add", "type-set", "color-filename",
				"color-match", "color-lineno")),
		operands: grepOps, cwd: grepCwd}, "ack")
	add(&program{abbrev: true, short: merge(shorts("L", kFollow), shorts("xX", kRun),
		shorts("etEdScjo", kVal)),
		long: merge(longs(kFollow, "follow"), longs(kRun, "exec", "exec-batch"),
			longs(kPath, "search-path", "base-directory"), longs(kRead, "ignore-file"),
			longs(kVal, "extension", "type", "exclude", "max-depth", "min-depth",
				"exact-depth", "size", "color", "threads", "owner", "changed-within",
				"changed-before", "max-results", "format", "path-separator", "batch-size")),
		operands: fdOps, cwd: grepCwd}, "fd", "fdfind")
	add(&program{abbrev: true, short: merge(shorts("o", kWrite), shorts("T", kWrite),
		shorts("ktSy", kVal)),
		long: merge(longs(kWrite, "output", "temporary-directory"),
			longs(kRun, "compress-program"), longs(kList, "files0-from"),
			longs(kVal, "key", "field-separator", "buffer-size", "parallel", "batch-size",
				"sort"))}, "sort")
	add(&program{abbrev: true, operands: opsWrite}, "tee", "rm", "rmdir", "unlink",
		"mkdir", "mkfifo", "trash", "trash-put", "srm", "gvfs-trash", "gvfs-rm",
		"gvfs-move", "rmtrash")
	// Unpackers that extract into the directory they run in (docs/design.md, "Shell
	// commands"); a directory an option names (unar -o, cabextract -d) is written too.
	add(&program{short: shorts("o", kWrite), long: longs(kWrite, "output-directory"),
		operands: unpackOps(nil)}, "unar", "aunpack", "dtrx", "p7zip", "unp")
	add(&program{short: shorts("d", kWrite), long: longs(kWrite, "directory"),
		operands: unpackOps(func(u *usage, _ []int) bool {
			return !strings.ContainsAny(u.letters, "lt") &&
				!containsAny(u.longs, "list", "test")
		})}, "cabextract")
	add(&program{operands: unpackOps(func(u *usage, ops []int) bool {
		return len(ops) > 0 && (u.words[ops[0]] == "x" || u.words[ops[0]] == "e")
	})}, "unrar")
	add(&program{long: longs(kFlag, "extract"), operands: unpackOps(func(u *usage,
		ops []int) bool {
		return strings.Contains(u.letters, "x") || containsAny(u.longs, "extract") ||
			len(ops) > 0 && strings.Contains(u.words[ops[0]], "x")
	})}, "jar")
	add(&program{abbrev: true, short: shorts("e", kVal), operands: renameOps}, "rename",
		"prename", "perl-rename", "file-rename")
	// Removals and overwrites: their operands are written.
	add(&program{abbrev: true, short: shorts("ns", kVal), long: merge(longs(kVal,
		"iterations", "size"), longs(kRead, "random-source")), operands: opsWrite}, "shred")
	add(&program{short: shorts("QlxSTp", kVal), operands: opsWrite}, "wipe")
	add(&program{operands: gioOps}, "gio")
	add(&program{abbrev: true, short: shorts("rdt", kVal), long: merge(
		longs(kRead, "reference"), longs(kVal, "date", "time")),
		operands: opsWrite}, "touch")
	add(&program{abbrev: true, short: merge(shorts("s", kVal), shorts("r", kRead)),
		long:     merge(longs(kVal, "size"), longs(kRead, "reference")),
		operands: opsWrite}, "truncate")
	add(&program{abbrev: true, short: shorts("L", kFollow), long: merge(longs(kRead,
		"reference"), longs(kFollow, "dereference")),
		operands: opsFirstNone(true)}, "chmod", "chown", "chgrp")
	add(&program{abbrev: true, short: merge(shorts("L", kFollow), shorts("mMxX", kVal)),
		long: merge(longs(kFollow, "logical"), longs(kVal, "modify", "modify-file",
			"remove", "remove-file", "set", "set-file")),
		operands: opsWrite}, "setfacl")
	add(&program{abbrev: true, short: shorts("L", kFollow), long: longs(kFollow, "logical")},
		"getfacl")
	add(&program{abbrev: true, short: shorts("lbCnat", kVal),
		long: merge(longs(kVal, "lines", "bytes", "line-bytes", "number", "suffix-length",
			"additional-suffix", "separator"), longs(kRun, "filter"),
			longs(kFlag, "numeric-suffixes", "hex-suffixes")),
		operands: splitOps}, "split", "gsplit")
	add(&program{abbrev: true, short: merge(shorts("f", kWrite), shorts("bn", kVal)),
		long:     merge(longs(kWrite, "prefix"), longs(kVal, "suffix-format", "digits")),
		operands: csplitOps}, "csplit", "gcsplit")
	add(&program{operands: arOps}, "ar")
	add(&program{operands: func(u *usage, _ []int) {
		u.blind = ProgramName(u.words[0]) + " runs a job it reads from its input or a file"
	}}, "at", "batch")
	add(&program{abbrev: true, short: shorts("L", kFollow), long: longs(kFollow,
		"copy-links")}, "rclone")
	add(&program{short: merge(shorts("L", kFollow), shorts("fsox", kVal)),
		operands: unpackOps(func(u *usage, _ []int) bool {
			return strings.Contains(u.letters, "r") // pax -r extracts where it runs
		})}, "pax")
	add(&program{abbrev: true, short: shorts("X", kFollow), long: longs(kFollow,
		"follow-symlinks", "dereference"), cwd: cwdIfNone}, "eza", "exa")
	cpLike := &program{abbrev: true, short: merge(shorts("t", kTarget), shorts("S", kVal),
		shorts("L", kFollow)),
		long: merge(longs(kTarget, "target-directory"), longs(kFollow, "dereference"),
			longs(kVal, "suffix", "backup",
				"sparse", "reflink", "preserve", "no-preserve", "update"),
			longs(kFlag, "link", "symbolic-link")),
		operands: backupOps(cpOps)}
	add(cpLike, "cp", "link")
	add(&program{abbrev: true, short: merge(shorts("t", kTarget), shorts("S", kVal),
		shorts("L", kFollow)),
		long: merge(longs(kTarget, "target-directory"), longs(kFollow, "logical"),
			longs(kVal, "suffix", "backup"), longs(kFlag, "symbolic", "relative")),
		operands: backupOps(lnOps)}, "ln")
	add(&program{abbrev: true, short: merge(shorts("t", kTarget), shorts("S", kVal)),
		long: merge(longs(kTarget, "target-directory"), longs(kVal, "suffix",
			"backup")), operands: backupOps(opsWrite)}, "mv") // it removes its sources
	add(&program{abbrev: true, short: merge(shorts("t", kTarget), shorts("mogS", kVal)),
		long: merge(longs(kTarget, "target-directory"), longs(kVal, "mode", "owner",
			"group", "suffix", "backup", "strip-program"), longs(kFlag, "directory")),
		operands: backupOps(installOps)}, "install")
	add(&program{abbrev: true, short: merge(shorts("i", kWriteFlag), shorts("e", kVal),
		shorts("f", kRead), shorts("l", kVal)),
		long: merge(longs(kWriteFlag, "in-place"), longs(kVal, "expression",
			"line-length"), longs(kRead, "file")),
		operands: sedOps}, "sed", "gsed")
	// Formatters and fixers: their operands, files or directories (a directory is
	// rewritten whole), are written when the option that rewrites is given, or unless
	// one that only checks is.
	gofmtFlags := merge(longs(kWriteFlag, "w"), longs(kVal, "r", "local", "srcdir"),
		longs(kWrite, "cpuprofile"))
	add(&program{single: true, long: gofmtFlags, operands: opsWriteIf}, "gofmt", "goimports")
	add(&program{abbrev: true, short: shorts("w", kWriteFlag),
		long: merge(longs(kWriteFlag, "write"), longs(kVal, "config", "ignore-path",
			"parser", "plugin", "print-width", "tab-width", "log-level", "cache-location",
			"cache-strategy", "end-of-line", "trailing-comma", "arrow-parens",
			"prose-wrap", "quote-props", "embedded-language-formatting")),
		operands: opsWriteIf}, "prettier")
	add(&program{short: merge(shorts("c", kVal), shorts("f", kVal)),
		long: merge(longs(kWriteFlag, "fix"), longs(kVal, "config", "ext", "format",
			"ignore-path", "ignore-pattern", "rule", "rulesdir", "plugin", "parser",
			"output-file", "max-warnings", "resolve-plugins-relative-to", "env",
			"global", "fix-type", "cache-location")),
		operands: opsWriteIf}, "eslint", "stylelint")
	add(&program{abbrev: true, short: merge(shorts("i", kWriteFlag), shorts("bpP", kVal)),
		long: merge(longs(kWriteFlag, "in-place", "inplace"), longs(kVal, "style",
			"assume-filename", "fallback-style", "lines", "offset", "length")),
		operands: opsWriteIf}, "clang-format", "autopep8")
	add(&program{short: merge(shorts("w", kWriteFlag), shorts("ilf", kVal)),
		long: longs(kWriteFlag, "write"), operands: opsWriteIf}, "shfmt")
	add(&program{abbrev: true, short: merge(shorts("lSWtc", kVal)),
		long: merge(longs(kVal, "line-length", "target-version", "include", "exclude",
			"extend-exclude", "force-exclude", "config", "workers", "required-version",
			"python-cell-magics", "stdin-filename", "emit", "edition", "color",
			"config-path", "print-config", "skip", "profile", "settings-path",
			"virtual-env", "src"),
			longs(kFlag, "check", "diff", "check-only")),
		operands: opsWriteUnlessCheck}, "black", "rustfmt", "isort")
	add(&program{short: merge(shorts("fEil", kRun), shorts("vF", kVal)),
		long: merge(longs(kRun, "file", "include", "load", "exec", "source"),
			longs(kVal, "assign", "field-separator")),
		abbrev: true, operands: awkOps}, "awk", "gawk", "mawk", "nawk")
	add(&program{operands: ddOps}, "dd")
	add(&program{abbrev: true,
		short: merge(shorts("oDc", kWrite), shorts("O", kOutFlag), shorts("K", kList),
			shorts("T", kRead), shorts("dFb", kData), shorts("uHXAemwrxEzYyCQ", kVal)),
		long: merge(longs(kWrite, "output", "output-dir", "dump-header", "cookie-jar",
			"trace", "trace-ascii", "libcurl", "stderr", "etag-save", "hsts", "alt-svc"),
			longs(kOutFlag, "remote-name", "remote-name-all", "remote-header-name"),
			longs(kList, "config"), longs(kRead, "upload-file", "netrc-file", "cacert",
				"cert", "key", "etag-compare"),
			longs(kData, "data", "data-binary", "data-urlencode", "data-raw", "data-ascii",
				"form", "json", "cookie", "form-string", "variable"),
			longs(kVal, "user", "header", "request", "user-agent", "referer", "max-time",
				"write-out", "proxy", "url", "connect-timeout", "retry", "range",
				"resolve", "connect-to", "expect100-timeout")),
		operands: curlOps}, "curl")
	add(&program{abbrev: true,
		short: merge(shorts("Ooa", kWrite), shorts("P", kTarget), shorts("i", kList),
			shorts("e", kRun), shorts("UtTwQlAR", kVal)),
		long: merge(longs(kWrite, "output-document", "output-file", "append-output"),
			longs(kTarget, "directory-prefix"), longs(kList, "input-file"),
			longs(kRead, "post-file",
				"body-file", "certificate", "private-key", "ca-certificate"),
			longs(kRun, "execute", "use-askpass", "config"), longs(kFlag, "spider"),
			longs(kVal, "user-agent", "tries", "timeout", "wait", "level", "accept",
				"reject", "header", "method", "body-data", "post-data", "user",
				"password", "quota", "limit-rate")),
		operands: downloadOps}, "wget")
	tarProg := &program{abbrev: true,
		short: merge(shorts("f", kPath), shorts("C", kDir), shorts("I", kRun),
			shorts("F", kRun), shorts("X", kRead), shorts("T", kList), shorts("bLN", kVal),
			shorts("h", kFollow)),
		long: merge(longs(kPath, "file"), longs(kDir, "directory"),
			longs(kFollow, "dereference", "hard-dereference"),
			longs(kRun, "use-compress-program", "to-command", "checkpoint-action",
				"rsh-command", "info-script", "new-volume-script", "rmt-command"),
			longs(kRead, "exclude-from"), longs(kList, "files-from"),
			longs(kVal, "exclude", "transform", "xform", "owner", "group", "mode",
				"mtime", "format", "blocking-factor", "tape-length", "strip-components"),
			longs(kFlag, "extract", "get", "create", "append", "update", "catenate",
				"concatenate", "delete", "list", "diff", "compare", // the modes
				"remove-files")),
		operands: tarOps}
	add(tarProg, "tar", "gtar")
	bsdtar := *tarProg // bsdtar -L follows symlinks, as -h
	bsdtar.short = merge(tarProg.short, shorts("L", kFollow))
	add(&bsdtar, "bsdtar")
	// diff -r follows the symlinks in the folders it compares.
	add(&program{abbrev: true, short: shorts("r", kFollow), long: longs(kFollow, "recursive")},
		"diff")
	add(&program{short: merge(shorts("d", kTarget), shorts("xP", kVal)), operands: unzipOps},
		"unzip")
	add(&program{abbrev: true, long: merge(longs(kRun, "unzip-command"),
		longs(kWrite, "output-file", "out"), longs(kFollow, "recurse-paths"),
		longs(kFlag, "move")),
		short: merge(shorts("O", kWrite), shorts("rR", kFollow), shorts("@", kListIn)),
		operands: func(u *usage, ops []int) {
			// zip -m removes the files it adds.
			moves := strings.ContainsRune(u.letters, 'm') || containsAny(u.longs, "move")
			for n, i := range ops {
				if n == 0 || moves {
					u.set(i, useWrite, 0)
				} else {
					u.set(i, useArg, 0)
				}
			}
			for _, w := range u.words {
				if w == "-TT" {
					u.risky = append(u.risky, w)
				}
			}
		}}, "zip")
	add(&program{abbrev: true, short: merge(shorts("S", kVal), shorts("o", kWrite)),
		long: merge(longs(kVal, "suffix"), longs(kWrite, "output-dir-flat",
			"output-dir-mirror"), longs(kFlag, "decompress", "uncompress", "keep",
			"stdout", "to-stdout", "list", "test")),
		operands: compressOps}, "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz",
		"zstd", "unzstd", "lz4", "compress", "uncompress")
	add(&program{abbrev: true, short: merge(shorts("e", kRun), shorts("TfB", kRead),
		shorts("M", kVal), shorts("LkK", kFollow)),
		long: merge(longs(kRun, "rsh", "rsync-path", "info"), longs(kFollow, "copy-links",
			"copy-dirlinks", "copy-unsafe-links", "keep-dirlinks"),
			longs(kWrite, "log-file", "write-batch", "only-write-batch", "backup-dir",
				"temp-dir", "partial-dir", "link-dest"), // link-dest: its files get linked
			longs(kList, "files-from"),
			longs(kRead, "read-batch", "password-file", "exclude-from",
				"include-from", "filter"),
			longs(kVal, "exclude", "include", "chmod", "chown", "max-size", "min-size",
				"bwlimit", "timeout", "port", "out-format", "log-file-format"),
			longs(kFlag, "remove-source-files")),
		operands: removesOps("remove-source-files")}, "rsync")
	add(&program{short: merge(shorts("SoF", kRun), shorts("i", kRead), shorts("P", kVal),
		shorts("lcJ", kVal), shorts("r", kFollow)), operands: opsLast}, "scp")
	add(&program{short: merge(shorts("oF", kRun), shorts("i", kRead), shorts("E", kWrite),
		shorts("pluLRDbcemJOQSW", kVal)), operands: sshOps}, "ssh")
	add(&program{abbrev: true, short: merge(shorts("fCEI", kRun), shorts("jlWo", kVal)),
		long: merge(longs(kRun, "file", "makefile", "directory", "eval",
			"include-dir"), longs(kVal, "jobs", "load-average", "old-file", "new-file",
			"what-if", "assume-old", "assume-new")),
		operands: makeOps}, "make", "gmake")
	add(&program{abbrev: true, short: merge(shorts("o", kWrite), shorts("i", kRead),
		shorts("d", kDir), shorts("pBzFVD", kVal)),
		long: merge(longs(kWrite, "output", "reject-file"), longs(kRead, "input"),
			longs(kDir, "directory"), longs(kVal, "strip", "prefix", "suffix", "fuzz")),
		operands: patchOps}, "patch")
	// Programs that read the names of the files they open from a file or their input.
	add(&program{abbrev: true, short: merge(shorts("c", kListOps), shorts("a", kVal)),
		long: merge(longs(kListOps, "check"), longs(kVal, "algorithm", "length")),
	}, "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
		"cksum", "shasum")
	add(&program{abbrev: true, short: merge(shorts("op", kListIn), shorts("F", kPath),
		shorts("O", kWrite), shorts("IE", kRead), shorts("D", kDir), shorts("HRMC", kVal),
		shorts("L", kFollow)),
		long: merge(longs(kListIn, "create", "pass-through"), longs(kPath, "file"),
			longs(kDir, "directory"), longs(kRead, "pattern-file"),
			longs(kFollow, "dereference"), longs(kVal, "format", "owner", "message",
				"io-size", "rsh-command")),
		operands: cpioOps}, "cpio")
	add(&program{abbrev: true, short: merge(shorts("f", kList), shorts("m", kRead),
		shorts("FeP", kVal)),
		long: merge(longs(kList, "files-from"), longs(kRead, "magic-file"),
			longs(kVal, "separator", "exclude", "exclude-quiet", "parameter"))}, "file")
	add(&program{abbrev: true, posix: true, short: merge(shorts("a", kList),
		shorts("dEILnPs", kVal)),
		long: merge(longs(kList, "arg-file"), longs(kVal, "delimiter", "max-args",
			"max-procs", "max-chars", "process-slot-var"))}, "xargs")
	npm := &program{abbrev: true, short: merge(shorts("Cc", kRun), shorts("w", kVal)),
		long: merge(longs(kRun, "script-shell", "shell", "prefix", "userconfig",
			"globalconfig", "node-options", "editor", "browser", "viewer", "git", "cwd",
			"dir", "call", "workspace-root", "npm-path", "config", "rcfile",
			"global-folder", "modules-folder", "cache-folder"),
			longs(kWrite, "cache", "logs-dir"),
			longs(kVal, "workspace", "filter", "tag", "registry", "loglevel")),
		operands: opsNames}
	add(npm, "npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx")
	interp := &program{short: merge(shorts("cepEmrIl", kRun), shorts("WX", kVal)),
		long: longs(kRun, "eval", "print", "require", "import", "loader",
			"experimental-loader", "env-file")}
	for name, in := range interpreters { // bun keeps npm's options
		if !in.filter && programs[name] == nil {
			add(interp, name)
		}
	}
}

// git reads git's options: those before the subcommand (-c, -C, --exec-path, …),
// then the subcommand's.
func (u *usage) git() {
	words := u.words
	i := 1
	for ; i < len(words); i++ {
		w := words[i]
		name, _, hasVal := strings.Cut(w, "=")
		switch {
		case w == "-c" || w == "--config-env":
			// Any setting may name a command: alias.x=!cmd, core.pager, core.sshCommand.
			u.risky = append(u.risky, w)
			u.gitRuns(w)
			i++
		case strings.HasPrefix(w, "-c") && !strings.HasPrefix(w, "--") ||
			name == "--config-env" || name == "--exec-path" || w == "--exec-path":
			u.risky = append(u.risky, w)
			u.gitRuns(name)
		case w == "-C" || w == "--git-dir" || w == "--work-tree":
			if w != "-C" {
				u.risky = append(u.risky, w)
			}
			if i+1 < len(words) {
				u.set(i+1, useArg, 0)
				if w == "-C" {
					u.dir = i + 1
				}
			}
			i++
		case (name == "--git-dir" || name == "--work-tree") && hasVal:
			u.set(i, useArg, len(name)+1)
			u.risky = append(u.risky, w) // the repository whose configuration runs
		case w == "--namespace" || w == "--super-prefix" || w == "--list-cmds" ||
			w == "--attr-source":
			i++
		case strings.HasPrefix(w, "-"):
		default:
			goto sub
		}
	}
	return
sub:
	p := &gitSub
	switch words[i] {
	case "format-patch":
		p = &gitFormatPatch
	case "rebase":
		p = &gitRebase
	case "difftool", "mergetool":
		p = &gitDifftool
	case "grep":
		p = &gitGrep
	case "clone", "fetch", "pull", "ls-remote", "archive", "push", "submodule", "remote":
		p = &gitRemote
	case "config":
		// git config NAME VALUE may set core.pager, core.sshCommand, an alias, …
		if len(words) > i+2 && !strings.HasPrefix(words[i+1], "-") || containsWord(words[i+1:],
			"--add", "--replace-all", "--edit", "-e", "--file", "-f", "--global", "--system") {
			u.risky = append(u.risky, words[i])
		}
	case "daemon", "instaweb", "bisect", "filter-branch", "filter-repo", "send-email",
		"credential", "hook", "submodule--helper", "for-each-repo", "web--browse":
		u.risky = append(u.risky, words[i]) // they run commands or servers
	}
	switch sub := words[i]; {
	case gitRunners[sub]:
		u.gitRuns(sub)
	case sub == "clone" && gitCloneConfig(words[i+1:]):
		u.gitRuns("clone --config") // core.fsmonitor, core.hooksPath, … of the new clone
	case sub == "bisect" && i+1 < len(words) && words[i+1] == "run",
		sub == "submodule" && containsWord(words[i+1:], "foreach"):
		u.gitRuns(sub + " " + words[i+1])
	}
	u.repo = !gitReadsOnly(words[i], words[i+1:])
	ops := u.options(p, i+1)
	if u.has(kRun) || u.has(kRunFlag) {
		u.gitRuns(words[i] + " " + u.risky[len(u.risky)-1]) // rebase -x, --upload-pack
	}
	for _, j := range ops {
		// REV:PATH (git show HEAD:secrets/key) names a file of the repository.
		cut := 0
		if k := strings.IndexByte(words[j], ':'); k >= 0 {
			cut = k + 1
		}
		u.set(j, useArg, cut)
	}
	if (words[i] == "apply" || words[i] == "am") && !gitApplyOnlyCounts(words[i+1:]) {
		// The patch names the files it writes.
		u.listOps(ops, "git "+words[i]+" reads the names of the files it writes from its input")
	}
	if words[i] == "grep" && len(ops) > 0 && !containsWord(words, "-e", "-f") {
		u.uses[ops[0]] = wordUse{} // the pattern
		ops = ops[1:]
	}
	if len(ops) == 0 {
		u.readsCwd = true
	}
	u.gitWorkTree(i)
}

// gitWorkTree records what git's subcommand at words[sub] writes in the work tree
// (docs/design.md, "Shell commands"): the paths its pathspecs name (restore, rm,
// checkout -- PATHS), what lies below the directory it runs in (clean), or the whole
// work tree (checkout BRANCH, merge, pull, reset --hard, stash pop, an alias, a
// subcommand git adds later). Only gitKeepsTree's subcommands write none of it.
func (u *usage) gitWorkTree(sub int) {
	name, rest := u.words[sub], u.words[sub+1:]
	if gitKeepsTree[name] {
		return
	}
	w := gitTreeWriters[name]
	if w == nil {
		u.writesRepo = true // an alias or a subcommand it does not know
		return
	}
	v := &usage{words: u.words, uses: make([]wordUse, len(u.words)), seen: map[kind]int{}}
	ops := v.options(&w.opts, sub+1)
	w.writes(u, v, ops, slices.Index(rest, "--")+sub+1)
}

// gitTreeWriter is how a git subcommand writes the work tree: opts reads its options
// (those with a value named, so that no value is taken for an operand), and writes
// records the writes, given the reading v of its options, its operands ops and the
// index of its "--" (sub when none).
type gitTreeWriter struct {
	opts   program
	writes func(u, v *usage, ops []int, dashes int)
}

// given reports whether the options read in v give a short letter of letters or a
// long option of names, in full or abbreviated.
func (v *usage) given(letters string, names ...string) bool {
	return strings.ContainsAny(v.letters, letters) || containsAny(v.longs, names...)
}

// gitWriteOps makes the operands ops written (a pathspec is a path, or a glob of
// them); given none, what lies below the directory it runs in (or -C DIR) is.
func (u *usage) gitWriteOps(ops []int, noneWritesCwd bool) {
	for _, i := range ops {
		u.set(i, useWrite, 0)
	}
	if len(ops) == 0 && noneWritesCwd {
		if u.dir > 0 {
			u.set(u.dir, useWrite, 0)
		} else {
			u.writeCwd = true
		}
	}
}

// gitWritePathspecs makes the pathspecs ops written as gitWriteOps does, and the whole
// work tree when one is not a plain path: git matches a wildcard (*, ?, [, a \ escape)
// across "/", at any depth, and a leading ":" is magic (":/" the top, ":!x" all but
// x, ":(icase)"), so such a word may name any file of the tree, whatever the shell saw.
func (u *usage) gitWritePathspecs(ops []int, noneWritesCwd bool) {
	for _, i := range ops {
		if w := u.words[i]; strings.HasPrefix(w, ":") || strings.ContainsAny(w, `*?[\`) {
			u.writesRepo = true
		}
	}
	u.gitWriteOps(ops, noneWritesCwd)
}

// after returns the operands of ops after the "--" at index dashes (all of them
// when there is none, dashes being at or before the first).
func after(ops []int, dashes int) []int {
	for n, i := range ops {
		if i > dashes {
			return ops[n:]
		}
	}
	return nil
}

// gitKeepsTree are the git subcommands that write nothing of the work tree: they
// read, or write only the repository (.git: the index, refs, objects, config).
var gitKeepsTree = setOf("status", "log", "reflog", "shortlog", "rev-list", "rev-parse",
	"branch", "tag", "remote", "add", "commit", "config", "ls-files", "describe",
	"name-rev", "merge-base", "symbolic-ref", "show-ref", "check-ignore",
	"check-ref-format", "count-objects", "gc", "prune", "version", "help", "fetch", "push",
	"show", "diff", "diff-tree", "diff-index", "diff-files", "blame", "annotate", "grep",
	"cat-file", "ls-tree", "ls-remote", "archive", "format-patch", "whatchanged",
	"range-diff", "merge-tree", "fast-export", "notes", "cherry", "hash-object",
	"update-index", "update-ref", "write-tree", "commit-tree", "mktree", "mktag",
	"for-each-ref", "verify-commit", "verify-tag", "verify-pack", "fsck", "repack",
	"pack-objects", "pack-refs", "index-pack", "unpack-objects", "maintenance", "init",
	"var", "stripspace", "interpret-trailers", "show-branch", "request-pull", "difftool",
	"check-attr", "check-mailmap", "column", "get-tar-commit-id", "send-email",
	"credential", "filter-branch", "filter-repo", "instaweb", "web--browse", "hook",
	"for-each-repo", "daemon", "replace")

// gitStashKeeps are the subcommands of git stash that leave the work tree as it is.
var gitStashKeeps = setOf("list", "show", "drop", "clear", "create", "store")

// gitTreeWriters are the git subcommands that write the work tree only as their
// words say; any other subcommand outside gitKeepsTree writes it whole.
var gitTreeWriters = func() map[string]*gitTreeWriter {
	whole := func(u, _ *usage, _ []int, _ int) { u.writesRepo = true }
	pathspecs := func(u, _ *usage, ops []int, _ int) { u.gitWritePathspecs(ops, false) }
	m := map[string]*gitTreeWriter{
		// restore PATHS; --staged alone restores the index only.
		"restore": {opts: program{abbrev: true, short: shorts("s", kVal),
			long: merge(longs(kVal, "source", "conflict", "pathspec-from-file"),
				longs(kFlag, "staged", "worktree"))},
			writes: func(u, v *usage, ops []int, _ int) {
				if !v.given("S", "staged") || v.given("W", "worktree") {
					u.gitWritePathspecs(ops, false)
				}
			}},
		// rm PATHS; --cached removes them from the index only.
		"rm": {opts: program{abbrev: true, long: merge(longs(kVal, "pathspec-from-file"),
			longs(kFlag, "cached"))},
			writes: func(u, v *usage, ops []int, _ int) {
				if !v.given("", "cached") {
					u.gitWritePathspecs(ops, false)
				}
			}},
		"mv": {writes: pathspecs}, // its sources are removed, its destination written
		// clean removes the untracked files its pathspecs name, else every one below
		// the directory it runs in; -n only lists them.
		"clean": {opts: program{abbrev: true, short: shorts("e", kVal),
			long: merge(longs(kVal, "exclude"), longs(kFlag, "dry-run"))},
			writes: func(u, v *usage, ops []int, _ int) {
				if !v.given("n", "dry-run") {
					u.gitWritePathspecs(ops, true)
				}
			}},
		// checkout REV -- PATHS writes PATHS; checkout BRANCH (or a word that may be a
		// branch or a path, a start point after -b NAME, -f alone) the whole tree.
		"checkout": {opts: program{abbrev: true, short: shorts("bB", kVal),
			long: merge(longs(kVal, "orphan", "conflict", "pathspec-from-file"),
				longs(kFlag, "force"))},
			writes: func(u, v *usage, ops []int, dashes int) {
				// Without "--", a word that may be a path is in the tree it writes.
				paths := after(ops, dashes)
				if u.words[dashes] == "--" && len(paths) > 0 {
					u.gitWritePathspecs(paths, false)
				} else if len(ops) > 0 || v.given("f", "force") {
					u.writesRepo = true
				}
			}},
		// switch BRANCH, -c NAME START, --orphan: the whole tree; -c NAME alone keeps it.
		"switch": {opts: program{abbrev: true, short: shorts("cC", kVal),
			long: merge(longs(kVal, "create", "force-create", "conflict"),
				longs(kFlag, "orphan"))},
			writes: func(u, v *usage, ops []int, _ int) {
				if len(ops) > 0 || v.given("", "orphan") {
					u.writesRepo = true
				}
			}},
		// reset --hard, --merge, --keep rewrite the tree; the others, the index.
		"reset": {opts: program{abbrev: true, long: merge(longs(kVal, "pathspec-from-file"),
			longs(kFlag, "hard", "merge", "keep", "mixed", "soft"))},
			writes: func(u, v *usage, _ []int, _ int) {
				if containsAny(v.longs, "hard", "merge", "keep") {
					u.writesRepo = true
				}
			}},
		// stash (push, save, pop, apply, branch) reverts or applies changes anywhere.
		"stash": {opts: program{abbrev: true, short: shorts("m", kVal),
			long: longs(kVal, "message", "pathspec-from-file")},
			writes: func(u, _ *usage, ops []int, _ int) {
				if len(ops) == 0 || !gitStashKeeps[u.words[ops[0]]] {
					u.writesRepo = true
				}
			}},
		"submodule": {writes: func(u, _ *usage, ops []int, _ int) {
			if len(ops) > 0 && setOf("update", "deinit", "absorbgitdirs",
				"foreach")[u.words[ops[0]]] {
				u.writesRepo = true // the submodules' work trees
			}
		}},
		// worktree add PATH, move A B, remove PATH write those paths.
		"worktree": {opts: program{abbrev: true, short: shorts("bB", kVal),
			long: longs(kVal, "reason", "expire")},
			writes: func(u, _ *usage, ops []int, _ int) {
				if len(ops) > 0 && setOf("add", "move", "remove")[u.words[ops[0]]] {
					u.gitWriteOps(ops[1:], false)
				}
			}},
		// clone URL DIR writes DIR, else a directory named after URL where it runs.
		"clone": {opts: program{abbrev: true, short: shorts("bojcu", kVal),
			long: longs(kVal, "branch", "origin", "depth", "reference", "reference-if-able",
				"template", "separate-git-dir", "config", "jobs", "filter", "upload-pack",
				"server-option", "shallow-since", "shallow-exclude", "bundle-uri",
				"ref-format")},
			writes: func(u, _ *usage, ops []int, _ int) {
				if len(ops) >= 2 {
					u.gitWriteOps(ops[1:], false)
				} else {
					u.gitWriteOps(nil, true)
				}
			}},
		// bundle create FILE writes FILE.
		"bundle": {opts: program{abbrev: true, long: longs(kVal, "version")},
			writes: func(u, _ *usage, ops []int, _ int) {
				if len(ops) >= 2 && u.words[ops[0]] == "create" {
					u.gitWriteOps(ops[1:2], false)
				}
			}},
		// merge-file CURRENT BASE OTHER writes CURRENT, unless -p prints the result.
		"merge-file": {opts: program{abbrev: true, short: shorts("L", kVal),
			long: longs(kFlag, "stdout")},
			writes: func(u, v *usage, ops []int, _ int) {
				if len(ops) > 0 && !v.given("p", "stdout") {
					u.gitWriteOps(ops[:1], false)
				}
			}},
	}
	// apply and am write what their patches name (blind already); merge, rebase,
	// pull, cherry-pick, revert, bisect, sparse-checkout, read-tree, checkout-index
	// and rerere rewrite files anywhere in the tree.
	for _, s := range []string{"apply", "am", "merge", "rebase", "pull", "cherry-pick",
		"revert", "bisect", "sparse-checkout", "read-tree", "checkout-index", "rerere"} {
		m[s] = &gitTreeWriter{writes: whole}
	}
	return m
}()

// gitCloneConfig reports whether the words of git clone set a configuration of the
// new repository (-c, --config, abbreviated or in a cluster), which may name a
// command its checkout runs.
func gitCloneConfig(words []string) bool {
	for _, w := range words {
		switch {
		case w == "--":
			return false
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w[2:], "=")
			if len(name) >= 2 && strings.HasPrefix("config", name) {
				return true
			}
		case len(w) > 1 && w[0] == '-' && strings.IndexByte(w, 'c') > 0:
			return true
		}
	}
	return false
}

// gitApplyOnlyCounts reports whether git apply's words only print what its patch
// changes (--stat, --numstat, --summary without --apply, --check or --index).
func gitApplyOnlyCounts(words []string) bool {
	return containsWord(words, "--stat", "--numstat", "--summary") &&
		!containsWord(words, "--apply", "--check", "--index", "--cached", "--3way", "-3")
}

// gitRunners are the git subcommands that run commands their words or settings give:
// filter scripts, mail and credential programs, servers, a browser, hooks.
var gitRunners = map[string]bool{"filter-branch": true, "filter-repo": true,
	"send-email": true, "instaweb": true, "web--browse": true, "for-each-repo": true,
	"hook": true}

// gitRuns records that git runs a command, because of what.
func (u *usage) gitRuns(what string) {
	if u.runsCmd == "" {
		u.runsCmd = "git " + what + " runs a command"
	}
}

// gitQuiet is what a git subcommand of the allow-list may be given and still read
// only the paths its words name, printing names, messages and states: the long
// options (exact names), the short letters, the letters whose value is the rest of
// their word (-n5, -uno, -mMSG), and, when set, the words that may follow it as its
// own subcommand (stash list; none given is fine).
type gitQuiet struct {
	long  map[string]bool
	short string
	value string
	subs  map[string]bool
}

// gitReadsOnly reports whether git SUB, given the words after it, is on the
// allow-list of gitQuiets: a subcommand there, every option up to "--" one it
// lists, and its own subcommand one it lists. Anything else (git show, add -p,
// notes show, merge-tree, an alias) may print or copy files it does not name.
func gitReadsOnly(sub string, words []string) bool {
	q := gitQuiets[sub]
	if q == nil {
		return false
	}
	if q.subs != nil && len(words) > 0 && !strings.HasPrefix(words[0], "-") &&
		!q.subs[words[0]] {
		return false
	}
	for _, w := range words {
		switch {
		case w == "--":
			return true
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w[2:], "=")
			if !q.long[name] {
				return false
			}
		case len(w) > 1 && w[0] == '-':
			for j := 1; j < len(w); j++ {
				if strings.IndexByte(q.short, w[j]) < 0 {
					return false
				}
				if strings.IndexByte(q.value, w[j]) >= 0 {
					break // the rest is its value
				}
			}
		}
	}
	return true
}

// gitQuiets is the allow-list of git subcommands that read only what their words
// name (docs/design.md, "Path arguments"): every other subcommand, and any option
// a subcommand's entry does not list, reads the repository.
var gitQuiets = func() map[string]*gitQuiet {
	q := func(short, value string, long ...string) *gitQuiet {
		return &gitQuiet{long: setOf(long...), short: short, value: value}
	}
	logLong := []string{"oneline", "format", "pretty", "abbrev-commit", "no-abbrev-commit",
		"abbrev", "no-abbrev", "decorate", "no-decorate", "decorate-refs",
		"decorate-refs-exclude", "source", "graph", "all", "branches", "tags", "remotes",
		"glob", "exclude", "author", "committer", "grep", "all-match", "invert-grep",
		"regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings",
		"perl-regexp", "since", "after", "until", "before", "max-count", "skip", "merges",
		"no-merges", "min-parents", "max-parents", "first-parent", "reverse", "date",
		"relative-date", "topo-order", "date-order", "author-date-order", "no-walk",
		"boundary", "left-right", "cherry-mark", "cherry-pick", "left-only", "right-only",
		"ancestry-path", "simplify-by-decoration", "parents", "children", "color",
		"no-color", "no-patch", "walk-reflogs", "follow", "full-history", "no-notes",
		"no-show-signature", "mailmap", "use-mailmap", "no-mailmap",
		"numbered", "email", "group", "null", "output"}
	logShort, logValue := "0123456789niEFPgzsqw", "n"
	m := map[string]*gitQuiet{
		"status": q("sbzu", "u", "short", "branch", "porcelain", "long", "show-stash",
			"untracked-files", "ignored", "ignore-submodules", "column", "no-column",
			"ahead-behind", "no-ahead-behind", "renames", "no-renames", "find-renames",
			"null", "no-verbose"),
		"log":      q(logShort, logValue, logLong...),
		"reflog":   q(logShort, logValue, logLong...),
		"shortlog": q(logShort+"ec", "", logLong...),
		"rev-list": q(logShort, logValue, append([]string{"count", "objects", "header",
			"quiet", "objects-edge", "timestamp"}, logLong...)...),
		"stash": q(logShort+"mkuaqS", "nm", append([]string{"message", "keep-index",
			"no-keep-index", "include-untracked", "only-untracked", "quiet", "index",
			"staged", "pathspec-from-file", "pathspec-file-nul"}, logLong...)...),
		"rev-parse": q("q", "", "verify", "quiet", "short", "abbrev-ref", "symbolic",
			"symbolic-full-name", "show-toplevel", "show-prefix", "show-cdup", "git-dir",
			"absolute-git-dir", "git-common-dir", "is-inside-work-tree",
			"is-inside-git-dir", "is-bare-repository", "is-shallow-repository",
			"show-superproject-working-tree", "show-object-format", "show-ref-format",
			"branches", "tags", "remotes", "all", "glob", "exclude", "sq", "default",
			"revs-only", "no-revs", "flags", "no-flags", "since", "until", "after",
			"before", "path-format", "git-path", "local-env-vars", "resolve-git-dir"),
		"branch": q("adDmMcCfrlqtuv", "u", "list", "all", "remotes", "verbose", "quiet",
			"show-current", "delete", "move", "copy", "force", "merged", "no-merged",
			"contains", "no-contains", "points-at", "sort", "color", "no-color", "column",
			"no-column", "track", "no-track", "set-upstream-to", "unset-upstream",
			"ignore-case", "create-reflog", "abbrev", "no-abbrev"),
		"tag": q("adflmn0123456789i", "mn", "list", "annotate", "delete", "force",
			"message", "sort", "contains", "no-contains", "merged", "no-merged",
			"points-at", "column", "no-column", "color", "ignore-case", "create-reflog"),
		"remote": q("v", "", "verbose"),
		"add": q("AunvfNq", "", "all", "no-all", "update", "dry-run", "verbose", "force",
			"intent-to-add", "refresh", "ignore-errors", "ignore-missing",
			"ignore-removal", "no-ignore-removal", "renormalize", "chmod", "sparse",
			"pathspec-from-file", "pathspec-file-nul", "no-warn-embedded-repo"),
		"rm": q("rfnq", "", "cached", "force", "dry-run", "quiet", "ignore-unmatch",
			"sparse", "pathspec-from-file", "pathspec-file-nul"),
		"mv": q("fknv", "", "force", "dry-run", "verbose", "sparse"),
		"commit": q("amqsnoiFC", "mFC", "message", "all", "quiet", "amend", "no-edit",
			"signoff", "no-signoff", "allow-empty", "allow-empty-message", "author",
			"date", "file", "reuse-message", "fixup", "squash", "no-verify", "verify",
			"reset-author", "only", "include", "cleanup", "no-gpg-sign", "no-status",
			"status", "untracked-files", "trailer", "pathspec-from-file",
			"pathspec-file-nul"),
		"checkout": q("bBtfqml", "bB", "track", "no-track", "force", "quiet", "detach",
			"orphan", "merge", "ours", "theirs", "conflict", "ignore-other-worktrees",
			"guess", "no-guess", "progress", "no-progress", "pathspec-from-file",
			"pathspec-file-nul"),
		"switch": q("cCdfmqt", "cC", "create", "force-create", "detach", "guess",
			"no-guess", "force", "discard-changes", "merge", "conflict", "quiet",
			"orphan", "track", "no-track", "progress", "no-progress"),
		"restore": q("sSWqm", "s", "source", "staged", "worktree", "quiet", "ours",
			"theirs", "merge", "conflict", "ignore-unmerged", "overlay", "no-overlay",
			"pathspec-from-file", "pathspec-file-nul", "progress", "no-progress"),
		"reset": q("qN", "", "soft", "mixed", "hard", "merge", "keep", "quiet",
			"no-refresh", "refresh", "intent-to-add", "pathspec-from-file",
			"pathspec-file-nul"),
		"merge": q("mnqsvX", "msX", "no-ff", "ff", "ff-only", "message", "no-edit",
			"abort", "continue", "quit", "squash", "no-squash", "strategy",
			"strategy-option", "commit", "no-commit", "quiet", "verbose", "stat",
			"no-stat", "log", "no-log", "allow-unrelated-histories", "autostash",
			"no-autostash", "no-verify", "signoff", "no-signoff", "progress",
			"no-progress"),
		"rebase": q("iqvnsXr", "sX", "continue", "abort", "skip", "quit", "onto", "root",
			"autosquash", "no-autosquash", "autostash", "no-autostash", "quiet",
			"verbose", "interactive", "keep-base", "update-refs", "no-update-refs",
			"no-verify", "verify", "empty", "rebase-merges", "no-rebase-merges",
			"committer-date-is-author-date", "reset-author-date", "signoff", "stat",
			"no-stat", "strategy", "strategy-option", "fork-point", "no-fork-point",
			"keep-empty", "no-keep-empty", "reapply-cherry-picks", "edit-todo"),
		"cherry-pick": q("nesxmX", "mX", "no-commit", "edit", "no-edit", "signoff",
			"mainline", "continue", "abort", "skip", "quit", "ff", "allow-empty",
			"allow-empty-message", "keep-redundant-commits", "empty", "strategy",
			"strategy-option"),
		"revert": q("nesmX", "mX", "no-commit", "edit", "no-edit", "signoff", "mainline",
			"continue", "abort", "skip", "quit", "strategy", "strategy-option"),
		"fetch": q("apqvftjPnm", "j", "all", "prune", "prune-tags", "tags", "no-tags",
			"quiet", "verbose", "depth", "deepen", "shallow-since", "shallow-exclude",
			"unshallow", "force", "dry-run", "multiple", "recurse-submodules",
			"no-recurse-submodules", "jobs", "atomic", "set-upstream", "append",
			"refetch", "progress", "no-progress", "write-fetch-head",
			"no-write-fetch-head", "keep", "update-shallow"),
		"pull": q("qvrnf", "", "rebase", "no-rebase", "ff", "no-ff", "ff-only", "quiet",
			"verbose", "autostash", "no-autostash", "all", "tags", "no-tags", "depth",
			"prune", "force", "stat", "no-stat", "recurse-submodules",
			"no-recurse-submodules", "commit", "no-commit", "edit", "no-edit",
			"squash", "no-squash", "progress", "no-progress", "signoff", "no-verify"),
		"clone": q("qvnlsbj", "bj", "quiet", "verbose", "no-checkout", "bare", "mirror",
			"depth", "shallow-since", "shallow-exclude", "single-branch",
			"no-single-branch", "branch", "recurse-submodules", "shallow-submodules",
			"no-shallow-submodules", "jobs", "filter", "also-filter-submodules",
			"sparse", "no-tags", "tags", "progress", "no-progress", "local", "no-local",
			"no-hardlinks", "shared", "dissociate", "reject-shallow",
			"no-reject-shallow", "remote-submodules", "no-remote-submodules"),
		"init": q("qb", "b", "quiet", "bare", "initial-branch", "shared",
			"object-format", "ref-format"),
		"config": q("lzf", "f", "get", "get-all", "get-regexp", "get-urlmatch", "list",
			"local", "global", "system", "worktree", "file", "show-origin",
			"show-scope", "name-only", "type", "bool", "int", "bool-or-int", "path",
			"expiry-date", "default", "null", "includes", "no-includes", "unset",
			"unset-all", "add", "replace-all", "rename-section", "remove-section",
			"fixed-value", "no-type"),
		"ls-files": q("cdmoiskutvfzxX", "xX", "cached", "deleted", "modified", "others",
			"ignored", "stage", "killed", "unmerged", "exclude", "exclude-from",
			"exclude-per-directory", "exclude-standard", "error-unmatch", "full-name",
			"abbrev", "directory", "no-empty-directory", "recurse-submodules",
			"deduplicate", "format", "eol", "sparse", "resolve-undo", "with-tree"),
		"describe": q("", "", "tags", "all", "long", "abbrev", "exact-match",
			"candidates", "match", "exclude", "always", "first-parent", "contains",
			"dirty", "broken"),
		"name-rev":     q("", "", "tags", "refs", "exclude", "all", "name-only", "always"),
		"merge-base":   q("a", "", "all", "octopus", "independent", "is-ancestor", "fork-point"),
		"symbolic-ref": q("qd", "", "quiet", "short", "delete", "no-recurse"),
		"show-ref": q("dsq", "", "head", "heads", "branches", "tags", "dereference",
			"hash", "abbrev", "verify", "quiet", "exists", "exclude-existing"),
		"check-ignore": q("qvnz", "", "quiet", "verbose", "non-matching", "no-index"),
		"check-ref-format": q("", "", "normalize", "allow-onelevel",
			"no-allow-onelevel", "refspec-pattern", "branch"),
		"count-objects": q("vH", "", "verbose", "human-readable"),
		"gc":            q("q", "", "aggressive", "auto", "quiet", "prune", "no-prune", "force"),
		"prune":         q("nv", "", "dry-run", "verbose", "expire", "progress"),
		"version":       q("", "", "build-options"),
		"help":          q("agimw", "", "all", "guides", "info", "man", "web", "config"),
		"submodule": q("q", "", "quiet", "init", "recursive", "remote", "force",
			"depth", "jobs", "rebase", "merge", "checkout", "no-fetch", "cached",
			"recommend-shallow", "no-recommend-shallow", "single-branch", "reference",
			"progress", "filter", "all"),
	}
	m["stash"].subs = setOf("list", "push", "save", "pop", "apply", "drop", "clear",
		"branch", "create", "store")
	m["reflog"].subs = setOf("show", "list", "expire", "delete", "exists")
	m["remote"].subs = setOf("add", "rename", "remove", "rm", "set-head", "set-branches",
		"get-url", "set-url", "prune", "update")
	m["submodule"].subs = setOf("status", "init", "deinit", "update", "set-branch",
		"set-url", "sync", "absorbgitdirs")
	return m
}()

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func containsWord(words []string, names ...string) bool {
	for _, w := range words {
		for _, n := range names {
			if w == n {
				return true
			}
		}
	}
	return false
}

var (
	gitLong = merge(longs(kWrite, "output"), longs(kRunFlag, "ext-diff", "textconv"),
		longs(kRun, "upload-pack", "receive-pack", "exec", "extcmd", "tool"),
		longs(kVal, "format", "pretty", "author", "since", "until", "grep", "message",
			"date", "abbrev", "max-count", "skip", "branch", "depth", "origin",
			"reference", "separate-git-dir", "template", "config", "jobs", "filter",
			"upstream", "onto", "strategy", "strategy-option", "word-diff-regex"),
		longs(kRead, "file"), longs(kList, "pathspec-from-file"))
	gitSub = program{abbrev: true, long: gitLong,
		short: shorts("mnbSCMlUGOFXs", kFlag)}
	gitFormatPatch = program{abbrev: true, short: shorts("o", kWrite),
		long: merge(gitLong, longs(kWrite, "output-directory"))}
	gitRebase = program{abbrev: true, long: gitLong,
		short: merge(shorts("x", kRun), shorts("sX", kVal))}
	gitDifftool = program{abbrev: true, short: shorts("xt", kRun), long: gitLong}
	gitGrep     = program{abbrev: true, short: merge(shorts("O", kRunFlag), shorts("ef", kVal)),
		long: merge(gitLong, longs(kRunFlag, "open-files-in-pager"))}
	gitRemote = program{abbrev: true, short: shorts("u", kRun), long: merge(gitLong,
		longs(kRun, "upload-pack", "receive-pack", "exec", "remote"))}
)

// goTool reads the go command: the subcommand, then its flags (one dash or two,
// never combined).
func (u *usage) goTool() {
	words := u.words
	i := 1
	if i < len(words) && (words[i] == "-C" || words[i] == "--C") && i+1 < len(words) {
		u.set(i+1, useArg, 0)
		u.dir = i + 1
		i += 2
	} else if i < len(words) && (strings.HasPrefix(words[i], "-C=") ||
		strings.HasPrefix(words[i], "--C=")) {
		u.set(i, useArg, strings.IndexByte(words[i], '=')+1)
		i++
	}
	if i >= len(words) {
		return
	}
	sub := words[i]
	end := len(words)
	for j := i + 1; j < len(words); j++ {
		if words[j] == "-args" || words[j] == "--args" {
			end = j // the rest goes to the test binary, whose -test. flags still count
			break
		}
	}
	p := &goFlags
	switch sub {
	case "build", "test", "run", "install", "vet":
		p = &goStrict
	}
	ops := u.options(p, i+1)
	u.writesPkgs = sub == "fmt" || sub == "fix"
	if u.writesPkgs && len(ops) == 0 {
		u.writeCwd = true // the package in the directory it runs in
	}
	for _, j := range ops {
		k := pkgNone
		if j < end && sub != "get" && sub != "mod" && sub != "env" && sub != "doc" &&
			!strings.HasSuffix(words[j], ".go") {
			k = goPackage(words[j])
		}
		if k != pkgTree && k != pkgModule && j < end && (pathLike(words[j]) ||
			strings.HasSuffix(words[j], ".go")) {
			u.set(j, useArg, 0) // a pattern with "..." is read as its tree instead
			if u.writesPkgs {
				u.set(j, useWrite, 0)
			}
		}
		u.uses[j].pkg = k
	}
	u.runsPkgs = sub == "test" || sub == "run"
	if sub == "install" && u.blind == "" {
		u.blind = "go install writes its programs to GOBIN or GOPATH/bin, " +
			"which the call does not name"
	}
	if sub == "build" && !slices.ContainsFunc(words[i+1:end], isGoOutFlag) {
		u.goBuildOut(ops, end)
	}
	if sub == "env" && containsWord(words[i+1:], "-w", "--w", "-u", "--u") {
		u.risky = append(u.risky, "-w") // sets GOFLAGS, GOTOOLCHAIN, … for every later run
	}
	if sub == "generate" || sub == "tool" {
		u.risky = append(u.risky, sub)
	}
}

// goBuildOut records what go build with no -o writes: the program of a single main
// package, ./NAME for ./cmd/NAME (or the directory it runs in, NAME unknown, for
// none); several packages are built and discarded.
func (u *usage) goBuildOut(ops []int, end int) {
	var pkgs []int
	for _, j := range ops {
		if j < end {
			pkgs = append(pkgs, j)
		}
	}
	switch {
	case len(pkgs) == 0:
		u.writeCwd = true
	case len(pkgs) == 1 && !strings.Contains(u.words[pkgs[0]], "..."),
		len(pkgs) > 0 && strings.HasSuffix(u.words[pkgs[0]], ".go"):
		u.derives(pkgs[:1], deriveBase)
	}
}

// isGoOutFlag reports whether w is go build's -o flag (-o, --o, -o=F, --o=F).
func isGoOutFlag(w string) bool {
	if !strings.HasPrefix(w, "-") {
		return false
	}
	w = strings.TrimPrefix(w[1:], "-")
	return w == "o" || strings.HasPrefix(w, "o=")
}

// goPackage says what the go command's package pattern w names: a local directory
// or tree (./x, ./..., ../x/...), the module's packages (all, an import path with
// "..."), or nothing the gate looks at (an import path, std).
func goPackage(w string) pkgKind {
	local := w == "." || w == ".." || strings.HasPrefix(w, "./") ||
		strings.HasPrefix(w, "../") || strings.HasPrefix(w, "/")
	switch {
	case local && strings.Contains(w, "..."):
		return pkgTree
	case local:
		return pkgDir
	case w == "all" || strings.Contains(w, "..."):
		return pkgModule
	}
	return pkgNone
}

// treeDir returns the directory a local package pattern with "..." lists: its text
// before the component holding the first "..." ("." when that is the first).
func treeDir(pattern string) string {
	i := strings.Index(pattern, "...")
	switch j := strings.LastIndexByte(pattern[:i], '/'); j {
	case -1:
		return "."
	case 0:
		return "/"
	default:
		return pattern[:j]
	}
}

// goRunConfigs are what go test and go run run from the directory of a package and
// above: its configuration, and any Go file (x_test.go stands for every name).
var goRunConfigs = []string{"go.mod", "go.work", "~/.config/go/env", "x_test.go"}

var goFlags = program{single: true, long: merge(
	longs(kWrite, "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile",
		"mutexprofile", "trace", "outputdir", "modfile", "testlogfile", "gocoverdir",
		"fuzzcachedir"),
	longs(kRun, "exec", "toolexec", "ldflags", "gcflags", "asmflags", "gccgoflags",
		"vettool", "debug-actiongraph", "debug-trace", "overlay", "pkgdir"),
	longs(kRead, "pgo"),
	longs(kOutFlag, "c", "artifacts"), // go test -c writes p.test where it runs
	longs(kWriteVal, "fuzz"),          // into the package's testdata/fuzz
	longs(kFlag, "modcacherw", "fullpath", "args"),
	longs(kDir, "C"),
	longs(kVal, "run", "bench", "count", "timeout", "tags", "p", "parallel", "cpu",
		"benchtime", "coverpkg", "covermode", "shuffle", "list", "skip",
		"fuzztime", "fuzzminimizetime", "mod", "buildmode", "compiler", "installsuffix",
		"vet", "json", "memprofilerate", "blockprofilerate",
		"mutexprofilefraction", "benchmem", "failfast", "short", "v", "race", "cover",
		"msan", "asan", "a", "n", "x", "work", "trimpath", "buildvcs", "linkshared",
		"covervars", "f", "t", "u", "d", "m", "i"),
	longs(kRunFlag, "w"))}

// goStrict is goFlags for the subcommands that build or run code: a flag it does not
// list is risky.
var goStrict = func() program { p := goFlags; p.strict = true; return p }()

func init() {
	// Boolean go flags take no value: -v, -race, …
	for _, n := range []string{"benchmem", "failfast", "short", "v", "race", "cover", "msan",
		"asan", "a", "n", "x", "work", "trimpath", "linkshared", "json", "f", "t", "u", "d",
		"m", "i"} {
		goFlags.long[n] = kFlag
	}
	delete(goFlags.long, "w") // -w is go env's; goTool tells it
}

// find reads find's start paths, then its expression: -exec and -ok run commands
// (their words stay arguments), -delete removes what it finds, -fprint writes.
func (u *usage) find() {
	words := u.words
	i := 1
	for i < len(words) && (words[i] == "-H" || words[i] == "-L" || words[i] == "-P" ||
		strings.HasPrefix(words[i], "-O") || words[i] == "-D") {
		if words[i] == "-D" {
			i++
		} else if words[i] == "-L" {
			u.risky = append(u.risky, words[i])
			u.blind = followsLinks("find")
		}
		i++
	}
	if slices.Contains(words[i:], "-follow") && u.blind == "" {
		u.blind = followsLinks("find") // the -follow primary, as -L
	}
	var starts []int
	for ; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") || w == "(" || w == "!" || w == ")" || w == "," {
			break
		}
		starts = append(starts, i)
		u.set(i, useArg, 0)
	}
	deletes := false
	for ; i < len(words); i++ {
		w := words[i]
		switch w {
		case "-exec", "-execdir", "-ok", "-okdir":
			// The inner command gets the paths found under the start paths: it
			// may write any of them.
			u.risky = append(u.risky, w)
			deletes = true
			for i++; i < len(words) && words[i] != ";" && words[i] != "+"; i++ {
				u.set(i, useArg, 0)
			}
		case "-delete":
			u.risky = append(u.risky, w)
			deletes = true
		case "-follow":
			u.risky = append(u.risky, w)
		case "-fprint", "-fprint0", "-fls":
			u.risky = append(u.risky, w)
			if i+1 < len(words) {
				u.set(i+1, useWrite, 0)
			}
			i++
		case "-fprintf":
			u.risky = append(u.risky, w)
			if i+1 < len(words) {
				u.set(i+1, useWrite, 0)
			}
			i += 2
		case "-newer", "-anewer", "-cnewer", "-samefile":
			if i+1 < len(words) {
				u.set(i+1, useArg, 0)
			}
			i++
		case "-files0-from": // the start paths, listed in a file
			if i+1 < len(words) {
				u.set(i+1, useList, 0)
			}
			i++
		default:
			if strings.HasPrefix(w, "-newer") && len(w) == 8 {
				if i+1 < len(words) {
					u.set(i+1, useArg, 0)
				}
				i++
			} else if findValue[w] {
				i++
			}
		}
	}
	if len(starts) == 0 {
		u.readsCwd = true
		if deletes {
			u.writeCwd = true
		}
	} else if deletes {
		for _, s := range starts {
			u.set(s, useWrite, 0)
		}
	}
}

// findValue are the tests of find that take a value that is no path.
var findValue = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-regextype": true, "-type": true,
	"-xtype": true, "-maxdepth": true, "-mindepth": true, "-user": true, "-group": true,
	"-perm": true, "-size": true, "-mtime": true, "-mmin": true, "-atime": true,
	"-amin": true, "-ctime": true, "-cmin": true, "-printf": true, "-lname": true,
	"-ilname": true, "-links": true, "-inum": true, "-uid": true, "-gid": true,
	"-used": true, "-fstype": true, "-context": true,
}
