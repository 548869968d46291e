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
	wants := map[string]want{
		"allow Bash(npm run test:*)":             {rules.Allow, "Bash", "", "npm run test *", AllowPriority},
		"allow Bash(git diff *)":                 {rules.Allow, "Bash", "", "git diff *", AllowPriority},
		"allow Bash(npm run build)":              {rules.Allow, "Bash", "", "npm run build", AllowPriority},
		"allow Bash(ls*)":                        {rules.Allow, "Bash", "", "ls*", AllowPriority},
		"allow Bash(/usr/bin/xcodebuild test:*)": {rules.Allow, "Bash", "", "/usr/bin/xcodebuild test *", AllowPriority},
		"allow Read(//srv/shared/**)":            {rules.Allow, "@fs_read", "/srv/shared/*", "", AllowPriority},
		"allow Read(~/.zshrc)":                   {rules.Allow, "@fs_read", "/home/u/.zshrc", "", AllowPriority},
		"allow Read(/docs/**)":                   {rules.Allow, "@fs_read", "/home/u/proj/docs/*", "", AllowPriority},
		"allow Read(./notes/todo.md)":            {rules.Allow, "@fs_read", "notes/todo.md", "", AllowPriority},
		"allow Edit(./src/**)":                   {rules.Allow, "@fs_write", "src/*", "", AllowPriority},
		"allow Write(./out/**/*)":                {rules.Allow, "@fs_write", "out/*", "", AllowPriority},
		"allow WebFetch(domain:*)":               {rules.Allow, "WebFetch", "", "", AllowPriority},
		"allow WebFetch(domain:example.com)":     {rules.Allow, "WebFetch", "", "", AllowPriority},
		"allow WebFetch(domain:*.Example.org)":   {rules.Allow, "WebFetch", "", "", AllowPriority},
		"allow WebFetch(domain:bücher.de)":       {rules.Allow, "WebFetch", "", "", AllowPriority},
		"ask WebFetch(domain:*.example.com)":     {rules.Require, "WebFetch", "", "", AskPriority},
		"ask WebFetch(domain:*)":                 {rules.Require, "WebFetch", "", "", AskPriority},
		"deny WebFetch(domain:evil.example.com)": {rules.Deny, "WebFetch", "", "", DenyPriority},
		"allow WebSearch":                        {rules.Allow, "WebSearch", "", "", AllowPriority},
		"allow mcp__github":                      {rules.Allow, "mcp__github__*", "", "", AllowPriority},
		"allow mcp__github__get_issue":           {rules.Allow, "mcp__github__get_issue", "", "", AllowPriority},
		"allow mcp__linear__*":                   {rules.Allow, "mcp__linear__*", "", "", AllowPriority},
		"allow mcp__jira__get_*":                 {rules.Allow, "mcp__jira__get_*", "", "", AllowPriority},
		"allow Glob":                             {rules.Allow, "Glob", "", "", AllowPriority},
		"ask Bash(git push *)":                   {rules.Require, "Bash", "", "git push *", AskPriority},
		"ask Edit(./src/*)":                      {rules.Require, "@fs_write", "src/*", "", AskPriority},
		"ask Read(./.env.*)":                     {rules.Require, "@fs_read", ".env.*", "", AskPriority},
		"ask Bash":                               {rules.Require, "Bash", "", "", AskPriority},
		"deny Read(./secrets/**)":                {rules.Deny, "@fs_any", "secrets/*", "", DenyPriority},
		"deny Edit(//etc/**)":                    {rules.Deny, "@fs_write", "/etc/*", "", DenyPriority},
		"deny Bash(curl:*)":                      {rules.Deny, "Bash", "", "curl *", DenyPriority},
		"deny mcp__*":                            {rules.Deny, "mcp__*", "", "", DenyPriority},
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
			r.CommandPattern != w.cmd || r.Priority != w.priority || r.HostPattern != hosts[tr.From] {
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
		{"allow a string", `{"permissions": {"allow": "Bash"}}`, "permissions.allow is not a list of strings"},
		{"deny numbers", `{"permissions": {"deny": [1]}}`, "permissions.deny is not a list of strings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Translate([]byte(c.data), "/p/s.json", "")
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "/p/s.json") {
				t.Errorf("Translate = %v, want ErrMalformed saying %q", err, c.says)
			}
		})
	}
	if out, sk, err := Translate([]byte(`{"hooks": {}}`), "/p/s.json", ""); err != nil || out != nil || sk != nil {
		t.Errorf("no permissions: %v %v %v", out, sk, err)
	}
}
