package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/skald-circle/skald-bot/rules"
)

// RegoQuery is the query NewRego prepares: the decision of RegoModule's package.
const RegoQuery = "data.skald.decision"

// regoHeader is the fixed part of every generated module. A match is the array [tier,
// priority, id, action] — tier 0 for the call's group, 1 for default — so the first match
// (docs/design.md, "Rule order") is the minimum of the set (Rego orders arrays element by
// element).
const regoHeader = `package skald

default decision := {"action": "require", "rule": 0}

first := min(matches)

decision := {"action": first[3], "rule": first[2]} if not guarded

# A guarded call (see guarded) is require unless a rule denies it; an allow loses its rule.
decision := {"action": "deny", "rule": first[2]} if {
	guarded
	first[3] == "deny"
}

decision := {"action": "require", "rule": first[2]} if {
	guarded
	first[3] == "require"
}

decision := {"action": "require", "rule": 0} if {
	guarded
	first[3] == "allow"
}

default guarded := false

# under is the dir/* subtree: the directory itself or anything below it.
under(p, dir) if p == dir

under(p, dir) if startswith(p, concat("", [dir, "/"]))
`

// The ways a call's candidates are looked up in the rule tree, each written only when
// the policy has rules filed that way (Rego refuses a reference to a rule that does
// not exist): by tool name, by tool name and the first directory of the path (for the
// rules with a path pattern, so a call searches only the rules about its directory),
// by each prefix length the policy uses, and the "*" rules.
const (
	regoByTool = `
matches contains m if {
	some m in by_tool[input.tool]
}
`
	regoByPrefix = `
matches contains m if {
	some n in prefix_lens
	n <= count(input.tool)
	some m in by_prefix[substring(input.tool, 0, n)]
}
`
	regoByPath = `
matches contains m if {
	some m in by_path[input.tool][first_dir]
}
`
	regoFirstDir = `
# first_dir is the first component of the call's path: "proj3" of "proj3/src/x",
# "/etc" of "/etc/passwd".
first_dir := split(input.path, "/")[0] if not startswith(input.path, "/")

first_dir := concat("", ["/", split(input.path, "/")[1]]) if startswith(input.path, "/")
`
	// A tool outside the file classes whose path lies where a deny rule with a path
	// filter denies, whatever that rule's tool pattern, is guarded (docs/design.md,
	// "Protected and guarded places"): guard_in[dir] holds the ids of such rules, filed
	// by their first directory, whose other filters match the call; guard_any those
	// whose pattern has none.
	regoGuardIn = `
guarded if {
	not file_tools[input.tool]
	some _ in guard_in[first_dir]
}
`
	regoGuardAny = `
guarded if {
	not file_tools[input.tool]
	some _ in guard_any
}
`
	regoAnyTool = `
matches contains m if {
	some m in any_tool
}
`
)

// RegoModule returns p as a Rego v1 module of package skald whose rule decision is
// {"action": "allow"|"deny"|"require", "rule": <id>}: the first match by (priority, id)
// in the call's group, then in default, or require with rule 0 (docs/design.md, "Rule
// order"). The input document is {"group", "tool", "agent", "source", "path"}, path
// absent when the call has none. The package doc ("Rego") tells how rules are filed in
// the rule tree and how guards are encoded.
func RegoModule(p Policy) string {
	var b strings.Builder
	b.WriteString(regoHeader)
	var lens []int
	kinds := map[string]bool{}
	for _, r := range p.Rules {
		kind, _, _ := strings.Cut(regoHead(r)[0], "[")
		kinds[kind] = true
		if kind == "by_prefix" {
			if n := len(r.ToolPattern) - 1; !slices.Contains(lens, n) {
				lens = append(lens, n)
			}
		}
	}
	if len(kinds) == 0 {
		b.WriteString("\nmatches := set()\n")
	}
	guards := guardRules(p)
	guardKinds := map[bool]bool{} // by first directory or not
	for _, r := range guards {
		_, byDir := patternDir(cmp.Or(r.ResolvedPathPattern, r.PathPattern))
		guardKinds[byDir] = true
	}
	if kinds["by_tool"] {
		b.WriteString(regoByTool)
	}
	if kinds["by_path"] {
		b.WriteString(regoByPath)
	}
	if kinds["by_path"] || guardKinds[true] {
		b.WriteString(regoFirstDir)
	}
	if guardKinds[true] {
		b.WriteString(regoGuardIn)
	}
	if guardKinds[false] {
		b.WriteString(regoGuardAny)
	}
	if len(guards) > 0 {
		b.WriteString("\nfile_tools := {")
		for i, n := range fileTools() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(regoString(n))
		}
		b.WriteString("}\n")
	}
	if kinds["any_tool"] {
		b.WriteString(regoAnyTool)
	}
	if kinds["by_prefix"] {
		b.WriteString(regoByPrefix)
		slices.Sort(lens)
		b.WriteString("\nprefix_lens := {")
		for i, n := range lens {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(n))
		}
		b.WriteString("}\n")
	}
	for _, r := range p.Rules {
		head := regoHead(r)
		body := regoBody(r)
		for _, h := range head {
			b.WriteString("\n" + h + " contains " + regoMatch(r))
			if body != "" {
				b.WriteString(" if {\n" + body + "}")
			}
			b.WriteString("\n")
		}
	}
	for _, r := range guards {
		head := "guard_any"
		if dir, ok := patternDir(cmp.Or(r.ResolvedPathPattern, r.PathPattern)); ok {
			head = "guard_in[" + regoString(dir) + "]"
		}
		// The body always holds the path filter.
		fmt.Fprintf(&b, "\n%s contains %d if {\n%s}\n", head, r.ID, regoBody(r))
	}
	return b.String()
}

// regoHead returns the heads under which rule r's match is filed: by_path[tool][dir]
// for each tool name of an exact or @fs pattern when the path pattern names a first
// directory, else by_tool[tool]; by_prefix[prefix]; any_tool.
func regoHead(r rules.Rule) []string {
	var names []string
	switch r.ToolPattern {
	case "*":
		return []string{"any_tool"}
	case rules.ClassFSRead:
		names = rules.DefaultFSRead
	case rules.ClassFSWrite:
		names = rules.DefaultFSWrite
	case rules.ClassFSAny:
		names = append(slices.Clone(rules.DefaultFSRead), rules.DefaultFSWrite...)
	default:
		if strings.HasSuffix(r.ToolPattern, "*") {
			pre := strings.TrimSuffix(r.ToolPattern, "*")
			return []string{"by_prefix[" + regoString(pre) + "]"}
		}
		names = []string{r.ToolPattern}
	}
	dir, byDir := patternDir(cmp.Or(r.ResolvedPathPattern, r.PathPattern))
	heads := make([]string, len(names))
	for i, n := range names {
		if byDir {
			heads[i] = "by_path[" + regoString(n) + "][" + regoString(dir) + "]"
		} else {
			heads[i] = "by_tool[" + regoString(n) + "]"
		}
	}
	return heads
}

// patternDir returns the first directory every path the path pattern matches starts
// with — as rules indexes them: "proj3" of "proj3/src/*", "/etc" of "/etc/passwd" — or
// false when there is no pattern or the paths need not share one ("log*", "./*").
func patternDir(pat string) (string, bool) {
	if pat == "" {
		return "", false
	}
	s := pat
	switch {
	case strings.HasSuffix(pat, "/*"):
		s = strings.TrimSuffix(pat, "/*")
		if s == "." || s == "" {
			return "", false
		}
	case strings.HasSuffix(pat, "*"):
		s = strings.TrimSuffix(pat, "*")
		if !strings.Contains(strings.TrimPrefix(s, "/"), "/") {
			return "", false
		}
	}
	start := 0
	if strings.HasPrefix(s, "/") {
		start = 1
	}
	if i := strings.IndexByte(s[start:], '/'); i >= 0 {
		return s[:start+i], true
	}
	return s, true
}

// regoMatch returns r's match term [tier, priority, id, action].
func regoMatch(r rules.Rule) string {
	tier := 1
	if r.GroupID != rules.DefaultGroup {
		tier = 0
	}
	return fmt.Sprintf("[%d, %d, %d, %s]", tier, r.Priority, r.ID, regoString(string(r.Action)))
}

// regoBody returns r's filters as the lines of a rule body, "" when it has none.
func regoBody(r rules.Rule) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, "\t"+format+"\n", a...) }
	if r.GroupID != rules.DefaultGroup {
		line("input.group == %s", regoString(r.GroupID))
	}
	if r.AgentID != "" {
		line("input.agent == %s", regoString(r.AgentID))
	}
	if r.Source != "" {
		line("input.source == %s", regoString(r.Source))
	}
	if pat := cmp.Or(r.ResolvedPathPattern, r.PathPattern); pat != "" {
		switch {
		case strings.HasSuffix(pat, "/*"):
			line("under(input.path, %s)", regoString(strings.TrimSuffix(pat, "/*")))
		case strings.HasSuffix(pat, "*"):
			line("startswith(input.path, %s)", regoString(strings.TrimSuffix(pat, "*")))
		default:
			line("input.path == %s", regoString(pat))
		}
	}
	return b.String()
}

// regoString quotes s as a Rego (JSON) string literal.
func regoString(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

// Rego is OPA loaded with a Policy: RegoModule prepared for RegoQuery.
type Rego struct {
	pq rego.PreparedEvalQuery
}

var _ Engine = (*Rego)(nil)

// NewRego compiles RegoModule(p) and prepares RegoQuery (rego.New(...).PrepareForEval).
// It blocks while OPA compiles: seconds for 10,000 rules. Errors: OPA's compile error,
// wrapping ErrEngine.
func NewRego(ctx context.Context, p Policy) (*Rego, error) {
	pq, err := rego.New(
		rego.Query(RegoQuery),
		rego.Module("skald.rego", RegoModule(p)),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench: rego: prepare: %w: %v", ErrEngine, err)
	}
	return &Rego{pq: pq}, nil
}

// Name returns "rego".
func (g *Rego) Name() string { return "rego" }

// Input returns c as the input document RegoModule reads, already converted to OPA's
// own value type (ast.Value), as Cedar gets its own types: the conversion from Go maps
// is then not part of Eval's time.
func (g *Rego) Input(c Call) ast.Value {
	obj := ast.NewObject(
		ast.Item(ast.StringTerm("group"), ast.StringTerm(c.Group)),
		ast.Item(ast.StringTerm("tool"), ast.StringTerm(c.Tool)),
		ast.Item(ast.StringTerm("agent"), ast.StringTerm(c.Agent)),
		ast.Item(ast.StringTerm("source"), ast.StringTerm(c.Source)),
	)
	if c.HasPath() {
		obj.Insert(ast.StringTerm("path"), ast.StringTerm(c.Path))
	}
	return obj
}

// Eval evaluates the prepared query on the input document in. Errors wrap ErrEngine:
// OPA's evaluation error, or a result of another shape than RegoModule's decision.
func (g *Rego) Eval(ctx context.Context, in ast.Value) (Decision, error) {
	rs, err := g.pq.Eval(ctx, rego.EvalParsedInput(in))
	if err != nil {
		return Decision{}, fmt.Errorf("bench: rego: eval: %w: %v", ErrEngine, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Decision{}, fmt.Errorf("bench: rego: eval: %w: %d results", ErrEngine, len(rs))
	}
	obj, _ := rs[0].Expressions[0].Value.(map[string]any)
	action, _ := obj["action"].(string)
	num, _ := obj["rule"].(json.Number)
	id, err := strconv.ParseUint(string(num), 10, 64)
	if action == "" || err != nil {
		return Decision{}, fmt.Errorf("bench: rego: eval: %w: unexpected decision %v",
			ErrEngine, rs[0].Expressions[0].Value)
	}
	return Decision{Action: rules.Action(action), RuleID: id}, nil
}

// Decide decides c (Input, then Eval).
func (g *Rego) Decide(ctx context.Context, c Call) (Decision, error) {
	return g.Eval(ctx, g.Input(c))
}
