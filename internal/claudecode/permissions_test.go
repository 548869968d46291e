package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
)

// TestTranslateEachForm translates a settings file with every form of permission rule.
func TestTranslateEachForm(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "each_form.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, skipped, err := Translate(data, "/home/u/proj/.claude/settings.json", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		action          rules.Action
		tool, path, cmd string
		priority        int
	}
	// rule gives the rows of one action at its priority.
	rule := func(a rules.Action, priority int) func(tool, path, cmd string) want {
		return func(tool, path, cmd string) want { return want{a, tool, path, cmd, priority} }
	}
	allow, ask := rule(rules.Allow, AllowPriority), rule(rules.Require, AskPriority)
	deny := rule(rules.Deny, DenyPriority)
	wants := map[string]want{
		"allow Bash(npm run test:*)":             allow("Bash", "", "npm run test *"),
		"allow Bash(git diff *)":                 allow("Bash", "", "git diff *"),
		"allow Bash(npm run build)":              allow("Bash", "", "npm run build"),
		"allow Bash(ls*)":                        allow("Bash", "", "ls*"),
		"allow Bash(/usr/bin/xcodebuild test:*)": allow("Bash", "", "/usr/bin/xcodebuild test *"),
		"allow Read(//srv/shared/**)":            allow("@fs_read", "/srv/shared/*", ""),
		"allow Read(~/.zshrc)":                   allow("@fs_read", "/home/u/.zshrc", ""),
		"allow Read(/docs/**)":                   allow("@fs_read", "/home/u/proj/docs/*", ""),
		"allow Read(./notes/todo.md)":            allow("@fs_read", "notes/todo.md", ""),
		"allow Edit(./src/**)":                   allow("@fs_write", "src/*", ""),
		"allow Write(./out/**/*)":                allow("@fs_write", "out/*", ""),
		"allow WebFetch(domain:*)":               allow("WebFetch", "", ""),
		"allow WebFetch(domain:example.com)":     allow("WebFetch", "", ""),
		"allow WebFetch(domain:*.Example.org)":   allow("WebFetch", "", ""),
		"allow WebFetch(domain:bücher.de)":       allow("WebFetch", "", ""),
		"ask WebFetch(domain:*.example.com)":     ask("WebFetch", "", ""),
		"ask WebFetch(domain:*)":                 ask("WebFetch", "", ""),
		"deny WebFetch(domain:evil.example.com)": deny("WebFetch", "", ""),
		"allow WebSearch":                        allow("WebSearch", "", ""),
		"allow mcp__github":                      allow("mcp__github__*", "", ""),
		"allow mcp__github__get_issue":           allow("mcp__github__get_issue", "", ""),
		"allow mcp__linear__*":                   allow("mcp__linear__*", "", ""),
		"allow mcp__jira__get_*":                 allow("mcp__jira__get_*", "", ""),
		"allow Glob":                             allow("Glob", "", ""),
		"ask Bash(git push *)":                   ask("Bash", "", "git push *"),
		"ask Edit(./src/*)":                      ask("@fs_write", "src/*", ""),
		"ask Read(./.env.*)":                     ask("@fs_read", ".env.*", ""),
		"ask Bash":                               ask("Bash", "", ""),
		"deny Read(./secrets/**)":                deny("@fs_any", "secrets/*", ""),
		"deny Edit(//etc/**)":                    deny("@fs_write", "/etc/*", ""),
		"deny Bash(curl:*)":                      deny("Bash", "", "curl *"),
		"deny mcp__*":                            deny("mcp__*", "", ""),
	}
	// Claude Code's domain:X is exact and domain:*.X the subdomains, as host patterns
	// are; an ask or deny of domain:* is every fetch.
	hosts := map[string]string{
		"allow WebFetch(domain:*)":               "*",
		"allow WebFetch(domain:example.com)":     "example.com",
		"allow WebFetch(domain:*.Example.org)":   "*.Example.org",
		"allow WebFetch(domain:bücher.de)":       "bücher.de",
		"ask WebFetch(domain:*.example.com)":     "*.example.com",
		"deny WebFetch(domain:evil.example.com)": "evil.example.com",
	}
	got := map[string]bool{}
	for _, tr := range out {
		got[tr.From] = true
		w, ok := wants[tr.From]
		r := tr.Rule
		if !ok {
			t.Errorf("%s translated to %+v, want it skipped", tr.From, r)
			continue
		}
		if r.Action != w.action || r.ToolPattern != w.tool || r.PathPattern != w.path ||
			r.CommandPattern != w.cmd || r.Priority != w.priority ||
			r.HostPattern != hosts[tr.From] {
			t.Errorf("%s → %+v, want %+v", tr.From, r, w)
		}
		if err := rules.Validate(r); err != nil {
			t.Errorf("%s → an invalid rule: %v", tr.From, err)
		}
	}
	for from := range wants {
		if !got[from] {
			t.Errorf("%s not translated", from)
		}
	}
	if len(out) != len(wants) {
		t.Errorf("%d rules, want %d (the duplicate once)", len(out), len(wants))
	}
	reasons := map[string]string{
		"allow Read(./src/*)":                   "only the entries directly in src/",
		"allow Read(./.env.*)":                  "a name prefix within one directory",
		"allow Read(.env)":                      "matches at any depth",
		"allow WebFetch(domain:localhost:3000)": "no scheme, port, path or user",
		"allow WebFetch(https://example.com/*)": "by its host only (domain:…)",
		"allow WebFetch(domain:*.*)":            `a star is only allowed as "*" or a leading "*."`,
		"allow Bash(FOO=1 make)":                "variable assignment",
		`allow Bash(echo "hi")`:                 "holds quotes",
		"allow Bash(make && make install)":      "compound command",
		"allow Bash(do)":                        "a fragment of a compound command",
		"ask Agent(model:opus)":                 "cannot match the arguments of Agent",
		"deny Bash(run_in_background:true)":     "input field of Bash",
		`deny Read(C:\Users\x\**)`:              "a Windows path",
		"deny Read(src/**/*.key)":               "a wildcard before the end",
	}
	for _, s := range skipped {
		want, ok := reasons[s.From]
		if !ok || !strings.Contains(s.Reason, want) {
			t.Errorf("skipped %s: %q, want a reason saying %q", s.From, s.Reason, want)
		}
		delete(reasons, s.From)
	}
	for from := range reasons {
		t.Errorf("%s was not skipped", from)
	}
}

// TestTranslateFixtures checks every real settings file translates without an error
// and into valid rules only.
func TestTranslateFixtures(t *testing.T) {
	names, err := filepath.Glob("testdata/settings_permissions_*.json")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			out, skipped, err := Translate(data, "/p/.claude/settings.json", "/home/u")
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range out {
				if err := rules.Validate(tr.Rule); err != nil {
					t.Errorf("%s: %v", tr.From, err)
				}
			}
			for _, s := range skipped {
				if s.Reason == "" {
					t.Errorf("%s skipped without a reason", s.From)
				}
			}
		})
	}
}

func TestTranslateMalformed(t *testing.T) {
	for _, c := range []struct{ name, data, says string }{
		{"not JSON", `{"permissions": [`, "line 1:"},
		{"permissions a list", `{"permissions": []}`, "permissions is not an object"},
		{"allow a string", `{"permissions": {"allow": "Bash"}}`,
			"permissions.allow is not a list of strings"},
		{"deny numbers", `{"permissions": {"deny": [1]}}`,
			"permissions.deny is not a list of strings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Translate([]byte(c.data), "/p/s.json", "")
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.says) ||
				!strings.Contains(err.Error(), "/p/s.json") {
				t.Errorf("Translate = %v, want ErrMalformed saying %q", err, c.says)
			}
		})
	}
	out, sk, err := Translate([]byte(`{"hooks": {}}`), "/p/s.json", "")
	if err != nil || out != nil || sk != nil {
		t.Errorf("no permissions: %v %v %v", out, sk, err)
	}
}
