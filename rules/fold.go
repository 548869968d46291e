package rules

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// A file system that folds case (macOS and Windows by default) opens SECRETS/key as
// secrets/key, so a path compared by its bytes with secrets/* would pass a deny. A Set
// therefore asks once per root (the workspace and each project) whether its file
// system folds case, and there compares paths in lower case: the forms of a call's
// paths relative to that root and the patterns as resolved in it are folded alike
// (docs/design.md, "Normalising paths"). Absolute paths outside every root are folded
// alike when the file system of "/" folds case.

// folded caches probeFolds' answers by directory: a file system does not change its
// mind while the service runs.
var folded sync.Map

// FoldsCase reports whether the file system of the directory dir compares names
// case-insensitively. It writes nothing: it looks up an entry of dir (or dir itself in
// its parent) spelt in the other case and compares the two. A directory it cannot
// read, or with no name that has a case, is taken as case-sensitive. The answer is
// kept for the life of the process.
func FoldsCase(dir string) bool {
	if v, ok := folded.Load(dir); ok {
		return v.(bool)
	}
	f := probeFolds(dir)
	folded.Store(dir, f)
	return f
}

func probeFolds(dir string) bool {
	try := func(d, name string) (bool, bool) {
		other := swapCase(name)
		if other == name {
			return false, false
		}
		a, err := os.Lstat(filepath.Join(d, name))
		if err != nil {
			return false, false
		}
		b, err := os.Lstat(filepath.Join(d, other))
		return err == nil && os.SameFile(a, b), true
	}
	if f, err := os.Open(dir); err == nil {
		names, _ := f.Readdirnames(64)
		f.Close()
		for _, n := range names {
			if folds, ok := try(dir, n); ok {
				return folds
			}
		}
	}
	folds, _ := try(filepath.Dir(dir), filepath.Base(dir))
	return folds
}

// swapCase returns s with every letter in the other case.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// relIn returns the resolved absolute path abs relative to the root of index i (0 the
// workspace, 1+i the project s.projects[i]) as relTo does, in lower case when that
// root's file system folds case; abs then lies under the root whatever the case it
// spells the root in.
func (s *Set) relIn(abs string, i int) string {
	root := s.opt.WorkspaceRoot
	if i > 0 {
		root = s.projects[i-1].root
	}
	if i >= len(s.fold) || !s.fold[i] {
		return s.foldRel(relTo(abs, root), i)
	}
	if root != "" && len(abs) >= len(root) && abs[:len(root)] != root &&
		strings.EqualFold(abs[:len(root)], root) &&
		(len(abs) == len(root) || abs[len(root)] == '/') {
		abs = root + abs[len(root):]
	}
	return s.foldRel(relTo(abs, root), i)
}

// foldRel returns the path p, relative to the root of index i (see relIn), in lower
// case when that root folds case; an absolute p, outside every root, in lower case when
// "/" folds case.
func (s *Set) foldRel(p string, i int) string {
	switch {
	case p == "":
		return p
	case p[0] == '/':
		if s.foldAbs {
			return strings.ToLower(p)
		}
		return p
	case i >= len(s.fold) || !s.fold[i]:
		return p
	}
	return strings.ToLower(p)
}
