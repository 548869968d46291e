package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cedar-policy/cedar-go"
	"github.com/skald-circle/skald-bot/rules"
)

// Cedar entity types and the one action of the generated policies.
const (
	cedarAgent  = "Agent"     // principal: the call's agent_id ("" for none)
	cedarTool   = "Tool"      // resource: the tool name
	cedarClass  = "ToolClass" // a parent of the file tools: fs_read, fs_write
	cedarAction = "call"      // Action::"call"
	cedarFile   = "file"      // ToolClass::"file": a parent of every tool of fileTools
)

// CedarPolicies returns p as a Cedar policy set, one policy per rule in order (cedar-go
// names them policy0, policy1, …; allow → permit, deny → forbid), then a forbid
// annotated @guard("<id>") per deny rule with a path filter; the package doc ("Cedar")
// gives the request, entities and encoding. Cedar has no rule order, so only an
// OrderFree policy can be expressed. Errors, wrapping ErrNotOrderFree: an Ordered
// policy, or a require rule.
func CedarPolicies(p Policy) (string, error) {
	if p.Mix != OrderFree {
		return "", fmt.Errorf("bench: cedar: %w: a %s mix needs first-match order",
			ErrNotOrderFree, p.Mix)
	}
	var b strings.Builder
	for _, r := range p.Rules {
		effect := "permit"
		switch r.Action {
		case rules.Allow:
		case rules.Deny:
			effect = "forbid"
		default:
			return "", fmt.Errorf("bench: cedar: rule %d: %w: %s is neither allow nor deny",
				r.ID, ErrNotOrderFree, r.Action)
		}
		principal := "principal"
		if r.AgentID != "" {
			principal = "principal == " + cedarUID(cedarAgent, r.AgentID)
		}
		resource := "resource"
		var when []string
		switch r.ToolPattern {
		case "*":
		case rules.ClassFSRead:
			resource = "resource in " + cedarUID(cedarClass, "fs_read")
		case rules.ClassFSWrite:
			resource = "resource in " + cedarUID(cedarClass, "fs_write")
		case rules.ClassFSAny:
			when = append(when, "(resource in "+cedarUID(cedarClass, "fs_read")+
				" || resource in "+cedarUID(cedarClass, "fs_write")+")")
		default:
			if pre, ok := strings.CutSuffix(r.ToolPattern, "*"); ok {
				when = append(when, "context.tool like "+cedarLike(pre, "*"))
			} else {
				resource = "resource == " + cedarUID(cedarTool, r.ToolPattern)
			}
		}
		when = append(when, cedarFilters(r)...)
		fmt.Fprintf(&b, "// rule %d\n%s (%s, action == %s, %s)",
			r.ID, effect, principal, cedarUID("Action", cedarAction), resource)
		if len(when) > 0 {
			b.WriteString("\nwhen { " + strings.Join(when, " && ") + " }")
		}
		b.WriteString(";\n\n")
	}
	for _, r := range guardRules(p) {
		principal := "principal"
		if r.AgentID != "" {
			principal = "principal == " + cedarUID(cedarAgent, r.AgentID)
		}
		when := []string{"!(resource in " + cedarUID(cedarClass, cedarFile) + ")"}
		when = append(when, cedarFilters(r)...)
		fmt.Fprintf(&b, "// the place rule %d denies, for the other tools\n@guard(\"%d\")\n",
			r.ID, r.ID)
		fmt.Fprintf(&b, "forbid (%s, action == %s, resource)\nwhen { %s };\n\n",
			principal, cedarUID("Action", cedarAction), strings.Join(when, " && "))
	}
	return b.String(), nil
}

// cedarFilters returns rule r's group, source and path conditions on the context.
func cedarFilters(r rules.Rule) []string {
	var when []string
	if r.GroupID != rules.DefaultGroup {
		when = append(when, "context.group == "+cedarString(r.GroupID))
	}
	if r.Source != "" {
		when = append(when, "context.source == "+cedarString(r.Source))
	}
	if pat := cmp.Or(r.ResolvedPathPattern, r.PathPattern); pat != "" {
		var cond string
		switch {
		case strings.HasSuffix(pat, "/*"):
			dir := strings.TrimSuffix(pat, "/*")
			cond = "(context.path == " + cedarString(dir) +
				" || context.path like " + cedarLike(dir+"/", "*") + ")"
		case strings.HasSuffix(pat, "*"):
			cond = "context.path like " + cedarLike(strings.TrimSuffix(pat, "*"), "*")
		default:
			cond = "context.path == " + cedarString(pat)
		}
		when = append(when, "context.has_path && "+cond)
	}
	return when
}

// cedarString quotes s as a Cedar string literal.
func cedarString(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

// cedarUID returns the entity literal Type::"id".
func cedarUID(typ, id string) string { return typ + "::" + cedarString(id) }

// cedarLike returns a like pattern matching literal followed by wild (a "*" wildcard,
// or ""): the literal's own stars are escaped.
func cedarLike(literal, wild string) string {
	q := cedarString(literal)
	return `"` + strings.ReplaceAll(q[1:len(q)-1], "*", `\*`) + wild + `"`
}

// CedarEntities returns the entities the policies read: every file tool of
// rules.DefaultFSRead and rules.DefaultFSWrite as Tool::"<name>" with parent
// ToolClass::"fs_read" or "fs_write", and every tool of fileTools with parent
// ToolClass::"file".
func CedarEntities() cedar.EntityMap {
	m := cedar.EntityMap{}
	add := func(names []string, class string) {
		for _, n := range names {
			uid := cedar.NewEntityUID(cedarTool, cedar.String(n))
			e := m[uid]
			e.UID = uid
			parents := []cedar.EntityUID{cedar.NewEntityUID(cedarClass, cedar.String(class))}
			for p := range e.Parents.All() {
				parents = append(parents, p)
			}
			e.Parents = cedar.NewEntityUIDSet(parents...)
			m[uid] = e
		}
	}
	add(rules.DefaultFSRead, "fs_read")
	add(rules.DefaultFSWrite, "fs_write")
	add(fileTools(), cedarFile)
	return m
}

// Cedar is cedar-go loaded with an OrderFree Policy.
type Cedar struct {
	policies *cedar.PolicySet
	entities cedar.EntityMap
	// ruleOf maps a policy id to the rule it encodes; guard policies are not in it.
	ruleOf map[cedar.PolicyID]uint64
}

var _ Engine = (*Cedar)(nil)

// NewCedar parses CedarPolicies(p). Errors: ErrNotOrderFree (see CedarPolicies), or
// cedar-go's parse error wrapping ErrEngine.
func NewCedar(p Policy) (*Cedar, error) {
	text, err := CedarPolicies(p)
	if err != nil {
		return nil, err
	}
	ps, err := cedar.NewPolicySetFromBytes("skald.cedar", []byte(text))
	if err != nil {
		return nil, fmt.Errorf("bench: cedar: parse: %w: %v", ErrEngine, err)
	}
	c := &Cedar{policies: ps, entities: CedarEntities(), ruleOf: map[cedar.PolicyID]uint64{}}
	for i, r := range p.Rules {
		c.ruleOf[cedar.PolicyID(fmt.Sprintf("policy%d", i))] = r.ID
	}
	return c, nil
}

// Name returns "cedar".
func (e *Cedar) Name() string { return "cedar" }

// Input returns c as the Cedar request CedarPolicies reads.
func (e *Cedar) Input(c Call) cedar.Request {
	return cedar.Request{
		Principal: cedar.NewEntityUID(cedarAgent, cedar.String(c.Agent)),
		Action:    cedar.NewEntityUID("Action", cedarAction),
		Resource:  cedar.NewEntityUID(cedarTool, cedar.String(c.Tool)),
		Context: cedar.NewRecord(cedar.RecordMap{
			"group":    cedar.String(c.Group),
			"tool":     cedar.String(c.Tool),
			"source":   cedar.String(c.Source),
			"path":     cedar.String(c.Path),
			"has_path": cedar.Boolean(c.HasPath()),
		}),
	}
}

// Eval authorizes req: Allow is allow, Deny with a rule's forbid among the reasons is
// deny, Deny with no policy matching — Cedar's default — or with guard forbids only
// (see CedarPolicies) is require. The rule id is one of the rules that matched (any:
// in an OrderFree policy they agree), 0 for require. Errors: an evaluation error Cedar
// reports, wrapping ErrEngine.
func (e *Cedar) Eval(req cedar.Request) (Decision, error) {
	ok, diag := cedar.Authorize(e.policies, e.entities, req)
	if len(diag.Errors) > 0 {
		return Decision{}, fmt.Errorf("bench: cedar: authorize: %w: %s",
			ErrEngine, diag.Errors[0].Message)
	}
	switch {
	case ok == cedar.Allow:
		return Decision{Action: rules.Allow, RuleID: e.ruleOf[diag.Reasons[0].PolicyID]}, nil
	}
	for _, r := range diag.Reasons {
		if id, ok := e.ruleOf[r.PolicyID]; ok {
			return Decision{Action: rules.Deny, RuleID: id}, nil
		}
	}
	return Decision{Action: rules.Require}, nil
}

// Decide decides c (Input, then Eval).
func (e *Cedar) Decide(_ context.Context, c Call) (Decision, error) {
	return e.Eval(e.Input(c))
}
