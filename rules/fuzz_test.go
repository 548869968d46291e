package rules

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzTools are the file tools FuzzEvaluate picks from: reads and writes.
var fuzzTools = []string{"read_file", "write_file", "Read", "Write", "Edit", "list_files", "NotebookEdit", "grep_files"}

// FuzzEvaluate evaluates file tool calls with fuzzed paths and working directories in
// group default with the seeded rules (SPEC §4, §12.15, §12.25), in a workspace with
// symlinks into secrets/ and into the data directory state/, and a loop. A leading
// "@ROOT" in the path, cwd or other (a second path, under file_path) stands for the
// workspace root. It checks that Evaluate
// never panics, and compares every decision with where the OS itself puts the path:
// the oracle opens the path through os.Root (creating the missing directories and the
// file, as a write tool with mkdir -p would) and looks the file up by inode. The
// decision's path must be that location, and a location in secrets/ or the protected
// state/ and skald.yaml must be denied — also when only the second path lands in
// state/ or skald.yaml, since a tool may read that key.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []struct {
		tool             uint8
		path, cwd, other string
	}{
		{0, "docs/../secrets/x", "", ""},
		{0, "data/link", "", ""},
		{1, "data/link/../key", "", ""},
		{1, "data/new", "", ""},
		{1, "data/nodir/../link/y", "", ""},
		{3, "data/a/b/../../link/z", "", ""},
		{0, "data/loop1", "", ""},
		{0, "data/loop2/../x", "", ""},
		{0, "secrets/x\x00", "", ""},
		{2, "memory-secrets/x", "", ""},
		{2, "memory/a/b", "", ""},
		{4, "memory/../secrets/key", "", ""},
		{5, "../key", "data/link", ""},
		{5, "key", "@ROOT/secrets", ""},
		{6, "@ROOT/data/state-link/skald.db", "", ""},
		{7, "data/config-link", "", ""},
		{1, "skald.yaml", ".", ""},
		{1, "data/./file.txt", "", ""},
		{0, "x/..", "data/nodir", ""},
		{0, "/etc/passwd", "", ""},
		{0, "data/file.txt/../link", "", ""},
		{1, "data/new/../newfile", "", ""},
		{0, "memory/a", "", "data/state-link/skald.db"},
		{0, "data/loop1", "", "@ROOT/skald.yaml"},
		{0, "", "", "data/link/../key"},
	} {
		f.Add(seed.tool, seed.path, seed.cwd, seed.other)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	root := base + "/ws"
	if err := os.Mkdir(root, 0o755); err != nil {
		f.Fatal(err)
	}
	buildWorkspace(f, root)
	orig := entries(f, root)
	s := Compile(nil, seedRules(), seedOptions(root))

	f.Fuzz(func(t *testing.T, tool uint8, path, cwd, other string) {
		call := Call{
			Tool: fuzzTools[int(tool)%len(fuzzTools)],
			Args: map[string]any{"path": atRoot(path, root)},
			Cwd:  atRoot(cwd, root),
		}
		if other != "" {
			call.Args["file_path"] = atRoot(other, root)
		}
		d := s.Evaluate(DefaultGroup, call)

		switch d.Action {
		case Allow:
			if d.PathState != PathOK || !Under(d.Path, "memory") && !Under(d.Path, "data") {
				t.Fatalf("%+v: allowed %+v outside memory/ and data/", call, d)
			}
		case Deny, Require:
		default:
			t.Fatalf("%+v: action %q", call, d.Action)
		}
		if d.PathState == PathOK && sensitive(d.Path) && d.Action != Deny {
			t.Fatalf("%+v: %+v, want deny", call, d)
		}
		if d.Reason == ReasonProtected && !Under(d.Path, "state") && d.Path != "skald.yaml" {
			t.Fatalf("%+v: %+v: not a protected path", call, d)
		}

		// The path the rules saw: the OS must put it where Evaluate said.
		first := call.Args["path"].(string)
		if first == "" && other != "" {
			first = call.Args["file_path"].(string)
		}
		loc, ok := osLocate(t, root, first, call.Cwd, func() {})
		restore(t, root, orig)
		if ok && d.Reason != ReasonProtected { // a protected decision names the protected path
			if d.PathState != PathOK || d.Path != loc {
				t.Fatalf("%+v: decision %+v, but the OS puts it at %q", call, d, loc)
			}
			if sensitive(loc) && d.Action != Deny {
				t.Fatalf("%+v: %+v lands in %q, want deny", call, d, loc)
			}
		}
		// The other path key: a tool may read it instead, so a protected one denies.
		if other != "" {
			loc, ok := osLocate(t, root, call.Args["file_path"].(string), call.Cwd, func() {})
			restore(t, root, orig)
			if ok && (Under(loc, "state") || loc == "skald.yaml") && d.Action != Deny {
				t.Fatalf("%+v: %+v, but file_path lands in %q: want deny", call, d, loc)
			}
		}
	})
}

func atRoot(s, root string) string {
	if rest, ok := strings.CutPrefix(s, "@ROOT"); ok {
		return root + rest
	}
	return s
}

// sensitive reports whether a normalised path is in secrets/ or protected.
func sensitive(p string) bool {
	return Under(p, "secrets") || Under(p, "state") || p == "skald.yaml"
}

// osLocate returns where the OS puts path, relative to root with "/" ("." for root),
// reached from cwd: it opens the path through os.Root, or, when it does not exist,
// creates its parent directories and the file, then finds the entry with the same
// inode. It reports false when the OS cannot reach the path inside root at all. It
// calls written before it writes to the workspace.
func osLocate(t *testing.T, root, path, cwd string, written func()) (string, bool) {
	rel, ok := relInside(root, path)
	if !strings.HasPrefix(path, "/") && cwd != "" {
		var base string
		if base, ok = relInside(root, cwd); ok {
			rel = base + "/" + path
		}
	}
	if !ok || path == "" || strings.IndexByte(rel, 0) >= 0 {
		return "", false
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fh, err := r.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		written()
		if i := strings.LastIndexByte(rel, '/'); i > 0 {
			if r.MkdirAll(rel[:i], 0o755) != nil {
				return "", false
			}
		}
		if fh, err = r.Open(rel); err != nil {
			fh, err = r.OpenFile(rel, os.O_CREATE|os.O_WRONLY, 0o644)
		}
	}
	if err != nil {
		return "", false
	}
	defer fh.Close()
	want, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	found := ""
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if os.SameFile(fi, want) {
			found = "."
			if p != root {
				found = filepath.ToSlash(p[len(root)+1:])
			}
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == "" {
		t.Fatalf("%q opened a file outside %s", rel, root)
	}
	return found, true
}

// relInside returns p relative to root when p is relative or starts with root.
func relInside(root, p string) (string, bool) {
	switch {
	case p == root:
		return ".", true
	case strings.HasPrefix(p, root+"/"):
		return p[len(root)+1:], true
	case !strings.HasPrefix(p, "/"):
		return p, true
	}
	return "", false
}

// entries lists every path under root, relative to it, without following symlinks.
func entries(t testing.TB, root string) map[string]bool {
	m := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		m[p] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// restore removes from root what the oracle created: every entry not in orig, deepest
// first. The oracle only creates (it never truncates or removes), so this restores the
// workspace.
func restore(t testing.TB, root string, orig map[string]bool) {
	var added []string
	for p := range entries(t, root) {
		if !orig[p] {
			added = append(added, p)
		}
	}
	slices.SortFunc(added, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, p := range added {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}
