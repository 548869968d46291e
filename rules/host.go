package rules

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// WebTool is a tool that fetches a URL: the URL is its argument Arg.
type WebTool struct {
	Tool string `json:"tool" yaml:"tool"`
	Arg  string `json:"arg" yaml:"arg"`
}

// DefaultWeb are the web tools when Options.Web is nil.
var DefaultWeb = []WebTool{{Tool: "WebFetch", Arg: "url"}}

// hostPatternError returns the *FieldError for a rule whose host_pattern is not a
// host pattern, or sits on a rule without an exact tool name, with a path or a
// command filter.
func hostPatternError(r Rule) error {
	fe := func(problem string) error {
		return &FieldError{Field: "host_pattern", Value: r.HostPattern, Problem: problem,
			quote: true}
	}
	if _, err := compileHost(r.HostPattern); err != nil {
		return fe(err.Error())
	}
	if kind, _ := parseTool(r.ToolPattern); kind != toolExact {
		return fe(fmt.Sprintf("needs a tool_pattern naming a web tool, not %q", r.ToolPattern))
	}
	if r.PathPattern != "" {
		return fe("cannot be combined with a path_pattern")
	}
	if r.CommandPattern != "" {
		return fe("cannot be combined with a command_pattern")
	}
	return nil
}

// CheckHostRule returns nil when r has no host pattern or its tool pattern names one
// of the Set's web tools (Options.Web), else a *FieldError wrapping ErrInvalidRule
// that names the web tools. It assumes Validate passed.
func (s *Set) CheckHostRule(r Rule) error { return CheckHostRule(r, s.opt.Web) }

// CheckHostRule is Set.CheckHostRule for the web tools tools (nil: DefaultWeb).
func CheckHostRule(r Rule, tools []WebTool) error {
	if r.HostPattern == "" {
		return nil
	}
	if tools == nil {
		tools = DefaultWeb
	}
	names := make([]string, len(tools))
	for i, wt := range tools {
		names[i] = wt.Tool
	}
	return onlyFor("host_pattern", r.HostPattern, "web", r.ToolPattern, names)
}

// compileHost returns the host pattern p as matching compares it: "*", "*." and a
// domain, or a domain or IP address, in the form normHost gives a URL's host.
func compileHost(p string) (string, error) {
	switch {
	case p == "*":
		return p, nil
	case p == "":
		return "", fmt.Errorf("must not be empty")
	}
	sub := strings.HasPrefix(p, "*.")
	rest := p
	if sub {
		rest = p[2:]
	}
	if strings.Contains(rest, "*") {
		return "", fmt.Errorf(`a star is only allowed as "*" or a leading "*."`)
	}
	if len(rest) > 2 && rest[0] == '[' && rest[len(rest)-1] == ']' {
		rest = rest[1 : len(rest)-1]
	}
	if !isIP(rest) && strings.ContainsAny(rest, "/:@?#\\[]% ") {
		return "", fmt.Errorf("must be a host name alone: no scheme, port, path or user")
	}
	h, ok := normHost(rest)
	switch {
	case !ok:
		return "", fmt.Errorf("is not a valid host name or IP address")
	case sub && isIP(h):
		return "", fmt.Errorf(`"*." needs a domain, not an IP address`)
	case sub:
		return "*." + h, nil
	}
	return h, nil
}

// isIP reports whether a host normHost returned is an IP address.
func isIP(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
}

// lookup is IDNA's lookup profile (UTS #46 mapping, STD3 names, bidi rule) that also
// refuses an empty label and the lengths DNS refuses.
var lookup = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.VerifyDNSLength(true))

// normHost returns h lowercased, without one trailing dot, and as IDNA ASCII
// (lookup), or an IP address in its canonical form; ok is false for a host
// that is none of these, and for a numeric last label that is not a plain dotted
// IPv4 address (0x7f.1, 2130706433), which a client may read as an address.
func normHost(h string) (string, bool) {
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", false
		}
		return a.Unmap().String(), true
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || strings.HasSuffix(h, ".") || !utf8.ValidString(h) {
		return "", false
	}
	a, err := lookup.ToASCII(h)
	if err != nil || a == "" {
		return "", false
	}
	a = strings.ToLower(a)
	if again, err := lookup.ToASCII(a); err != nil || again != a {
		return "", false // not a fixed point: no name a client resolves the same way
	}
	last := a[strings.LastIndexByte(a, '.')+1:]
	if last == "" || last[0] >= '0' && last[0] <= '9' {
		// A numeric (or hex, 0x…) last label: an address for a browser, unless it
		// parsed as one above.
		return "", false
	}
	return a, true
}

// urlHost returns the host of the URL v, normalised as normHost does, and whether
// it has one: v must be a string that net/url parses, of scheme http or https, with
// a host. Userinfo and port are dropped.
func urlHost(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" {
		return "", false
	}
	h := u.Hostname()
	if h == "" {
		return "", false
	}
	return normHost(h)
}

// hostMatches reports whether the compiled host pattern p matches host h, both
// normalised: "*" every host, "*.d" every strict subdomain of d, else h itself.
func hostMatches(p, h string) bool {
	switch {
	case p == "*":
		return true
	case strings.HasPrefix(p, "*."):
		return len(h) > len(p)-1 && strings.HasSuffix(h, p[1:])
	}
	return p == h
}

// WebHost reports whether tool is one of the web tools tools (nil: DefaultWeb) and
// returns the host of its call with args as a host pattern matches it, normalised as a
// pattern is (docs/design.md, "Web hosts"); host is "" when the URL argument has none.
func WebHost(tools []WebTool, tool string, args map[string]any) (host string, web bool) {
	if tools == nil {
		tools = DefaultWeb
	}
	for _, wt := range tools {
		if wt.Tool == tool {
			h, _ := urlHost(args[wt.Arg])
			return h, true
		}
	}
	return "", false
}

// callHost returns the host of c's URL argument when c.Tool is a web tool of the Set
// (see urlHost).
func (s *Set) callHost(c *Call) (string, bool) {
	i := s.tools[c.Tool].web
	if i == 0 {
		return "", false
	}
	return urlHost(c.Args[s.opt.Web[i-1].Arg])
}
