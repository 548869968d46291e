package rules

import (
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	rs := []Rule{{ID: 3, Priority: 5}, {ID: 1, Priority: 9}, {ID: 2, Priority: 5},
		{ID: 4, Priority: 0}}
	slices.SortFunc(rs, Compare)
	var ids []uint64
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	if want := []uint64{4, 2, 3, 1}; !slices.Equal(ids, want) {
		t.Fatalf("sorted ids = %v, want %v", ids, want)
	}
	if got := Compare(Rule{ID: 7, Priority: 1}, Rule{ID: 7, Priority: 1}); got != 0 {
		t.Fatalf("Compare of equal rules = %d, want 0", got)
	}
}

func TestCoversTool(t *testing.T) {
	for _, c := range []struct {
		e, p string
		want bool
	}{
		{"*", "Bash", true}, {"*", "*", true}, {"*", "@fs_read", true}, {"Bash", "Bash", true},
		{"Ba*", "Bash", true}, {"mcp__*", "mcp__gmail__*", true},
		{"mcp__gmail__*", "mcp__*", false},
		{"Bash", "Bash*", false}, {"Ba*", "*", false}, {"@fs_any", "@fs_read", true},
		{"@fs_any", "@fs_write", true}, {"@fs_read", "@fs_any", false},
		{"@fs_read", "Read", false},
		{"Read", "@fs_read", false}, {"@*", "@fs_read", false}, {"Bash", "bash", false},
	} {
		t.Run(c.e+" "+c.p, func(t *testing.T) {
			if got := coversTool(c.e, c.p); got != c.want {
				t.Errorf("coversTool(%q, %q) = %v, want %v", c.e, c.p, got, c.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	bash := Rule{ToolPattern: "Bash", CommandPattern: "git status *"}
	for _, c := range []struct {
		name string
		e    Rule
		want bool
	}{
		{"plain tool", Rule{ToolPattern: "Bash", Action: Require}, true},
		{"prefix", Rule{ToolPattern: "Ba*", Priority: 5}, true},
		{"other tool", Rule{ToolPattern: "Read"}, false},
		{"agent", Rule{ToolPattern: "*", AgentID: "ci"}, false},
		{"source", Rule{ToolPattern: "*", Source: "api"}, false},
		{"path", Rule{ToolPattern: "*", PathPattern: "/tmp/**"}, false},
		{"command", Rule{ToolPattern: "Bash", CommandPattern: "git *"}, false},
		{"host", Rule{ToolPattern: "*", HostPattern: "example.com"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Covers(c.e, bash); got != c.want {
				t.Errorf("Covers(%+v, %+v) = %v, want %v", c.e, bash, got, c.want)
			}
		})
	}
}

func TestShadowing(t *testing.T) {
	all := []Rule{
		{ID: 1, GroupID: "ci", ToolPattern: "Ba*", Action: Allow, Priority: 50},
		{ID: 2, GroupID: "ci", ToolPattern: "*", Action: Deny, Priority: 10, AgentID: "a"},
		{ID: 3, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Require, Priority: 10},
		{ID: 4, GroupID: DefaultGroup, ToolPattern: "Read", Action: Deny, Priority: 0},
		{ID: 5, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Deny, Priority: 100},
	}
	t.Run("own group and other groups", func(t *testing.T) {
		sh := Shadowing(all, all[4])
		if sh.First == nil || sh.First.ID != 3 || sh.Priority != 9 {
			t.Fatalf("First = %+v, Priority = %d; want rule 3 and 9", sh.First, sh.Priority)
		}
		if len(sh.Groups) != 1 || sh.Groups[0].ID != 1 {
			t.Fatalf("Groups = %+v, want rule 1 of ci", sh.Groups)
		}
	})
	t.Run("same action shadows nothing", func(t *testing.T) {
		sh := Shadowing(all,
			Rule{ID: 9, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Require,
				Priority: 100})
		if sh.First != nil || sh.Priority != -1 {
			t.Fatalf("First = %+v, Priority = %d; want none and -1", sh.First, sh.Priority)
		}
	})
	t.Run("priority 0 cannot be beaten", func(t *testing.T) {
		sh := Shadowing(all, Rule{ID: 9, GroupID: DefaultGroup, ToolPattern: "Read", Action: Allow,
			Priority: 5})
		if sh.First == nil || sh.First.ID != 4 || sh.Priority != -1 {
			t.Fatalf("First = %+v, Priority = %d; want rule 4 and -1", sh.First, sh.Priority)
		}
	})
	t.Run("a rule outside default ignores other groups", func(t *testing.T) {
		sh := Shadowing(all, Rule{ID: 9, GroupID: "ci", ToolPattern: "Bash", Action: Deny,
			Priority: 60})
		if sh.First == nil || sh.First.ID != 1 || sh.Priority != 49 || sh.Groups != nil {
			t.Fatalf("got %+v; want rule 1, 49 and no groups", sh)
		}
	})
}
