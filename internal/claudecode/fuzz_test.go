package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

// FuzzTranslate: a settings file either fails with ErrMalformed or gives rules that all
// validate and are shell rules only where the tool is a shell tool; an allow never
// comes from the ask or deny lists.
func FuzzTranslate(f *testing.F) {
	files, err := filepath.Glob("testdata/settings_*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"permissions":{"allow":["Bash(git status:*)","Read(~/x/**)","mcp__github"]}}`))
	f.Add([]byte(`{"permissions":{"deny":["Edit(//etc/**)"],"ask":["WebFetch(domain:x.org)"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Translate(data, "/work/proj/.claude/settings.json", "/home/u")
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, tr := range out {
			if err := rules.Validate(tr.Rule); err != nil {
				t.Fatalf("%s: invalid rule %+v: %v", tr.From, tr.Rule, err)
			}
			if err := rules.CheckShellRule(tr.Rule, nil); err != nil {
				t.Fatalf("%s: %+v: %v", tr.From, tr.Rule, err)
			}
			if tr.Rule.Action == rules.Allow && !strings.HasPrefix(tr.From, "allow ") {
				t.Fatalf("%s became an allow", tr.From)
			}
		}
	})
}
