package bot

import (
	"cmp"
	"testing"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

func TestAlwaysRules(t *testing.T) {
	cmd := func(c, action, reason string) store.CommandDecision {
		return store.CommandDecision{Command: c, Action: action, Reason: reason}
	}
	risky := func(c string, opts ...string) store.CommandDecision {
		return store.CommandDecision{Command: c, Action: "require", Risky: opts}
	}
	shell := func(cs ...store.CommandDecision) store.Request {
		return store.Request{ToolName: "Bash", GroupID: "dev", Commands: cs}
	}
	cases := []struct {
		name string
		r    store.Request
		want []string // command patterns, or the tool pattern for other tools
	}{
		{"one command", shell(cmd("git status", "require", "")), []string{"git status *"}},
		{"option stops the words", shell(cmd("git status --short", "require", "")),
			[]string{"git status *"}},
		{"at most two words", shell(cmd("npm run test unit", "require", "")),
			[]string{"npm run test *"}},
		{"program alone", shell(cmd("ls -la", "require", "")), []string{"ls *"}},
		{"allowed commands need no rule",
			shell(cmd("git status", "allow", ""), cmd("rm -rf data", "require", "")),
			[]string{"rm *"}},
		{"one rule per command, no duplicates",
			shell(cmd("go test ./...", "require", ""), cmd("go test -race", "require", ""),
				cmd("make lint", "require", "")),
			[]string{"go test *", "make lint *"}},
		{"a guard: no offer",
			shell(cmd("git status", "require", ""),
				cmd("cat secrets/key", "require", "secrets/key: inside a denied place")), nil},
		{"a path as program", shell(cmd("./data/git status", "require", "")), nil},
		{"absolute program", shell(cmd("/bin/rm -rf x", "require", "")), nil},
		{"sudo", shell(cmd("sudo rm -rf /", "require", "")), nil},
		{"wrapper", shell(cmd("nice -n5 make", "require", "")), nil},
		{"eval", shell(cmd("eval rm", "require", "")), nil},
		{"xargs", shell(cmd("xargs rm", "require", "")), nil},
		{"expansion", shell(cmd("echo $HOME", "require", "")), nil},
		{"substitution", shell(cmd("git `whoami`", "require", "")), nil},
		{"glob word", shell(cmd("rm *.go", "require", "")), []string{"rm *"}},
		// An option that writes or runs: exactly the call, never a star.
		{"writing option", shell(risky("git log --output=out.txt", "--output=out.txt")),
			[]string{"git log --output=out.txt"}},
		{"running option", shell(risky("go test -exec ./x ./...", "-exec")),
			[]string{"go test -exec ./x ./..."}},
		{"risky with a star", shell(risky("sort -o x *.txt", "-o")), nil},
		{"risky beside a plain one",
			shell(cmd("git status", "require", ""), risky("tar -xf a.tar", "-x")),
			[]string{"git status *", "tar -xf a.tar"}},
		{"shell call without commands", store.Request{ToolName: "Bash"}, nil},
		{"empty command", shell(cmd("", "require", "")), nil},
		{"mcp tool", store.Request{ToolName: "mcp__notes__list"}, []string{"mcp__notes__list"}},
		{"guarded file tool",
			store.Request{ToolName: "Read", Reason: "path contains a protected place"}, nil},
		{"tool with a star", store.Request{ToolName: "mcp__x*"}, nil},
		{"non-ASCII tool", store.Request{ToolName: "mcp__nоtes"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := alwaysRules(c.r)
			if len(got) != len(c.want) {
				t.Fatalf("alwaysRules = %+v, want %q", got, c.want)
			}
			for i, r := range got {
				pat := r.CommandPattern
				if pat == "" {
					pat = r.ToolPattern
				}
				if pat != c.want[i] || r.Action != rules.Allow || r.ToolPattern != c.r.ToolName {
					t.Errorf("rule %d = %+v, want %q", i, r, c.want[i])
				}
				if want := c.r.GroupID; want != "" && r.GroupID != want {
					t.Errorf("group %q, want %q", r.GroupID, want)
				}
				if c.r.GroupID == "" && r.GroupID != rules.DefaultGroup {
					t.Errorf("group %q, want default", r.GroupID)
				}
			}
		})
	}
}

func TestAlwaysPriority(t *testing.T) {
	req := func(tool string, p int) rules.Rule {
		return rules.Rule{ToolPattern: tool, Action: rules.Require, Priority: p}
	}
	cases := []struct {
		name  string
		rules []rules.Rule
		want  int
	}{
		{"no rules", nil, rules.DefaultPriority},
		{"seeded require at 1000", []rules.Rule{req("Bash", 1000)}, rules.DefaultPriority},
		{"require at the default", []rules.Rule{req("Bash", 100)}, 99},
		{"require first", []rules.Rule{req("Bash", 10), req("*", 50)}, 9},
		{"at zero", []rules.Rule{req("Bash", 0)}, 0},
		{"other tool", []rules.Rule{req("Read", 5)}, rules.DefaultPriority},
		{"prefix pattern", []rules.Rule{req("Ba*", 20)}, 19},
		{"other prefix", []rules.Rule{req("Rea*", 20)}, rules.DefaultPriority},
		{"filtered require", []rules.Rule{{ToolPattern: "Bash", Action: rules.Require,
			Priority: 5, CommandPattern: "rm *"}}, rules.DefaultPriority},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := alwaysPriority("Bash", c.rules); got != c.want {
				t.Errorf("alwaysPriority = %d, want %d", got, c.want)
			}
		})
	}
}

func TestParseOfferData(t *testing.T) {
	if id, alt, err := parseOfferData("r:42"); err != nil || id != 42 || alt {
		t.Errorf("r:42 = %d, %v, %v", id, alt, err)
	}
	if id, alt, err := parseOfferData("r:42:2"); err != nil || id != 42 || !alt {
		t.Errorf("r:42:2 = %d, %v, %v", id, alt, err)
	}
	for _, bad := range []string{"r:", "r:0", "r:042", "r:x", "r:1:3", "r:1:2:2", "r::2",
		"a:1:ok"} {
		if _, _, err := parseOfferData(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A web call's offer is its exact host, and the subdomains of its site as a second
// choice when the site is a registrable domain below the host.
func TestHostRules(t *testing.T) {
	web := func() store.Request {
		return store.Request{ToolName: "WebFetch", GroupID: "dev"}
	}
	cases := []struct {
		name, host, first, alt string
		r                      store.Request
	}{
		{"subdomain", "docs.example.com", "docs.example.com", "*.example.com", web()},
		{"deeper", "a.b.example.co.uk", "a.b.example.co.uk", "*.example.co.uk", web()},
		{"the site itself", "example.com", "example.com", "", web()},
		{"below a private suffix", "me.github.io", "me.github.io", "", web()},
		{"a public suffix alone", "co.uk", "co.uk", "", web()},
		{"single label", "intranet", "intranet", "", web()},
		{"IPv4", "192.0.2.1", "", "", web()},
		{"IPv6", "2001:db8::1", "", "", web()},
		{"loopback", "127.0.0.1", "", "", web()},
		{"IPv6 loopback", "::1", "", "", web()},
		{"private", "10.1.2.3", "", "", web()},
		{"link-local", "169.254.169.254", "", "", web()},
		{"IPv6 link-local", "fe80::1", "", "", web()},
		{"localhost", "localhost", "", "", web()},
		{"below localhost", "api.localhost", "", "", web()},
		{"not localhost", "localhost.example.com", "localhost.example.com", "*.example.com",
			web()},
		{"IDNA", "xn--80ak6aa92e.com", "xn--80ak6aa92e.com", "", web()},
		{"no host", "", "", "", web()},
		{"guarded", "docs.example.com", "", "",
			store.Request{ToolName: "WebFetch", Reason: "path holds a protected place"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first, alt := hostRules(c.r, c.host)
			pat := func(rs []rules.Rule) string {
				if len(rs) > 1 {
					t.Fatalf("rules %+v, want at most one", rs)
				}
				for _, r := range rs {
					if r.ToolPattern != c.r.ToolName || r.Action != rules.Allow ||
						r.GroupID != cmp.Or(c.r.GroupID, rules.DefaultGroup) {
						t.Errorf("rule %+v", r)
					}
					return r.HostPattern
				}
				return ""
			}
			if got := pat(first); got != c.first {
				t.Errorf("first = %q, want %q", got, c.first)
			}
			if got := pat(alt); got != c.alt {
				t.Errorf("alt = %q, want %q", got, c.alt)
			}
		})
	}
}

// A web offer's follow-up names both choices, each with its own button.
func TestHostOfferFollowUp(t *testing.T) {
	first, alt := hostRules(store.Request{ToolName: "WebFetch"}, "docs.example.com")
	m := Offer{RequestID: 7, Tool: "WebFetch", Rules: first, Alt: alt}.followUp()
	want := "Request #7 (WebFetch) was approved. Allow calls like it from now on?\n" +
		"  allow WebFetch host docs.example.com\nor\n  allow WebFetch host *.example.com"
	if m.Text != want {
		t.Errorf("text:\n%s\nwant\n%s", m.Text, want)
	}
	if len(m.Buttons) != 2 || len(m.Buttons[0]) != 1 || len(m.Buttons[1]) != 1 {
		t.Fatalf("buttons %+v, want two rows of one", m.Buttons)
	}
	for i, w := range [][2]string{{"➕ Always: docs.example.com (any port)", "r:7"},
		{"➕ Always: *.example.com (any port)", "r:7:2"}} {
		if b := m.Buttons[i][0]; b.Label != w[0] || b.Data != w[1] || b.Action != ActionAlways {
			t.Errorf("button %d = %+v, want %q %q", i, b, w[0], w[1])
		}
	}
}

// A look-alike IDNA host shows its Unicode form beside the ASCII one, in the text
// and on the button; the rule keeps the ASCII form.
func TestHostOfferShowsUnicode(t *testing.T) {
	first, alt := hostRules(store.Request{ToolName: "WebFetch"}, "www.xn--80ak6aa92e.com")
	m := Offer{RequestID: 7, Tool: "WebFetch", Rules: first, Alt: alt}.followUp()
	want := "Request #7 (WebFetch) was approved. Allow calls like it from now on?\n" +
		"  allow WebFetch host www.xn--80ak6aa92e.com (www.аррӏе.com)\nor\n" +
		"  allow WebFetch host *.xn--80ak6aa92e.com (*.аррӏе.com)"
	if m.Text != want {
		t.Errorf("text:\n%s\nwant\n%s", m.Text, want)
	}
	if len(m.Buttons) != 2 {
		t.Fatalf("buttons %+v", m.Buttons)
	}
	for i, w := range []string{"➕ Always: www.xn--80ak6aa92e.com (www.аррӏе.com) (any port)",
		"➕ Always: *.xn--80ak6aa92e.com (*.аррӏе.com) (any port)"} {
		if b := m.Buttons[i][0].Label; b != w {
			t.Errorf("button %d = %q, want %q", i, b, w)
		}
	}
	if first[0].HostPattern != "www.xn--80ak6aa92e.com" ||
		alt[0].HostPattern != "*.xn--80ak6aa92e.com" {
		t.Errorf("rules %+v %+v", first, alt)
	}
}
