package ruleset

import (
	"errors"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

// FuzzParse: a rules file either parses into rules that all validate, and export back
// to a file that parses to the same rules, or fails with ErrInvalid.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"groups:\n- id: default\n  rules:\n" +
			"  - {tool: Bash, command: \"git status *\", action: allow}\n",
		"groups:\n- id: shop\n  name: Shop\n  rules:\n" +
			"  - {tool: '@fs_any', path: 'secrets/*', action: deny, priority: 0}\n",
		"groups: [{id: x, rules: [{tool: Read, action: maybe}]}]",
		"groups: [{id: x}, {id: x}]",
		"{", "", "nope: 1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data, nil, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse error %v does not wrap ErrInvalid", err)
			}
			return
		}
		var groups []rules.Group
		var rs []rules.Rule
		for _, g := range doc.Groups {
			groups = append(groups,
				rules.Group{ID: g.ID, Name: g.Name, Description: g.Description})
			for _, r := range g.Rules {
				rr := r.ruleOf(g.ID)
				if err := rules.Validate(rr); err != nil {
					t.Fatalf("Parse accepted an invalid rule %+v: %v", rr, err)
				}
				rs = append(rs, rr)
			}
		}
		out, err := Export(groups, rs, "")
		if err != nil {
			t.Fatalf("Export of parsed rules: %v", err)
		}
		again, err := Parse(out, nil, nil)
		if err != nil {
			t.Fatalf("the export of a parsed file does not parse: %v\n%s", err, out)
		}
		if n, m := countRules(doc), countRules(again); n != m {
			t.Fatalf("round trip: %d rules became %d\n%s", n, m, out)
		}
	})
}

func countRules(d Doc) int {
	n := 0
	for _, g := range d.Groups {
		n += len(g.Rules)
	}
	return n
}
