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
var fuzzTools = []string{"read_file", "write_file", "Read", "Write", "Edit", "list_files",
	"NotebookEdit", "grep_files"}

// FuzzEvaluate evaluates file tool calls with fuzzed paths and working directories in
// group default with the seeded rules, in a workspace with
// symlinks into secrets/ and into the data directory state/, and a loop. A leading
// "@ROOT" in the path, cwd or other (a second path, under file_path) stands for the
// workspace root. It checks that Evaluate never panics, and compares every decision
// with where the OS itself puts each path: the oracle opens the path through os.Root
// (creating the missing directories and the file, as a write tool with mkdir -p would)
// and looks the file up by inode. Each key evaluated alone must name that location; a
// location in secrets/ or the protected state/, data/skald/ and skald.yaml must be
// denied, one that holds them (the workspace, data/) must be left to a human
// (Decision.Contains) and no other may be, and an allow needs every location in
// memory/ or data/ — whichever key holds it, since a tool may act on any; memory/l and
// memory/up hold secrets/ and the workspace through a symlink in them. The call's
// decision must be the most restrictive of its keys' alone (docs/design.md, "Path arguments");
// a call with no path key acts on its cwd, and must be decided as the path "." is.
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
		{4, "memory/x", "", "secrets/key"},
		{0, "memory/a", "", "docs/x"},
		{3, "data/file.txt", "", "data/loop1"},
		{0, ".", "", ""},
		{7, "data", "", ""},
		{5, "@ROOT", "", ""},
		{0, "data/skald/../..", "", ""},
		{6, "memory/a", "", "."},
		{2, "..", "data", ""},
		{0, "/", "", ""},
		{0, "", "", ""},
		{7, "", "data", ""},
		{5, "", "data/link", ""},
		{1, "", "@ROOT/state", ""},
		{3, "", "data/state-link/..", ""},
		{2, "", "data/loop1", ""},
		{6, "", "memory/a", ""},
		{0, "memory/l", "", ""},
		{7, "memory/up", "", ""},
		{2, "", "memory/l", ""},
		{0, "l", "memory", ""},
		{3, "memory/l/sx/..", "", ""},
		{0, "memory/a", "", "@ROOT/memory/up/"},
	} {
		f.Add(seed.tool, seed.path, seed.cwd, seed.other)
	}
	root := innerWorkspace(f)
	// Folders that hold a guarded place through a link in them (docs/design.md,
	// "Protected and guarded places"): memory/l/sx → secrets, memory/up/u → the root.
	for link, target := range map[string]string{"memory/l/sx": "../../secrets",
		"memory/up/u": "../.."} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(link)), 0o755); err != nil {
			f.Fatal(err)
		}
		mustSymlink(f, target, filepath.Join(root, link))
	}
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
		if d.Reason == ReasonProtected && !Under(d.Path, "state") &&
			!Under(d.Path, "data/skald") && d.Path != "skald.yaml" {
			t.Fatalf("%+v: %+v: not a protected path", call, d)
		}

		// Each key alone: the OS must put its path where Evaluate says, and a tool may
		// act on any of them, so each one's location counts for the whole call. A call
		// with neither acts on its cwd: it must be decided as the path "." is.
		var keys [][2]string
		for _, k := range []string{"path", "file_path"} {
			if v, ok := call.Args[k].(string); ok && v != "" {
				keys = append(keys, [2]string{k, v})
			}
		}
		implied := len(keys) == 0
		if implied {
			keys = append(keys, [2]string{"path", "."})
		}
		var alone []Decision
		for _, kv := range keys {
			k, v := kv[0], kv[1]
			args := map[string]any{k: v}
			if implied { // on its cwd alone: the tool's own directory, no other base
				args = nil
			}
			a := s.Evaluate(DefaultGroup, Call{Tool: call.Tool, Args: args, Cwd: call.Cwd})
			alone = append(alone, a)
			loc, ok := osLocate(t, root, v, call.Cwd, func() {})
			restore(t, root, orig)
			if !ok {
				continue
			}
			if strings.IndexByte(call.Cwd, 0) >= 0 { // a cwd that cannot be resolved: no path can
				if a.PathState != PathInvalid || a.Action == Allow {
					t.Fatalf("%s %q alone with cwd %q: %+v, want unresolvable", k, v, call.Cwd, a)
				}
				continue
			}
			// The decision names the strictest of the path's forms (every base, the
			// OS's resolution and the lexically cleaned one); the OS's is one of them.
			c := Call{Cwd: call.Cwd}
			fs, fok := s.forms(&c, v, nil)
			unresolvable := a.PathState == PathInvalid && !fok // another form cannot be resolved
			if a.Reason != ReasonProtected && !unresolvable && (a.PathState != PathOK ||
				!slices.Contains(fs, form{path: loc, proj: -1})) {
				t.Fatalf("%s %q alone: decision %+v, but the OS puts it at %q", k, v, a, loc)
			}
			if sensitive(loc) && (a.Action != Deny || d.Action != Deny) {
				t.Fatalf("%+v: %+v (%s alone %+v), but %s lands in %q: want deny",
					call, d, k, a, k, loc)
			}
			if d.Action == Allow && !Under(loc, "memory") && !Under(loc, "data") {
				t.Fatalf("%+v: allowed %+v, but %s lands in %q", call, d, k, loc)
			}
			// The workspace and data/ hold secrets/, the data directories or the config
			// file, memory/l and memory/up through a link in them: a human decides,
			// whatever the rules allow. No other place does.
			holds := loc == "." || loc == "data" || loc == "memory/l" || loc == "memory/up"
			if holds && (a.Action != Deny && a.Contains == "" || strictness(d) < strictness(a)) {
				t.Fatalf("%+v: %+v (%s alone %+v), but %s lands in %q, which holds guarded places",
					call, d, k, a, k, loc)
			}
			if !holds && a.Contains != "" && a.Paths <= 1 {
				t.Fatalf("%s %q alone: %+v, but it lands in %q, which holds no guarded place",
					k, v, a, loc)
			}
		}
		// The call's decision is its most restrictive key's, the first on a tie; a call
		// on its cwd counts no path argument.
		var want Decision
		for i, a := range alone {
			if i == 0 || strictness(a) > strictness(want) {
				want = a
			}
		}
		want.Paths = 0
		for _, a := range alone {
			want.Paths += a.Paths
		}
		if implied {
			want.Paths = 0
		}
		if d != want {
			t.Fatalf("%+v: %+v, but the most restrictive of its keys alone is %+v", call, d, want)
		}
	})
}

// strictness ranks decisions as FuzzEvaluate expects Evaluate to combine them: deny,
// then a require no bypass may lift (Contains), then require, then allow.
func strictness(d Decision) int {
	if d.Locked() {
		return 2
	}
	return map[Action]int{Allow: 0, Require: 1, Deny: 3}[d.Action]
}

func atRoot(s, root string) string {
	if rest, ok := strings.CutPrefix(s, "@ROOT"); ok {
		return root + rest
	}
	return s
}

// sensitive reports whether a normalised path is in secrets/ or protected.
func sensitive(p string) bool {
	return Under(p, "secrets") || Under(p, "state") || Under(p, "data/skald") || p == "skald.yaml"
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

// fuzzArgTools are the tools FuzzEvaluateArgs picks from: file tools, MCP filesystem
// tools, and tools outside the file classes.
var fuzzArgTools = []string{"Read", "Write", "LS", "mcp__filesystem__read_multiple_files",
	"mcp__filesystem__move_file", "mcp__notes__get", "WebFetch", "Bash"}

// fuzzArgKeys are the keys FuzzEvaluateArgs puts its value under: the default path
// arguments, then keys whose strings are only scanned.
var fuzzArgKeys = append(slices.Clone(DefaultPathArgs), "file", "uri", "opts")

// FuzzEvaluateArgs sends a fuzzed path under any key of the default path arguments or
// another key, as any JSON value (a string, in an array, beside a number, in an object,
// nested), to file tools and others, in group default with the seeded rules and in
// group open whose own rules allow everything. Where a tool may open the path decides
// what must hold: where the OS puts it against the call's cwd or the workspace root,
// and where it lands once ".." is cleaned lexically first (osLocate). Under a path key:
// under a protected place the call is denied; at a place that holds one ("." or data/)
// it is denied or locked (Decision.Locked: no bypass or fast-path lifts it); in group
// default, under secrets/ a file tool is denied and any other tool denied or locked;
// and a value that is not a string or an array of strings is never allowed. Under
// another key, a string that looks like a path inside a protected place, or inside
// secrets/ in group default, is denied or locked.
func FuzzEvaluateArgs(f *testing.F) {
	for _, seed := range []struct {
		tool, key, shape uint8
		path, cwd        string
		open             bool
	}{
		{3, 3, 2, "state/skald.db", "", false},
		{4, 4, 0, "secrets/key", "", false},
		{5, 0, 0, "secrets/key", "", true},
		{5, 8, 1, "data/link/../key", "", false},
		{6, 6, 0, ".", "", true},
		{7, 7, 0, "data", "", true},
		{0, 1, 3, "memory/a", "", true},
		{1, 2, 4, "memory/a", "", true},
		{2, 5, 5, "memory/a", "", true},
		{0, 0, 6, "", "", true},
		{5, 3, 2, "@ROOT/skald.yaml", "", true},
		{6, 0, 0, "../key", "data/link", false},
		{3, 3, 1, "/proc/self/cwd/secrets/key", "", true},
		{0, 0, 0, "key", "\x00", true},
		{2, 4, 0, "data/state-link", "", true},
		{3, 0, 0, "memory/a/../../secrets/key", "memory", false},
		{6, 9, 0, "data/link/../../state/skald.db", "", true},
		{7, 10, 0, "file://@ROOT/secrets/key", "", false},
		{6, 11, 4, "secrets/key", "docs", false},
		{0, 0, 0, "secrets/key", "memory", false},
	} {
		f.Add(seed.tool, seed.key, seed.shape, seed.path, seed.cwd, seed.open)
	}
	root := innerWorkspace(f)
	orig := entries(f, root)
	rs := seedRules()
	for i, tp := range []string{"*", "@fs_any", "mcp__*"} {
		rs = append(rs,
			Rule{ID: uint64(100 + i), GroupID: "open", ToolPattern: tp, Action: Allow,
				Priority: 0})
	}
	rs = append(rs,
		Rule{ID: 110, GroupID: "open", ToolPattern: "@fs_any", PathPattern: "./*", Action: Allow,
			Priority: 0})
	s := Compile([]Group{{ID: "open"}}, rs, seedOptions(root))

	f.Fuzz(func(t *testing.T, tool, key, shape uint8, path, cwd string, open bool) {
		path, cwd = atRoot(path, root), atRoot(cwd, root)
		var v any
		var located []string // the strings of v that are paths
		valid := true
		switch shape % 7 {
		case 0:
			v, located = path, []string{path}
		case 1:
			v, located = []any{path}, []string{path}
		case 2:
			v, located = []any{"memory/a", path}, []string{"memory/a", path}
		case 3:
			v, located, valid = []any{path, 7.0}, []string{path}, false
		case 4:
			v, valid = map[string]any{"p": path}, false
		case 5:
			v, valid = []any{[]any{path}}, false
		case 6:
			v, valid = 3.0, false
		}
		k := fuzzArgKeys[int(key)%len(fuzzArgKeys)]
		pathKey := slices.Contains(DefaultPathArgs, k)
		if !pathKey {
			valid = true // not a path argument: any value is fine
		}
		call := Call{Tool: fuzzArgTools[int(tool)%len(fuzzArgTools)], Cwd: cwd,
			Args: map[string]any{k: v}}
		group := DefaultGroup
		if open {
			group = "open"
		}
		d := s.Evaluate(group, call)
		file := s.IsFSRead(call.Tool) || s.IsFSWrite(call.Tool)
		held := d.Action == Deny || d.Locked()
		if !valid && d.Action == Allow {
			t.Fatalf("%s %+v: %+v, but the value is not a string or an array of strings",
				group, call, d)
		}
		if !pathKey {
			if p, ok := v.(map[string]any); ok {
				located = []string{p["p"].(string)}
			}
			if sh := shape % 7; sh == 3 || sh == 5 {
				located = []string{path}
			}
		}
		for _, p := range located {
			if p == "" || strings.IndexByte(cwd, 0) >= 0 {
				continue
			}
			for _, loc := range toolLocations(t, root, orig, p, cwd) {
				protected := Under(loc, "state") || Under(loc, "data/skald") || loc == "skald.yaml"
				if !pathKey {
					if (protected || !open && Under(loc, "secrets")) && looksLikePath(p) && !held {
						t.Fatalf("%s %+v: %+v, but %q lands in %q", group, call, d, p, loc)
					}
					continue
				}
				fuzzCheckPath(t, group, call, d, p, loc, protected, open, file, held)
			}
		}
	})
}

// toolLocations is where a tool may open the path p sent with cwd: as the OS resolves
// it against cwd and against the workspace root, and once ".." is cleaned lexically.
func toolLocations(t *testing.T, root string, orig map[string]bool, p, cwd string) []string {
	var out []string
	if q, ok := fileURIPath(p); ok && isFileURI(p) {
		p = q
	} else if isFileURI(p) {
		return nil
	}
	add := func(p, cwd string) {
		loc, ok := osLocate(t, root, p, cwd, func() {})
		restore(t, root, orig)
		if ok && !slices.Contains(out, loc) {
			out = append(out, loc)
		}
	}
	add(p, cwd)
	if !strings.HasPrefix(p, "/") {
		add(p, "")
	}
	full := p
	if !strings.HasPrefix(p, "/") {
		base := root
		if cwd != "" {
			base = cwd
			if !strings.HasPrefix(cwd, "/") {
				base = root + "/" + cwd
			}
		}
		full = base + "/" + p
	}
	if clean := filepath.Clean(full); strings.HasPrefix(clean, root+"/") || clean == root {
		add(clean, "")
	}
	return out
}

// fuzzCheckPath checks what must hold of a call whose path argument p lands in loc.
func fuzzCheckPath(t *testing.T, group string, call Call, d Decision,
	p, loc string, protected, open, file, held bool) {
	t.Helper()
	switch {
	case protected && d.Action != Deny:
		t.Fatalf("%s %+v: %+v, but %q lands in the protected %q", group, call, d, p, loc)
	case (loc == "." || loc == "data") && !held:
		t.Fatalf("%s %+v: %+v, but %q lands in %q, which holds protected places",
			group, call, d, p, loc)
	case !open && Under(loc, "secrets") && file && d.Action != Deny:
		t.Fatalf("%s %+v: %+v, but %q lands in %q: want deny", group, call, d, p, loc)
	case !open && Under(loc, "secrets") && !held:
		t.Fatalf("%s %+v: %+v, but %q lands in %q: want deny or locked", group, call, d, p, loc)
	}
}
