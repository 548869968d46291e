package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// maxSymlinks is how many symlinks one normalisation follows before it calls the path a
// loop. It is at least what any OS allows (Linux 40, macOS 32), so a path the OS can
// open is never refused here; it matches filepath.EvalSymlinks.
const maxSymlinks = 255

// Normalize returns path as the OS will resolve it when a tool opens it
// (docs/design.md, "Normalising paths"; the package doc tells how): relative to base
// (the call's cwd or working directory; "" means workspaceRoot, a relative base is under
// it), following every symlink where it is met. A result under workspaceRoot is relative
// to it with "/" separators ("." for the root), any other absolute. workspaceRoot must be
// absolute and resolved; it is trusted. It only lstats and reads links. The error wraps
// ErrBadPath: an empty path or a NUL byte, no absolute base, over 255 symlinks, a file
// system error other than "does not exist" or "not a directory", or a path through
// /proc/self, /proc/thread-self, /proc/<pid> or /dev/fd.
func Normalize(path, base, workspaceRoot string) (string, error) {
	root := cleanRoot(workspaceRoot)
	abs, problem := resolveAbs(path, base, root, nil)
	if problem != "" {
		return "", fmt.Errorf("rules: path %q: %s: %w", path, problem, ErrBadPath)
	}
	return relTo(abs, root), nil
}

// ResolvePattern returns a path_pattern with its existing prefix resolved as Normalize
// resolves a path against workspaceRoot, so that a rule on secrets/* still holds when
// secrets is a symlink, keeping the pattern's shape: "<dir>/*" and "<dir>/name*" have
// <dir> normalised and their last component kept ("secrets/*" → "vault/*"); "name*",
// "*" and "" are unchanged; anything else is an exact path, normalised whole. A part
// that cannot be normalised (NUL byte, symlink loop) is cleaned lexically instead. The
// result holds for the file system as it is now (a Set resolves its patterns again
// when a directory they go through changes).
func ResolvePattern(pattern, workspaceRoot string) string {
	return resolvePattern(pattern, cleanRoot(workspaceRoot), nil)
}

// resolvePattern is ResolvePattern with root clean, adding to rec the directories its
// resolution looked names up in.
func resolvePattern(pattern, root string, rec *lookups) string {
	if pattern == "" || pattern == "*" {
		return pattern
	}
	if !strings.HasSuffix(pattern, "*") {
		return normOrClean(pattern, root, rec)
	}
	pre := pattern[:len(pattern)-1]
	if strings.HasSuffix(pre, "/") {
		dir := normOrClean(orRoot(pre[:len(pre)-1]), root, rec)
		if dir == "/" {
			return "/*"
		}
		return dir + "/*"
	}
	i := strings.LastIndexByte(pre, '/')
	if i < 0 {
		return pattern
	}
	dir, last := normOrClean(orRoot(pre[:i]), root, rec), pre[i+1:]
	switch dir {
	case ".":
		return last + "*"
	case "/":
		return "/" + last + "*"
	}
	return dir + "/" + last + "*"
}

// Under reports whether path is dir or lies below dir/, both in normalised form (see
// Normalize): Under("memory/a/b", "memory") and Under("memory", "memory") hold,
// Under("memory-secrets/x", "memory") does not. dir "." (the workspace root) holds every
// relative path, dir "/" every absolute one.
func Under(path, dir string) bool {
	switch dir {
	case ".":
		return path != "" && path[0] != '/'
	case "/":
		return path != "" && path[0] == '/'
	}
	return len(path) >= len(dir) && path[:len(dir)] == dir &&
		(len(path) == len(dir) || path[len(dir)] == '/')
}

func orRoot(dir string) string {
	if dir == "" {
		return "/"
	}
	return dir
}

func cleanRoot(root string) string {
	if root == "" {
		return ""
	}
	return filepath.Clean(root)
}

func normOrClean(p, root string, rec *lookups) string {
	abs, problem := resolveAbs(p, "", root, rec)
	if problem != "" {
		return filepath.ToSlash(filepath.Clean(p))
	}
	return relTo(abs, root)
}

// relTo makes abs relative to root when it lies under it (see Normalize).
func relTo(abs, root string) string {
	switch {
	case root == "":
		return abs
	case abs == root:
		return "."
	case root == "/":
		return abs[1:]
	case len(abs) > len(root) && abs[len(root)] == '/' && abs[:len(root)] == root:
		return abs[len(root)+1:]
	}
	return abs
}

// resolveAbs joins path to base (see Normalize) and resolves the result through
// symlinks. It returns the absolute, clean, resolved path, or a short problem. rec, when
// not nil, gets every directory a name was looked up in.
func resolveAbs(path, base, root string, rec *lookups) (string, string) {
	if path == "" {
		return "", "empty"
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", "holds a NUL byte"
	}
	full := path
	if path[0] != '/' {
		switch {
		case strings.IndexByte(base, 0) >= 0:
			return "", "base directory holds a NUL byte"
		case base == "" && root == "":
			return "", "relative with no base directory"
		case base == "":
			base = root
		case base[0] != '/' && root == "":
			return "", "relative with no base directory"
		case base[0] != '/':
			base = root + "/" + base
		}
		full = base + "/" + path
	}
	return resolve(full, root, rec)
}

// resolve walks the absolute path full component by component as the OS would (see
// Normalize). root, when not "", is absolute, clean and resolved: a full that starts
// with it starts the walk there without inspecting root's own components.
func resolve(full, root string, rec *lookups) (string, string) {
	return resolveWith(full, root, rec, nil, nil)
}

// lstatCache keeps the lstat answers of one call's resolutions, by path: a shell
// script names many paths in the same few directories. Only a call's own
// resolutions share one, so what it answers is as current as the call; with a
// session of an open Watcher (look), an answer the Watcher keeps is as current as
// the session's start (lookup_linux.go). The zero value is ready; a nil *lstatCache
// keeps nothing.
type lstatCache struct {
	n     int
	small [8]lstatEntry
	more  []lstatEntry
	look  lookSession
}

// lstatEntry is what an lstat of name told: its kind, or the error (a syscall.Errno).
type lstatEntry struct {
	name                       string
	link, device, dir, regular bool
	err                        error
}

// lstat reports whether name is a symlink, or the lstat error (a syscall.Errno).
func (c *lstatCache) lstat(name []byte) (link bool, err error) {
	e := c.entry(name)
	return e.link, e.err
}

// entry returns the lstat answer for name, from the cache when it holds one.
func (c *lstatCache) entry(name []byte) lstatEntry {
	if c == nil {
		return lstatInfo(string(name))
	}
	for i := range min(c.n, len(c.small)) {
		if e := &c.small[i]; e.name == string(name) {
			return *e
		}
	}
	for i := range c.more {
		if e := &c.more[i]; e.name == string(name) {
			return *e
		}
	}
	e := c.look.lstat(string(name))
	if c.n < len(c.small) {
		c.small[c.n] = e
	} else {
		c.more = append(c.more, e)
	}
	c.n++
	return e
}

// symlinks returns the names of the symlinks in the directory dir, in the order of
// os.ReadDir, or its error.
func (c *lstatCache) symlinks(dir string) ([]string, error) {
	if c == nil {
		return readSymlinks(dir)
	}
	return c.look.symlinks(dir)
}

// lstatPath is entry for a string.
func (c *lstatCache) lstatPath(name string) lstatEntry {
	if c == nil {
		return lstatInfo(name)
	}
	return c.entry(unsafe.Slice(unsafe.StringData(name), len(name)))
}

// harmlessDevices are the device nodes a path may name: they hold no one's data.
var harmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/random": true,
	"/dev/urandom": true, "/dev/tty": true,
}

// resolveWith is resolve with its lstat answers kept in cache, when not nil. dots, when
// not nil, is set when a ".." is met after a symlink was followed: only then may full
// cleaned of ".." lexically resolve elsewhere.
func resolveWith(full, root string, rec *lookups, cache *lstatCache, dots *bool) (string,
	string) {
	linked := false
	var stack [256]byte // most paths fit: only the result is allocated
	buf := append(stack[:0], '/')
	rest := full
	if len(root) > 1 && strings.HasPrefix(full, root) &&
		(len(full) == len(root) || full[len(root)] == '/') {
		buf = append(buf[:0], root...)
		rest = full[len(root):]
	}
	virtual := 0 // how many trailing components of buf do not exist
	hops := 0
	for {
		for rest != "" && rest[0] == '/' {
			rest = rest[1:]
		}
		if rest == "" {
			return string(buf), ""
		}
		name := rest
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			name, rest = rest[:j], rest[j:]
		} else {
			rest = ""
		}
		switch name {
		case ".":
			continue
		case "..":
			if linked && dots != nil {
				*dots = true
			}
			if i := lastSlash(buf); i == 0 {
				buf = buf[:1]
			} else {
				buf = buf[:i]
			}
			if virtual > 0 {
				virtual--
			}
			continue
		}
		dirLen := len(buf)
		if dirLen > 1 {
			buf = append(buf, '/')
		}
		buf = append(buf, name...)
		if procSelf(buf) {
			return "", "goes through /proc/self, /proc/<pid> or /dev/fd"
		}
		if virtual > 0 {
			virtual++
			continue
		}
		if rec != nil {
			rec.add(string(buf[:max(dirLen, 1)]), string(buf))
		}
		e := cache.entry(buf)
		link, err := e.link, e.err
		if e.device && !harmlessDevices[string(buf)] {
			return "", "is a device node" // a disk, a terminal: what it holds is unknown
		}
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			virtual = 1
			continue
		default: // permission denied, name too long, …: resolving around it could be bypassed
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", "cannot be inspected: " + err.Error()
		}
		if !link {
			continue
		}
		linked = true
		if hops++; hops > maxSymlinks {
			return "", "symlink loop"
		}
		target, err := os.Readlink(string(buf))
		if err != nil || target == "" { // only when the link changes under us
			return "", "cannot be inspected: unreadable symlink"
		}
		buf = buf[:dirLen]
		if target[0] == '/' {
			buf = buf[:1]
		}
		rest = target + rest
	}
}

// procSelf reports whether the resolved prefix b is /proc/self, /proc/thread-self,
// /proc/<pid> or /dev/fd: what lies there differs for the service and for the agent's
// process, so the service cannot resolve it for the agent.
func procSelf(b []byte) bool {
	if len(b) < 7 || b[0] != '/' {
		return false
	}
	if string(b) == "/dev/fd" {
		return true
	}
	if string(b[:6]) != "/proc/" {
		return false
	}
	name := b[6:]
	if string(name) == "self" || string(name) == "thread-self" {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

func lastSlash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return 0
}
