package rules

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// hostSet compiles rs in DefaultGroup with the default options and no workspace.
func hostSet(t *testing.T, rs ...Rule) *Set {
	t.Helper()
	for i := range rs {
		rs[i].ID, rs[i].GroupID = uint64(i+1), DefaultGroup
		if rs[i].Priority == 0 {
			rs[i].Priority = DefaultPriority
		}
		if err := Validate(rs[i]); err != nil {
			t.Fatalf("Validate(%+v) = %v", rs[i], err)
		}
	}
	return Compile(nil, rs, Options{WorkspaceRoot: t.TempDir()})
}

func TestHostPatternMatching(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		url           any
		want          bool
	}{
		{"exact", "example.com", "https://example.com/x", true},
		{"exact is not a subdomain", "example.com", "https://a.example.com/", false},
		{"hyphenated look-alike", "example.com", "https://evil-example.com/", false},
		{"suffix look-alike", "*.example.com", "https://evil-example.com/", false},
		{"domain as a prefix", "example.com", "https://example.com.evil.net/", false},
		{"subdomain pattern, prefix", "*.example.com", "https://a.example.com.evil.net/", false},
		{"userinfo is not the host", "example.com", "http://example.com@evil.net/", false},
		{"userinfo ignored", "evil.net", "http://example.com@evil.net/", true},
		{"backslash userinfo", "example.com", `http://evil.net\@example.com`, false},
		{"backslash userinfo, star", "*", `http://evil.net\@example.com`, false},
		{"upper case and trailing dot", "example.com", "HTTP://EXAMPLE.COM./", true},
		{"pattern in upper case", "EXAMPLE.com.", "https://example.com", true},
		{"two trailing dots", "example.com", "https://example.com../", false},
		{"port dropped", "example.com", "http://example.com:8080/x", true},
		{"subdomain", "*.example.com", "https://a.example.com/", true},
		{"deep subdomain", "*.example.com", "https://a.b.example.com/", true},
		{"subdomain pattern, apex", "*.example.com", "https://example.com/", false},
		{"star", "*", "https://anything.test/", true},
		{"punycode of the Unicode pattern", "bücher.de", "https://xn--bcher-kva.de/", true},
		{"Unicode URL, punycode pattern", "xn--bcher-kva.de", "https://bücher.de/", true},
		{"Unicode URL, Unicode pattern", "BÜCHER.de", "https://bücher.de/", true},
		{"punycode look-alike", "example.com", "https://xn--exmple-cua.com/", false},
		{"Cyrillic look-alike", "example.com", "https://еxample.com/", false},
		{"Cyrillic look-alike, subdomain", "*.example.com", "https://a.еxample.com/", false},
		{"bad punycode", "*", "https://xn--a.com/", false},
		{"no scheme", "example.com", "//example.com/", false},
		{"no scheme, star", "*", "//example.com/", false},
		{"bare host", "*", "example.com", false},
		{"file", "*", "file:///etc/passwd", false},
		{"javascript", "*", "javascript:alert(1)", false},
		{"ftp", "*", "ftp://example.com/", false},
		{"opaque", "*", "http:example.com", false},
		{"no host", "*", "http:///x", false},
		{"unparsable", "*", "http://exa mple.com/", false},
		{"IPv4", "127.0.0.1", "http://127.0.0.1:8080/", true},
		{"IPv4 by another name", "*", "http://2130706433/", false},
		{"IPv4 in hex", "*", "http://0x7f.1/", false},
		{"IPv4 with a leading zero", "*", "http://127.0.0.01/", false},
		{"empty label", "*", "https://a..example.com/", false},
		{"long label", "*", "https://" + strings.Repeat("a", 64) + ".com/", false},
		{"full-width dot mapped", "a.example.com", "https://a．example.com/", true},
		{"IPv6", "::1", "http://[::1]/", true},
		{"IPv6 in brackets", "[::1]", "http://[::1]:80/", true},
		{"IPv6 long form", "::1", "http://[0:0:0:0:0:0:0:1]/", true},
		{"IPv6, other pattern", "example.com", "http://[::1]/", false},
		{"IPv6 zone", "*", "http://[fe80::1%25eth0]/", false},
		{"IPv4-mapped IPv6", "127.0.0.1", "http://[::ffff:127.0.0.1]/", true},
		{"a URL in an array", "*", []any{"https://example.com/"}, false},
		{"not a string", "*", 42.0, false},
		{"missing", "*", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := hostSet(t, Rule{ToolPattern: "WebFetch", HostPattern: tc.pattern, Action: Allow})
			args := map[string]any{"prompt": "summarise"}
			if tc.url != nil {
				args["url"] = tc.url
			}
			d := s.Evaluate(DefaultGroup, Call{Tool: "WebFetch", Args: args})
			if got := d.Action == Allow; got != tc.want {
				t.Fatalf("Evaluate(%v) with host %q = %+v, want allowed %v", tc.url,
					tc.pattern, d, tc.want)
			}
			if !tc.want && (d.Action != Require || d.RuleID != 0) {
				t.Fatalf("Evaluate(%v) = %+v, want require by no rule", tc.url, d)
			}
		})
	}
}

// A URL no host rule can match is still decided by a tool-wide rule: denied by a
// deny, never allowed by a host rule.
func TestHostPatternToolWideRule(t *testing.T) {
	s := hostSet(t,
		Rule{ToolPattern: "WebFetch", HostPattern: "*", Action: Allow, Priority: 10},
		Rule{ToolPattern: "WebFetch", HostPattern: "evil.net", Action: Deny, Priority: 5},
		Rule{ToolPattern: "WebFetch", Action: Deny, Priority: 20})
	for _, tc := range []struct {
		url  any
		want Action
		rule uint64
	}{
		{"https://example.com/", Allow, 1},
		{"https://EVIL.net./", Deny, 2},
		{"file:///etc/passwd", Deny, 3},
		{[]any{"https://example.com/"}, Deny, 3},
	} {
		t.Run(fmt.Sprint(tc.url), func(t *testing.T) {
			d := s.Evaluate(DefaultGroup, Call{Tool: "WebFetch", Args: map[string]any{"url": tc.url}})
			if d.Action != tc.want || d.RuleID != tc.rule {
				t.Errorf("Evaluate(%v) = %s by rule %d, want %s by rule %d", tc.url, d.Action,
					d.RuleID, tc.want, tc.rule)
			}
		})
	}
}

// A host rule is about the web tools' URL argument only: another tool, or a
// configured web tool's other argument, is not matched.
func TestHostPatternWebTools(t *testing.T) {
	rs := []Rule{{ID: 1, GroupID: DefaultGroup, ToolPattern: "fetch", HostPattern: "example.com",
		Action: Allow, Priority: 1}}
	s := Compile(nil, rs, Options{WorkspaceRoot: t.TempDir(),
		Web: []WebTool{{Tool: "fetch", Arg: "address"}}})
	call := func(key string) Decision {
		return s.Evaluate(DefaultGroup, Call{Tool: "fetch",
			Args: map[string]any{key: "https://example.com/"}})
	}
	if d := call("address"); d.Action != Allow {
		t.Errorf("fetch address = %+v, want allow", d)
	}
	if d := call("url"); d.Action != Require {
		t.Errorf("fetch url = %+v, want require", d)
	}
	web := []WebTool{{Tool: "fetch", Arg: "address"}}
	for _, c := range []struct {
		tools []WebTool
		tool  string
		args  map[string]any
		want  string
		web   bool
	}{
		{web, "fetch", map[string]any{"address": "https://User@A.Example.COM.:8443/x"},
			"a.example.com", true},
		{web, "fetch", map[string]any{"url": "https://example.com/"}, "", true},
		{web, "WebFetch", map[string]any{"url": "https://example.com/"}, "", false},
		{nil, "WebFetch", map[string]any{"url": "https://example.com/"}, "example.com", true},
		{nil, "WebFetch", map[string]any{"url": "file:///etc/passwd"}, "", true},
	} {
		t.Run(c.tool+" "+fmt.Sprint(c.args), func(t *testing.T) {
			if h, w := WebHost(c.tools, c.tool, c.args); h != c.want || w != c.web {
				t.Errorf("WebHost(%v, %s, %v) = %q, %v, want %q, %v", c.tools, c.tool, c.args,
					h, w, c.want, c.web)
			}
		})
	}
	if err := s.CheckHostRule(Rule{ToolPattern: "WebFetch", HostPattern: "x.org"}); err == nil {
		t.Error("CheckHostRule(WebFetch) with Web [fetch] = nil, want an error")
	}
	tr := s.Explain(DefaultGroup, Call{Tool: "fetch",
		Args: map[string]any{"address": "https://a.example.com/"}})
	if len(tr.Steps) != 1 || tr.Steps[0].Why != "host pattern example.com does not match "+
		"a.example.com" {
		t.Errorf("Explain steps = %+v", tr.Steps)
	}
}

func TestHostPatternValidate(t *testing.T) {
	web := Rule{ID: 1, GroupID: "g", ToolPattern: "WebFetch", Action: Allow,
		Priority: DefaultPriority}
	for _, p := range []string{"*", "example.com", "*.example.com", "bücher.de",
		"EXAMPLE.COM.", "127.0.0.1", "::1", "[2001:db8::1]", "localhost"} {
		t.Run("accepts "+p, func(t *testing.T) {
			r := web
			r.HostPattern = p
			if err := Validate(r); err != nil {
				t.Fatalf("Validate(host %q) = %v", p, err)
			}
			if err := CheckHostRule(r, nil); err != nil {
				t.Fatalf("CheckHostRule(host %q) = %v", p, err)
			}
		})
	}
	const alone = "must be a host name alone: no scheme, port, path or user"
	for _, tc := range []struct {
		edit func(*Rule)
		want string
	}{
		{func(r *Rule) { r.HostPattern = "https://example.com" },
			`rules: host_pattern "https://example.com": ` + alone},
		{func(r *Rule) { r.HostPattern = "example.com:443" },
			`rules: host_pattern "example.com:443": ` + alone},
		{func(r *Rule) { r.HostPattern = "example.com/x" },
			`rules: host_pattern "example.com/x": ` + alone},
		{func(r *Rule) { r.HostPattern = "u@example.com" },
			`rules: host_pattern "u@example.com": ` + alone},
		{func(r *Rule) { r.HostPattern = "a.*.com" },
			`rules: host_pattern "a.*.com": a star is only allowed as "*" or a leading "*."`},
		{func(r *Rule) { r.HostPattern = "*example.com" },
			`rules: host_pattern "*example.com": a star is only allowed as "*" or a leading "*."`},
		{func(r *Rule) { r.HostPattern = "*.*" },
			`rules: host_pattern "*.*": a star is only allowed as "*" or a leading "*."`},
		{func(r *Rule) { r.HostPattern = "exa_mple.com" },
			`rules: host_pattern "exa_mple.com": is not a valid host name or IP address`},
		{func(r *Rule) { r.HostPattern = "a..com" },
			`rules: host_pattern "a..com": is not a valid host name or IP address`},
		{func(r *Rule) { r.HostPattern = "2130706433" },
			`rules: host_pattern "2130706433": is not a valid host name or IP address`},
		{func(r *Rule) { r.HostPattern = "*.10.0.0.1" },
			`rules: host_pattern "*.10.0.0.1": "*." needs a domain, not an IP address`},
		{func(r *Rule) { r.ToolPattern = "Web*"; r.HostPattern = "x.org" },
			`rules: host_pattern "x.org": needs a tool_pattern naming a web tool, not "Web*"`},
		{func(r *Rule) { r.PathPattern = "x"; r.HostPattern = "x.org" },
			`rules: host_pattern "x.org": cannot be combined with a path_pattern`},
		{func(r *Rule) { r.CommandPattern = "ls"; r.HostPattern = "x.org" },
			`rules: host_pattern "x.org": cannot be combined with a command_pattern`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			r := web
			tc.edit(&r)
			err := Validate(r)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalidRule) {
				t.Fatalf("Validate = %v, not ErrInvalidRule", err)
			}
		})
	}
	r := web
	r.ToolPattern, r.HostPattern = "Bash", "x.org"
	err := CheckHostRule(r, nil)
	want := `rules: host_pattern "x.org": only applies to the web tools (WebFetch), not "Bash"`
	if err == nil || err.Error() != want || !errors.Is(err, ErrInvalidRule) {
		t.Fatalf("CheckHostRule(Bash) = %v, want %q", err, want)
	}
}

// A deny rule with a host pattern does not hide its tool: visibility knows no URL.
func TestHostPatternVisible(t *testing.T) {
	s := hostSet(t, Rule{ToolPattern: "WebFetch", HostPattern: "*", Action: Deny})
	if !s.Visible(DefaultGroup, "", "", "WebFetch") {
		t.Error("WebFetch hidden by a host rule")
	}
}

// FuzzURLHost: any string's host, when it has one, is a host pattern that matches
// it exactly, is its own normal form, and is not matched by its own "*." pattern.
func FuzzURLHost(f *testing.F) {
	for _, s := range []string{"https://example.com/", "HTTP://EXAMPLE.COM.", "http://[::1]:80",
		"https://bücher.de", "http://a@b.c", `http://evil.net\@example.com`, "http://0x7f.1",
		"https://xn--bcher-kva.de", "http://[::ffff:127.0.0.1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, ok := urlHost(s)
		if !ok {
			return
		}
		p, err := compileHost(h)
		if err != nil {
			t.Fatalf("urlHost(%q) = %q, which compileHost refuses: %v", s, h, err)
		}
		if p != h || !hostMatches(p, h) || !hostMatches("*", h) {
			t.Fatalf("urlHost(%q) = %q; compiled %q does not match it", s, h, p)
		}
		if sub, err := compileHost("*." + h); err == nil && hostMatches(sub, h) {
			t.Fatalf("*.%s matches %q itself", h, h)
		}
	})
}
