package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/skald-circle/skald-bot/rules"
)

// setDefaults fills in every key left out (SPEC §12.23 and the field docs) and adds
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
	for i := range c.API.AgentTokens {
		def(&c.API.AgentTokens[i].Profile, DefaultProfile)
	}
	for i := range c.Profiles {
		def(&c.Profiles[i].SecurityGroup, rules.DefaultGroup)
	}
	if _, ok := c.Profile(DefaultProfile); !ok {
		c.Profiles = append(c.Profiles, Profile{ID: DefaultProfile, SecurityGroup: rules.DefaultGroup})
	}
	for i := range c.Jobs {
		j := &c.Jobs[i]
		def(&j.Profile, DefaultProfile)
		if j.Overlap == "" {
			j.Overlap = OverlapSkip
		}
		if j.Notify == "" {
			j.Notify = NotifyFailure
		}
	}
}

// problems collects validation errors.
type problems []error

func (p *problems) add(key, value, problem string) {
	*p = append(*p, &FieldError{Key: key, Value: value, Problem: problem})
}

// validate checks a defaulted Config and returns every problem joined, or nil.
func (c *Config) validate() error {
	var p problems
	c.validatePaths(&p)
	c.validateDurations(&p)
	c.validateLog(&p)
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
// seconds is the whole session, SPEC §12.17). A zero retention keeps everything.
func (c *Config) validateDurations(p *problems) {
	if c.ApprovalTimeout.Duration <= 0 {
		p.add("approval_timeout", c.ApprovalTimeout.String(), "must be more than 0 (leave the key out for the default 24h)")
	}
	if c.BypassShort.Duration < time.Second {
		p.add("bypass_short", c.BypassShort.String(), "must be at least 1s (leave the key out for the default 15m)")
	}
	for i, j := range c.Jobs {
		if j.ApprovalTimeout.given && j.ApprovalTimeout.Duration <= 0 {
			p.add(fmt.Sprintf("jobs[%d].approval_timeout", i), j.ApprovalTimeout.String(),
				"must be more than 0 (leave the key out for the global approval_timeout)")
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
	if problem := listenProblem(a.Listen); problem != "" {
		p.add("api.listen", a.Listen, problem)
	} else if a.Token == "" && !IsLoopback(a.Listen) {
		p.add("api.listen", a.Listen, "listening beyond loopback needs api.token")
	}
	if len(a.AgentTokens) > 0 && a.Token == "" {
		p.add("api.agent_tokens", "", "need api.token (the admin token) to be set")
	}
	seen := map[Secret]int{}
	for i, t := range a.AgentTokens {
		key := fmt.Sprintf("api.agent_tokens[%d]", i)
		switch j, dup := seen[t.Token]; {
		case t.Token == "":
			p.add(key+".token", "", "required")
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
}

func (c *Config) validateTelegram(p *problems) {
	t := c.Telegram
	if !t.Enabled() {
		return
	}
	if problem := urlProblem(t.APIURL); problem != "" {
		p.add("telegram.api_url", t.APIURL, problem)
	}
	for i, id := range t.Chats {
		if id == 0 {
			p.add(fmt.Sprintf("telegram.chats[%d]", i), "0", "must be a chat id")
		}
	}
	for _, l := range []struct {
		key string
		ids []int64
	}{{"telegram.approvers", t.Approvers}, {"telegram.admins", t.Admins}} {
		for i, id := range l.ids {
			if id <= 0 {
				p.add(fmt.Sprintf("%s[%d]", l.key, i), strconv.FormatInt(id, 10), "must be a user id (a positive number)")
			}
		}
	}
	w := t.Webhook
	if w.URL == "" {
		if w.Listen != "" || w.SecretToken != "" {
			p.add("telegram.webhook", "", "listen and secret_token need telegram.webhook.url")
		}
		return
	}
	if problem := urlProblem(w.URL); problem != "" {
		p.add("telegram.webhook.url", w.URL, problem)
	} else if problem := webhookProblem(w.URL, t.APIURL); problem != "" {
		p.add("telegram.webhook.url", w.URL, problem)
	}
	if w.Listen == "" {
		p.add("telegram.webhook.listen", "", "required with telegram.webhook.url")
	} else if problem := listenProblem(w.Listen); problem != "" {
		p.add("telegram.webhook.listen", w.Listen, problem)
	}
	if !validSecretToken(w.SecretToken.Reveal()) {
		p.add("telegram.webhook.secret_token", "", "required with telegram.webhook.url: 1 to 256 of A-Z a-z 0-9 _ -")
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
		if problem := listenProblem(s.HTTPListen); problem != "" {
			p.add("slack.http_listen", s.HTTPListen, problem)
		}
	}
	if problem := urlProblem(s.APIURL); problem != "" {
		p.add("slack.api_url", s.APIURL, problem)
	}
	for _, l := range []struct {
		key string
		ids []string
	}{{"slack.channels", s.Channels}, {"slack.approvers", s.Approvers}, {"slack.admins", s.Admins}} {
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
		switch {
		case !validID(cat.Name):
			p.add(key+".name", cat.Name, "must match [a-z0-9_-]+")
		case names[cat.Name]:
			p.add(key+".name", cat.Name, "duplicate category")
		}
		names[cat.Name] = true
		if len(cat.Tools) == 0 {
			p.add(key+".tools", "", "must list at least one tool pattern")
		}
		for j, pat := range cat.Tools {
			if problem := toolPatternProblem(pat); problem != "" {
				p.add(fmt.Sprintf("%s.tools[%d]", key, j), pat, problem)
			}
		}
	}
	for _, l := range []struct {
		key   string
		names []string
	}{{"tools.fs_read", c.Tools.FSRead}, {"tools.fs_write", c.Tools.FSWrite}, {"tools.path_args", c.Tools.PathArgs}} {
		for i, n := range l.names {
			if n == "" || strings.ContainsFunc(n, func(r rune) bool { return r <= ' ' || r == '*' }) {
				p.add(fmt.Sprintf("%s[%d]", l.key, i), n, "must be a name without spaces or stars")
			}
		}
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

// mcpServerName reports whether n can be the <server> of an MCP tool name
// mcp__<server>__<tool>: letters, digits, "-" and "_", not starting or ending with "_"
// and without "__", which would end the server name.
func mcpServerName(n string) bool {
	if n == "" || n[0] == '_' || n[len(n)-1] == '_' || strings.Contains(n, "__") {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
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
		switch {
		case !validID(pr.ID):
			p.add(key+".id", pr.ID, "must match [a-z0-9_-]+")
		case seen[pr.ID]:
			p.add(key+".id", pr.ID, "duplicate profile")
		}
		seen[pr.ID] = true
		if !validID(pr.SecurityGroup) {
			p.add(key+".security_group", pr.SecurityGroup, "must match [a-z0-9_-]+")
		}
		if strings.IndexByte(pr.WorkingDirectory, 0) >= 0 {
			p.add(key+".working_directory", pr.WorkingDirectory, "must not contain a NUL byte")
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
		switch {
		case !validID(j.Name):
			p.add(key+".name", j.Name, "must match [a-z0-9_-]+")
		case seen[j.Name]:
			p.add(key+".name", j.Name, "duplicate job name")
		}
		seen[j.Name] = true
		if strings.TrimSpace(j.Schedule) == "" {
			p.add(key+".schedule", "", "required (a cron spec such as \"0 2 * * *\" or \"@every 1h\")")
		}
		if _, ok := c.Profile(j.Profile); !ok {
			p.add(key+".profile", j.Profile, "no such profile")
		}
		switch j.Overlap {
		case OverlapSkip, OverlapQueue, OverlapAllow:
		default:
			p.add(key+".overlap", string(j.Overlap), "must be skip, queue or allow")
		}
		switch j.Notify {
		case NotifyFailure, NotifyAlways, NotifyNever:
		default:
			p.add(key+".notify", string(j.Notify), "must be failure, always or never")
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

// listenProblem says what is wrong with a host:port to listen on, "" when nothing is.
func listenProblem(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "must be host:port"
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return "port must be a number from 0 to 65535"
	}
	return ""
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

// webhookPorts are the ports Telegram's Bot API delivers webhooks to
// (https://core.telegram.org/bots/api#setwebhook).
var webhookPorts = map[string]bool{"443": true, "80": true, "88": true, "8443": true}

// webhookProblem says why Telegram would refuse the http(s) URL u as a webhook, ""
// when it would not: the cloud Bot API wants https on port 443, 80, 88 or 8443. A
// loopback host (tests, a reverse proxy on the machine) and a local Bot API server
// (apiURL set to another host than api.telegram.org, which takes http and any port)
// are exempt.
func webhookProblem(u, apiURL string) string {
	wu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	if api, err := url.Parse(apiURL); apiURL != "" && err == nil && api.Hostname() != "api.telegram.org" {
		return ""
	}
	if host := wu.Hostname(); host == "localhost" || net.ParseIP(host).IsLoopback() {
		return ""
	}
	if wu.Scheme != "https" {
		return "must be an https:// URL (Telegram delivers webhooks over HTTPS only)"
	}
	if port := wu.Port(); port != "" && !webhookPorts[port] {
		return "port " + port + ": Telegram delivers webhooks to ports 443, 80, 88 and 8443 only"
	}
	return ""
}

// validID reports whether s matches [a-z0-9_-]+ (SPEC §12.16).
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

// validSecretToken reports whether s is a valid Telegram webhook secret token.
func validSecretToken(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
