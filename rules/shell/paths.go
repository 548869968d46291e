package shell

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Access says how a command uses a path.
type Access int

const (
	Arg    Access = iota // a literal argument (or the program, when written as a path)
	Read                 // an input redirect
	Write                // an output redirect
	List                 // a directory a glob reads the names of
	Config               // a directory whose configuration the program runs (git, make)
	// Repo is a directory whose repository the program reads whole (git show, git
	// archive): the caller decides the repository's root, the nearest directory at or
	// above it that holds a .git directory, as a recursive read.
	Repo
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case List:
		return "listing"
	case Config:
		return "working directory"
	case Repo:
		return "repository"
	}
	return "argument"
}

// Path is a path a script names, after glob, tilde and brace expansion.
type Path struct {
	Name   string // as expanded: absolute, or relative to Dir
	Dir    string // the directory Name is relative to; empty when it is not known
	Access Access
	// Configs, for Access Config, are the files the program runs when it finds them
	// in Name or a directory above it (.git/config, Makefile, package.json).
	Configs []string
	// Tree, for Access Config, says the program also runs code from every directory
	// below Name (go test ./...): a place the agent may write there counts.
	Tree bool
	// Marker, when set, moves Name up to the nearest directory at or above it that
	// holds this entry (".git/": a directory named .git; "go.mod"): the repository
	// or module root the command works on.
	Marker  string
	Command int // the index of the command in Script.Commands
	// MayWrite marks an Arg of a program the gate does not know: it may write Name,
	// or anything below it.
	MayWrite bool
	// Problem, when set, says why the path cannot be known (~user, a glob that may
	// match ..): the call needs a human, whatever the rules say. A Blind command
	// gives a Path with an empty Name and its Blind as the Problem.
	Problem string
}

// Abs returns the path joined to its directory and cleaned.
func (p Path) Abs() string {
	if path.IsAbs(p.Name) || p.Dir == "" {
		return path.Clean(p.Name)
	}
	return path.Join(p.Dir, p.Name)
}

// Full returns the path joined to its directory as the OS would open it, nothing
// cleaned: a ".." after a symlink is the link target's parent for the OS. It is
// Name when Name is absolute or Dir empty.
func (p Path) Full() string {
	if path.IsAbs(p.Name) || p.Dir == "" {
		return p.Name
	}
	return p.Dir + "/" + p.Name
}

// FullIn returns Full's path, in buf when it has to be joined and fits: the result
// may then alias buf and is valid until buf changes.
func (p Path) FullIn(buf []byte) []byte {
	if path.IsAbs(p.Name) || p.Dir == "" {
		return append(buf[:0], p.Name...)
	}
	return append(append(append(buf[:0], p.Dir...), '/'), p.Name...)
}

// maxDirEntries is how much directory work expanding the globs of one script may do:
// each directory opened and each entry read counts one. Past it no directory is
// opened and the globs are unresolvable (ErrTooManyMatches).
const maxDirEntries = 20_000

// Paths returns the paths the commands of s name (the package doc, "Paths", says
// which), expanded as bash would against the directory each command runs in: base
// (the script's starting directory, absolute) joined with its cd moves, and home for
// ~. It reads the directories that globs name. The error is ErrTooManyMatches,
// ErrUnknownDir or ErrUnknownPath (joined when several apply); the paths found are
// returned with it, and a caller deciding a call must treat any error as needing a
// human.
func (s *Script) Paths(base, home string) (paths []Path, err error) {
	if s.homeSet {
		home = "" // ~ and a bare cd go where the script's HOME says
	}
	x := expander{home: home}
	if len(s.Commands) > 0 {
		paths = make([]Path, 0, 2*len(s.Commands)) // most commands name one or two
	}
	var errs []error
	note := func(e error) {
		if !containsError(errs, e) {
			errs = append(errs, e)
		}
	}
	var lastD, lastDir string // resolveDir's last answer
	lastOK := false
	for ci := range s.Commands {
		c := &s.Commands[ci]
		if c.Blind != "" {
			// What it runs or names cannot be seen: as a path that cannot be known.
			paths = append(paths, Path{Access: Arg, Command: ci, Problem: c.Blind})
		}
		dirs := c.dirs
		if len(dirs) == 0 {
			dirs = []string{""}
		}
		for _, d := range dirs {
			dir := lastDir
			if d != lastD || !lastOK {
				dir = resolveDir(base, home, d)
				lastD, lastDir, lastOK = d, dir, true // the commands after a cd share it
			}
			if !c.dirKnown {
				dir = ""
			}
			// sub is the directory a -C DIR option names (git -C d add x opens d/x);
			// relative paths are taken in both.
			sub := ""
			if c.dirArg > 0 && c.dirArg <= len(c.args) && isLiteral(c.args[c.dirArg-1]) {
				if fs, err := wordFields(c.args[c.dirArg-1]); err == nil && len(fs) == 1 &&
					fs[0] != "" && !strings.HasPrefix(fs[0], "~") {
					sub = fs[0]
					if !path.IsAbs(sub) && dir != "" {
						sub = dir + "/" + sub
					} else if !path.IsAbs(sub) {
						sub = ""
					}
				}
			}
			subOn := false // the word being added is an operand -C DIR applies to
			add := func(name string, a Access) {
				if name == "" {
					return
				}
				if dir == "" && !path.IsAbs(name) {
					note(ErrUnknownDir)
				}
				mayWrite := a == Arg && c.unknownProg
				paths = append(paths, Path{Name: name, Dir: dir, Access: a, Command: ci,
					MayWrite: mayWrite})
				if subOn && sub != "" && !path.IsAbs(name) {
					paths = append(paths, Path{Name: name, Dir: sub, Access: a, Command: ci,
						MayWrite: mayWrite})
				}
			}
			bad := func(word *syntax.Word, problem string) {
				paths = append(paths, Path{Name: printNode(word), Dir: dir, Access: Arg,
					Command: ci, Problem: problem})
			}
			// listings adds the directories the glob of word reads: those expanding
			// it listed, and the one its text names before the first glob, uncleaned.
			listings := func(word *syntax.Word) {
				if !globby(word) {
					return
				}
				for _, d := range x.listed {
					add(d, List)
				}
				x.listed = x.listed[:0]
				if prefix, ok := globPrefix(word); ok {
					if rest, tilde := strings.CutPrefix(prefix, "~/"); tilde {
						if home == "" {
							return
						}
						prefix = home + "/" + rest
					}
					add(cmp.Or(prefix, "."), List)
				}
			}
			expand := func(word *syntax.Word, a Access, cut int) {
				if problem := unknowable(word, s.homeSet); problem != "" {
					bad(word, problem)
					return
				}
				fields, err := x.fields(dir, word)
				if err != nil {
					note(err)
					return
				}
				listings(word)
				for _, f := range fields {
					if cut > 0 {
						if cut >= len(f) {
							continue
						}
						f = f[cut:]
						if strings.HasPrefix(f, "~/") && home != "" {
							add(home+f[1:], a) // a program may expand it itself
						}
					}
					if a == Arg || !exemptTargets[f] {
						add(f, a)
					}
				}
			}
			// derived adds the name d derives from each field of word, from byte cut, as
			// written (the folder when the name is unknown).
			derived := func(word *syntax.Word, d derive, cut int) {
				fields, err := x.fields(dir, word)
				if err != nil {
					note(err)
					return
				}
				for _, f := range fields {
					if cut >= len(f) && cut > 0 {
						continue
					}
					f = f[cut:]
					switch d {
					case deriveDir:
						add(path.Dir(f), Write)
					case deriveStrip:
						add(strings.TrimSuffix(f, path.Ext(f)), Write)
					case deriveBase:
						add(strings.TrimSuffix(path.Base(f), ".go"), Write)
					}
				}
			}
			if c.progWord != nil && strings.Contains(c.Words[0], "/") && isLiteral(c.progWord) {
				expand(c.progWord, Arg, 0)
			}
			for k, word := range c.args {
				if !isLiteral(word) {
					continue
				}
				u := wordUse{use: useArg}
				if c.argUses != nil {
					u = c.argUses[k]
				}
				subOn = k != c.dirArg-1
				if u.pkg != pkgNone {
					pkgPaths(word, u.pkg, c.configs, c.runs, c.writes, add, &paths)
				}
				if u.derive != deriveNone {
					derived(word, u.derive, u.cut)
				}
				if u.rel > 0 && u.rel <= len(c.args) {
					// ln -s TARGET LINK: TARGET is read where LINK lies.
					saved := dir
					dir = linkDir(dir, home, c.args[u.rel-1], c.argUses[u.rel-1].cut, u.relDir)
					expand(word, Write, u.cut)
					dir = saved
					continue
				}
				switch u.use {
				case useNone:
					// Not a path, but the shell still globs it (echo ../secrets/*).
					if globby(word) {
						if problem := unknowable(word, s.homeSet); problem != "" {
							bad(word, problem)
						} else if _, err := x.fields(dir, word); err != nil {
							note(err)
						} else {
							listings(word)
						}
					}
					continue
				case useRead:
					expand(word, Read, u.cut)
				case useWrite:
					expand(word, Write, u.cut)
				case useList:
					bad(word, "a file that lists the files the command opens")
				default:
					expand(word, Arg, u.cut)
				}
			}
			if c.configs != nil {
				subOn = true // git -C d runs d's configuration
				add(".", Config)
				for i := len(paths) - 1; i >= 0; i-- {
					if paths[i].Access != Config || paths[i].Configs != nil {
						break
					}
					paths[i].Configs = c.configs
				}
			}
			if c.repo {
				subOn = true // git -C d show reads d's repository
				add(".", Repo)
				for i := len(paths) - 1; i >= 0; i-- {
					if paths[i].Access != Repo || paths[i].Marker != "" {
						break
					}
					paths[i].Marker = ".git/"
				}
			}
			if c.worktree {
				subOn = true // git -C d pull writes d's work tree
				n := len(paths)
				add(".", Write)
				for i := n; i < len(paths); i++ {
					paths[i].Marker = ".git/"
				}
			}
			subOn = false // redirects and the directory are the shell's
			if c.readsCwd {
				add(".", Arg)
			}
			if c.writesCwd {
				add(".", Write)
			}
			for _, r := range c.Redirects {
				a := Read
				if r.Write {
					a = Write
				}
				if !r.Literal {
					note(ErrUnknownPath)
					continue
				}
				expand(r.word, a, 0)
			}
		}
	}
	return paths, errors.Join(errs...)
}

// pkgPaths adds through add the paths of the go package pattern word of kind k: a
// local tree is a recursive read of its directory, the module's packages one of the
// module, or a recursive write when the command rewrites them (writes: go fmt); when
// the command runs the packages' code (runs), the directory or tree is also a
// working directory whose configs and code it runs (Access Config).
func pkgPaths(word *syntax.Word, k pkgKind, configs []string, runs, writes bool,
	add func(string, Access), paths *[]Path) {
	treeAccess, moduleAccess := Arg, Repo
	if writes {
		treeAccess, moduleAccess = Write, Write
	}
	fields, err := wordFields(word)
	if err != nil || len(fields) != 1 {
		return
	}
	f := fields[0]
	mark := func(from int, tree bool, marker string) {
		for i := from; i < len(*paths); i++ {
			p := &(*paths)[i]
			p.Tree, p.Marker = tree, marker
			if p.Access == Config {
				p.Configs = configs
			}
		}
	}
	n := len(*paths)
	switch k {
	case pkgTree:
		add(treeDir(f), treeAccess)
		n = len(*paths)
		if runs {
			add(treeDir(f), Config)
		}
		mark(n, true, "")
	case pkgModule:
		add(".", moduleAccess)
		if runs {
			add(".", Config)
		}
		mark(n, true, "go.mod")
	case pkgDir:
		if runs {
			add(f, Config)
		}
		mark(n, false, "")
	}
}

// linkDir returns the directory a symbolic link's target is taken in: the one
// holding the link word (from byte cut), or that word itself when isDir or it names
// a directory; "" when it cannot be known.
func linkDir(dir, home string, link *syntax.Word, cut int, isDir bool) string {
	if !isLiteral(link) {
		return ""
	}
	fields, err := wordFields(link)
	if err != nil || len(fields) != 1 || cut >= len(fields[0]) {
		return ""
	}
	name := fields[0][cut:]
	if rest, ok := strings.CutPrefix(name, "~/"); ok || name == "~" {
		if home == "" {
			return ""
		}
		name = home + "/" + rest
	}
	full := name
	if !path.IsAbs(name) {
		if dir == "" {
			return ""
		}
		full = dir + "/" + name
	}
	if isDir || strings.HasSuffix(name, "/") {
		return full
	}
	if fi, err := os.Stat(full); err == nil && fi.IsDir() {
		return full // ln -s T DIR makes DIR/T
	}
	if i := strings.LastIndexByte(full, '/'); i > 0 {
		return full[:i] // not cleaned, as Paths resolves it
	}
	return "/"
}

// unknowable says why the paths of a literal word cannot be known, or "": a tilde
// prefix other than ~ and ~/ (~user, ~+, ~-, ~N name places the gate does not
// look up, or any ~ once the script assigns HOME), or a glob component starting
// with a dot (.*, ..*, .?*), which older bash versions match to . and .. as well.
func unknowable(word *syntax.Word, homeSet bool) string {
	if len(word.Parts) > 0 {
		if lit, ok := word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			if homeSet {
				return "a ~ after the script assigns HOME"
			}
			rest := lit.Value[1:]
			if rest != "" && rest[0] != '/' || rest == "" && len(word.Parts) > 1 {
				return "a ~ prefix the gate does not expand"
			}
		}
	}
	if !globby(word) {
		return ""
	}
	text := printNode(word)
	for comp := range strings.SplitSeq(text, "/") {
		comp = strings.TrimLeft(comp, "'\"\\")
		if strings.HasPrefix(comp, ".") && strings.ContainsAny(comp, "*?[") {
			return "a glob that may match . and .."
		}
	}
	return ""
}

// globPrefix returns the text of word before the component holding its first glob
// character, up to and with its last "/" ("" for a glob in the first component);
// ok is false when braces make it more than one.
func globPrefix(word *syntax.Word) (prefix string, ok bool) {
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "{\\") {
				return "", false
			}
			if i := strings.IndexAny(p.Value, "*?["); i >= 0 {
				b.WriteString(p.Value[:i])
				text := b.String()
				return text[:strings.LastIndexByte(text, '/')+1], true
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, isLit := q.(*syntax.Lit)
				if !isLit {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return "", false
}

// globby reports whether word may hold a glob character outside quotes.
func globby(word *syntax.Word) bool {
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") {
			return true
		}
	}
	return false
}

func containsError(list []error, e error) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// resolveDir returns the absolute directory d names: relative to base, ~ to home.
func resolveDir(base, home, d string) string {
	switch {
	case d == "":
		return base
	case d == "~":
		return home
	case strings.HasPrefix(d, "~/"):
		if home == "" {
			return ""
		}
		return home + d[1:]
	case path.IsAbs(d):
		return d
	case base == "":
		return ""
	}
	return base + "/" + d // not cleaned: a ".." after a symlink is the OS's to resolve
}

// expander expands words as bash would and counts what globbing costs.
type expander struct {
	home    string
	matches int
	entries int
	listed  []string // the directories globbing read, since the last listings
}

var errStop = errors.New("stop")

func (x *expander) fields(dir string, word *syntax.Word) ([]string, error) {
	x.listed = x.listed[:0]
	if len(word.Parts) == 1 {
		lit, ok := word.Parts[0].(*syntax.Lit)
		if ok && !strings.ContainsAny(lit.Value, "*?[{\\~") {
			return []string{lit.Value}, nil // nothing to expand
		}
	}
	env := []string{"HOME=" + x.home}
	if dir != "" {
		env = append(env, "PWD="+dir)
	}
	cfg := &expand.Config{
		Env: expand.ListEnviron(env...),
		// The script may set these options (shopt -s dotglob, globstar, nocaseglob,
		// extglob): a glob is expanded to what it may match under any of them.
		DotGlob: true, GlobStar: true, NoCaseGlob: true, ExtGlob: true,
		ReadDir2: func(name string) ([]fs.DirEntry, error) {
			if dir == "" && !path.IsAbs(name) {
				return nil, fs.ErrNotExist // relative to an unknown directory
			}
			// globstar goes on past an error, so each call checks the budget first.
			if x.entries++; x.entries > maxDirEntries {
				return nil, errStop
			}
			entries, err := os.ReadDir(name)
			if err == nil && !slices.Contains(x.listed, name) {
				x.listed = append(x.listed, name) // a file read as a directory lists nothing
			}
			if x.entries += len(entries); x.entries > maxDirEntries {
				return nil, errStop
			}
			return entries, err
		},
	}
	fields, err := expand.Fields(cfg, word)
	if errors.Is(err, errStop) || x.entries > maxDirEntries { // globstar drops the error
		return nil, ErrTooManyMatches
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTooManyMatches, err)
	}
	x.matches += len(fields)
	if x.matches > MaxMatches {
		return nil, ErrTooManyMatches
	}
	return fields, nil
}
