package shell

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Parse splits a bash script into its simple commands (see the package doc). It
// never fails: a script that does not parse or is longer than MaxScript is one
// unknown command with no forms, and Script.Err says why. It is safe for
// concurrent use and touches no file.
func Parse(script string) (s Script) {
	defer func() {
		// A parser bug must not take the gate down: the script becomes unknown.
		if r := recover(); r != nil {
			s = unknownScript(script, fmt.Errorf("shell: parser failed: %v", r))
		}
	}()
	if len(script) > MaxScript {
		return unknownScript(script, fmt.Errorf("shell: script is %d bytes, over the limit of %d",
			len(script), MaxScript))
	}
	w := &walker{dirs: []string{""}, dirKnown: true}
	if err := w.script(script, 0, false); err != nil {
		return unknownScript(script, err)
	}
	return Script{Commands: w.cmds, homeSet: w.homeSet}
}

func unknownScript(script string, err error) Script {
	return Script{
		Commands: []Command{{Words: []string{script}, Unknown: true, Why: err.Error(),
			Blind: err.Error()}},
		Err: err,
	}
}

// parsers holds bash parsers for reuse: a Parser is not safe for concurrent use,
// and making one costs more than parsing a short script.
var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// walker collects the commands of a script in the order they appear.
type walker struct {
	cmds      []Command
	depth     int        // how many sh -c scripts enclose the one being walked
	delegated bool       // the script being walked runs under sudo or eval
	inLoop    int        // > 0 inside a loop or function body: a cd there moves unknowably
	redirs    []Redirect // redirects of the enclosing compound statements
	dirs      []string   // where the next command may run, relative to the start
	dirKnown  bool
	moved     []string // where the last literal cd may have arrived
	homeSet   bool     // the script assigns HOME somewhere: ~ is not known
	// runner says how the script changed what its later commands run (it assigns
	// PATH, LD_PRELOAD, …: runnerVar), which makes each of them blind; "" when not.
	runner string
	// cdUntrusted: the script defines a function or an alias, so a cd may not move
	// and the commands after cd DIR && may still run where it started.
	cdUntrusted bool
	// stdinFile: the standard input of the next command is a file a literal < names,
	// not a pipe, a here-document or what the caller gave (codeFromInput).
	stdinFile bool
}

func (w *walker) script(src string, depth int, delegated bool) error {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		return fmt.Errorf("shell: script does not parse: %w", err)
	}
	saveDepth, saveDel := w.depth, w.delegated
	w.depth, w.delegated = depth, delegated || w.delegated
	why, runs, defines, runner := evalRisk(f)
	if runner != "" {
		w.runs(runner)
	}
	if why != "" {
		cmd := Command{Words: []string{why}, Unknown: true, Why: why}
		if runs {
			cmd.Blind = why + " may run a command the gate cannot see"
		}
		w.emit(cmd)
	}
	if defines {
		w.cdUntrusted = true
	}
	w.stmts(f.Stmts)
	w.depth, w.delegated = saveDepth, saveDel
	return nil
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	saved, savedIn := w.redirs, w.stdinFile
	w.redirs = append(saved[:len(saved):len(saved)], w.redirects(s.Redirs)...)
	for _, r := range s.Redirs {
		if r.N == nil || r.N.Value == "0" {
			switch r.Op {
			case syntax.RdrIn:
				w.stdinFile = fileInput(r.Word)
			case syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				w.stdinFile = false
			}
		}
	}
	if s.Cmd == nil {
		if len(w.redirs) > 0 {
			w.emit(Command{Literal: true, Delegated: true})
		}
	} else {
		w.command(s.Cmd)
	}
	w.redirs, w.stdinFile = saved, savedIn
}

// fileInput reports whether the target of a < redirect is a file the file rules
// read: a literal path outside /dev and /proc (/dev/null is empty). A descriptor, a
// socket (/dev/tcp/…) or a word that is not literal is input the gate cannot see.
func fileInput(word *syntax.Word) bool {
	if !isLiteral(word) {
		return false
	}
	fields, err := wordFields(word)
	if err != nil || len(fields) != 1 {
		return false
	}
	return inputName(fields[0]) == notInput
}

func (w *walker) command(c syntax.Command) {
	switch c := c.(type) {
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.DeclClause:
		w.decl(c)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.BinaryCmd:
		w.moved = nil
		w.stmt(c.X)
		_, simple := c.X.Cmd.(*syntax.CallExpr)
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			saved := w.stdinFile
			w.stdinFile = false // the pipe
			w.stmt(c.Y)
			w.stdinFile = saved
			break
		}
		if c.Op != syntax.AndStmt || !simple || w.moved == nil || w.cdUntrusted {
			w.stmt(c.Y)
			break
		}
		// cd DIR && Y: Y runs only where the cd arrived.
		union := w.dirs
		w.dirs = w.moved
		w.stmt(c.Y)
		for _, d := range w.dirs {
			if !containsString(union, d) {
				union = append(union, d)
			}
		}
		w.dirs = union
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond)
			w.stmts(c.Then)
		}
	case *syntax.WhileClause:
		w.inLoop++
		w.stmts(c.Cond)
		w.stmts(c.Do)
		w.inLoop--
	case *syntax.ForClause:
		w.inLoop++
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				w.runs(l.Name.Value)
				if !harmlessVar(w.noteAssign(l.Name.Value, l.Name.Value)) {
					w.emit(Command{Words: []string{"for " + l.Name.Value}, Unknown: true,
						Why: "assigns " + l.Name.Value})
				}
			}
			for _, word := range l.Items {
				w.substs(word)
			}
		case *syntax.CStyleLoop:
			w.substs(l)
			w.emit(Command{Words: []string{"for (( … ))"}, Unknown: true, Why: "arithmetic"})
		}
		w.stmts(c.Do)
		w.inLoop--
	case *syntax.CaseClause:
		w.substs(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.substs(p)
			}
			w.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		// A call of the name runs the body, not the program of that name, and cd
		// tracking no longer holds once cd may be one.
		name := "" // the parser may give none ("()0")
		if c.Name != nil {
			name = c.Name.Value
		}
		w.emit(Command{Words: []string{name + "()"}, Unknown: true,
			Why: "defines the function " + name})
		w.inLoop++
		if c.Body != nil {
			w.stmt(c.Body)
		}
		w.inLoop--
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	case *syntax.CoprocClause:
		if c.Name != nil {
			w.substs(c.Name)
			w.runs(printNode(c.Name))
			w.emit(Command{Words: []string{"coproc " + printNode(c.Name)}, Unknown: true,
				Why: "assigns an array " + printNode(c.Name)})
		}
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	case *syntax.TestClause:
		w.test(c)
	case *syntax.ArithmCmd:
		w.opaque(c, "arithmetic")
	case *syntax.LetClause:
		w.opaque(c, "arithmetic")
	default:
		w.opaque(c, "construct the gate does not read")
		w.cmds[len(w.cmds)-1].Blind = "a construct the gate does not read"
	}
}

// evalRisk says why an expansion of f may run code that the gate does not see, or
// "": arithmetic that names a variable (bash evaluates a variable's value as an
// expression, and a[$(cmd)] in it runs cmd) — $(( )), (( )), let, for (( )), a
// subscript, a ${x:off:len}, an arithmetic test of [[ ]] — an indirect ${!x}, a
// ${x@op} transformation (@P expands $( ) in the value), or a ${x:=v} assignment
// of a name harmlessVar does not list; runs reports that the expansion may run a
// command (all but the assignment). defines reports whether f defines a function
// or calls alias: then a cd may be one, and may not move. runner is a variable of
// runnerVar that a ${x:=v} assigns, or "".
func evalRisk(f *syntax.File) (why string, runs, defines bool, runner string) {
	// One captured variable: each one the closure sets is allocated.
	var r struct {
		why, runner string
		defines     bool
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset ||
				n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil &&
				runnerVar(n.Param.Value) && r.runner == "" {
				r.runner = n.Param.Value
			}
		case *syntax.FuncDecl:
			r.defines = true
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == "alias" {
				r.defines = true
			}
		}
		if r.why != "" {
			return true
		}
		switch n := n.(type) {
		case *syntax.ArithmExp:
			if namesVar(n.X) {
				r.why = "arithmetic on a variable"
			}
		case *syntax.ArithmCmd:
			if namesVar(n.X) {
				r.why = "arithmetic on a variable"
			}
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				if namesVar(x) {
					r.why = "arithmetic on a variable"
				}
			}
		case *syntax.CStyleLoop:
			if namesVar(n.Init) || namesVar(n.Cond) || namesVar(n.Post) {
				r.why = "arithmetic on a variable"
			}
		case *syntax.ParamExp:
			switch {
			case n.Excl:
				r.why = "an indirect expansion"
			case n.Index != nil && namesVar(n.Index) && !allIndex(n.Index):
				r.why = "a subscript names a variable"
			case n.Slice != nil && (namesVar(n.Slice.Offset) || namesVar(n.Slice.Length)):
				r.why = "arithmetic on a variable"
			case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps:
				r.why = "a ${x@op} transformation"
			case n.Exp != nil && (n.Exp.Op == syntax.AssignUnset ||
				n.Exp.Op == syntax.AssignUnsetOrNull) && (n.Param == nil ||
				!harmlessVar(n.Param.Value)):
				r.why = whyAssigns
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsGtr, syntax.TsLeq,
				syntax.TsGeq:
				if namesVar(n.X) || namesVar(n.Y) {
					r.why = "arithmetic on a variable"
				}
			}
		case *syntax.Assign:
			if n.Index != nil && namesVar(n.Index) {
				r.why = "a subscript names a variable"
			}
		case *syntax.ArrayElem:
			if n.Index != nil && namesVar(n.Index) {
				r.why = "a subscript names a variable"
			}
		}
		return true
	})
	return r.why, r.why != "" && r.why != whyAssigns, r.defines, r.runner
}

// whyAssigns is evalRisk's reason for an assignment in an expansion.
const whyAssigns = "assigns a variable in an expansion"

// namesVar reports whether an arithmetic expression (or a word evaluated as one)
// may name a variable: it holds a word that is not a number.
func namesVar(x syntax.Node) bool {
	if x == nil {
		return false
	}
	if w, ok := x.(*syntax.Word); ok && w == nil {
		return false
	}
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if !numericWord(w) {
				found = true
			}
			return false
		}
		return !found
	})
	return found
}

// numericWord reports whether w is a number of bash arithmetic: 12, 0x1f, 2#101.
func numericWord(w *syntax.Word) bool {
	lit := w.Lit()
	if lit == "" || lit[0] < '0' || lit[0] > '9' {
		return false
	}
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			c == '#' || c == '_' || c == '@') {
			return false
		}
	}
	return true
}

// allIndex reports whether a subscript is @ or *: every element, no arithmetic.
func allIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// opaque records node as one unknown command, after the commands of its
// substitutions.
func (w *walker) opaque(node syntax.Node, why string) {
	w.substs(node)
	w.emit(Command{Words: []string{printNode(node)}, Unknown: true, Why: why})
}

// substs walks the command substitutions and process substitutions inside node:
// they run in a subshell, without the redirects of the command holding them.
func (w *walker) substs(node syntax.Node) {
	if word, ok := node.(*syntax.Word); ok && plainWord(word) {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		var list []*syntax.Stmt
		switch n := n.(type) {
		case *syntax.CmdSubst:
			list = n.Stmts
		case *syntax.ProcSubst:
			list = n.Stmts
		default:
			return true
		}
		saved, savedIn := w.redirs, w.stdinFile
		w.redirs, w.stdinFile = nil, false
		w.stmts(list)
		w.redirs, w.stdinFile = saved, savedIn
		return false
	})
}

func (w *walker) redirects(list []*syntax.Redirect) []Redirect {
	var out []Redirect
	for _, r := range list {
		if r.Word != nil {
			w.substs(r.Word)
		}
		if r.Hdoc != nil {
			w.substs(r.Hdoc)
		}
		var write bool
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			continue
		case syntax.RdrIn:
		case syntax.DplIn, syntax.DplOut:
			if t := r.Word.Lit(); t == "-" || isDigits(t) {
				continue // a dup of a descriptor, or closing one
			}
			write = r.Op == syntax.DplOut
		default:
			write = true
		}
		op := r.Op.String()
		if r.N != nil {
			op = r.N.Value + op
		}
		rd := Redirect{Op: op, Write: write, Literal: isLiteral(r.Word), word: r.Word}
		if rd.Literal {
			fields, err := wordFields(r.Word)
			if err != nil || len(fields) != 1 {
				rd.Literal = false
				rd.Target = printNode(r.Word)
			} else {
				rd.Target = fields[0]
			}
		} else {
			rd.Target = printNode(r.Word)
		}
		if rd.Literal && exemptTargets[rd.Target] {
			continue
		}
		out = append(out, rd)
	}
	return out
}

// exemptTargets are the redirect targets that are no file of the workspace.
var exemptTargets = map[string]bool{
	"/dev/null": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true,
}

// harmlessVar reports whether assigning the variable name keeps a script allowable:
// a short list of names that only change how programs format their output (LANG,
// LC_*, TZ, NO_COLOR, TERM, COLUMNS, …). Any other name may change which program
// runs, where it finds its configuration (HOME, XDG_*, *RC) or what ~ means.
func harmlessVar(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
		"TERM", "COLUMNS", "LINES", "CI", "REPLY":
		return true
	}
	return strings.HasPrefix(name, "LC_") && isAssignWord(name+"=")
}

// harmlessValue reports whether value may be given to a harmless variable: a
// literal without a "/" (LC_ALL=/path names a file to load).
func harmlessValue(value string) bool { return !strings.ContainsRune(value, '/') }

// assignProblem says why an assignment makes its command unknown, or "": a name
// harmlessVar does not list, an array or subscript, a value that is not literal
// text or holds a "/".
func assignProblem(a *syntax.Assign) string {
	if a.Name == nil {
		return "an assignment the gate does not read"
	}
	name := a.Name.Value
	switch {
	case a.Index != nil || a.Array != nil:
		return "assigns an array " + name
	case !harmlessVar(name):
		return "assigns " + name
	case a.Value != nil && !plainWord(a.Value):
		return "assigns " + name + " a value that is not literal"
	case a.Value != nil && !harmlessValue(printNode(a.Value)):
		return "assigns " + name + " a path"
	}
	return ""
}

// runnerVars are the variables whose value changes which program a command runs,
// the code it loads or the commands it starts (docs/design.md, "Shell commands"):
// a command they are given to, and every command after a script assigns one, is
// blind. runnerPrefixes name families of them.
var (
	runnerVars = setOf("PATH", "BASH_ENV", "ENV", "IFS", "CDPATH", "SHELL", "SHELLOPTS",
		"BASHOPTS", "PROMPT_COMMAND", "PS4", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR",
		"GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_PROXY_COMMAND",
		"GIT_DIR", "GIT_WORK_TREE", "GIT_TEMPLATE_DIR", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "SSH_ASKPASS",
		"PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL", "BROWSER",
		"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT", "NODE_OPTIONS",
		"NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "GOFLAGS",
		"GOROOT", "GOTOOLCHAIN", "CC", "CXX", "MAKEFLAGS", "MAKEFILES",
		"SIMPLE_BACKUP_SUFFIX") // the name of the backups cp, mv, ln, install write
	runnerPrefixes = []string{"LD_", "DYLD_", "GIT_CONFIG_", "npm_config_", "NPM_CONFIG_",
		"BASH_FUNC_"}
)

// runnerVar reports whether assigning name may change what a command runs
// (runnerVars).
func runnerVar(name string) bool {
	if runnerVars[name] {
		return true
	}
	for _, p := range runnerPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// runnerAssign reports whether a, given to a command or the script, may change what
// runs: a name of runnerVar, but IFS set to nothing (IFS= read -r line) splits
// no word.
func runnerAssign(a *syntax.Assign) bool {
	if a.Name == nil || !runnerVar(a.Name.Value) {
		return false
	}
	if a.Name.Value == "IFS" && !a.Append && a.Index == nil && a.Array == nil &&
		(a.Value == nil || plainWord(a.Value) && printNode(a.Value) == "" ||
			printNode(a.Value) == "''" || printNode(a.Value) == `""`) {
		return false
	}
	return true
}

// runs records that the script assigns name for the commands after it, when it is
// a variable of runnerVar.
func (w *walker) runs(name string) {
	if w.runner == "" && runnerVar(name) {
		w.runner = "the script assigns " + name
	}
}

// noteAssign records that the script assigns name, and returns problem.
func (w *walker) noteAssign(name, problem string) string {
	if name == "HOME" {
		w.homeSet = true
	}
	return problem
}

func (w *walker) call(c *syntax.CallExpr) {
	var risky, runner string
	for _, a := range c.Assigns {
		w.substs(a)
		name := ""
		if a.Name != nil {
			name = a.Name.Value
		}
		switch {
		case !runnerAssign(a):
		case len(c.Args) == 0: // bare: for the script from here on
			w.runs(name)
		case runner == "":
			runner = name
		}
		if p := w.noteAssign(name, assignProblem(a)); p != "" && risky == "" {
			risky = p
		}
	}
	if len(c.Args) == 0 {
		switch {
		case risky != "":
			w.emit(Command{Words: []string{printNode(c)}, Unknown: true, Why: risky})
		case len(w.redirs) > 0:
			w.emit(Command{Literal: true, Delegated: true})
		}
		return
	}
	for _, a := range c.Args {
		w.substs(a)
	}
	cmd := Command{Literal: true, args: c.Args[1:], progWord: c.Args[0],
		Words: make([]string, 0, len(c.Args))}
	lits := make([]bool, 0, len(c.Args))
	wordOf := make([]int, 0, len(c.Args))
	for i, word := range c.Args {
		lit := isLiteral(word)
		n := len(cmd.Words)
		if lit {
			var err error
			cmd.Words, err = appendFields(cmd.Words, word)
			if err != nil {
				lit = false
				cmd.Words = cmd.Words[:n]
				cmd.unknown("word " + printNode(word) + " does not expand: " + err.Error())
			}
		}
		if !lit {
			cmd.Literal = false
			cmd.Words = append(cmd.Words, printNode(word))
		}
		if i == 0 && len(cmd.Words) != 1 {
			cmd.progWord = nil // {a,b} as a program: the first field is the program
		}
		for range len(cmd.Words) - n {
			lits = append(lits, lit)
			wordOf = append(wordOf, i)
		}
	}
	if len(cmd.Words) == 0 {
		return
	}
	if risky != "" {
		cmd.unknown(risky)
	}
	if runner != "" {
		cmd.blind("assigns " + runner + ", which may change what the command runs")
	}
	w.analyse(&cmd, lits, wordOf)
}

func (w *walker) decl(c *syntax.DeclClause) {
	cmd := Command{Literal: true, Words: []string{c.Variant.Value}}
	for _, a := range c.Args {
		w.substs(a)
		if !isLiteral(a) {
			cmd.Literal = false
		}
		switch {
		case a.Name == nil && a.Naked && a.Value != nil:
			if !harmlessDeclOption(a.Value.Lit()) {
				cmd.unknown(c.Variant.Value + " option " + printNode(a.Value))
			}
			if opt := a.Value.Lit(); len(opt) > 1 && opt[0] == '-' &&
				strings.IndexByte(opt, 'n') > 0 && w.runner == "" {
				// A name reference: assigning its name assigns any variable.
				w.runner = "the script declares a name reference"
			}
		case a.Naked && a.Name != nil:
			if !harmlessVar(w.noteAssign(a.Name.Value, a.Name.Value)) {
				cmd.unknown(c.Variant.Value + " " + a.Name.Value)
			}
		case a.Name != nil:
			if runnerAssign(a) {
				w.runs(a.Name.Value)
			}
			if p := w.noteAssign(a.Name.Value, assignProblem(a)); p != "" {
				cmd.unknown(p)
			}
		default:
			cmd.unknown(assignProblem(a))
		}
		cmd.Words = append(cmd.Words, printNode(a))
	}
	cmd.Program = c.Variant.Value
	text := formText(cmd.Words)
	if !cmd.Literal {
		cmd.unknown("a word is not literal")
	}
	cmd.Forms = []Form{{Text: text, Allow: !cmd.Unknown}}
	w.emit(cmd)
}

// harmlessDeclOption reports whether an option of declare, export, local, readonly
// or typeset leaves how values are evaluated alone: -x, -r, -g, -p, -f, -F and
// their + forms. -i (arithmetic on every assignment), -n (a name reference), -a and
// -A (arrays) and the others do not.
func harmlessDeclOption(opt string) bool {
	if len(opt) < 2 || opt[0] != '-' && opt[0] != '+' {
		return false
	}
	for i := 1; i < len(opt); i++ {
		if strings.IndexByte("xrgpfF", opt[i]) < 0 {
			return false
		}
	}
	return true
}

func (w *walker) test(c *syntax.TestClause) {
	w.substs(c)
	text := printNode(c)
	cmd := Command{Words: strings.Fields(text), Literal: isLiteral(c)}
	cmd.Program = "[["
	if !cmd.Literal {
		cmd.unknown("a word is not literal")
	}
	syntax.Walk(c.X, func(n syntax.Node) bool {
		if word, ok := n.(*syntax.Word); ok {
			cmd.args = append(cmd.args, word)
			return false
		}
		return true
	})
	cmd.Forms = []Form{{Text: strings.Join(cmd.Words, " "), Allow: !cmd.Unknown}}
	w.emit(cmd)
}

func (c *Command) unknown(why string) {
	if !c.Unknown {
		c.Unknown, c.Why = true, why
	}
}

// blind records why the gate cannot see what c runs or names (Command.Blind).
func (c *Command) blind(why string) {
	c.unknown(why)
	if c.Blind == "" {
		c.Blind = why
	}
}

// emit appends cmd with the directories and redirects in force where it runs.
func (w *walker) emit(cmd Command) {
	cmd.dirs, cmd.dirKnown = w.dirs, w.dirKnown
	cmd.Redirects = append(cmd.Redirects, w.redirs...)
	if w.runner != "" {
		cmd.blind("runs after " + w.runner + ", which may change what it runs")
	}
	if w.delegated {
		cmd.Delegated = true
	}
	w.cmds = append(w.cmds, cmd)
}

// cd moves the directories later commands may run in; a cd that may fail leaves
// the old ones possible too.
func (w *walker) cd(words []string, lits []bool) {
	args, lits := words[1:], lits[1:]
	for len(args) > 0 && (args[0] == "-L" || args[0] == "-P" || args[0] == "-e" ||
		args[0] == "-@") {
		args, lits = args[1:], lits[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args, lits = args[1:], lits[1:]
	}
	target := "~"
	switch {
	case len(args) > 1 || w.inLoop > 0:
		w.dirKnown = false
		return
	case len(args) == 1:
		target = args[0]
		if !lits[0] || target == "-" || target == "" || strings.ContainsAny(target, "*?[") ||
			(strings.HasPrefix(target, "~") && target != "~" && !strings.HasPrefix(target, "~/")) {
			w.dirKnown = false
			return
		}
	}
	next := append([]string(nil), w.dirs...)
	var moved []string
	for _, d := range w.dirs {
		nd := target
		if !path.IsAbs(target) && !strings.HasPrefix(target, "~") && d != "" {
			nd = d + "/" + target // not cleaned, as Paths resolves it
		}
		if !containsString(moved, nd) {
			moved = append(moved, nd)
		}
		if !containsString(next, nd) {
			next = append(next, nd)
		}
	}
	if len(next) > 16 {
		w.dirKnown = false
		return
	}
	w.dirs, w.moved = next, moved
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLiteral reports whether node holds no parameter expansion, substitution or
// arithmetic.
func isLiteral(node syntax.Node) bool {
	if word, ok := node.(*syntax.Word); ok && plainWord(word) {
		return true
	}
	lit := true
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			lit = false
		}
		return lit
	})
	return lit
}

// plainWord reports whether word is made of literal text and quotes only.
func plainWord(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// wordEnv keeps ~ as written: Words show what was written, and Parse reads no file.
var wordEnv = expand.FuncEnviron(func(name string) string {
	if name == "HOME" {
		return "~"
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		return "~" + user
	}
	return ""
})

// wordFields returns a literal word after brace expansion and quote removal.
func wordFields(word *syntax.Word) ([]string, error) {
	return appendFields(nil, word)
}

// appendFields appends the fields of wordFields to dst.
func appendFields(dst []string, word *syntax.Word) ([]string, error) {
	if len(word.Parts) == 1 {
		// The common words need no expansion machinery.
		switch p := word.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(p.Value, "\\{") {
				return append(dst, p.Value), nil
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return append(dst, p.Value), nil
			}
		}
	}
	if err := checkEscapes(word); err != nil {
		return dst, err
	}
	fields, err := expand.Fields(&expand.Config{Env: wordEnv}, word)
	return append(dst, fields...), err
}

// checkEscapes returns an error when a $'…' part of word holds an escape that the
// expansion library reads otherwise than bash: \cX (a control character for bash)
// and an octal escape above \377. The word is then shown as written, never as a
// text that is not what bash runs.
func checkEscapes(word *syntax.Word) error {
	for _, p := range word.Parts {
		q, ok := p.(*syntax.SglQuoted)
		if !ok || !q.Dollar {
			continue
		}
		v := q.Value
		for i := 0; i+2 < len(v); i++ {
			if v[i] != '\\' {
				continue
			}
			c := v[i+1]
			if c == 'c' || c >= '4' && c <= '7' && i+3 < len(v) && isOctal(v[i+2]) &&
				isOctal(v[i+3]) {
				return fmt.Errorf("escape %q of $'…' is not read as bash reads it", v[i:i+2])
			}
			i++ // the escaped character
		}
	}
	return nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func printNode(node syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, node); err != nil {
		return "?"
	}
	return b.String()
}
