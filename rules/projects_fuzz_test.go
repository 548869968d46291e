package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/rules/shell"
)

// projectsFuzzTools are the directory tools FuzzEvaluateProjects reads a directory
// with: file tools, an MCP filesystem tool, a tool outside the file classes and shell
// commands that recurse.
var projectsFuzzTools = []string{"Grep", "LS", "Glob", "mcp__filesystem__directory_tree",
	"mcp__notes__get", "grep -r x --", "ls -R --"}

// FuzzEvaluateProjects reads a fuzzed directory with a fuzzed tool and cwd, in the
// profile of any of four workspaces — ws, its project ws/src/p, the project
// ws/src/p/lib/r nested in that one, and q/s beside ws — each compiled with the others
// as Options.Projects, in group default and in group open, whose own rules allow
// everything. Each has a secrets the seeded deny rule denies — in ws/src/p/lib/r a
// symlink to .vault, in q/s one to ../vault, out of the project, so that the deny
// covers what the name resolves to in that project — and ws/state is protected; symlinks
// lead into and out of the projects. Wherever a tool may open the
// directory (filepath.EvalSymlinks of it against each base, and of it cleaned
// lexically first), when that place holds any project's guarded place, or lies in
// one (outside group open for a file tool, whose allow overrides the deny of
// secrets/), the call must be denied or a require nothing lifts (Decision.Locked): a read
// holding a project is never allowed, from inside the project, above it or beside it
// (docs/design.md, "Projects").
func FuzzEvaluateProjects(f *testing.F) {
	for _, seed := range []struct {
		tool, ws  uint8
		path, cwd string
		open      bool
	}{
		{0, 0, "src", "", true},
		{1, 0, ".", "@W/src", true},
		{2, 0, "lnk", "", true},
		{3, 0, "src/p/lib", "", true},
		{4, 0, "@B/q", "", false},
		{5, 1, "lib", "", true},
		{6, 1, "out", "", true},
		{0, 2, "../..", "", true},
		{1, 3, "..", "", true},
		{2, 3, "@W/src/up/src", "", true},
		{5, 0, "src/p/src", "", true},
		{6, 1, "src", "lib", false},
		{0, 0, "", "@P/lib", true},
		{3, 2, "@B", "", true},
		{0, 0, "src/p/lib/r/.vault", "", false},
		{4, 1, "lib/r/.vault", "", true},
		{1, 3, "../vault", "", true},
		{4, 0, "@B/q/vault", "", false},
		{6, 0, "@B/q", "", false},
		{4, 1, "out/vault", "", true},
		{6, 2, ".vault", "", true},
		{2, 0, "src/p/lib/r", "", true},
	} {
		f.Add(seed.tool, seed.ws, seed.path, seed.cwd, seed.open)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	w, p, r, s := base+"/ws", base+"/ws/src/p", base+"/ws/src/p/lib/r", base+"/q/s"
	for _, file := range []string{"ws/secrets/key", "ws/state/skald.db", "ws/docs/a",
		"ws/src/b.go", "ws/src/p/secrets/key", "ws/src/p/src/a.go", "ws/src/p/lib/c.go",
		"ws/src/p/lib/r/.vault/key", "q/vault/key", "q/s/sub/open.go", "q/d.go"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, file)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, file), []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/lnk":       "src/p/lib",  // holds r
		"ws/src/up":    "..",         // the workspace again
		"ws/src/p/out": "../../../q", // beside the workspace: holds s
		"q/back":       "../ws/src",  // holds p and r
		// The projects' secrets: the deny follows the name in its own project.
		"ws/src/p/lib/r/secrets": ".vault",
		"q/s/secrets":            "../vault",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			f.Fatal(err)
		}
	}
	roots := []string{w, p, r, s}
	guarded := []string{w + "/secrets", w + "/state", p + "/secrets", r + "/.vault",
		base + "/q/vault"}
	rs := seedRules()
	for i, tp := range []string{"*", "@fs_any"} {
		rs = append(rs,
			Rule{ID: uint64(100 + i), GroupID: "open", ToolPattern: tp, Action: Allow,
				Priority: 0})
	}
	var sets []*Set
	for _, root := range roots {
		sets = append(sets, Compile([]Group{{ID: "open"}}, rs, Options{WorkspaceRoot: root,
			Projects: roots, Protected: []string{w + "/state"}}))
	}
	expand := strings.NewReplacer("@W", w, "@P", p, "@B", base)

	f.Fuzz(func(t *testing.T, tool, ws uint8, path, cwd string, open bool) {
		path, cwd = expand.Replace(path), expand.Replace(cwd)
		if path == "" || strings.ContainsAny(path+cwd, "\x00~") || isFileURI(path) {
			return // unresolvable or expanded otherwise: the other fuzz tests' matter
		}
		i := int(ws) % len(roots)
		root, set := roots[i], sets[i]
		name := projectsFuzzTools[int(tool)%len(projectsFuzzTools)]
		call := Call{Tool: name, Cwd: cwd, Args: map[string]any{"path": path}}
		sh := strings.Contains(name, " ")
		switch {
		case sh:
			call.Tool = "Bash"
			call.Args = map[string]any{"command": name + " '" +
				strings.ReplaceAll(path, "'", `'\''`) + "'"}
			if shell.Parse(call.Args["command"].(string)).Err != nil {
				return // a script that does not parse has no paths (invalid UTF-8)
			}
		case name == "Glob":
			if strings.ContainsAny(path, "*?[{\\") {
				return // its literal directory is not path
			}
			call.Args = map[string]any{"pattern": path + "/**"}
		}
		group := DefaultGroup
		if open {
			group = "open"
		}
		d := set.Evaluate(group, call)
		file := set.IsFSRead(call.Tool)
		if d.Action == Deny || d.Locked() {
			return
		}
		// Where a tool may open path: against its cwd, and (not a shell, which starts
		// in its cwd) against the workspace root; as the OS resolves it, and cleaned.
		var bases []string
		if cwd != "" {
			if !filepath.IsAbs(cwd) {
				cwd = root + "/" + cwd
			}
			bases = append(bases, cwd)
		}
		if !sh || cwd == "" {
			bases = append(bases, root)
		}
		for _, b := range bases {
			full := path
			if !filepath.IsAbs(path) {
				full = b + "/" + path
			}
			for _, form := range []string{full, filepath.Clean(full)} {
				loc, err := filepath.EvalSymlinks(form)
				if err != nil {
					continue // it does not exist, or cannot be resolved: it holds nothing
				}
				if g := slices.IndexFunc(guarded, func(g string) bool {
					// Holding is strictly; group open's own allow lets a file tool into a
					// denied place, the place itself included.
					return Under(g, loc) && g != loc ||
						Under(loc, g) && (!open || !file || g == w+"/state")
				}); g >= 0 {
					t.Fatalf("%s %s %+v in %s: %+v, but %q opens %s, which holds or lies in %s",
						group, call.Tool, call.Args, root, d, path, loc, guarded[g])
				}
			}
		}
	})
}
