package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// mixRules returns n rules of a realistic mix over group default and group dev (one in
// five): exact names, mcp__x__* prefixes, @fs_* classes with path subtrees, agent and
// source filters; plus the seeded rules and the catch-all.
func mixRules(n int) []Rule {
	rs := seedRules()
	actions := []Action{Allow, Deny, Require}
	for i := range n {
		r := Rule{ID: uint64(100 + i), GroupID: DefaultGroup, Action: actions[i%3],
			Priority: (i * 7919) % 1000}
		if i%5 == 4 {
			r.GroupID = "dev"
		}
		switch i % 10 {
		case 0, 1, 2:
			r.ToolPattern = "tool_" + strconv.Itoa(i)
		case 3:
			r.ToolPattern = fmt.Sprintf("mcp__srv%d__act%d", i%97, i)
		case 4:
			r.ToolPattern = fmt.Sprintf("mcp__srv%d__*", i%97)
		case 5:
			r.ToolPattern, r.PathPattern = ClassFSRead, fmt.Sprintf("proj%d/*", i%50)
		case 6:
			r.ToolPattern, r.PathPattern = ClassFSWrite, fmt.Sprintf("proj%d/src/*", i%50)
		case 7:
			r.ToolPattern, r.AgentID = "tool_"+strconv.Itoa(i-7), "agent"+strconv.Itoa(i%13)
		case 8:
			r.ToolPattern = fmt.Sprintf("mcp__srv%d__*", i%97)
			r.Source = []string{"slack", "cron"}[i%2]
		case 9:
			r.ToolPattern, r.Action = ClassFSAny, Deny
			r.PathPattern = fmt.Sprintf("secret%d/*", i%50)
		}
		rs = append(rs, r)
	}
	return rs
}

// benchCalls are the calls BenchmarkEvaluate cycles through, without and with a path
// (a file tool sent no path argument has one: its cwd).
func benchCalls(n int) (noPath, withPath []Call) {
	noPath = []Call{
		{Tool: "mcp__srv42__send", AgentID: "agent3", Source: "slack"},
		{Tool: "tool_" + strconv.Itoa(n/2/10*10), AgentID: "agent7", Source: "web"},
		{Tool: "Bash", Args: map[string]any{"command": "ls -la"}, Source: "claude-code"},
		{Tool: "unknown_tool", Args: map[string]any{"q": "x"}},
		{Tool: "TodoWrite", Args: map[string]any{"pattern": "x"}},
	}
	withPath = []Call{
		{Tool: "read_file", Args: map[string]any{"path": "proj5/src/main.go"}},
		// a file tool without a path is on its cwd
		{Tool: "Grep", Args: map[string]any{"pattern": "x"}, Cwd: "proj5"},
		{Tool: "Write", Args: map[string]any{"file_path": "proj7/src/new.go"}},
		{Tool: "Edit", Args: map[string]any{"file_path": "memory/notes.md"}},
		{Tool: "read_file", Args: map[string]any{"path": "secret3/key"}},
	}
	return noPath, withPath
}

func benchSet(b *testing.B, n int) *Set {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range []string{"proj5/src", "proj7/src", "memory", "secret3"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{"proj5/src/main.go", "memory/notes.md", "secret3/key"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return Compile([]Group{{ID: "dev"}}, mixRules(n),
		Options{WorkspaceRoot: root, Protected: []string{root + "/state"}})
}

// BenchmarkEvaluate measures Evaluate over 10, 1,000 and 10,000 rules of a realistic
// mix, for calls without and with a path argument, in group dev (so both tiers are
// searched when dev has no match). Run with -benchmem: the no-path case allocates
// nothing.
func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		s := benchSet(b, n)
		noPath, withPath := benchCalls(n)
		for _, bc := range []struct {
			name  string
			calls []Call
		}{{"nopath", noPath}, {"path", withPath}} {
			b.Run(fmt.Sprintf("rules=%d/%s", n, bc.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s.Evaluate("dev", bc.calls[i%len(bc.calls)])
					i++
				}
			})
		}
	}
}

// BenchmarkEvaluateFolder measures Grep on a folder of 64 entries, one of them a
// symlink to a harmless folder, without and with a Watcher keeping its listing: what
// looking for the links a folder holds (linkHeld) costs.
func BenchmarkEvaluateFolder(b *testing.B) {
	root := workspace(b)
	for i := range 63 {
		if err := os.WriteFile(filepath.Join(root, "docs", fmt.Sprintf("f%d.md", i)), nil,
			0o644); err != nil {
			b.Fatal(err)
		}
	}
	mustSymlink(b, "../memory", filepath.Join(root, "docs", "m"))
	rs := append(seedRules(),
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 50})
	for _, watched := range []bool{false, true} {
		opt := seedOptions(root)
		if watched {
			opt.Watcher = openWatcher(b)
		}
		s := Compile(nil, rs, opt)
		c := Call{Tool: "Grep", Args: map[string]any{"path": "docs", "pattern": "x"}}
		b.Run(fmt.Sprintf("watched=%v", watched), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := s.Evaluate(DefaultGroup, c); d.Action != Allow {
					b.Fatal(d)
				}
			}
		})
	}
}

// BenchmarkVisible measures Visible over the same mixes.
func BenchmarkVisible(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		s := benchSet(b, n)
		noPath, _ := benchCalls(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c := noPath[i%len(noPath)]
				s.Visible("dev", c.AgentID, c.Source, c.Tool)
				i++
			}
		})
	}
}

// BenchmarkCompile measures building a Set, which the gate does on every rule change.
func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		rs := mixRules(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Compile([]Group{{ID: "dev"}}, rs, Options{WorkspaceRoot: "/nonexistent-root"})
			}
		})
	}
}

// TestEvaluateNoPathAllocs checks that a call without a path argument of a tool that is
// not a file tool, and Visible, allocate nothing.
// A shell tool's script is parsed: it is not such a call.
func TestEvaluateNoPathAllocs(t *testing.T) {
	rs := mixRules(1000)
	s := Compile([]Group{{ID: "dev"}}, rs, Options{WorkspaceRoot: t.TempDir()})
	noPath, _ := benchCalls(1000)
	for _, c := range noPath {
		if _, ok := s.ShellTool(c.Tool); ok {
			c.Args = nil
		}
		if n := testing.AllocsPerRun(100, func() { s.Evaluate("dev", c) }); n != 0 {
			t.Errorf("Evaluate(%+v) allocates %v times", c, n)
		}
		visible := func() { s.Visible("dev", c.AgentID, c.Source, c.Tool) }
		if n := testing.AllocsPerRun(100, visible); n != 0 {
			t.Errorf("Visible(%s) allocates %v times", c.Tool, n)
		}
		if n := testing.AllocsPerRun(100, func() { s.MatchTool("@fs_any", c.Tool) }); n != 0 {
			t.Errorf("MatchTool allocates %v times", n)
		}
	}
}
