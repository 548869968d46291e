package shell

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// optSpec describes the options of a wrapper program that the parser knows.
type optSpec struct {
	short    string   // letters taking no argument
	shortArg string   // letters taking an argument, attached or as the next word
	long     []string // long options without an argument
	longArg  []string // long options taking one (--x=v or --x v)
	longOpt  []string // long options whose =value is optional
	assigns  bool     // NAME=VALUE words may follow the options
}

// skip returns the index of the first word of the wrapped command in words (a
// wrapper's words, its name first), and false when an option is not known or
// lacks its argument.
func (o *optSpec) skip(words []string) (int, bool) {
	i := 1
	for i < len(words) {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, hasVal := strings.Cut(name, "=")
			switch {
			case contains(o.long, name) && !hasVal, contains(o.longOpt, name):
				i++
			case contains(o.longArg, name) && hasVal:
				i++
			case contains(o.longArg, name):
				i += 2
			default:
				return i, false
			}
			continue
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		next := i + 1
		for j := 1; j < len(w); j++ {
			c := w[j]
			if strings.IndexByte(o.short, c) >= 0 {
				continue
			}
			if strings.IndexByte(o.shortArg, c) >= 0 {
				if j+1 == len(w) {
					next++
				}
				break
			}
			return i, false
		}
		i = next
	}
	if i > len(words) {
		return len(words), false
	}
	if o.assigns {
		for i < len(words) && isAssignWord(words[i]) {
			i++
		}
	}
	return i, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isAssignWord reports whether w has the form NAME=VALUE.
func isAssignWord(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// The options of the neutral wrappers, of sudo and doas.
var (
	envOpts = optSpec{short: "i0v", shortArg: "u", assigns: true,
		long: []string{"ignore-environment", "null", "debug"}, longArg: []string{"unset"}}
	niceOpts    = optSpec{short: "0123456789", shortArg: "n", longArg: []string{"adjustment"}}
	nohupOpts   = optSpec{}
	timeoutOpts = optSpec{short: "v", shortArg: "sk",
		long:    []string{"preserve-status", "foreground", "verbose"},
		longArg: []string{"signal", "kill-after"}}
	timeOpts    = optSpec{short: "pvq", long: []string{"portability", "verbose", "quiet"}}
	commandOpts = optSpec{short: "pvV"}
	builtinOpts = optSpec{}
	execOpts    = optSpec{short: "cl", shortArg: "a"}
	stdbufOpts  = optSpec{shortArg: "ioe", longArg: []string{"input", "output", "error"}}
	ioniceOpts  = optSpec{short: "t", shortArg: "cn", long: []string{"ignore"},
		longArg: []string{"class", "classdata"}}
	sudoOpts = optSpec{short: "AbEHknPSB", shortArg: "ugChprtTU", assigns: true,
		long: []string{"askpass", "background", "set-home", "non-interactive",
			"preserve-groups", "stdin", "bell", "reset-timestamp"},
		longArg: []string{"user", "group", "close-from", "host", "prompt", "role", "type",
			"command-timeout", "other-user"},
		longOpt: []string{"preserve-env"}}
	doasOpts = optSpec{short: "n", shortArg: "u"}
	// busybox and toybox run the applet their first word names: "busybox rm -rf x".
	multiCallOpts = optSpec{}
	xargsOpts     = optSpec{short: "0rtpx", shortArg: "IdEaLnPs",
		long: []string{"null", "no-run-if-empty", "verbose", "interactive", "exit",
			"open-tty"},
		longArg: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars",
			"max-lines", "replace", "eof", "process-slot-var"}}
)

var wrappers = map[string]*optSpec{
	"env": &envOpts, "nice": &niceOpts, "nohup": &nohupOpts, "timeout": &timeoutOpts,
	"time": &timeOpts, "command": &commandOpts, "builtin": &builtinOpts, "exec": &execOpts,
	"stdbuf": &stdbufOpts, "ionice": &ioniceOpts, "sudo": &sudoOpts, "doas": &doasOpts,
	"busybox": &multiCallOpts, "toybox": &multiCallOpts,
}

// shells are read as bash: the POSIX shells and kshs read a -c script alike, and one
// that does not parse is blind.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true,
	"ash": true, "ksh": true, "mksh": true, "lksh": true, "pdksh": true, "ksh93": true,
	"yash": true, "posh": true, "rbash": true}

// interpreters run code from a script operand, "-" or stdin, which the gate cannot
// read: such a command is never allowed by a pattern, unless it only asks for the
// version or the help. Code given inline (python3 -c, perl -e, node --eval,
// sqlite3's SQL) is opaque to the gate as well, and it may open or run anything: the
// command is blind; so is code read from its input (codeFromInput). Each names the
// short letters and long options whose value is such code, and those whose value is
// something else (a module, a directory), so that the scan for the first operand,
// the script, skips it. The filters (awk, sed, jq) are here for their code files
// only: the rest of their words is programs.go's.
var interpreters = func() map[string]*interpreter {
	python := &interpreter{code: "c", value: "WXQ", module: "m", interactive: "i"}
	perl := &interpreter{code: "eE", value: "IMmxdDF"}
	node := &interpreter{code: "ep", value: "rC", codeLong: []string{"eval", "print"},
		valueLong: []string{"require", "import", "loader", "experimental-loader",
			"env-file", "conditions", "input-type", "title", "inspect-port", "cpu-prof-dir",
			"heap-prof-dir", "redirect-warnings", "stack-size", "max-old-space-size"},
		interactive: "i", interactiveLong: []string{"interactive"}}
	bun := *node
	bun.scriptSub, bun.bare = "run", true
	awk := &interpreter{filter: true, file: "fEi", fileLong: []string{"file", "exec",
		"include"}, value: "vFl", valueLong: []string{"assign", "field-separator", "load"}}
	pwsh := &interpreter{single: true, fold: true,
		codeLong: []string{"command", "c", "encodedcommand", "e", "ec"},
		fileLong: []string{"file", "f"},
		valueLong: []string{"executionpolicy", "ex", "ep", "workingdirectory", "wd",
			"configurationname", "config", "outputformat", "of", "o", "inputformat", "if",
			"in", "windowstyle", "w", "custompipename", "settingsfile", "settings"},
		interactiveLong: []string{"noexit", "noe", "interactive", "i"}}
	sed := &interpreter{filter: true, file: "f", fileLong: []string{"file"}, value: "el",
		valueLong: []string{"expression", "line-length"}}
	return map[string]*interpreter{"python": python, "python2": python, "python3": python,
		"perl": perl, "ruby": {code: "e", value: "IrEFCxK0"}, "node": node, "nodejs": node,
		"bun": &bun, "php": {code: "rBRE", value: "cdzt", file: "f", interactive: "a"},
		"lua": {code: "e", value: "l", interactive: "i"},
		"deno": {codeSub: "eval", scriptSub: "run", value: "c", valueLong: []string{
			"config", "import-map", "lock", "cert", "location", "seed", "v8-flags"}},
		"tclsh": {}, "Rscript": {code: "e", codeLong: []string{"expr"}, bare: true},
		"osascript": {code: "e", value: "ls", interactive: "i"},
		"pwsh":      pwsh, "powershell": pwsh,
		"sqlite3": {single: true, database: true, codeLong: []string{"cmd"},
			fileLong: []string{"init"}, valueLong: []string{"separator", "newline",
				"nullvalue", "vfs", "maxsize", "mmap", "pagecache", "lookaside", "heap"}},
		"awk": awk, "gawk": awk, "mawk": awk, "nawk": awk,
		"sed": sed, "gsed": sed,
		"jq": {filter: true, file: "f", fileLong: []string{"from-file"}, value: "L",
			valueLong: []string{"arg", "argjson", "slurpfile", "rawfile", "indent"}},
	}
}()

// Interpreters returns the programs the parser reads as interpreters, sorted: those
// that run code from a script, inline or from their input, and the filters (awk, sed,
// jq) that read a program from a file (docs/design.md, "Shell commands").
func Interpreters() []string { return slices.Sorted(maps.Keys(interpreters)) }

// Filter reports whether Interpreters' name reads its code inline unless an option
// names a file of it (awk -f, sed -f, jq -f); false for the others.
func Filter(name string) bool { return interpreters[name] != nil && interpreters[name].filter }

// interpreter is what the parser knows of an interpreter's options (interpreters).
type interpreter struct {
	code, value         string   // short letters: code follows; another value follows
	codeLong, valueLong []string // long options, likewise
	codeSub             string   // a subcommand whose operand is code (deno eval)
	file                string   // short letters whose value is the file of its code
	fileLong            []string // long options, likewise (php -f, awk -f, sed --file)
	module              string   // short letters whose value names the code (python -m)
	// interactive and interactiveLong read code from the input after the script
	// (python -i, pwsh -NoExit).
	interactive     string
	interactiveLong []string
	scriptSub       string // the subcommand whose first operand is the script (deno run)
	bare            bool   // given no script it runs no code (Rscript, bun: a usage)
	filter          bool   // its code is inline, decided in programs.go (awk, sed, jq)
	database        bool   // its first operand is a database, its code the rest (sqlite3)
	single          bool   // long options take one dash (sqlite3 -cmd, pwsh -Command)
	fold            bool   // options are read in any case (pwsh)
}

// codeSource is where an interpreter's or a shell's words say its code comes from.
type codeSource struct {
	inline string // the word giving code inline (-c, --eval, deno eval), or ""
	script string // its script operand or code file (-f F), "" when none
	// stdin: it reads code from its standard input: no script (and not bare), or
	// asked to read more (python -i).
	stdin bool
}

// code records a code file: the first that names an input counts.
func (src *codeSource) code(name string) {
	if src.script == "" || inputName(src.script) == notInput {
		src.script = name
	}
}

// source reads the words after the program (codeSource).
func (in *interpreter) source(words []string) codeSource {
	var src codeSource
	if in.codeSub != "" && len(words) > 0 && words[0] == in.codeSub {
		return codeSource{inline: words[0]}
	}
	if in.scriptSub != "" && len(words) > 0 && words[0] == in.scriptSub {
		words = words[1:]
	} else if in.scriptSub != "" && len(words) > 0 && !strings.HasPrefix(words[0], "-") &&
		!strings.ContainsAny(words[0], "./") {
		return codeSource{script: words[0]} // another subcommand (deno fmt, bun install)
	}
	named := false // the script, a module or a code file is named
	for i := 0; i < len(words); i++ {
		w := words[i]
		var opt string
		switch {
		case w == "--":
			if i+1 < len(words) && !in.filter && !named {
				src.script, named = words[i+1], true
			}
			i = len(words)
			continue
		case len(w) < 2 || w[0] != '-':
			if in.database && !named {
				named = true // the database; the SQL and dot-commands follow, or stdin
				if i+1 >= len(words) {
					src.stdin = true
				} else if src.inline == "" {
					src.inline = words[i+1]
				}
				i = len(words)
			} else if !in.filter && !named {
				src.script, named = w, true
				i = len(words) // its own words follow
			}
			continue
		case in.single:
			opt = strings.TrimLeft(w, "-")
		case strings.HasPrefix(w, "--"):
			opt = w[2:]
		}
		if opt != "" {
			name, val, hasVal := strings.Cut(opt, "=")
			if in.fold {
				name = strings.ToLower(name)
			}
			value := func() string {
				if !hasVal && i+1 < len(words) {
					i++
					val = words[i]
				}
				return val
			}
			switch {
			case contains(in.codeLong, name):
				if src.inline == "" {
					src.inline = w
				}
				value()
			case contains(in.fileLong, name):
				src.code(value())
				named = true
			case contains(in.valueLong, name):
				value()
			case contains(in.interactiveLong, name):
				src.stdin = true
			}
			continue
		}
		for j := 1; j < len(w); j++ {
			c := w[j]
			if strings.IndexByte(in.interactive, c) >= 0 {
				src.stdin = true
			}
			if strings.IndexByte(in.code+in.file+in.module+in.value, c) < 0 {
				continue
			}
			val := w[j+1:]
			if val == "" && i+1 < len(words) {
				i++
				val = words[i]
			}
			switch {
			case strings.IndexByte(in.code, c) >= 0:
				if src.inline == "" {
					src.inline = w
				}
			case strings.IndexByte(in.file, c) >= 0:
				src.code(val)
				named = true
			case strings.IndexByte(in.module, c) >= 0:
				src.script, named = val, true
				i = len(words) // the module's own words follow
			}
			break
		}
	}
	if !named && src.inline == "" && !in.filter && !in.bare {
		src.stdin = true
	}
	return src
}

// Kinds of a name a program may read code from (inputName).
const (
	notInput   = iota // a file the file rules decide
	stdinInput        // its standard input: -, /dev/stdin, /dev/fd/0, /proc/self/fd/0
	otherInput        // a descriptor or device: /dev/fd/3, /proc/N/fd/N, /dev/tcp/…
)

// inputName says whether a script operand or code file names an input rather than
// a file: one of the kinds above. /dev/null is a file (empty).
func inputName(name string) int {
	switch name {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return stdinInput
	case "/dev/null":
		return notInput
	}
	clean := path.Clean(name)
	if clean == "/dev" || clean == "/proc" || strings.HasPrefix(clean, "/dev/") ||
		strings.HasPrefix(clean, "/proc/") {
		return otherInput
	}
	return notInput
}

// codeFromInput says why the code an interpreter or a shell runs (src) comes from
// its input — a pipe, a here-document or here-string, what the caller gave, a
// descriptor, "-", /dev/stdin — which the gate cannot see, or "" when it names a
// file: a script operand or code file, or standard input from a literal < FILE.
func (w *walker) codeFromInput(prog string, src codeSource) string {
	k := inputName(src.script)
	switch {
	case src.script != "" && k == otherInput:
		return prog + " reads its code from " + src.script
	case (src.stdin || k == stdinInput) && !w.stdinFile:
		return prog + " reads its code from standard input"
	}
	return ""
}

// onlyAsksVersion reports whether the words after the program are nothing but
// --version, -V, --help or -h, and at least one.
func onlyAsksVersion(words []string) bool {
	for _, w := range words {
		if w != "--version" && w != "-V" && w != "--help" && w != "-h" {
			return false
		}
	}
	return len(words) > 0
}

// maxWrappers is how many wrappers may nest in one command before it is unknown.
const maxWrappers = 16

// analyse fills in the program and forms of a simple command from its words, unwraps
// its wrappers, records a cd and parses sh -c scripts, then emits it.
func (w *walker) analyse(cmd *Command, lits []bool, wordOf []int) {
	if !cmd.Literal {
		cmd.unknown("a word is not literal")
	}
	words := cmd.Words
	for i, word := range words {
		if lits[i] && LookAlikeOption(word) {
			cmd.blind("the option " + strconv.Quote(word) + " has look-alike letters")
			break
		}
	}
	if lits[0] {
		cmd.Program = ProgramName(words[0])
	} else {
		cmd.unknown("the program is not literal")
	}
	sudoAt := -1
	var script string
	var scriptDelegated, runsScript bool
	var cdWords []string // the words of a cd, pushd or popd, applied once cmd is emitted
	var cdLits []bool
	start := 0
	for n := 0; ; n++ {
		cur, curLits := words[start:], lits[start:]
		cmd.Forms = append(cmd.Forms, Form{Text: formText(cur)})
		if !curLits[0] {
			cmd.unknown("the program is not literal")
			cmd.blind("the program is not literal")
			break
		}
		if n == maxWrappers {
			cmd.unknown("too many wrappers")
			break
		}
		prog := ProgramName(cur[0])
		if spec := wrappers[prog]; spec != nil {
			if prog == "sudo" || prog == "doas" {
				if sudoAt < 0 {
					sudoAt = len(cmd.Forms) - 1
				}
			}
			i, ok := spec.skip(cur)
			if ok && spec.assigns && w.riskyAssigns(prog, cur[1:i], cmd) {
				break
			}
			if ok && prog == "command" && slices.ContainsFunc(cur[1:i], func(o string) bool {
				return o != "--" && strings.ContainsAny(o, "vV")
			}) {
				break // command -v NAME only looks NAME up
			}
			if ok && prog == "timeout" {
				i++ // the duration
				ok = i <= len(cur)
			}
			if !ok {
				cmd.unknown("an option of " + prog + " is not known")
				break
			}
			if i >= len(cur) {
				break // no wrapped command
			}
			start += i
			continue
		}
		switch {
		case shells[prog]:
			s, lit, optsOK, isC := shellScript(cur, curLits)
			switch {
			case !isC:
				cmd.unknown(prog + " runs a script the gate cannot read")
				if why := w.codeFromInput(prog, shellSource(cur)); why != "" {
					cmd.blind(why)
				}
			case !lit:
				cmd.unknown("the -c script of " + prog + " is not literal")
				cmd.blind("the -c script of " + prog + " is not literal")
			case !optsOK:
				// Its rc files run too; the script's own commands still count.
				cmd.unknown("an option of " + prog + " is not known")
				script, runsScript = s, true
			default:
				script, runsScript = s, true
			}
		case interpreters[prog] != nil && !onlyAsksVersion(cur[1:]):
			in := interpreters[prog]
			src := in.source(cur[1:])
			switch why := w.codeFromInput(prog, src); {
			case src.inline != "" && !in.filter:
				cmd.blind(prog + " " + src.inline + " runs inline code the gate cannot follow")
			case why != "":
				cmd.blind(why)
			case !in.filter:
				cmd.unknown(prog + " runs code the gate cannot read")
			}
		case prog == "eval":
			cmd.unknown("eval")
			script, runsScript, scriptDelegated = strings.Join(cur[1:], " "), true, true
		case prog == "trap" && len(cur) >= 3 && cur[1] != "" && cur[1] != "-" &&
			!strings.HasPrefix(cur[1], "-"):
			cmd.unknown("trap runs a command later")
			script, runsScript, scriptDelegated = cur[1], true, true
		case prog == "source" || prog == ".":
			cmd.unknown(prog + " runs a script the gate cannot read")
		case prog == "xargs":
			cmd.unknown("xargs runs a command whose arguments are not known")
			cmd.blind("xargs takes the arguments of its command from its input")
			if i, ok := xargsOpts.skip(cur); ok && i < len(cur) {
				cmd.Forms = append(cmd.Forms, Form{Text: formText(cur[i:])})
			}
		case prog == "find":
			for _, inner := range findExecs(cur) {
				cmd.unknown("find -exec runs a command whose arguments are not known")
				cmd.Forms = append(cmd.Forms, Form{Text: formText(inner)})
			}
		case prog == "printf" || prog == "read" || prog == "mapfile" || prog == "readarray" ||
			prog == "getopts":
			name := setsVar(prog, cur)
			if name != "" {
				w.noteAssign(name, "")
				cmd.unknown("assigns " + name)
			}
			if prog == "printf" {
				w.runs(name)
			} else {
				for _, v := range cur[1:] { // read -r a PATH: any operand may be one
					w.runs(v)
				}
			}
		case prog == "alias" || prog == "unalias" || prog == "shopt" || prog == "enable" ||
			prog == "hash" || prog == "declare" || prog == "typeset":
			// A name no longer runs the program of that name (alias, hash -p,
			// enable -f), or the words mean something else (shopt expand_aliases).
			cmd.unknown(prog + " changes what names run")
		case prog == "set" && setsKeyword(cur):
			cmd.unknown("set -k makes later words assignments")
		case prog == "cd" || prog == "pushd" || prog == "popd":
			cdWords, cdLits = cur, curLits
		}
		break
	}
	if !cmd.Literal && !literalUpTo(lits, start) || !cmd.Literal && (runsScript ||
		start >= len(words) || !slices.Contains(noFilePrograms, ProgramName(words[start]))) {
		// An expansion may split into other words: options, paths, a program.
		cmd.blind("a word is not literal")
	}
	if runsScript && scriptDelegated && sudoAt < 0 {
		cmd.args = nil // eval and trap: the script's own commands name its paths
	}
	if !runsScript && start < len(words) {
		cmd.uses(classify(words[start:]), start, wordOf)
		if wi := wordOf[start]; start > 0 && wi > 0 && strings.Contains(words[start], "/") {
			cmd.argUses[wi-1].use = useArg // a wrapped program given as a path: env ./x
		}
	} else if runsScript {
		cmd.argUses = make([]wordUse, len(cmd.args)) // its script names its own paths
	}
	if !cmd.Unknown {
		switch {
		case sudoAt >= 0:
			cmd.Forms[sudoAt].Allow = true
			scriptDelegated = true
		case runsScript:
			cmd.Delegated = true
		default:
			cmd.Forms[len(cmd.Forms)-1].Allow = true
		}
	} else if sudoAt >= 0 {
		scriptDelegated = true
	}
	w.emit(*cmd)
	switch {
	case cdWords == nil:
	case ProgramName(cdWords[0]) == "cd":
		w.cd(cdWords, cdLits)
	default:
		w.dirKnown = false
	}
	if runsScript {
		if w.depth+1 >= MaxDepth {
			w.emit(Command{Words: []string{script}, Unknown: true,
				Why: "sh -c scripts nest too deep", Blind: "sh -c scripts nest too deep"})
			return
		}
		if err := w.script(script, w.depth+1, scriptDelegated); err != nil {
			w.emit(Command{Words: []string{script}, Unknown: true, Why: err.Error(),
				Blind: err.Error(), Delegated: scriptDelegated || w.delegated})
		}
	}
}

// literalUpTo reports whether the words up to and with words[start] are literal.
func literalUpTo(lits []bool, start int) bool {
	for i := 0; i <= start && i < len(lits); i++ {
		if !lits[i] {
			return false
		}
	}
	return true
}

// riskyAssigns marks cmd unknown when env or sudo (prog) assigns a variable
// harmlessVar does not list, or gives one a path, and blind when the variable may
// change what the command runs (runnerVar).
func (w *walker) riskyAssigns(prog string, words []string, cmd *Command) bool {
	for _, a := range words {
		name, value, ok := strings.Cut(a, "=")
		if !ok || !isAssignWord(a) {
			continue
		}
		w.noteAssign(name, "")
		if runnerVar(name) && (name != "IFS" || value != "") {
			cmd.blind(prog + " assigns " + name +
				", which may change what the command runs")
		}
		if !harmlessVar(name) || !harmlessValue(value) {
			cmd.unknown("assigns " + name)
			return true
		}
	}
	return false
}

// Shell options that keep sh -c SCRIPT the script it says: -o and -O names that only
// change error handling, tracing and globbing.
var (
	shellSetOpts = map[string]bool{"pipefail": true, "errexit": true, "nounset": true,
		"xtrace": true, "noglob": true, "verbose": true, "noclobber": true, "posix": true,
		"noexec": true}
	shellShoptOpts = map[string]bool{"globstar": true, "dotglob": true, "nullglob": true,
		"failglob": true, "extglob": true, "nocaseglob": true, "nocasematch": true}
)

// shellScript returns the script of sh -c SCRIPT ("" when there is none); isC is
// false when the words hold no -c, lit when the script is not literal. optsOK is
// false when an option is not known or may make the shell run other code (-l,
// --login, -i, --rcfile, -k, -o keyword, -O extdebug, …).
func shellScript(words []string, lits []bool) (script string, lit, optsOK, isC bool) {
	i := 1
	ok := true
	for ; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if w == "-o" || w == "+o" || w == "-O" || w == "+O" {
			i++
			if i >= len(words) || !lits[i] {
				ok = false
			} else if known := shellSetOpts; w[1] == 'O' && !shellShoptOpts[words[i]] ||
				w[1] == 'o' && !known[words[i]] {
				ok = false
			}
			continue
		}
		if strings.HasPrefix(w, "--") {
			if !contains([]string{"--norc", "--noprofile", "--posix", "--noediting"}, w) {
				ok = false
			}
			continue
		}
		if len(w) < 2 || (w[0] != '-' && w[0] != '+') {
			break
		}
		for j := 1; j < len(w); j++ {
			switch {
			case w[j] == 'c':
				isC = true
			case strings.IndexByte("abefhmnrtuvxBCEHPT", w[j]) < 0:
				ok = false
			}
		}
	}
	switch {
	case !isC:
		return "", false, false, false
	case i >= len(words):
		return "", true, ok, true // nothing to run
	case !lits[i]:
		return "", false, ok, true
	}
	return words[i], true, ok, true
}

// shellSource reads where a shell without -c takes its script (codeSource): its
// first operand, else (and under -s) its standard input.
func shellSource(words []string) codeSource {
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			if i+1 < len(words) {
				return codeSource{script: words[i+1]}
			}
			return codeSource{stdin: true}
		case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" ||
			w == "--init-file":
			i++
		case strings.HasPrefix(w, "--"):
		case len(w) > 1 && (w[0] == '-' || w[0] == '+'):
			if strings.IndexByte(w[1:], 's') >= 0 {
				return codeSource{stdin: true}
			}
		default:
			return codeSource{script: w}
		}
	}
	return codeSource{stdin: true}
}

// findExecs returns the commands of find's -exec, -execdir, -ok and -okdir actions.
func findExecs(words []string) [][]string {
	var out [][]string
	for i := 1; i < len(words); i++ {
		switch words[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(words) && words[j] != ";" && words[j] != "+" {
			j++
		}
		if j > i+1 {
			out = append(out, words[i+1:j])
		} else {
			out = append(out, []string{words[i]})
		}
		i = j
	}
	return out
}

// uses records the usage of the command's innermost form, which starts at
// Words[start]; wordOf maps each word to its syntax word.
func (c *Command) uses(u *usage, start int, wordOf []int) {
	c.Risky = u.risky
	if u.runsCmd != "" {
		c.unknown(u.runsCmd)
	}
	if u.blind != "" {
		c.blind(u.blind)
	}
	c.configs = configPrograms[ProgramName(u.words[0])]
	c.repo = u.repo
	c.worktree = u.writesRepo
	c.writes = u.writesPkgs
	if c.runs = u.runsPkgs; c.runs {
		c.configs = goRunConfigs
	}
	c.unknownProg = u.unknown
	c.argUses = make([]wordUse, len(c.args))
	for j, fu := range u.uses {
		wi := wordOf[start+j]
		if wi == 0 || wi > len(c.argUses) {
			continue
		}
		if fu.rel > 0 {
			// The word it is relative to, as an index into args + 1.
			if ri := wordOf[start+fu.rel-1]; ri > 0 {
				fu.rel = ri
			} else {
				fu.rel, fu.relDir = 0, false
			}
		}
		au := &c.argUses[wi-1]
		d := max(au.derive, fu.derive)
		if fu.use > au.use {
			*au = fu
		} else if fu.pkg > au.pkg {
			au.pkg = fu.pkg
		}
		au.derive = d
	}
	if u.dir == 0 {
		c.readsCwd, c.writesCwd = u.readsCwd, u.writeCwd
	} else if wi := wordOf[start+u.dir]; wi > 0 {
		c.dirArg = wi
	}
}

// setsKeyword reports whether the words of set turn on keyword (-k): assignments
// anywhere in a command's words go to its environment.
func setsKeyword(words []string) bool {
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--" || w == "-":
			return false
		case (w == "-o" || w == "+o") && i+1 < len(words):
			if words[i+1] == "keyword" {
				return true
			}
			i++
		case len(w) > 1 && w[0] == '-' && strings.IndexByte(w, 'k') > 0:
			return true
		case len(w) == 0 || w[0] != '-' && w[0] != '+':
			return false
		}
	}
	return false
}

// setsVar returns the first variable harmlessVar does not list that a builtin
// assigning variables (printf -v, read, mapfile, readarray, getopts) sets, or "";
// an array (read -a, mapfile) is never harmless.
func setsVar(prog string, words []string) string {
	for i := 1; i < len(words); i++ {
		w := words[i]
		var name string
		switch {
		case prog == "printf" && w == "-v" && i+1 < len(words):
			name = words[i+1]
		case prog == "printf" && strings.HasPrefix(w, "-v"):
			name = w[2:]
		case prog == "printf":
			continue
		case strings.HasPrefix(w, "-") && strings.ContainsAny(w, "aA") && prog == "read":
			return "an array"
		case strings.HasPrefix(w, "-"):
			continue
		default:
			name = w // read NAME…, mapfile NAME, getopts OPTSTRING NAME: any word may be one
		}
		if !harmlessVar(name) {
			return name
		}
	}
	return ""
}
