package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/channels/telegram"
	"github.com/skald-circle/skald-bot/internal/netaddr"
	"github.com/skald-circle/skald-bot/rules"
)

// setDefaults fills in every key left out (see the field docs) and adds
// the built-in default profile when the file has none.
func (c *Config) setDefaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	defDur := func(d *Duration, v Duration) {
		if !d.given {
			*d = v
		}
	}
	def(&c.DataDir, DefaultDataDir)
	def(&c.WorkspaceRoot, DefaultWorkspaceRoot)
	defDur(&c.ApprovalTimeout, Duration{Duration: DefaultApprovalTimeout})
	defDur(&c.BypassShort, Duration{Duration: DefaultBypassShort})
	defDur(&c.Retention, Duration{Duration: DefaultRetention})
	def(&c.Log.Level, DefaultLogLevel)
	def(&c.Log.Format, DefaultLogFormat)
	def(&c.API.Listen, DefaultListen)
	for _, l := range []struct {
		n **Count
		v Count
	}{
		{&c.Limits.PendingPerCaller, DefaultPendingPerCaller},
		{&c.Limits.PendingTotal, DefaultPendingTotal},
	} {
		if *l.n == nil {
			v := l.v
			*l.n = &v
		}
	}
	for i := range c.API.AgentTokens {
		def(&c.API.AgentTokens[i].Profile, DefaultProfile)
	}
	for i := range c.Profiles {
		def(&c.Profiles[i].SecurityGroup, rules.DefaultGroup)
	}
	if _, ok := c.Profile(DefaultProfile); !ok {
		c.Profiles = append(c.Profiles,
			Profile{ID: DefaultProfile, SecurityGroup: rules.DefaultGroup})
	}
	for i := range c.Jobs {
		j := &c.Jobs[i]
		def(&j.Profile, DefaultProfile)
		j.Overlap = j.Overlap.OrDefault()
		j.Notify = j.Notify.OrDefault()
	}
}

// problems collects validation errors.
type problems []error

func (p *problems) add(key, value, problem string) {
	*p = append(*p, &FieldError{Key: key, Value: value, Problem: problem})
}

// uniqueID adds a problem at key when id is not of the form [a-z0-9_-]+, or else when
// seen holds it already ("duplicate " + what); either way it adds id to seen.
func (p *problems) uniqueID(seen map[string]bool, key, id, what string) {
	switch {
	case !validID(id):
		p.add(key, id, "must match [a-z0-9_-]+")
	case seen[id]:
		p.add(key, id, "duplicate "+what)
	}
	seen[id] = true
}

// validate checks a defaulted Config and returns every problem joined, or nil.
func (c *Config) validate() error {
	var p problems
	c.validatePaths(&p)
	c.validateDurations(&p)
	c.validateLog(&p)
	c.validateLimits(&p)
	c.validateAPI(&p)
	c.validateTelegram(&p)
	c.validateSlack(&p)
	c.validateTools(&p)
	c.validateProfiles(&p)
	c.validateJobs(&p)
	return errors.Join(p...)
}

func (c *Config) validatePaths(p *problems) {
	if strings.IndexByte(c.DataDir, 0) >= 0 {
		p.add("data_dir", c.DataDir, "must not contain a NUL byte")
	}
	if strings.IndexByte(c.WorkspaceRoot, 0) >= 0 {
		p.add("workspace_root", c.WorkspaceRoot, "must not contain a NUL byte")
	}
}

// validateDurations refuses a written zero where it would mean nothing sensible: a
// request that expires at once, a ⏱ window of less than a second (a bypass of 0
// seconds is the whole session, docs/design.md, "Bypasses"). A zero retention keeps everything.
func (c *Config) validateDurations(p *problems) {
	if c.ApprovalTimeout.Duration <= 0 {
		p.add("approval_timeout", c.ApprovalTimeout.String(),
			"must be more than 0 (leave the key out for the default 24h)")
	}
	if c.BypassShort.Duration < time.Second {
		p.add("bypass_short", c.BypassShort.String(),
			"must be at least 1s (leave the key out for the default 15m)")
	}
	for i, j := range c.Jobs {
		if j.ApprovalTimeout.given && j.ApprovalTimeout.Duration <= 0 {
			p.add(fmt.Sprintf("jobs[%d].approval_timeout", i), j.ApprovalTimeout.String(),
				"must be more than 0 (leave the key out for the global approval_timeout)")
		}
	}
}

func (c *Config) validateLimits(p *problems) {
	for _, l := range []struct {
		key string
		n   *Count
		def int
	}{
		{"limits.pending_per_caller", c.Limits.PendingPerCaller, DefaultPendingPerCaller},
		{"limits.pending_total", c.Limits.PendingTotal, DefaultPendingTotal},
	} {
		if l.n != nil && *l.n < 1 {
			p.add(l.key, strconv.Itoa(int(*l.n)), fmt.Sprintf(
				"must be a positive integer (leave the key out for the default %d)", l.def))
		}
	}
}

func (c *Config) validateLog(p *problems) {
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		p.add("log.level", c.Log.Level, "must be debug, info, warn or error")
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		p.add("log.format", c.Log.Format, "must be text or json")
	}
}

func (c *Config) validateAPI(p *problems) {
	a := c.API
	if problem := netaddr.ListenProblem(a.Listen); problem != "" {
		p.add("api.listen", a.Listen, problem)
	} else if a.Token == "" && !IsLoopback(a.Listen) {
		p.add("api.listen", a.Listen, "listening beyond loopback needs api.token")
	}
	if problem := api.TokenProblem(a.Token.Reveal()); a.Token != "" && problem != "" {
		p.add("api.token", "", problem)
	}
	seen := map[Secret]int{}
	for i, t := range a.AgentTokens {
		key := fmt.Sprintf("api.agent_tokens[%d]", i)
		switch j, dup := seen[t.Token]; {
		case t.Token == "":
			p.add(key+".token", "", "required")
		case api.TokenProblem(t.Token.Reveal()) != "":
			p.add(key+".token", "", api.TokenProblem(t.Token.Reveal()))
		case t.Token == a.Token:
			p.add(key+".token", "", "must differ from api.token")
		case dup:
			p.add(key+".token", "", fmt.Sprintf("same as api.agent_tokens[%d].token", j))
		default:
			seen[t.Token] = i
		}
		if _, ok := c.Profile(t.Profile); !ok {
			p.add(key+".profile", t.Profile, "no such profile")
		}
	}
	if len(a.AllowedHosts) > 0 && a.Token == "" {
		p.add("api.allowed_hosts", strings.Join(a.AllowedHosts, ","),
			"needs api.token (a generated token is for loopback only)")
	}
	for i, h := range a.AllowedHosts {
		if _, problem := parseAllowedHost(h); problem != "" {
			p.add(fmt.Sprintf("api.allowed_hosts[%d]", i), h, problem)
		}
	}
}

// parseAllowedHost parses an api.allowed_hosts entry: "host[:port]" or
// "https://host[:port]", host a DNS name or an IP ([…] for IPv6 with a port). The
// problem is "" when the entry is valid.
func parseAllowedHost(s string) (AllowedHost, string) {
	const want = "must be host[:port] or https://host[:port]"
	var h AllowedHost
	rest := s
	if scheme, after, ok := strings.Cut(s, "://"); ok {
		if strings.ToLower(scheme) != "https" {
			return h, want + " (for plain http write host[:port] without a scheme)"
		}
		h.HTTPS, rest = true, after
	}
	if rest == "" || strings.ContainsAny(rest, "/?#@ \t") {
		return h, want
	}
	host, port := rest, ""
	if hp, pt, err := net.SplitHostPort(rest); err == nil {
		host, port = hp, pt
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return h, "port must be a number from 1 to 65535"
		}
	} else if inner, ok := strings.CutPrefix(rest, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		if ip := net.ParseIP(inner); !ok || ip == nil || ip.To4() != nil {
			return h, want
		}
	} else if strings.Contains(rest, ":") {
		if ip := net.ParseIP(rest); ip == nil || ip.To4() != nil {
			return h, want
		}
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if net.ParseIP(host) == nil && !validHostName(host) {
		return h, want + " (a host name of letters, digits, - and .)"
	}
	h.Host, h.Port = host, port
	return h, ""
}

// validHostName reports whether s is a DNS name: dot-separated labels of letters,
// digits and -, not starting or ending with -.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c == '-' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

func (c *Config) validateTelegram(p *problems) {
	t := c.Telegram
	if !t.Enabled() {
		return
	}
	p.addTelegram(t.Options().Check())
	for _, l := range []struct {
		key string
		ids []int64
	}{{"telegram.approvers", t.Approvers}, {"telegram.admins", t.Admins}} {
		for i, id := range l.ids {
			if id <= 0 {
				p.add(fmt.Sprintf("%s[%d]", l.key, i), strconv.FormatInt(id, 10),
					"must be a user id (a positive number)")
			}
		}
	}
}

// toolArg checks the tool and arg of the entry key of a tools list of kind (shell,
// web): plain names, the tool not already in seen, which it joins.
func (p *problems) toolArg(key, tool, arg, kind string, seen map[string]bool) {
	for _, f := range []struct{ key, v string }{{".tool", tool}, {".arg", arg}} {
		if !plainName(f.v) {
			p.add(key+f.key, f.v, "must be a name without spaces or stars")
		}
	}
	if seen[tool] {
		p.add(key+".tool", tool, "duplicate "+kind+" tool")
	}
	seen[tool] = true
}

// addTelegram adds the problems of telegram.Options.Check's err under telegram.
func (p *problems) addTelegram(err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, err := range errs {
		var oe *telegram.OptionError
		switch {
		case errors.As(err, &oe):
			p.add("telegram."+oe.Option, oe.Value, oe.Problem)
		case err != nil:
			*p = append(*p, fmt.Errorf("config: telegram: %w", err))
		}
	}
}

func (c *Config) validateSlack(p *problems) {
	s := c.Slack
	if !s.Enabled() {
		return
	}
	if !strings.HasPrefix(s.BotToken.Reveal(), "xoxb-") {
		p.add("slack.bot_token", "", "must be a bot token (xoxb-…)")
	}
	if s.AppToken != "" {
		if !strings.HasPrefix(s.AppToken.Reveal(), "xapp-") {
			p.add("slack.app_token", "", "must be an app-level token (xapp-…)")
		}
	} else {
		if s.SigningSecret == "" {
			p.add("slack.signing_secret", "", "required without slack.app_token (HTTP mode)")
		}
		if s.HTTPListen == "" {
			p.add("slack.http_listen", "", "required without slack.app_token (HTTP mode)")
		}
	}
	if s.HTTPListen != "" {
		if problem := netaddr.ListenProblem(s.HTTPListen); problem != "" {
			p.add("slack.http_listen", s.HTTPListen, problem)
		}
	}
	if problem := urlProblem(s.APIURL); problem != "" {
		p.add("slack.api_url", s.APIURL, problem)
	}
	for _, l := range []struct {
		key string
		ids []string
	}{
		{"slack.channels", s.Channels}, {"slack.approvers", s.Approvers},
		{"slack.admins", s.Admins},
	} {
		for i, id := range l.ids {
			if id == "" || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' }) {
				p.add(fmt.Sprintf("%s[%d]", l.key, i), id, "must be a Slack id")
			}
		}
	}
}

func (c *Config) validateTools(p *problems) {
	names := map[string]bool{}
	for i, cat := range c.Tools.Categories {
		key := fmt.Sprintf("tools.categories[%d]", i)
		p.uniqueID(names, key+".name", cat.Name, "category")
		if len(cat.Tools) == 0 {
			p.add(key+".tools", "", "must list at least one tool pattern")
		}
		for j, pat := range cat.Tools {
			if problem := toolPatternProblem(pat); problem != "" {
				p.add(fmt.Sprintf("%s.tools[%d]", key, j), pat, problem)
			}
		}
	}
	spaceOrStar := func(r rune) bool { return r <= ' ' || r == '*' }
	for _, l := range []struct {
		key   string
		names []string
	}{
		{"tools.fs_read", c.Tools.FSRead}, {"tools.fs_write", c.Tools.FSWrite},
		{"tools.path_args", c.Tools.PathArgs},
	} {
		for i, n := range l.names {
			if n == "" || strings.ContainsFunc(n, spaceOrStar) {
				p.add(fmt.Sprintf("%s[%d]", l.key, i), n, "must be a name without spaces or stars")
			}
		}
	}
	shellTools, webTools := map[string]bool{}, map[string]bool{}
	for i, st := range c.Tools.Shell {
		key := fmt.Sprintf("tools.shell[%d]", i)
		p.toolArg(key, st.Tool, st.Arg, "shell", shellTools)
		switch {
		case st.CwdArg != "" && !plainName(st.CwdArg):
			p.add(key+".cwd_arg", st.CwdArg, "must be a name without spaces or stars")
		case st.CwdArg != "" && st.CwdArg == st.Arg:
			p.add(key+".cwd_arg", st.CwdArg, "must differ from arg")
		}
	}
	for i, wt := range c.Tools.Web {
		p.toolArg(fmt.Sprintf("tools.web[%d]", i), wt.Tool, wt.Arg, "web", webTools)
	}
	places := map[string]bool{}
	for i, n := range c.Tools.NeedsHuman {
		key := fmt.Sprintf("tools.needs_human[%d]", i)
		clean := path.Clean(n)
		switch {
		case n == "" || strings.ContainsRune(n, 0):
			p.add(key, n, "must be a path")
		case clean == "." || clean == "/" || clean == "~" || clean == ".." ||
			strings.HasPrefix(clean, "../"):
			p.add(key, n, "must name a place inside a workspace, in ~/, or an absolute one "+
				"other than /")
		case strings.HasPrefix(n, "~") && !strings.HasPrefix(n, "~/"):
			p.add(key, n, "must be ~/… (the service's home), not another user's")
		case places[clean]:
			p.add(key, n, "duplicate place")
		}
		places[clean] = true
	}
	seen := map[string]bool{}
	for i, n := range c.Tools.MCPFilesystem {
		key := fmt.Sprintf("tools.mcp_filesystem[%d]", i)
		switch {
		case !mcpServerName(n):
			p.add(key, n, "must be an MCP server name: letters, digits, - and _, without __")
		case seen[n]:
			p.add(key, n, "duplicate server")
		}
		seen[n] = true
	}
}

// plainName reports whether n is a tool or argument name: not empty, without spaces,
// control characters or stars.
func plainName(n string) bool {
	return n != "" && !strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r == '*' })
}

// mcpServerName reports whether n can be the <server> of an MCP tool name
// mcp__<server>__<tool>: letters, digits, "-" and "_", not starting or ending with "_"
// and without "__", which would end the server name.
func mcpServerName(n string) bool {
	if n == "" || n[0] == '_' || n[len(n)-1] == '_' || strings.Contains(n, "__") {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// toolPatternProblem is the rules package's verdict on a tool pattern, "" when valid.
func toolPatternProblem(pat string) string {
	err := rules.Validate(rules.Rule{GroupID: rules.DefaultGroup, ToolPattern: pat,
		Action: rules.Require, Priority: rules.DefaultPriority})
	var fe *rules.FieldError
	if errors.As(err, &fe) {
		return fe.Problem
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func (c *Config) validateProfiles(p *problems) {
	seen := map[string]bool{}
	for i, pr := range c.Profiles {
		key := fmt.Sprintf("profiles[%d]", i)
		p.uniqueID(seen, key+".id", pr.ID, "profile")
		if !validID(pr.SecurityGroup) {
			p.add(key+".security_group", pr.SecurityGroup, "must match [a-z0-9_-]+")
		}
		if strings.IndexByte(pr.WorkingDirectory, 0) >= 0 {
			p.add(key+".working_directory", pr.WorkingDirectory, "must not contain a NUL byte")
		}
		if strings.IndexByte(pr.WorkspaceRoot, 0) >= 0 {
			p.add(key+".workspace_root", pr.WorkspaceRoot, "must not contain a NUL byte")
		}
		for _, l := range []struct {
			key   string
			paths []string
		}{{".allow_fs_reads", pr.AllowFSReads}, {".allow_fs_writes", pr.AllowFSWrites}} {
			for j, path := range l.paths {
				if path == "" || strings.IndexByte(path, 0) >= 0 {
					p.add(fmt.Sprintf("%s%s[%d]", key, l.key, j), path, "must be a path")
				}
			}
		}
	}
}

func (c *Config) validateJobs(p *problems) {
	seen := map[string]bool{}
	for i, j := range c.Jobs {
		key := fmt.Sprintf("jobs[%d]", i)
		p.uniqueID(seen, key+".name", j.Name, "job name")
		if strings.TrimSpace(j.Schedule) == "" {
			p.add(key+".schedule", "",
				"required (a cron spec such as \"0 2 * * *\" or \"@every 1h\")")
		}
		if _, ok := c.Profile(j.Profile); !ok {
			p.add(key+".profile", j.Profile, "no such profile")
		}
		if err := j.Overlap.Check(); err != nil {
			p.add(key+".overlap", string(j.Overlap), err.Error())
		}
		if err := j.Notify.Check(); err != nil {
			p.add(key+".notify", string(j.Notify), err.Error())
		}
		if len(j.Steps) == 0 {
			p.add(key+".steps", "", "must list at least one step")
		}
		for k, s := range j.Steps {
			if strings.TrimSpace(s.Tool) == "" {
				p.add(fmt.Sprintf("%s.steps[%d].tool", key, k), "", "required")
			}
		}
	}
}

// IsLoopback reports whether the host of addr (host:port) is a loopback address or
// "localhost". An empty host (all interfaces), a host name or an unparsable addr is
// not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// urlProblem says what is wrong with an optional http(s) URL, "" when nothing is.
func urlProblem(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an http:// or https:// URL"
	}
	return ""
}

// validID reports whether s matches [a-z0-9_-]+, the form of every id and name.
func validID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
