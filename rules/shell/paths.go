package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Access says how a command uses a path.
type Access int

const (
	Arg   Access = iota // a literal argument (or the program, when written as a path)
	Read                // an input redirect
	Write               // an output redirect
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "argument"
}

// Path is a path a script names, after glob, tilde and brace expansion.
type Path struct {
	Name    string // as expanded: absolute, or relative to Dir
	Dir     string // the directory Name is relative to; empty when it is not known
	Access  Access
	Command int // the index of the command in Script.Commands
}

// Abs returns the path joined to its directory and cleaned.
func (p Path) Abs() string {
	if path.IsAbs(p.Name) || p.Dir == "" {
		return path.Clean(p.Name)
	}
	return path.Join(p.Dir, p.Name)
}

// maxDirEntries is how many directory entries expanding the globs of one script may
// read.
const maxDirEntries = 100_000

// Paths returns the paths the commands of s name — their literal arguments (and
// VALUE of --opt=VALUE), redirect targets and cd targets — expanded as bash would
// against the directory each command runs in, base (the script's starting
// directory, absolute) joined with its cd moves, and home for ~. A command that may
// run in several directories (a cd that may fail) gives each path once per
// directory. It reads the directories that globs name.
//
// The error is ErrTooManyMatches, ErrUnknownDir or ErrUnknownPath (joined when
// several apply); the paths found are returned with it, and a caller deciding a
// call must treat any error as needing a human.
func (s *Script) Paths(base, home string) (paths []Path, err error) {
	x := expander{home: home}
	var errs []error
	note := func(e error) {
		if !containsError(errs, e) {
			errs = append(errs, e)
		}
	}
	for ci := range s.Commands {
		c := &s.Commands[ci]
		dirs := c.dirs
		if len(dirs) == 0 {
			dirs = []string{""}
		}
		for _, d := range dirs {
			dir := resolveDir(base, home, d)
			if !c.dirKnown {
				dir = ""
			}
			add := func(name string, a Access) {
				if name == "" {
					return
				}
				if dir == "" && !path.IsAbs(name) {
					note(ErrUnknownDir)
				}
				{
					paths = append(paths, Path{Name: name, Dir: dir, Access: a, Command: ci})
				}
			}
			if c.progWord != nil && strings.Contains(c.Words[0], "/") && isLiteral(c.progWord) {
				if fields, err := x.fields(dir, c.progWord); err != nil {
					note(err)
				} else {
					for _, f := range fields {
						add(f, Arg)
					}
				}
			}
			for _, word := range c.args {
				if !isLiteral(word) {
					continue
				}
				fields, err := x.fields(dir, word)
				if err != nil {
					note(err)
					continue
				}
				for _, f := range fields {
					add(f, Arg)
					if opt, val, ok := strings.Cut(f, "="); ok && strings.HasPrefix(opt, "--") {
						add(val, Arg)
					}
				}
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
				fields, err := x.fields(dir, r.word)
				if err != nil {
					note(err)
					continue
				}
				for _, f := range fields {
					if !exemptTargets[f] {
						add(f, a)
					}
				}
			}
		}
	}
	return paths, errors.Join(errs...)
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
		return path.Join(home, d[2:])
	case path.IsAbs(d):
		return d
	case base == "":
		return ""
	}
	return path.Join(base, d)
}

// expander expands words as bash would and counts what globbing costs.
type expander struct {
	home    string
	matches int
	entries int
}

var errStop = errors.New("stop")

func (x *expander) fields(dir string, word *syntax.Word) ([]string, error) {
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
		ReadDir2: func(name string) ([]fs.DirEntry, error) {
			if dir == "" && !path.IsAbs(name) {
				return nil, fs.ErrNotExist // relative to an unknown directory
			}
			entries, err := os.ReadDir(name)
			x.entries += len(entries)
			if x.entries > maxDirEntries {
				return nil, errStop
			}
			return entries, err
		},
	}
	fields, err := expand.Fields(cfg, word)
	if errors.Is(err, errStop) || err != nil && x.entries > maxDirEntries {
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
