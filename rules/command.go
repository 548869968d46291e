package rules

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// commandPatternError returns the *FieldError for a rule whose command_pattern does
// not compile, or sits on a rule without an exact tool name or with a path filter.
func commandPatternError(r Rule) error {
	if _, err := shell.Compile(r.CommandPattern); err != nil {
		problem := err.Error()
		if i := strings.Index(problem, "\": "); i >= 0 {
			problem = problem[i+3:]
		}
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: problem, quote: true}
	}
	if kind, _ := parseTool(r.ToolPattern); kind != toolExact {
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: fmt.Sprintf("needs a tool_pattern naming a shell tool, not %q",
				r.ToolPattern), quote: true}
	}
	if r.PathPattern != "" {
		return &FieldError{Field: "command_pattern", Value: r.CommandPattern,
			Problem: "cannot be combined with a path_pattern", quote: true}
	}
	return nil
}

// CheckShellRule returns nil when r has no command pattern or its tool pattern names
// one of the Set's shell tools (Options.Shell), else a *FieldError wrapping
// ErrInvalidRule that names the shell tools. It assumes Validate passed.
func (s *Set) CheckShellRule(r Rule) error { return CheckShellRule(r, s.opt.Shell) }

// CheckShellRule is Set.CheckShellRule for the shell tools tools (nil: DefaultShell).
func CheckShellRule(r Rule, tools []ShellTool) error {
	if r.CommandPattern == "" {
		return nil
	}
	if tools == nil {
		tools = DefaultShell
	}
	names := make([]string, len(tools))
	for i, st := range tools {
		names[i] = st.Tool
	}
	return onlyFor("command_pattern", r.CommandPattern, "shell", r.ToolPattern, names)
}

// onlyFor returns nil when tool is one of names, else the *FieldError of the field
// holding value: it only applies to the kind tools (shell, web).
func onlyFor(field, value, kind, tool string, names []string) error {
	if slices.Contains(names, tool) {
		return nil
	}
	return &FieldError{Field: field, Value: value,
		Problem: fmt.Sprintf("only applies to the %s tools (%s), not %q", kind,
			strings.Join(names, ", "), tool), quote: true}
}

// ShellTool returns the shell tool of Options.Shell named tool, and whether there
// is one.
func (s *Set) ShellTool(tool string) (ShellTool, bool) {
	if i := s.tools[tool].shell; i > 0 {
		return s.opt.Shell[i-1], true
	}
	return ShellTool{}, false
}

// command reports whether the command pattern of r matches m.cmd: a deny or require
// rule any form of it, an allow rule the form allow patterns decide.
func (m *matcher) command(r *crule) bool {
	if m.cmd == nil {
		return false
	}
	if r.action == Allow {
		return m.allowable && r.cmd.Match(m.allowText) && r.cmd.Spells(m.cmd.Risky)
	}
	return r.cmd.Denies(m.cmd)
}

// ReasonDelegated is the reason of a command its inner commands decide: an sh -c
// wrapper, or a command of a script run under sudo (CommandDecision.Delegated).
const ReasonDelegated = "decided with the other commands of its sh -c or sudo"

// CommandDecision is how one command of a script was decided.
type CommandDecision struct {
	Text   string // the command's full form; the script when it does not parse
	Action Action
	RuleID uint64 // the rule that matched, 0 when none did
	// Delegated: decided by other commands unless denied (shell.Command.Delegated);
	// then Action is Allow, RuleID 0 and Reason ReasonDelegated.
	Delegated bool
	// Risky are its options that write a file or run a program (shell.Command.Risky).
	Risky []string
	Why   string // why no command pattern may allow it, when that is so
	// Reason is why it got Action: ReasonRule, ReasonNoRule (with Why appended), or
	// what one of its paths made of it.
	Reason string
}

// ScriptDecision is how a shell script was decided: deny if any command is denied,
// allow only if every command is allowed, else require.
type ScriptDecision struct {
	Action Action
	// RuleID is the rule of the command that decided (the first denied, else the
	// first not allowed, else the first allowed); 0 when no rule matched it.
	RuleID uint64
	// Reason names the command that decided and its rule; Note is that rule's note.
	Reason   string
	Note     string
	Commands []CommandDecision
}

// decideScript decides the commands of sc, a script sent to the shell tool c.Tool,
// in tier t: each command by the first rule, in the usual order, whose filters
// match it (a rule without a command pattern matches every command). A delegated
// command counts only when denied. A script without commands is decided by the
// rules without a command pattern alone. It reads no file.
func (s *Set) decideScript(t *tier, c *Call, sc *shell.Script) ScriptDecision {
	if len(sc.Commands) == 0 {
		m := matcher{agent: c.AgentID, source: c.Source}
		d := ScriptDecision{Action: Require, Reason: "empty script: " + ReasonNoRule}
		if r := t.first(c.Tool, &m); r != nil {
			d.Action, d.RuleID, d.Reason, d.Note = r.action, r.id, "empty script: "+ReasonRule,
				r.note
		}
		return d
	}
	out := ScriptDecision{Commands: make([]CommandDecision, len(sc.Commands))}
	var notesBuf [8]string
	notes := notesBuf[:]
	if len(sc.Commands) > len(notesBuf) {
		notes = make([]string, len(sc.Commands))
	}
	deny, req, allow := -1, -1, -1
	for i := range sc.Commands {
		cmd := &sc.Commands[i]
		m := matcher{agent: c.AgentID, source: c.Source, cmd: cmd}
		m.allowText, m.allowable = cmd.AllowText()
		cd := CommandDecision{Text: commandText(cmd), Action: Require,
			Delegated: cmd.Delegated, Risky: cmd.Risky}
		if cmd.Unknown {
			cd.Why = cmd.Why
		}
		if r := t.first(c.Tool, &m); r != nil {
			cd.Action, cd.RuleID, notes[i] = r.action, r.id, r.note
		}
		cd.Reason = ReasonNoRule
		if cd.RuleID != 0 {
			cd.Reason = ReasonRule
		}
		if cmd.Delegated && cd.Action != Deny {
			// Not its rule's: the commands it runs decide it.
			cd.Action, cd.RuleID, cd.Reason, notes[i] = Allow, 0, ReasonDelegated, ""
		}
		if cd.Why != "" && cd.Action == Require {
			cd.Reason += " (" + cd.Why + ")"
		}
		out.Commands[i] = cd
		switch {
		case cd.Action == Deny && deny < 0:
			deny = i
		case cd.Action == Require && req < 0:
			req = i
		case cd.Action == Allow && allow < 0 && !cd.Delegated:
			allow = i
		}
	}
	at := allow
	switch {
	case deny >= 0:
		out.Action, at = Deny, deny
	case req >= 0:
		out.Action, at = Require, req
	default:
		out.Action = Allow
	}
	if at < 0 {
		at = 0
	}
	cd := out.Commands[at]
	out.RuleID, out.Note = cd.RuleID, notes[at]
	verb := "needs a human"
	switch cd.Action {
	case Allow:
		verb = "allowed"
	case Deny:
		verb = "denied"
	}
	var rbBuf [256]byte
	rb := rbBuf[:0]
	if out.Action == Allow && len(out.Commands) > 1 {
		rb = append(rb, "all "...)
		rb = strconv.AppendInt(rb, int64(len(out.Commands)), 10)
		rb = append(rb, " commands allowed; first "...)
	}
	rb = append(rb, "command "...)
	rb = strconv.AppendQuote(rb, cd.Text)
	if cd.RuleID != 0 {
		rb = append(rb, ' ')
		rb = append(rb, verb...)
		rb = append(rb, " by rule "...)
		rb = strconv.AppendUint(rb, cd.RuleID, 10)
	} else {
		rb = append(rb, ": "...)
		rb = append(rb, ReasonNoRule...)
	}
	out.Reason = string(rb)
	if out.Action != Allow && cd.Why != "" && cd.Action == Require {
		out.Reason += " (" + cd.Why + ")"
	}
	return out
}

// commandText is how a decision names a command: its full form, or its words when
// it has none (a script that does not parse, a redirect alone).
func commandText(c *shell.Command) string {
	if len(c.Forms) > 0 {
		return c.Forms[0].Text
	}
	if len(c.Words) > 0 {
		return strings.Join(c.Words, " ")
	}
	if len(c.Redirects) > 0 {
		return c.Redirects[0].Op + " " + c.Redirects[0].Target
	}
	return ""
}

// EvaluateShell decides a call to a shell tool of Options.Shell that has a script
// argument; ok is false for any other call. The Decision is the strictest of the
// script's commands and of the paths they name; what the gate cannot see into makes a
// locked require unless something denies (docs/design.md, "Shell commands"). The
// ScriptDecision, also in Decision.Script, lists every command with its paths'
// decisions folded in. It reads the directories globs name; safe for concurrent use.
func (s *Set) EvaluateShell(group string, c Call) (d Decision, sd ScriptDecision, ok bool) {
	st, ok := s.ShellTool(c.Tool)
	if !ok {
		return Decision{}, ScriptDecision{}, false
	}
	return s.evaluateShellTool(group, c, st)
}

// evaluateShellTool is EvaluateShell for the shell tool st of c.Tool.
func (s *Set) evaluateShellTool(group string, c Call, st ShellTool) (d Decision,
	sd ScriptDecision, ok bool) {
	v := c.Args[st.Arg]
	script, ok := v.(string)
	if !ok && v != nil {
		// A script the gate cannot read: as an unresolvable path, unless a rule denies.
		d = s.decide(s.view.Load().tier(group), &c, "", PathInvalid)
		if d.Action != Deny {
			d.Reason = st.Arg + " is not a string"
		}
		sdp := &ScriptDecision{Action: d.Action, RuleID: d.RuleID, Reason: d.Reason}
		d.Script = sdp
		return d, *sdp, true
	}
	if !ok {
		return Decision{}, ScriptDecision{}, false
	}
	sc := shell.ParseCached(script)
	unread := true // the first try reads the event queue once, in held or mark.stale
	for try := 0; ; try++ {
		v := s.view.Load()
		var mark lookMark
		d, sd, mark = s.evaluateShell(v, group, &c, st, sc, unread)
		// As in Evaluate: the patterns must have held while the paths were resolved.
		held := s.held(v)
		if mark.stale() {
			// A kept answer may have been used after an event changed it: again,
			// reading the queue first, as a try that does not count.
			unread = false
			try--
			continue
		}
		if held {
			return d, sd, true
		}
		if try == 2 {
			if d.Action != Deny {
				d = Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid,
					Paths: d.Paths, Script: d.Script}
			}
			return d, sd, true
		}
	}
}

// evaluateShell is EvaluateShell on the group's tier of view v. With unread, the
// lookup session does not read the event queue first and mark is what the caller
// checks (lookSession.begin).
func (s *Set) evaluateShell(v *view, group string, c *Call, st ShellTool, sc *shell.Script,
	unread bool) (d Decision, sd ScriptDecision, mark lookMark) {
	t := v.tier(group)
	sd = s.decideScript(t, c, sc)
	d = Decision{Action: sd.Action, RuleID: sd.RuleID, Reason: sd.Reason, Note: sd.Note}
	cmds := sd.Commands // decideScript's own: path decisions fold into them in place
	defer func() { d.Script = &sd }()
	if d.Action == Deny {
		return d, sd, mark
	}
	if strings.IndexByte(c.Cwd, 0) >= 0 || strings.IndexByte(c.WorkingDir, 0) >= 0 {
		return Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}, sd, mark
	}
	start := cmp.Or(c.Cwd, c.WorkingDir)
	var extra []shell.Path
	if st.CwdArg != "" {
		if v, has := c.Args[st.CwdArg]; has && v != nil && v != "" {
			dir, isString := v.(string)
			if !isString {
				return Decision{Action: Require, Reason: st.CwdArg + " is not a string",
					PathState: PathInvalid}, sd, mark
			}
			extra = append(extra, shell.Path{Name: dir, Dir: s.absDir(start), Command: -1})
			start = joinDir(start, dir)
		}
	}
	paths, err := sc.Paths(s.absDir(start), s.opt.Home)
	if len(extra) > 0 {
		paths = append(extra, paths...)
	}
	pd, found, mark := s.shellPaths(t, c, sc, paths, err, cmds, unread)
	if found && severity(pd) > severity(d) {
		d = pd
	}
	if d.Action != Deny {
		if wd := s.scanScripts(v, group, c, paths); severity(wd) > severity(d) {
			d = wd
		}
	}
	d.Paths = len(paths)
	return d, sd, mark
}

// scanScripts decides the arguments in paths that hold white space or a shell's
// operators or expansions, which a program may hand to a shell (ksh -c, su -c, ssh host, watch,
// busybox sh -c): as the strings of a tool outside the file classes are (argScan.str;
// docs/design.md, "Path arguments"). It returns the strictest decision, else the zero
// Decision.
func (s *Set) scanScripts(v *view, group string, c *Call, paths []shell.Path) Decision {
	var sc *argScan
	for i := range paths {
		p := &paths[i]
		if p.Access != shell.Arg || p.Problem != "" ||
			!strings.ContainsAny(p.Name, " \t\n;|&<>()$`") {
			continue
		}
		if sc == nil {
			call := *c // a copy: c itself stays off the heap for the calls without one
			sc = &argScan{e: &evaluation{s: s, v: v, group: group}, c: &call}
		}
		if sc.value(p.Name, 0) {
			break
		}
	}
	if sc == nil {
		return Decision{}
	}
	return sc.d
}

// joinDir returns dir relative to start, or dir when it is absolute or start empty.
func joinDir(start, dir string) string {
	if start == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(start, dir)
}

// absDir returns dir made absolute against the workspace root, or "" when it is
// relative and there is no root.
func (s *Set) absDir(dir string) string {
	switch {
	case filepath.IsAbs(dir):
		return filepath.Clean(dir)
	case s.opt.WorkspaceRoot == "":
		return ""
	}
	return filepath.Join(s.opt.WorkspaceRoot, dir)
}

// shellPaths decides the paths of sc (see EvaluateShell) in tier t and returns the
// strictest decision; found is false when none of them, nor err, changes anything. A
// path's decision stricter than its command's replaces that command's in cmds.
// unread and mark are evaluateShell's.
func (s *Set) shellPaths(t *tier, c *Call, sc *shell.Script, paths []shell.Path,
	err error, cmds []CommandDecision, unread bool) (d Decision, found bool, mark lookMark) {
	if err != nil {
		reason := "paths of the script cannot all be listed"
		switch {
		case errors.Is(err, shell.ErrTooManyMatches):
			reason = "globs of the script match too many paths"
		case errors.Is(err, shell.ErrUnknownDir):
			reason = "a command runs in a directory the script does not name"
		case errors.Is(err, shell.ErrUnknownPath):
			reason = "a redirect target is not literal"
		}
		// Paths the gate cannot list are paths it cannot resolve: a locked require.
		d, found = Decision{Action: Require, Reason: reason, PathState: PathInvalid}, true
	}
	type seen struct {
		full, marker string
		access       shell.Access
	}
	var doneBuf [16]seen
	done := doneBuf[:0]
	var buf [4]form
	var cache lstatCache
	cache.look.begin(s.opt.Watcher, s.opt.WorkspaceRoot, unread)
	defer func() { mark = cache.look.end() }()
	var fullBuf [256]byte
	for i := range paths {
		p := &paths[i]
		full := p.FullIn(fullBuf[:0])
		if p.Problem == "" && slices.ContainsFunc(done, func(k seen) bool {
			return k.access == p.Access && k.full == string(full) && k.marker == p.Marker
		}) {
			continue // each command's problem is its own: never skipped
		}
		k := seen{string(full), p.Marker, p.Access}
		if p.Problem == "" {
			done = append(done, k)
		}
		pd, ok := s.shellPath(t, c, sc, p, k.full, buf[:0], &cache)
		if !ok {
			continue
		}
		if !found || severity(pd) > severity(d) {
			d, found = pd, true
		}
		if p.Command >= 0 && p.Command < len(cmds) {
			cd := &cmds[p.Command]
			if severity(pd) > cmdSeverity(cd) {
				cd.Action, cd.RuleID, cd.Reason = pd.Action, pd.RuleID, pd.Reason
			}
		}
	}
	return d, found, mark
}

// cmdSeverity orders a command's decision as severity orders a call's.
func cmdSeverity(cd *CommandDecision) int {
	switch cd.Action {
	case Deny:
		return 3
	case Require:
		return 1
	}
	return 0
}

// shellPath decides one path of a script in tier t in every form a tool may open it
// (Set.forms: the OS's and a lexical ".."), the strictest form deciding: a redirect
// target or a file an option names as the file call it is, and any path by the
// guards. ok is false when the path changes nothing.
func (s *Set) shellPath(t *tier, c *Call, sc *shell.Script, p *shell.Path, full string,
	buf []form, cache *lstatCache) (Decision, bool) {
	if p.Problem != "" {
		return Decision{Action: Require, Reason: pathWhat(sc, p) + ": " + p.Problem,
			PathState: PathInvalid}, true
	}
	full = filepath.FromSlash(full)
	forms, ok := buf[:0], false
	if p.Marker != "" && filepath.IsAbs(full) {
		// The directory the command runs in, as the OS resolves it; the repository or
		// module root above it.
		if abs, problem := resolveWith(full, s.opt.WorkspaceRoot, nil, cache, nil); problem == "" {
			forms = s.appendForms(forms, []string{rootOf(abs, p.Marker, cache)})
			ok = true
		}
	} else if filepath.IsAbs(full) {
		forms, ok = s.formsCached(&Call{}, full, forms, cache)
	}
	if !ok {
		return Decision{Action: Require, Reason: pathWhat(sc, p) + ": " + ReasonBadPath,
			PathState: PathInvalid}, true
	}
	var d Decision
	found := false
	if p.Access == shell.Config {
		for _, fm := range forms {
			ft := t.at(fm.proj)
			f := s.writableConfig(t, ft, c, fm.path, p.Configs, cache)
			if f == "" && p.Tree {
				f = s.writableTree(ft, c, fm.path)
			}
			if f != "" {
				return Decision{Action: Require, Reason: pathWhat(sc, p) + " runs " + f +
					", which the agent may write", Path: fm.path, PathState: PathOK}, true
			}
		}
		return Decision{}, false
	}
	for _, f := range forms {
		pd, changes := s.shellForm(t, c, sc, p, f)
		if od := s.outward(t, c, f, pd, func(pt *tier, path string) Decision {
			d, _ := s.shellGuards(pt, c, sc, p, path, false)
			return d
		}); severity(od) > severity(pd) {
			pd, changes = od, true
		}
		if changes && (!found || severity(pd) > severity(d)) {
			d, found = pd, true
		}
	}
	return d, found
}

// rootOf returns the root of the repository or module the resolved directory dir
// lies in: the nearest directory at or above it that holds marker (".git/": a
// directory named .git; "go.mod"). A .git that is a file (a linked work tree, a
// submodule) names a repository elsewhere, so the walk goes on above it; with none
// found, or after maxConfigDepth directories, the root is unknown and "/" stands for
// it.
func rootOf(dir, marker string, cache *lstatCache) string {
	name, isDir := strings.CutSuffix(marker, "/")
	for n := 0; n < maxConfigDepth; n++ {
		if e := cache.lstatPath(filepath.Join(dir, name)); e.err == nil && (e.dir || !isDir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "/"
}

// writableTree returns a place below the normalised directory dir that an allow rule
// lets a file write tool call of c's agent write, or "": a program that runs the code
// of every package there (go test ./...) may run what the agent wrote. The rules'
// order is not looked at, nor whether the place exists yet: the same script may
// create it. The answers are kept in t.
func (s *Set) writableTree(t *tier, c *Call, dir string) string {
	k := probeKey{dir: dir, agent: c.AgentID, source: c.Source}
	if place, known := t.trees.get(k); known {
		return place
	}
	tool := s.opt.FSWrite[0]
	place := ""
	for i := range t.rules {
		r := &t.rules[i]
		if r.action != Allow || !r.hasPath || !s.toolMatches(r.toolKind, r.tool, tool) ||
			r.agent != "" && r.agent != c.AgentID || r.source != "" && r.source != c.Source {
			continue
		}
		p := r.path.s
		if r.path.kind == pathPrefix {
			p = prefixDir(p)
		}
		if Under(p, dir) && !t.isProtected(p) {
			place = p
			break
		}
	}
	t.trees.put(k, place)
	return place
}

// maxConfigDepth bounds how many directories writableConfig looks at.
const maxConfigDepth = 64

// writableConfig returns the first of files, in dir or a directory above it, that a
// file write tool call of c's agent would be allowed to write, or "". Such a
// program (git, make, npm, go, …) run there may run what the agent wrote; any
// ancestor counts, as the program looks upwards (git for .git, npm for
// package.json) and the gate does not stat to find where it stops. A file counts
// by its name and by where it resolves (configTargets). The guards are not asked: a
// rule allowing the write is enough. dir is in ft's form (t.at of its project);
// t is the workspace's tier, which a resolved file's own form is decided in. The
// rules' answers are kept in the tiers, and so is the answer while the lookups it
// took are kept (lookSession.derived).
func (s *Set) writableConfig(t, ft *tier, c *Call, dir string, files []string,
	cache *lstatCache) string {
	if len(files) == 0 {
		return ""
	}
	k := configKey{t: t, files: &files[0], n: len(files),
		probeKey: probeKey{dir: dir, agent: c.AgentID, source: c.Source}}
	if a, known := ft.configs.get(k); known && cache.look.holds(a.gen, a.at) {
		cache.look.used(a.at, true)
		return a.s
	}
	out := s.lookConfig(t, ft, c, dir, files, cache)
	if gen, at, ok := cache.look.derived(); ok {
		ft.configs.put(k, derivedAnswer{s: out, gen: gen, at: at, files: files})
	}
	return out
}

// configKey is one question of writableConfig: targetKey's, for a list of files
// (the program tables' own), told by where it lies: the answer holds the list, so
// that no other list lies there while it is kept.
type configKey struct {
	t     *tier
	files *string
	n     int
	probeKey
}

// lookConfig is writableConfig without its kept answer.
func (s *Set) lookConfig(t, ft *tier, c *Call, dir string, files []string,
	cache *lstatCache) string {
	for n := 0; n < maxConfigDepth; n++ {
		for _, f := range files {
			if n > 0 && strings.HasPrefix(f, "~/") {
				continue
			}
			p := s.probePath(ft, dir, f)
			if p == "" {
				continue
			}
			if s.mayWrite(ft, c, probeKey{dir: dir, file: f}, p) {
				return p
			}
			if w := s.writableTarget(t, ft, c, dir, f, cache); w != "" {
				return w
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// mayWrite reports whether a file write tool call of c's agent on the path p (in
// the form paths are matched in) would be allowed; the answer, which depends on the
// rules only, is kept in t under k.
func (s *Set) mayWrite(t *tier, c *Call, k probeKey, p string) bool {
	k.agent, k.source = c.AgentID, c.Source
	if w, known := t.probes.get(k); known {
		return w
	}
	m := matcher{agent: c.AgentID, source: c.Source, path: p, pathState: PathOK}
	r := t.first(s.opt.FSWrite[0], &m)
	w := r != nil && r.action == Allow && !t.isProtected(p)
	t.probes.put(k, w)
	return w
}

// writableTarget returns how a reason names the config file f of dir (in ft's form)
// when one of the files it resolves to (configTargets) may be written by c's agent,
// decided in each of its forms (appendForms: in t, or t's tier of the project holding
// it), or cannot be resolved; else "".
// The answer is kept in ft while the lookups it took are kept (lookSession.derived).
func (s *Set) writableTarget(t, ft *tier, c *Call, dir, f string, cache *lstatCache) string {
	k := targetKey{t: t, probeKey: probeKey{dir: dir, file: f, agent: c.AgentID,
		source: c.Source}}
	if a, known := ft.targets.get(k); known && cache.look.holds(a.gen, a.at) {
		cache.look.used(a.at, true)
		return a.s
	}
	out := s.lookTarget(t, ft, c, dir, f, cache)
	if gen, at, ok := cache.look.derived(); ok {
		ft.targets.put(k, derivedAnswer{s: out, gen: gen, at: at})
	}
	return out
}

// lookTarget is writableTarget without the kept answers.
func (s *Set) lookTarget(t, ft *tier, c *Call, dir, f string, cache *lstatCache) string {
	p := s.probePath(ft, dir, f)
	targets, problem := s.configTargets(ft.root, dir, f, cache)
	if problem != "" {
		return p + " (" + problem + ")"
	}
	for _, fm := range s.appendForms(nil, targets) {
		qt := t
		if fm.proj >= 0 {
			if fm.proj >= len(t.projects) {
				continue // t is a project's own tier: its workspace form is decided
			}
			qt = t.projects[fm.proj]
		}
		if (qt != ft || fm.path != p) && s.mayWrite(qt, c, probeKey{dir: fm.path}, fm.path) {
			return p + " → " + fm.path
		}
	}
	return ""
}

// targetKey is one question of writableTarget: the workspace's tier it is decided
// in, and the config file of a directory for an agent and source.
type targetKey struct {
	t *tier
	probeKey
}

// derivedAnswer is an answer derived from the lookups of a session that began at
// the Watcher's lookup generation gen, the oldest of them made at at.
type derivedAnswer struct {
	s     string
	gen   uint64
	at    time.Time
	files []string // configKey's files
}

// maxGitFile bounds how much of a .git file configTargets reads.
const maxGitFile = 4096

// configTargets returns the files a program may open for its config file f in the
// normalised directory dir, resolved as the OS opens them: through their
// symlinks; under a .git that is a file ("gitdir: D": a
// linked work tree, a submodule), in D and in the common directory D names; for a
// component that stands for every name (x, x.py, x_test.go: see configPrograms),
// through every symlink in that directory with its extension. A relative dir lies
// in base (a tier's root); the targets are absolute. problem is not "" when one
// cannot be resolved (a loop, no permission, an unreadable .git file).
func (s *Set) configTargets(base, dir, f string, cache *lstatCache) (targets []string,
	problem string) {
	root := s.opt.WorkspaceRoot
	if home, ok := strings.CutPrefix(f, "~/"); ok {
		dir, f = s.opt.Home, home
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	var expand func(base string, comps []string, depth int)
	expand = func(base string, comps []string, depth int) {
		if problem != "" {
			return
		}
		if depth > maxSymlinks {
			problem = "symlink loop"
			return
		}
		if len(comps) == 0 {
			r, pr := resolveWith(base, root, nil, cache, nil)
			if pr != "" {
				problem = pr
				return
			}
			targets = append(targets, r)
			return
		}
		name, rest := comps[0], comps[1:]
		if standIn(name) {
			links, err := cache.symlinks(base)
			if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				problem = "cannot be listed: " + err.Error()
				return
			}
			for _, link := range links {
				if filepath.Ext(link) == filepath.Ext(name) {
					expand(filepath.Join(base, link), rest, depth+1)
				}
			}
		}
		next := filepath.Join(base, name)
		if name == ".git" && len(rest) > 0 {
			for _, d := range gitDirs(base, &problem, cache) {
				expand(d, rest, depth+1)
			}
		}
		expand(next, rest, depth)
	}
	expand(dir, strings.Split(filepath.FromSlash(f), string(filepath.Separator)), 0)
	return targets, problem
}

// standIn reports whether the config file component name stands for every name
// with its extension (see configPrograms).
func standIn(name string) bool {
	return name == "x" || strings.HasPrefix(name, "x.") || strings.HasPrefix(name, "x_")
}

// gitDirs returns the directories git uses for dir/.git when that is a regular file:
// the one its "gitdir: D" line names and the common directory D/commondir names; none
// when it is no file. An unreadable file or one without the line sets *problem.
func gitDirs(dir string, problem *string, cache *lstatCache) []string {
	name := filepath.Join(dir, ".git")
	if e := cache.lstatPath(name); e.err != nil || !e.regular {
		return nil
	}
	if cache != nil {
		cache.look.used(time.Time{}, false) // what the file says is not watched
	}
	d, err := readGitLink(name, "gitdir: ")
	if err != nil {
		*problem = "cannot be inspected: " + err.Error()
		return nil
	}
	d = joinTo(dir, d)
	dirs := []string{d}
	if common, err := readGitLink(filepath.Join(d, "commondir"), ""); err == nil {
		dirs = append(dirs, joinTo(d, common))
	}
	return dirs
}

// readGitLink returns the first line of the file name after prefix, for the small
// files git keeps a path in.
func readGitLink(name, prefix string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimRight(line, "\r")
	v, ok := strings.CutPrefix(line, prefix)
	if !ok || v == "" || strings.IndexByte(v, 0) >= 0 {
		return "", errors.New(name + " names no directory")
	}
	return v, nil
}

// joinTo returns p, absolute, or joined to dir.
func joinTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// probePath is the path writableConfig asks about in tier t for file in dir: in the
// home directory for ~/…, in the form paths are matched in (relative to t's root
// inside it), lexically; "" when there is no home.
func (s *Set) probePath(t *tier, dir, file string) string {
	rest, home := strings.CutPrefix(file, "~/")
	switch {
	case home && s.opt.Home == "":
		return ""
	case home:
		return relTo(filepath.Join(s.opt.Home, filepath.FromSlash(rest)), t.root)
	}
	return filepath.Join(dir, filepath.FromSlash(file))
}

// maxProbes bounds how many answers an answers keeps.
const maxProbes = 4096

// probeKey is one question of writableConfig.
type probeKey struct{ dir, file, agent, source string }

// answers keeps the answers of one tier's questions of writableConfig (probes),
// writableTree (trees) or writableTarget (targets), at most maxProbes; it is safe for
// concurrent use, and its zero value is empty.
type answers[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func (a *answers[K, V]) get(k K) (v V, known bool) {
	a.mu.RLock()
	v, known = a.m[k]
	a.mu.RUnlock()
	return v, known
}

func (a *answers[K, V]) put(k K, v V) {
	a.mu.Lock()
	if a.m == nil {
		a.m = map[K]V{}
	}
	if len(a.m) < maxProbes {
		a.m[k] = v
	}
	a.mu.Unlock()
}

// maxReasonText is how many bytes of a command a reason quotes when it names no path.
const maxReasonText = 80

// pathWhat is how a reason names the path p of sc.
func pathWhat(sc *shell.Script, p *shell.Path) string {
	if p.Command < 0 || p.Command >= len(sc.Commands) {
		return "the tool's working directory"
	}
	if p.Access == shell.Repo {
		return "the repository of command " + strconv.Quote(commandText(&sc.Commands[p.Command]))
	}
	if p.Access == shell.Write && p.Marker == ".git/" {
		return "the work tree of command " + strconv.Quote(commandText(&sc.Commands[p.Command]))
	}
	if p.Name == "" { // a Blind command; its text may be the whole script
		text := commandText(&sc.Commands[p.Command])
		if len(text) > maxReasonText {
			text = text[:maxReasonText] + "…"
		}
		return "command " + strconv.Quote(text)
	}
	return p.Access.String() + " " + strconv.Quote(p.Name) + " of command " +
		strconv.Quote(commandText(&sc.Commands[p.Command]))
}

// shellForm decides one normalised form f of the path p of sc (see shellPath), in the
// workspace's tier t or the tier of the project f is relative to (tier.at).
func (s *Set) shellForm(t *tier, c *Call, sc *shell.Script, p *shell.Path,
	f form) (Decision, bool) {
	var fd Decision
	path, own := f.path, f.proj < 0
	file := p.Access == shell.Read || p.Access == shell.Write
	if file {
		tool := s.opt.FSRead[0]
		if p.Access == shell.Write {
			tool = s.opt.FSWrite[0]
		}
		fc := Call{Tool: tool, AgentID: c.AgentID, Source: c.Source}
		fd = s.decideForm(t, &fc, f)
		if fd.Action != Allow {
			fd.Reason = pathWhat(sc, p) + ": " + fd.Reason
		}
		if fd.Action == Deny {
			return fd, true
		}
	}
	if gd, found := s.shellGuards(t.at(f.proj), c, sc, p, path, own); found {
		return gd, true
	}
	return fd, file
}

// shellGuards decides the normalised form path of the path p of sc, in tier t, by the
// protected and denied places (see shellForm); found is false when none applies.
func (s *Set) shellGuards(t *tier, c *Call, sc *shell.Script, p *shell.Path, path string,
	own bool) (Decision, bool) {
	if p.Access != shell.List && t.isProtected(path) {
		return Decision{Action: Deny, Reason: pathWhat(sc, p) + " is a protected path",
			Path: path, PathState: PathOK}, true
	}
	g := s.inDenied(&t.guards, c, path)
	reason := ""
	if g != nil {
		reason = pathWhat(sc, p) + " is inside a denied place: " + g.name
	} else if p.Access == shell.List {
		// Its names only: a place it holds is not read.
	} else if g = s.containing(&t.guards, c, path, false, own); g != nil {
		reason = pathWhat(sc, p) + " holds " + g.name
	}
	if g == nil {
		write := p.Access == shell.Write
		// An argument of a program the gate does not know may be written whole.
		if n := t.needsHuman(path, write || p.MayWrite); n != "" &&
			(write || p.Access == shell.Arg) {
			return Decision{Action: Require, Path: path, PathState: PathOK, Contains: n,
				Reason: pathWhat(sc, p) + " " + ReasonNeedsHuman + ": " + n}, true
		}
		return Decision{}, false
	}
	return Decision{Action: Require, Reason: reason, Path: path, PathState: PathOK,
		Contains: g.name}, true
}
