package ruleset

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

var alice = store.Actor{By: "alice", Via: "cli"}

// seededStore opens a seeded store with a second group and a few rules.
func seededStore(t *testing.T) *store.DB {
	t.Helper()
	db := teststore.Open(t, store.Options{})
	testkit.Must(t, db.CreateGroup(
		rules.Group{ID: "shop", Name: "Shop", Description: "the shop"}, alice))
	for _, r := range []rules.Rule{
		{GroupID: "shop", ToolPattern: "Bash", CommandPattern: "npm run *",
			Action: rules.Allow, Priority: 100},
		{GroupID: "shop", ToolPattern: "@fs_any", PathPattern: "secrets/*",
			Action: rules.Deny, Priority: 0, Note: "no"},
		{GroupID: "shop", ToolPattern: "mcp__github__*",
			Action: rules.Require, Priority: 7, AgentID: "a", Source: "s"},
		{GroupID: "shop", ToolPattern: "WebFetch", HostPattern: "*.example.com",
			Action: rules.Allow, Priority: 100},
	} {
		_, err := db.CreateRule(r, alice)
		testkit.Must(t, err)
	}
	return db
}

func load(t *testing.T, db *store.DB) ([]rules.Group, []rules.Rule) {
	t.Helper()
	gs, err := db.Groups()
	testkit.Must(t, err)
	rs, err := db.Rules()
	testkit.Must(t, err)
	return gs, rs
}

// TestRoundTrip checks export then import gives no changes, twice the same bytes.
func TestRoundTrip(t *testing.T) {
	db := seededStore(t)
	gs, rs := load(t, db)
	for _, only := range []string{"", "shop", "default"} {
		t.Run("group "+only, func(t *testing.T) {
			out, err := Export(gs, rs, only)
			testkit.Must(t, err)
			again, err := Export(gs, rs, only)
			testkit.Must(t, err)
			if !bytes.Equal(out, again) {
				t.Errorf("two exports differ")
			}
			doc, err := Parse(out, nil, nil)
			testkit.Must(t, err)
			p := Diff(doc, gs, rs)
			var b bytes.Buffer
			p.Write(&b)
			if !p.Empty() || b.String() != "no changes\n" {
				t.Errorf("round trip plan:\n%s\nfrom\n%s", b.String(), out)
			}
		})
	}
	out, err := Export(gs, rs, "shop")
	testkit.Must(t, err)
	for _, want := range []string{"id: shop", "name: Shop", "command: npm run *",
		"host: '*.example.com'", "priority: 0", `tool: '@fs_any'`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("export lacks %q:\n%s", want, out)
		}
	}
	if _, err := Export(gs, rs, "nope"); !errors.Is(err, store.ErrUnknownGroup) {
		t.Errorf("Export of an unknown group: %v", err)
	}
}

// TestDiffApply edits an exported file and applies the plan: added, changed and removed
// rules and a new group, and then the store exports as the file.
func TestDiffApply(t *testing.T) {
	db := seededStore(t)
	gs, rs := load(t, db)
	file := `groups:
  - id: shop
    name: Shop
    description: the shop, edited
    rules:
      - {tool: Bash, action: allow, command: "npm run *"}
      - {tool: WebFetch, action: allow, host: "*.example.com"}
      - {tool: WebFetch, action: deny, host: evil.example.com, priority: 5}
      - {tool: '@fs_any', action: deny, path: secrets/*, priority: 0, note: changed}
      - {tool: Read, action: allow, path: docs/*}
  - id: new
    rules:
      - {tool: '*', action: require, priority: 999999}
`
	doc, err := Parse([]byte(file), nil, nil)
	testkit.Must(t, err)
	p := Diff(doc, gs, rs)
	var b bytes.Buffer
	p.Write(&b)
	for _, want := range []string{
		"group shop (name or description changed): 2 added, 1 changed, 1 removed",
		`  + deny WebFetch host "evil.example.com" priority 5`,
		`  + allow Read path "docs/*" priority 100`,
		`note "no"` + "\n      → deny @fs_any path \"secrets/*\" priority 0 note \"changed\"",
		`  - rule `, `require mcp__github__* agent "a" source "s" priority 7`,
		"group new (new): 1 added, 0 changed, 0 removed",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "npm run") {
		t.Errorf("an unchanged rule is in the plan:\n%s", b.String())
	}
	_, err = db.ApplyRules(p.Changes, alice)
	testkit.Must(t, err)
	gs, rs = load(t, db)
	if p := Diff(doc, gs, rs); !p.Empty() {
		t.Errorf("after applying, the plan is %+v", p.Changes)
	}
}

func TestParseRefused(t *testing.T) {
	for _, c := range []struct{ name, file, says string }{
		{"unknown key", "groups: [{id: a, rules: [], colour: red}]", "field colour not found"},
		{"not YAML", "groups: [", "did not find expected"},
		{"every problem listed", `groups:
  - id: a
    rules:
      - {tool: 'a*b', action: allow}
      - {tool: Read, action: maybe}
      - {tool: Read, action: allow, command: "ls *"}
      - {tool: Bash, action: allow, host: example.com}
      - {tool: WebFetch, action: allow, host: "example.com:80"}
  - id: a
    rules: []
  - rules: []
`, `groups[0].rules[0]: tool_pattern "a*b"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), nil, nil)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Parse = %v, want ErrInvalid saying %q", err, c.says)
			}
			if c.name == "every problem listed" {
				for _, s := range []string{
					"groups[0].rules[1]", "groups[0].rules[2]: command_pattern",
					`groups[0].rules[3]: host_pattern "example.com": ` +
						`only applies to the web tools (WebFetch), not "Bash"`,
					`groups[0].rules[4]: host_pattern "example.com:80": must be a host name alone`,
					`groups[1]: group "a" is named twice`, "groups[2]: the group has no id"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error lacks %q:\n%v", s, err)
					}
				}
			}
		})
	}
}

func TestMerge(t *testing.T) {
	db := seededStore(t)
	gs, rs := load(t, db)
	add := []rules.Rule{
		// already there
		{ToolPattern: "Bash", CommandPattern: "npm run *", Action: rules.Allow, Priority: 100},
		{ToolPattern: "WebSearch", Action: rules.Allow, Priority: 100},
		{ToolPattern: "WebSearch", Action: rules.Allow, Priority: 100}, // twice in the input
		// The stored deny at priority 0 decides first: left out. Not so a later one,
		// nor one with another action.
		{ToolPattern: "@fs_any", PathPattern: "secrets/*", Action: rules.Deny, Priority: 80},
	}
	p := Merge("shop", add, gs, rs)
	if len(p.Changes.CreateRules) != 1 || len(p.Changes.CreateGroups) != 0 ||
		p.Changes.CreateRules[0].GroupID != "shop" {
		t.Errorf("Merge into shop = %+v", p.Changes)
	}
	p = Merge("shop", []rules.Rule{
		{ToolPattern: "mcp__github__*", Action: rules.Require, Priority: 7}, // no agent, source
		{ToolPattern: "Bash", CommandPattern: "npm run *", Action: rules.Allow, Priority: 50},
		{ToolPattern: "Bash", CommandPattern: "npm run *", Action: rules.Deny, Priority: 100},
	}, gs, rs)
	if len(p.Changes.CreateRules) != 3 {
		t.Errorf("Merge of rules not covered = %+v", p.Changes)
	}
	p = Merge("cc", add, gs, rs)
	if len(p.Changes.CreateRules) != 3 || len(p.Changes.CreateGroups) != 1 || !p.Groups[0].New {
		t.Errorf("Merge into a new group = %+v", p.Changes)
	}
}

// An allow rule behind an earlier unfiltered rule with another action, stored or
// added, is reported; one before it, or behind a filtered rule, is not.
func TestUnreachable(t *testing.T) {
	stored := []rules.Rule{
		{ID: 4, GroupID: "shop", ToolPattern: "mcp__*", Action: rules.Require, Priority: 50},
		{ID: 7, GroupID: "shop", ToolPattern: "Read", PathPattern: "src/*", Action: rules.Deny,
			Priority: 10},
	}
	gs := []rules.Group{{ID: rules.DefaultGroup}, {ID: "shop"}}
	p := Merge("shop", []rules.Rule{
		{ToolPattern: "Bash", Action: rules.Deny, Priority: 80},
		{ToolPattern: "Bash", CommandPattern: "npm run *", Action: rules.Allow, Priority: 100},
		{ToolPattern: "mcp__github__*", Action: rules.Allow, Priority: 100},
		{ToolPattern: "mcp__notes", Action: rules.Allow, Priority: 40},
		{ToolPattern: "Read", Action: rules.Allow, Priority: 100},
	}, gs, stored)
	var got []string
	for _, u := range p.Unreachable(stored) {
		got = append(got, fmt.Sprintf("%s | %d %s", Describe(u.Rule), u.By.ID, Describe(u.By)))
	}
	want := []string{
		`allow Bash command "npm run *" priority 100 | 0 deny Bash priority 80`,
		`allow mcp__github__* priority 100 | 4 require mcp__* priority 50`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Unreachable =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := (Plan{}).Unreachable(stored); u != nil {
		t.Errorf("Unreachable of an empty plan = %+v", u)
	}
}
