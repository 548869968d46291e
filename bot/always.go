package bot

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// ShellTools are the tools whose calls carry a script: their offers are command rules,
// never the tool-name rule, which would allow every script.
var ShellTools = []string{"Bash", "execute_cmd"}

// unpatterned are programs a command pattern can never allow on their own: they run
// another command, or text, that the pattern would not see (docs/design.md, "Shell
// commands").
var unpatterned = map[string]bool{
	"env": true, "nice": true, "nohup": true, "timeout": true, "time": true,
	"command": true, "builtin": true, "exec": true, "stdbuf": true, "ionice": true,
	"sh": true, "bash": true, "zsh": true, "dash": true, "sudo": true, "doas": true,
	"xargs": true, "find": true, "eval": true, "source": true, "parallel": true,
	"watch": true, "strace": true, "chroot": true, "su": true, "busybox": true,
}

// MaxPatternWords is how many literal words after the program an offered command
// pattern keeps ("git status *", "npm run test *").
const MaxPatternWords = 2

// alwaysRules returns the allow rules that would have let r through, for the
// "➕ Always" follow-up, without ID or priority: one command rule per command of a
// shell call that needed the human, or the tool-name rule for any other tool. It
// returns nil when there is nothing to offer: a shell call without its commands, or
// with one that no pattern may allow (a guard, an unknown or wrapped command, a
// substitution), or a call the gate asked about for a reason no rule lifts.
func alwaysRules(r store.Request) []rules.Rule {
	group := r.GroupID
	if group == "" {
		group = rules.DefaultGroup
	}
	if !slices.Contains(ShellTools, r.ToolName) && len(r.Commands) == 0 {
		if r.Reason != "" || !literalTool(r.ToolName) {
			return nil
		}
		return []rules.Rule{{GroupID: group, ToolPattern: r.ToolName, Action: rules.Allow}}
	}
	if !literalTool(r.ToolName) {
		return nil
	}
	var out []rules.Rule
	for _, c := range r.Commands {
		if c.Action == string(rules.Allow) {
			continue
		}
		pat, ok := commandPattern(c)
		if !ok {
			return nil
		}
		if !slices.ContainsFunc(out, func(x rules.Rule) bool { return x.CommandPattern == pat }) {
			out = append(out, rules.Rule{GroupID: group, ToolPattern: r.ToolName,
				CommandPattern: pat, Action: rules.Allow})
		}
	}
	return out
}

// commandPattern is the pattern offered for command c: its program and up to
// MaxPatternWords literal words that follow it, then " *" — "git status *" for
// "git status --short"; or, when c has an option that writes a file or runs a
// program (c.Risky), c's exact words, no star ("git log --output=out.txt"). ok is
// false when no pattern may allow c.
func commandPattern(c store.CommandDecision) (string, bool) {
	words := strings.Fields(c.Command)
	if len(words) == 0 || c.Reason != "" || c.Action != string(rules.Require) {
		return "", false
	}
	for _, w := range words {
		if strings.ContainsAny(w, "$`") {
			return "", false
		}
	}
	if !plainWord(words[0]) || unpatterned[words[0]] {
		return "", false
	}
	if len(c.Risky) > 0 {
		// Exactly the call: a star would also allow other files or programs.
		exact := strings.Join(words, " ")
		if exact != c.Command || strings.ContainsAny(exact, "*") || len(exact) > 512 ||
			!printableWords(words) {
			return "", false
		}
		return exact, true
	}
	pat := words[0]
	for i := 1; i < len(words) && i <= MaxPatternWords && plainWord(words[i]); i++ {
		pat += " " + words[i]
	}
	return pat + " *", true
}

// plainWord reports whether w is a literal word a pattern may copy: letters,
// digits and _ . + : @ % - only, not starting with - or . (an option, a path).
func plainWord(w string) bool {
	if w == "" || w[0] == '-' || w[0] == '.' || len(w) > 64 {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("_.+:@%-", r):
		default:
			return false
		}
	}
	return true
}

// printableWords reports whether every word is printable ASCII.
func printableWords(words []string) bool {
	for _, w := range words {
		if !printableASCII(w) {
			return false
		}
	}
	return true
}

// literalTool reports whether name can be a rule's exact tool pattern.
func literalTool(name string) bool {
	return name != "" && len(name) <= 200 && !strings.ContainsAny(name, "*@ \t\n") &&
		printableASCII(name)
}

// printableASCII reports whether s is printable ASCII.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// alwaysPriority is the priority for an offered rule of tool in group: the default
// priority, or just below the first require that decides every call of the tool
// (rules.Covers) when that comes first, as the seeded shell require does.
func alwaysPriority(tool string, group []rules.Rule) int {
	offered := rules.Rule{ToolPattern: tool}
	p := rules.DefaultPriority
	for _, r := range group {
		if r.Action == rules.Require && r.Priority <= p && rules.Covers(r, offered) {
			p = max(r.Priority-1, rules.MinPriority)
		}
	}
	return p
}

// hostRules returns the allow rules offered for approved request r of a web tool
// whose URL has host ("" for none), without ID or priority: the rule for that host
// alone, and as alt the subdomains of its site ("*.example.com" for docs.example.com)
// when host is a strict subdomain of a registrable domain, never of a public suffix
// ("*.github.io", "*.co.uk"). It returns nil without a host (no host rule would
// allow the call), for a call the gate asked about for a reason no rule lifts, and
// for a local host (localHost): a one-off approval only.
func hostRules(r store.Request, host string) (first, alt []rules.Rule) {
	if host == "" || r.Reason != "" || !literalTool(r.ToolName) || localHost(host) {
		return nil, nil
	}
	rule := rules.Rule{GroupID: cmp.Or(r.GroupID, rules.DefaultGroup), ToolPattern: r.ToolName,
		HostPattern: host, Action: rules.Allow}
	first = []rules.Rule{rule}
	site, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil || site == host || !strings.HasSuffix(host, "."+site) {
		return first, nil
	}
	rule.HostPattern = "*." + site
	return first, []rules.Rule{rule}
}

// localHost reports whether host, as rules.WebHost gives it, is an IP address or
// localhost or below it: a host rule matches every port, so one for 127.0.0.1 would
// allow every local service, skald-bot's own API included.
func localHost(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil || host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// hostShown is host pattern p as an offer shows it: with its Unicode form beside it
// when it holds an IDNA label ("xn--80ak6aa92e.com (аррӏе.com)"), so a look-alike
// shows; plain text, not escaped.
func hostShown(p string) string {
	if !strings.Contains(p, "xn--") {
		return p
	}
	star, name := "", p
	if rest, ok := strings.CutPrefix(p, "*."); ok {
		star, name = "*.", rest
	}
	u, err := idna.Display.ToUnicode(name)
	if err != nil || u == name {
		return p
	}
	return p + " (" + star + u + ")"
}

// ruleText is how the follow-up names a rule: "allow Bash git status *", "allow
// WebFetch host example.com".
func ruleText(r rules.Rule) string {
	s := string(r.Action) + " " + r.ToolPattern
	if r.CommandPattern != "" {
		s += " " + r.CommandPattern
	}
	if r.HostPattern != "" {
		s += " host " + r.HostPattern
	}
	return s
}
