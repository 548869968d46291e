package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNormalize covers (docs/design.md, "Normalising paths") the test workspace (see workspace).
func TestNormalize(t *testing.T) {
	root := workspace(t)
	mustSymlink(t, root+"/secrets", root+"/docs/abs-link") // an absolute symlink
	mustSymlink(t, "../memory/a", root+"/docs/chain1")
	mustSymlink(t, "chain1/b", root+"/docs/chain2") // a link through a link
	for _, tc := range []struct {
		path, base, want string
	}{
		{"secrets/x", "", "secrets/x"},
		{"docs/../secrets/x", "", "secrets/x"},
		{"./docs/./../secrets//x/", "", "secrets/x"},
		{"data/link", "", "secrets/x"},
		{"data/link/", "", "secrets/x"},
		{"data/link/y/z", "", "secrets/x/y/z"},
		{"data/link/../key", "", "secrets/key"},
		{"data/link/../../data", "", "data"},
		{"data/new", "", "secrets/newx"},
		{"data/new/../y", "", "secrets/y"},
		{"data/nodir/../link/y", "", "secrets/x/y"},
		{"data/a/b/../../link", "", "secrets/x"},
		{"data/nodir/../../secrets", "", "secrets"},
		{"data/file.txt/../link", "", "secrets/x"},
		{"docs/abs-link/key", "", "secrets/key"},
		{"docs/chain2", "", "memory/a/b"},
		{"docs/chain2/..", "", "memory/a"},
		{"memory-secrets/x", "", "memory-secrets/x"},
		{".", "", "."},
		{"data/..", "", "."},
		{"key", root + "/secrets", "secrets/key"},
		{"../key", root + "/data/link", "secrets/key"},
		{"key", "secrets", "secrets/key"},
		{"x", "data/link", "secrets/x/x"},
		{root + "/memory/a", "/elsewhere", "memory/a"},
		{root + "/../" + filepath.Base(root) + "/data/link", "", "secrets/x"},
		{"/etc/../etc/x", "", "/etc/x"},
		{"/", "", "/"},
		{"..", "", filepath.Dir(root)},
		{"../../../../../../../../..", "", "/"},
		{"notyet/../../x", "", filepath.Dir(root) + "/x"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := Normalize(tc.path, tc.base, root)
			if err != nil || got != tc.want {
				t.Errorf("Normalize(%q, %q) = %q, %v; want %q",
					tc.path, tc.base, got, err, tc.want)
			}
		})
	}
	// The file system is only read.
	if _, err := os.Lstat(root + "/data/nodir"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Normalize created data/nodir: %v", err)
	}
}

func TestNormalizeRootSlash(t *testing.T) {
	for _, tc := range []struct{ path, base, root, want string }{
		{"/abs/x", "bad\x00base", "/", "abs/x"}, // an absolute path ignores the base
		{"/proc/../etc", "", "/", "etc"},
		{"/", "", "/", "."},
		{"x/y", "/nonexistent-base", "", "/nonexistent-base/x/y"},
		{"/nonexistent-abs/y", "", "", "/nonexistent-abs/y"},
	} {
		t.Run(tc.path+" from "+tc.base, func(t *testing.T) {
			got, err := Normalize(tc.path, tc.base, tc.root)
			if err != nil || got != tc.want {
				t.Errorf("Normalize(%q, %q, %q) = %q, %v; want %q",
					tc.path, tc.base, tc.root, got, err, tc.want)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	root := workspace(t)
	locked := root + "/locked"
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, base, root, want string
	}{
		{"", "", root, `rules: path "": empty: path cannot be normalised`},
		{"secrets/x\x00", "", root,
			`rules: path "secrets/x\x00": holds a NUL byte: path cannot be normalised`},
		{"x", root + "/\x00", root,
			`rules: path "x": base directory holds a NUL byte: path cannot be normalised`},
		{"data/loop1", "", root,
			`rules: path "data/loop1": symlink loop: path cannot be normalised`},
		{"data/loop2/x/../y", "", root,
			`rules: path "data/loop2/x/../y": symlink loop: path cannot be normalised`},
		{"x", "", "",
			`rules: path "x": relative with no base directory: path cannot be normalised`},
		{"x", "rel", "",
			`rules: path "x": relative with no base directory: path cannot be normalised`},
		{strings.Repeat("n", 300), "", root,
			`rules: path "` + strings.Repeat("n", 300) +
				`": cannot be inspected: file name too long: path cannot be normalised`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := Normalize(tc.path, tc.base, tc.root)
			if err == nil {
				t.Errorf("Normalize(%q) = %q, want an error", tc.path, got)
				return
			}
			if !errors.Is(err, ErrBadPath) || err.Error() != tc.want || got != "" {
				t.Errorf("Normalize(%q) = %q, %v\n want error %s wrapping ErrBadPath",
					tc.path, got, err, tc.want)
			}
		})
	}
	// The same path of the code with an error root gets too: permission denied.
	if os.Geteuid() != 0 { // root reads every directory
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(locked, 0o755)
		_, err := Normalize("locked/x", "", root)
		if !errors.Is(err, ErrBadPath) ||
			!strings.Contains(err.Error(), "cannot be inspected: permission denied") {
			t.Errorf("Normalize(locked/x) = %v, want cannot be inspected", err)
		}
	}
}

func TestResolvePattern(t *testing.T) {
	root := workspace(t)
	for _, tc := range []struct{ pattern, want string }{
		{"", ""},
		{"*", "*"},
		{"secrets/*", "secrets/*"},
		{"docs/../secrets/*", "secrets/*"},
		{"./secrets/*", "secrets/*"},
		{"data/link/*", "secrets/x/*"},
		{"data/link", "secrets/x"},
		{"data/link/../key", "secrets/key"},
		{"data/link/ke*", "secrets/x/ke*"},
		{"data/link/../ke*", "secrets/ke*"},
		{"log*", "log*"},
		{"./log*", "log*"},
		{"notyet/*", "notyet/*"},
		{root + "/memory/*", "memory/*"},
		{root + "/*", "./*"},
		{"./*", "./*"},
		{"/*", "/*"},
		{"/etc/*", "/etc/*"},
		{"/pre*", "/pre*"},
		{"/etc/../etc/pass*", "/etc/pass*"},
		{"data/loop1/*", "data/loop1/*"}, // a loop is cleaned lexically
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			if got := ResolvePattern(tc.pattern, root); got != tc.want {
				t.Errorf("ResolvePattern(%q) = %q, want %q", tc.pattern, got, tc.want)
			}
		})
	}
}

func TestUnder(t *testing.T) {
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"memory", "memory", true},
		{"memory/a/b", "memory", true},
		{"memory-secrets/x", "memory", false},
		{"memoryx", "memory", false},
		{"mem", "memory", false},
		{"secrets/x", "memory", false},
		{"/abs/x", "/abs", true},
		{"/absx", "/abs", false},
		{"anything", ".", true},
		{".", ".", true},
		{"/abs", ".", false},
		{"/abs", "/", true},
		{"rel", "/", false},
		{"", "x", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := Under(tc.path, tc.dir); got != tc.want {
				t.Errorf("Under(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
			}
		})
	}
}

// TestPathPatterns covers path pattern shapes through evaluation: subtree, prefix, exact.
func TestPathPatterns(t *testing.T) {
	root := workspace(t)
	rs := []Rule{
		{ID: 1, GroupID: DefaultGroup, ToolPattern: "t", PathPattern: "memory/*", Action: Allow},
		{ID: 2, GroupID: DefaultGroup, ToolPattern: "t", PathPattern: "log*", Action: Deny},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "t", PathPattern: "docs/readme.md",
			Action: Require},
		{ID: 4, GroupID: DefaultGroup, ToolPattern: "t", PathPattern: "/etc/*", Action: Deny},
		{ID: 5, GroupID: DefaultGroup, ToolPattern: "u", PathPattern: "./*", Action: Allow},
		{ID: 6, GroupID: DefaultGroup, ToolPattern: "u", PathPattern: "*", Action: Deny},
		{ID: 7, GroupID: DefaultGroup, ToolPattern: "v", PathPattern: "docs/re*", Action: Allow},
		{ID: 8, GroupID: DefaultGroup, ToolPattern: "v", PathPattern: "/etc/pa*", Action: Allow},
		{ID: 9, GroupID: DefaultGroup, ToolPattern: "v", PathPattern: "/e*", Action: Deny},
		{ID: 10, GroupID: DefaultGroup, ToolPattern: "v", PathPattern: "/*", Action: Require},
	}
	// t, u and v are file tools: the guard of denied places for other tools is not
	// what this test is about (see TestEvaluateOtherTools).
	s := Compile(nil, rs, Options{WorkspaceRoot: root, FSRead: []string{"t", "u", "v"}})
	for _, tc := range []struct {
		tool, path string
		want       uint64
	}{
		{"t", "memory", 1},
		{"t", "memory/a/b", 1},
		{"t", "docs/../memory/x", 1},
		{"t", "memory-secrets/x", 0},
		{"t", "log", 2},
		{"t", "logs/x", 2},
		{"t", "docs/readme.md", 3},
		{"t", "./docs//readme.md", 3},
		{"t", "docs/readme.md.bak", 0},
		{"t", "/etc/passwd", 4},
		{"t", "/etcx", 0},
		{"u", "anything/here", 5},
		// rule 5 allows it, but it holds what rule 6 denies: require (see TestEvaluateGuarded)
		{"u", ".", 0},
		{"u", "/outside", 6},
		{"v", "docs/readme.md", 7},
		{"v", "docs/re", 7},
		{"v", "docs/other", 0},
		{"v", "/etc/passwd", 8},
		{"v", "/etc/hosts", 9},
		{"v", "/exit", 9},
		{"v", "/usr", 10},
		{"v", "usr", 0},
	} {
		t.Run(tc.path, func(t *testing.T) {
			d := s.Evaluate(DefaultGroup,
				Call{Tool: tc.tool, Args: map[string]any{"path": tc.path}})
			if d.RuleID != tc.want {
				t.Errorf("%s %q: rule %d (%+v), want %d", tc.tool, tc.path, d.RuleID, d, tc.want)
			}
		})
	}
}
