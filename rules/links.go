package rules

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Bounds of the look for symlinks in the folders a call's path names (linkHeld,
// globWalk): a folder with more symlinks, or a glob that walks more folders, makes
// the path unresolvable.
const (
	maxFolderLinks = 1024
	maxGlobWalk    = 256
)

// formDir is the absolute directory the normalised form f names.
func (s *Set) formDir(f form) string {
	var buf [256]byte
	return string(s.appendFormDir(buf[:0], f))
}

// appendFormDir appends formDir(f) to b, allocating nothing when it fits.
func (s *Set) appendFormDir(b []byte, f form) []byte {
	root := s.opt.WorkspaceRoot
	switch {
	case f.proj >= 0:
		root = s.projects[f.proj].root
	case f.path != "" && f.path[0] == '/':
		return append(b, f.path...)
	}
	b = append(b, root...)
	if f.path != "." {
		if len(root) > 1 {
			b = append(b, '/')
		}
		b = append(b, f.path...)
	}
	return b
}

// linkHeld decides the directory dir (absolute; path is how the call's paths name it)
// by the symlinks directly inside it: it holds the guarded place one leads to, into
// or above (docs/sx → ../secrets makes docs hold secrets; docs/design.md, "Protected
// and guarded places"). found is false when dir is no directory or none does; a link
// that cannot be resolved, but for a loop, a folder that cannot be listed or holds
// more than maxFolderLinks links make a locked require. cache holds the lstat answers
// of the call; the listing comes from the Watcher when it keeps one.
func (s *Set) linkHeld(t *tier, c *Call, path, dir string, cache *lstatCache) (Decision,
	bool) {
	if e := cache.lstatPath(dir); e.err != nil || !e.dir {
		return Decision{}, false
	}
	return s.linksIn(t, c, path, dir, cache)
}

// linksIn is linkHeld once dir is known to be a directory.
func (s *Set) linksIn(t *tier, c *Call, path, dir string, cache *lstatCache) (Decision,
	bool) {
	cache.look.begin(s.opt.Watcher, s.opt.WorkspaceRoot, false)
	defer cache.look.end()
	links, err := cache.symlinks(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return Decision{}, false
	case err != nil, len(links) > maxFolderLinks:
		return unresolvable(), true
	}
	for _, name := range links {
		if d, found, _ := s.leadsTo(t, c, path, filepath.Join(dir, name), cache); found {
			return d, true
		}
	}
	return Decision{}, false
}

// unresolvable is the locked require of a path the gate cannot resolve.
func unresolvable() Decision {
	return Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
}

// leadsTo decides the folder path of a call by the entry at, absolute, that the tool
// enters from it (a symlink in it, a folder a glob walks into): found when at
// resolves to a guarded place, into one or above one (see leadsIn). A loop and an
// entry that does not exist lead nowhere; any other problem makes a locked require.
// dir is at resolved when it is a directory, else "".
func (s *Set) leadsTo(t *tier, c *Call, path, at string, cache *lstatCache) (d Decision,
	found bool, dir string) {
	abs, problem := resolveWith(at, s.opt.WorkspaceRoot, nil, cache, nil)
	e := cache.lstatPath(abs)
	switch {
	case problem == "symlink loop":
		return Decision{}, false, ""
	case problem != "":
		return unresolvable(), true, ""
	case e.err != nil: // dangling: nothing to read through it
		return Decision{}, false, ""
	}
	if e.dir {
		dir = abs
	}
	var buf [4]form
	file := s.tools[c.Tool].file()
	for _, f := range s.appendForms(buf[:0], []string{abs}) {
		if g := s.leadsIn(&t.at(f.proj).guards, c, f.path, file, f.proj < 0); g != nil {
			return Decision{Action: Require, Reason: g.reason, Path: path, PathState: PathOK,
				Contains: g.name}, true, dir
		}
	}
	return Decision{}, false, dir
}

// leadsIn returns the first guard of gs that applies to c (file as in containing) and
// whose place the normalised path p, which exists, holds (containing) or lies in
// (inGuards); else nil.
func (s *Set) leadsIn(gs *guards, c *Call, p string, file, own bool) *guard {
	if g := s.containing(gs, c, p, file, own); g != nil {
		return g
	}
	return s.inGuards(gs, c, p, true, !file)
}

// globWalk decides the folder dirs (absolute, the literal directory of a glob; path
// names it) by the folders the glob's components comps after it walk into, the last
// component, which names what the glob finds, aside: each folder a wildcard or a
// literal component enters, through a symlink too, is decided by leadsTo, and by
// linkHeld for the links inside it. The walk stops at a "**", which the tools do not
// follow symlinks under (docs/design.md, "Protected and guarded places"); past
// maxGlobWalk listings (a folder matched, a folder entered) it makes a locked require.
func (s *Set) globWalk(t *tier, c *Call, path string, dirs, comps []string,
	cache *lstatCache) (Decision, bool) {
	listed := 0
	for _, comp := range comps[:max(len(comps)-1, 0)] {
		if strings.Contains(comp, "**") {
			break
		}
		var next []string
		enter := func(at string) (Decision, bool) {
			d, found, abs := s.leadsTo(t, c, path, at, cache)
			if found || abs == "" || slices.Contains(next, abs) {
				return d, found
			}
			next = append(next, abs)
			if listed++; listed > maxGlobWalk {
				return unresolvable(), true
			}
			return s.linkHeld(t, c, path, abs, cache)
		}
		for _, dir := range dirs {
			if !strings.ContainsAny(comp, "*?[\\") && !hasExtGlob(comp) {
				if d, found := enter(filepath.Join(dir, comp)); found {
					return d, true
				}
				continue
			}
			if listed++; listed > maxGlobWalk {
				return unresolvable(), true
			}
			ents, err := os.ReadDir(dir)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			} else if err != nil {
				return unresolvable(), true
			}
			for _, e := range ents {
				if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 || !globMatch(comp, e.Name()) {
					continue
				}
				if d, found := enter(filepath.Join(dir, e.Name())); found {
					return d, true
				}
			}
		}
		dirs = next
	}
	return Decision{}, false
}

// globMatch reports whether the glob component comp may match name as a shell or a
// glob library matches it (shellMatch): as written, in lower case (a file system that
// folds case), or when comp is malformed.
func globMatch(comp, name string) bool {
	ok, err := shellMatch(comp, name)
	if ok || err != nil {
		return true
	}
	ok, _ = shellMatch(strings.ToLower(comp), strings.ToLower(name))
	return ok
}
