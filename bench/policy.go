package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/skald-circle/skald-bot/rules"
)

// Mix says which kind of policy Generate builds.
type Mix int

// The two mixes.
const (
	// Ordered is the realistic mix: all three actions, rules that overlap with different
	// actions (an exact MCP tool and its server's prefix, an agent-filtered rule and an
	// unfiltered one on the same tool, a group's rule and a default one) and a catch-all
	// "*" require, so that the first match by (priority, id) decides.
	Ordered Mix = iota
	// OrderFree is the same shapes with allow and deny only, where every rule that can
	// match a given call has the same action (the action is a function of the tool name,
	// MCP server or directory the rule names), and without a catch-all. Its decisions do
	// not depend on the order of the rules, so Cedar can express it.
	OrderFree
)

// String returns "ordered" or "orderfree", the name the benchmarks use.
func (m Mix) String() string {
	if m == OrderFree {
		return "orderfree"
	}
	return "ordered"
}

// Group is the permission group other than rules.DefaultGroup that generated rules and
// calls use; one rule in four belongs to it.
const Group = "dev"

// Policy is one generated policy: our rules and the groups they belong to.
type Policy struct {
	Mix    Mix
	Groups []rules.Group
	Rules  []rules.Rule
}

var (
	agents  = []string{"coder", "reviewer", "ops", "intern", "planner", "tester", "docs", "triage"}
	sources = []string{"web", "cli", "claude-code", "cron", "slack"}
	// mcpActions are the tool names an MCP server offers in the mix.
	mcpActions = []string{"send", "list", "search_items", "get", "delete_item"}
)

// pools are the sizes of the name pools for n rules: several rules share a tool name,
// an MCP server or a project directory, as in a real policy.
func pools(n int) (tools, servers, dirs int) {
	return max(3, n/4), max(2, n/20), max(2, n/20)
}

// Generate returns n rules of the given mix, deterministically (the same n and mix give
// the same rules), with ids 1..n, priorities in [0, 999] and path patterns already
// resolved (ResolvedPathPattern set), so Compile reads no file; the package doc
// ("Generated policies") lists their shapes. n below 1 gives an empty policy.
func Generate(mix Mix, n int) Policy {
	rnd := rand.New(rand.NewPCG(uint64(n), uint64(mix)+1))
	nTools, nServers, nDirs := pools(n)
	p := Policy{Mix: mix, Groups: []rules.Group{{ID: Group, Name: Group}}}
	for i := range max(n, 0) {
		r := rules.Rule{ID: uint64(i + 1), GroupID: rules.DefaultGroup, Priority: rnd.IntN(1000)}
		if rnd.IntN(4) == 0 {
			r.GroupID = Group
		}
		tool, server, dir := rnd.IntN(nTools), rnd.IntN(nServers), rnd.IntN(nDirs)
		key := "" // what an OrderFree action derives from
		switch i % 10 {
		case 0, 1, 2:
			r.ToolPattern, key = toolName(tool), toolName(tool)
		case 3:
			action := mcpActions[rnd.IntN(len(mcpActions))]
			r.ToolPattern, key = mcpTool(server, action), mcpServer(server)
		case 4:
			r.ToolPattern, key = mcpServer(server)+"*", mcpServer(server)
		case 5:
			r.ToolPattern, key = rules.ClassFSRead, projDir(dir)
			r.PathPattern = projDir(dir) + "/*"
		case 6:
			r.ToolPattern, key = rules.ClassFSWrite, projDir(dir)
			r.PathPattern = projDir(dir) + "/src/*"
		case 7:
			r.ToolPattern, key = toolName(tool), toolName(tool)
			r.AgentID = agents[rnd.IntN(len(agents))]
		case 8:
			r.ToolPattern, key = mcpServer(server)+"*", mcpServer(server)
			r.Source = sources[rnd.IntN(len(sources))]
		case 9:
			r.ToolPattern, key = rules.ClassFSAny, secretDir(dir)
			r.PathPattern = secretDir(dir) + "/*"
		}
		if mix == OrderFree {
			r.Action = orderFreeAction(key)
		} else {
			r.Action = []rules.Action{rules.Allow, rules.Deny, rules.Require}[rnd.IntN(3)]
			if i%10 == 9 {
				r.Action = []rules.Action{rules.Deny, rules.Deny, rules.Require}[rnd.IntN(3)]
			}
			switch {
			case i == 0:
				r = rules.Rule{ID: 1, GroupID: rules.DefaultGroup, ToolPattern: "*",
					Action: rules.Require, Priority: rules.MaxPriority}
			case i%50 == 49: // a fallback for every tool of one source
				r.ToolPattern, r.PathPattern, r.AgentID = "*", "", ""
				r.Source = sources[rnd.IntN(len(sources))]
				r.Action = []rules.Action{rules.Allow, rules.Deny, rules.Require}[rnd.IntN(3)]
				r.Priority = 900 + rnd.IntN(100)
			}
		}
		r.ResolvedPathPattern = r.PathPattern
		p.Rules = append(p.Rules, r)
	}
	return p
}

// orderFreeAction is the action of every OrderFree rule about key: deny for secret
// directories and one key in four, else allow.
func orderFreeAction(key string) rules.Action {
	h := uint32(2166136261) // FNV-1a
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	if h%4 == 0 || len(key) > 6 && key[:6] == "secret" {
		return rules.Deny
	}
	return rules.Allow
}

// guardRules returns the deny rules of p that have a path filter: those whose place
// guards the calls of every tool outside the file classes (docs/design.md, "Protected
// and guarded places").
func guardRules(p Policy) []rules.Rule {
	var out []rules.Rule
	for _, r := range p.Rules {
		if r.Action == rules.Deny && r.PathPattern != "" {
			out = append(out, r)
		}
	}
	return out
}

// fileTools returns the tools of the file classes under rules' default options: the
// @fs_read and @fs_write tools and those of the default MCP filesystem servers.
func fileTools() []string {
	out := append(slices.Clone(rules.DefaultFSRead), rules.DefaultFSWrite...)
	for _, srv := range rules.DefaultMCPFilesystem {
		for _, n := range append(slices.Clone(rules.MCPFSRead), rules.MCPFSWrite...) {
			out = append(out, "mcp__"+srv+"__"+n)
		}
	}
	return out
}

func toolName(i int) string             { return "tool_" + strconv.Itoa(i) }
func mcpServer(i int) string            { return "mcp__srv" + strconv.Itoa(i) + "__" }
func mcpTool(i int, name string) string { return mcpServer(i) + name }
func projDir(i int) string              { return "proj" + strconv.Itoa(i) }
func secretDir(i int) string            { return "secret" + strconv.Itoa(i) }

// Call is one tool call as every engine is given it. Path is already normalised
// (relative to the workspace root, "/" separators, no "." or ".." components);
// "" means the call has no path argument.
type Call struct {
	Group, Tool, Agent, Source, Path string
}

// HasPath reports whether the call has a path argument.
func (c Call) HasPath() bool { return c.Path != "" }

// String renders the call for mismatch reports.
func (c Call) String() string {
	return fmt.Sprintf("{group=%s tool=%s agent=%q source=%q path=%q}",
		c.Group, c.Tool, c.Agent, c.Source, c.Path)
}

// Calls returns n calls for p, deterministically for (p, n, seed). Four in five are
// built from a random rule so that they match it, and half of those are then moved off
// it by one thing: another agent, source or group, a sibling directory ("proj3-old"),
// the directory itself, no path, or another tool. The rest are calls no generated rule
// names (Bash, unknown tools) with random fields. Half of the calls have a path.
func Calls(p Policy, n int, seed uint64) []Call {
	rnd := rand.New(rand.NewPCG(seed, uint64(len(p.Rules))))
	pick := func(list []string) string { return list[rnd.IntN(len(list))] }
	groups := []string{rules.DefaultGroup, Group, "other"}
	nTools, nServers, nDirs := pools(len(p.Rules))
	out := make([]Call, 0, n)
	for range n {
		c := Call{Group: pick(groups), Agent: pick(agents), Source: pick(sources)}
		if rnd.IntN(5) == 0 || len(p.Rules) == 0 {
			c.Tool = pick([]string{"Bash", "execute_cmd", "unknown_tool", "WebFetch", "Read",
				"Write"})
			if rnd.IntN(2) == 0 {
				c.Path = pick([]string{"README.md", "src/main.go",
					projDir(rnd.IntN(nDirs)) + "/notes.md"})
			}
			out = append(out, c)
			continue
		}
		r := p.Rules[rnd.IntN(len(p.Rules))]
		if r.GroupID == Group {
			c.Group = Group
		}
		if r.AgentID != "" {
			c.Agent = r.AgentID
		}
		if r.Source != "" {
			c.Source = r.Source
		}
		c.Tool = toolFor(rnd, r.ToolPattern, nTools, nServers)
		if r.PathPattern != "" || rnd.IntN(3) == 0 {
			c.Path = pathUnder(rnd, r.PathPattern, nDirs)
		}
		if rnd.IntN(2) == 0 { // move the call off the rule by one thing
			switch rnd.IntN(7) {
			case 0:
				c.Agent = pick(agents)
			case 1:
				c.Source = pick(sources)
			case 2:
				c.Group = pick(groups)
			case 3:
				if dir, ok := subtreeDir(r.PathPattern); ok {
					c.Path = dir + "-old/" + pick([]string{"a.txt", "src/x.go"})
				}
			case 4:
				if dir, ok := subtreeDir(r.PathPattern); ok {
					c.Path = dir
				}
			case 5:
				c.Path = ""
			case 6:
				c.Tool = toolFor(rnd, pick([]string{"*", rules.ClassFSAny}), nTools, nServers)
			}
		}
		out = append(out, c)
	}
	return out
}

// toolFor returns a tool name the tool pattern matches.
func toolFor(rnd *rand.Rand, pattern string, nTools, nServers int) string {
	fs := append(append([]string{}, rules.DefaultFSRead...), rules.DefaultFSWrite...)
	switch pattern {
	case "*":
		switch rnd.IntN(3) {
		case 0:
			return toolName(rnd.IntN(nTools))
		case 1:
			return mcpTool(rnd.IntN(nServers), mcpActions[rnd.IntN(len(mcpActions))])
		}
		return fs[rnd.IntN(len(fs))]
	case rules.ClassFSRead:
		return rules.DefaultFSRead[rnd.IntN(len(rules.DefaultFSRead))]
	case rules.ClassFSWrite:
		return rules.DefaultFSWrite[rnd.IntN(len(rules.DefaultFSWrite))]
	case rules.ClassFSAny:
		return fs[rnd.IntN(len(fs))]
	}
	if pattern[len(pattern)-1] == '*' {
		return pattern[:len(pattern)-1] + mcpActions[rnd.IntN(len(mcpActions))]
	}
	return pattern
}

// pathUnder returns a normalised path the path pattern matches (a subtree's directory
// or a file below it), or a random project path when there is no pattern.
func pathUnder(rnd *rand.Rand, pattern string, nDirs int) string {
	dir, ok := subtreeDir(pattern)
	if !ok {
		dir = projDir(rnd.IntN(nDirs))
	}
	return dir + []string{"/main.go", "/src/app.go", "/src/deep/x.md", "/notes.txt"}[rnd.IntN(4)]
}

// subtreeDir returns the directory of a "<dir>/*" pattern.
func subtreeDir(pattern string) (string, bool) {
	if len(pattern) < 3 || pattern[len(pattern)-2:] != "/*" {
		return "", false
	}
	return pattern[:len(pattern)-2], true
}
