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
	return Script{Commands: w.cmds}
}

func unknownScript(script string, err error) Script {
	return Script{
		Commands: []Command{{Words: []string{script}, Unknown: true, Why: err.Error()}},
		Err:      err,
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
	saved := w.redirs
	w.redirs = append(saved[:len(saved):len(saved)], w.redirects(s.Redirs)...)
	if s.Cmd == nil {
		if len(w.redirs) > 0 {
			w.emit(Command{Literal: true, Delegated: true})
		}
	} else {
		w.command(s.Cmd)
	}
	w.redirs = saved
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
		if c.Op != syntax.AndStmt || !simple || w.moved == nil {
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
	}
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
		saved := w.redirs
		w.redirs = nil
		w.stmts(list)
		w.redirs = saved
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

// riskyVar reports whether assigning the variable name changes which program runs
// or makes a program run other code (PATH, LD_PRELOAD, BASH_ENV, GIT_SSH_COMMAND, …).
func riskyVar(name string) bool {
	switch name {
	case "PATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"CDPATH", "PAGER", "EDITOR", "VISUAL", "BROWSER", "NODE_OPTIONS", "PYTHONPATH",
		"PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS",
		"LESSOPEN", "LESSCLOSE", "GOFLAGS", "GOTOOLCHAIN", "SSH_ASKPASS", "SUDO_ASKPASS":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "BASH_FUNC_")
}

func (w *walker) call(c *syntax.CallExpr) {
	var risky string
	for _, a := range c.Assigns {
		w.substs(a)
		if a.Name != nil && riskyVar(a.Name.Value) && risky == "" {
			risky = a.Name.Value
		}
	}
	if len(c.Args) == 0 {
		switch {
		case risky != "":
			w.emit(Command{Words: []string{printNode(c)}, Unknown: true,
				Why: "assigns " + risky})
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
		cmd.unknown("assigns " + risky)
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
		if a.Name != nil && riskyVar(a.Name.Value) {
			cmd.unknown("assigns " + a.Name.Value)
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

// emit appends cmd with the directories and redirects in force where it runs.
func (w *walker) emit(cmd Command) {
	cmd.dirs, cmd.dirKnown = w.dirs, w.dirKnown
	cmd.Redirects = append(cmd.Redirects, w.redirs...)
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
	fields, err := expand.Fields(&expand.Config{Env: wordEnv}, word)
	return append(dst, fields...), err
}

func printNode(node syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, node); err != nil {
		return "?"
	}
	return b.String()
}
