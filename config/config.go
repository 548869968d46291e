package config

import (
	"fmt"
	"go.yaml.in/yaml/v3"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/channels/telegram"
	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/gate"
	"github.com/skald-circle/skald-bot/rules"
)

// Defaults applied by Parse to keys left out.
const (
	DefaultDataDir          = "./data"
	DefaultWorkspaceRoot    = "."
	DefaultApprovalTimeout  = 24 * time.Hour
	DefaultBypassShort      = 15 * time.Minute
	DefaultRetention        = 90 * 24 * time.Hour
	DefaultListen           = "127.0.0.1:8377"
	DefaultLogLevel         = "info"
	DefaultLogFormat        = "text"
	DefaultPendingPerCaller = 1000
	DefaultPendingTotal     = 10000
	// DBFile is the name of the bbolt file inside DataDir.
	DBFile = "skald.db"
	// DefaultProfile is the profile that always exists (docs/design.md, "Terms").
	DefaultProfile = gate.DefaultProfile
	// AdminTokenFile is the file under DataDir that holds the generated admin token
	// when api.token is empty.
	AdminTokenFile = "admin.token"
	// MinTokenLen is the shortest api.token or agent token accepted, in characters.
	MinTokenLen = api.MinTokenLen
)

// Config is the whole configuration file. Parse fills in the defaults and
// validates it; Load also resolves its paths. Secrets are of type Secret, so a Config
// can be printed or logged without revealing them. It is read-only after Load.
type Config struct {
	// DataDir holds the database (DBFile). Relative paths are relative to the
	// configuration file's directory; Load makes it absolute. Default "./data".
	DataDir string `yaml:"data_dir" json:"data_dir"`
	// WorkspaceRoot is the directory relative tool-call paths resolve against
	// (docs/design.md, "Normalising paths"), relative to the configuration file's
	// directory when relative. Load makes it absolute and resolves its symlinks; it
	// must exist. Default ".".
	WorkspaceRoot string `yaml:"workspace_root" json:"workspace_root"`
	// ApprovalTimeout is how long a request stays pending before it expires
	// (docs/design.md, "Expiry"). Default 24h; a written 0 is refused.
	ApprovalTimeout Duration `yaml:"approval_timeout" json:"approval_timeout"`
	// BypassShort is the window of the ⏱ button and of "15m" typed in a command
	// (docs/design.md, "Bypasses"). Default 15m; less than 1s is refused (0 seconds would be a
	// bypass for the whole session).
	BypassShort Duration `yaml:"bypass_short" json:"bypass_short"`
	// Retention is how long finished requests, runs and audit entries are kept
	// (docs/design.md, "Persistence"). Default 90d; a written 0 keeps everything
	// (nothing is pruned).
	Retention Duration `yaml:"retention" json:"retention"`

	// Log configures the service's log lines on stderr.
	Log Log `yaml:"log" json:"log"`
	// API configures the HTTP API and its tokens.
	API API `yaml:"api" json:"api"`
	// Telegram and Slack configure the chat channels; each is off without its token.
	Telegram Telegram `yaml:"telegram" json:"telegram"`
	Slack    Slack    `yaml:"slack" json:"slack"`
	// Tools classifies tool names (categories, file-tool classes, path arguments).
	Tools Tools `yaml:"tools" json:"tools"`
	// Limits cap the requests waiting for a human.
	Limits Limits `yaml:"limits" json:"limits"`
	// Profiles are the run contexts; Parse appends the built-in "default" when absent.
	Profiles []Profile `yaml:"profiles" json:"profiles"`
	// Jobs are the scheduled jobs, in file order.
	Jobs []Job `yaml:"jobs" json:"jobs"`

	// File is the absolute, symlink-resolved path of the file Load read; empty after
	// Parse. The gate protects it
	// (docs/design.md, "Protected and guarded places").
	File string `yaml:"-" json:"file,omitempty"`
}

// Log configures log/slog.
type Log struct {
	// Level is debug, info (default), warn or error.
	Level string `yaml:"level" json:"level"`
	// Format is text (default, slog.TextHandler) or json (slog.JSONHandler).
	Format string `yaml:"format" json:"format"`
}

// SlogLevel returns Level as a slog.Level; a level Parse would refuse gives info.
func (l Log) SlogLevel() slog.Level {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(l.Level)); err != nil {
		return slog.LevelInfo
	}
	return lv
}

// Limits cap the inbox items (approval requests) waiting for a human, so that one
// caller cannot fill the store; beyond, a new one is refused (HTTP 429). Parse sets
// a key left out to its default; a written value must be a positive integer.
type Limits struct {
	// PendingPerCaller is the most pending items of one caller (an agent token, local,
	// admin, cron). Default 1000.
	PendingPerCaller *Count `yaml:"pending_per_caller" json:"pending_per_caller"`
	// PendingTotal is the most pending items of all callers. Default 10000.
	PendingTotal *Count `yaml:"pending_total" json:"pending_total"`
}

// Values returns the limits, the defaults for keys not set.
func (l Limits) Values() (perCaller, total int) {
	perCaller, total = DefaultPendingPerCaller, DefaultPendingTotal
	if l.PendingPerCaller != nil {
		perCaller = int(*l.PendingPerCaller)
	}
	if l.PendingTotal != nil {
		total = int(*l.PendingTotal)
	}
	return perCaller, total
}

// Count is a configured number of things: a YAML integer, nothing else (1.5 and "10"
// are refused rather than rounded or converted).
type Count int

// UnmarshalYAML implements yaml.Unmarshaler; a value that is not an integer is a YAML
// type error with its line, which Parse turns into a message naming the key.
func (c *Count) UnmarshalYAML(n *yaml.Node) error {
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		msg := fmt.Sprintf("line %d: %s: must be an integer", n.Line, quote(n.Value))
		return &yaml.TypeError{Errors: []string{msg}}
	}
	*c = Count(v)
	return nil
}

// API configures the HTTP API (docs/design.md, "HTTP API").
type API struct {
	// Listen is host:port. Default 127.0.0.1:8377. A host beyond loopback needs Token.
	Listen string `yaml:"listen" json:"listen"`
	// Token is the admin bearer token, at least MinTokenLen characters. Empty means
	// serve generates one into AdminTokenFile under DataDir (loopback only).
	Token Secret `yaml:"token" json:"token"`
	// AgentTokens are the agents' tokens, each at least MinTokenLen characters.
	AgentTokens []AgentToken `yaml:"agent_tokens" json:"agent_tokens"`
	// AllowedHosts are the Host names, besides loopback IPs and localhost, that the API
	// answers to: "host[:port]", or "https://host[:port]" for a TLS proxy in front.
	// Empty means loopback only.
	AllowedHosts []string `yaml:"allowed_hosts" json:"allowed_hosts,omitempty"`
}

// NamesToken reports whether the configuration names any token: api.token or an
// agent token. With none, the agent routes take calls without a token on loopback.
func (a API) NamesToken() bool { return a.Token != "" || len(a.AgentTokens) > 0 }

// AllowedHost is one parsed api.allowed_hosts entry.
type AllowedHost struct {
	// Host is the name or IP, lower case, without brackets.
	Host string
	// Port is the port as written; "" means any.
	Port string
	// HTTPS is set for an "https://" entry: its origin is https://Host[:Port].
	HTTPS bool
}

// Hosts returns the parsed AllowedHosts; entries Parse would refuse are left out.
func (a API) Hosts() []AllowedHost {
	out := make([]AllowedHost, 0, len(a.AllowedHosts))
	for _, s := range a.AllowedHosts {
		if h, problem := parseAllowedHost(s); problem == "" {
			out = append(out, h)
		}
	}
	return out
}

// AgentToken is a bearer token an agent uses (docs/design.md, "Callers"): its calls
// are evaluated in Profile (default "default") and get AgentID when it is set.
type AgentToken struct {
	// Token is the bearer token; required, at least MinTokenLen characters, unique,
	// not api.token.
	Token Secret `yaml:"token" json:"token"`
	// Profile names an existing profile; default "default".
	Profile string `yaml:"profile" json:"profile"`
	// AgentID, when set, is the agent_id of every call made with the token.
	AgentID string `yaml:"agent_id" json:"agent_id,omitempty"`
}

// Telegram configures the Telegram channel. An empty Token turns it off.
type Telegram struct {
	// Token is the bot token from @BotFather; empty turns the channel off.
	Token Secret `yaml:"token" json:"token"`
	// APIURL is the Bot API server; empty means https://api.telegram.org.
	APIURL string `yaml:"api_url" json:"api_url,omitempty"`
	// Chats are the chat ids prompts are sent to (groups are negative).
	Chats []int64 `yaml:"chats" json:"chats"`
	// Approvers may approve and reject; Admins may also edit rules, groups, bypasses
	// and jobs. Both are Telegram user ids.
	Approvers []int64 `yaml:"approvers" json:"approvers"`
	Admins    []int64 `yaml:"admins" json:"admins"`
	// Webhook, when its URL is set, replaces long polling.
	Webhook Webhook `yaml:"webhook" json:"webhook"`
}

// Enabled reports whether the channel is on (its token is set).
func (t Telegram) Enabled() bool { return t.Token != "" }

// Options returns the telegram.Options these settings give: token, API URL, chats and
// webhook. The caller adds the Handler, the Store and the rest.
func (t Telegram) Options() telegram.Options {
	return telegram.Options{
		Token:  t.Token.Reveal(),
		APIURL: t.APIURL,
		Chats:  t.Chats,
		Webhook: telegram.Webhook{URL: t.Webhook.URL, Listen: t.Webhook.Listen,
			SecretToken: t.Webhook.SecretToken.Reveal()},
	}
}

// Webhook makes Telegram deliver updates by webhook instead of long polling:
// on when URL is set, which then needs Listen and SecretToken.
type Webhook struct {
	// URL is the public https URL Telegram posts updates to: https:// on port 443,
	// 80, 88 or 8443, as Telegram requires; http:// and other ports only for a
	// loopback host or with a local Bot API server (Telegram.APIURL set).
	URL string `yaml:"url" json:"url,omitempty"`
	// Listen is the local host:port the webhook server binds.
	Listen string `yaml:"listen" json:"listen,omitempty"`
	// SecretToken is checked against X-Telegram-Bot-Api-Secret-Token: 1–256 of
	// A-Z a-z 0-9 _ -.
	SecretToken Secret `yaml:"secret_token" json:"secret_token"`
}

// Slack configures the Slack channel. An empty BotToken turns it off.
type Slack struct {
	// BotToken (xoxb-…) posts and edits messages.
	BotToken Secret `yaml:"bot_token" json:"bot_token"`
	// AppToken (xapp-…) selects Socket Mode; without it Slack posts to HTTPListen and
	// requests are checked with SigningSecret.
	AppToken Secret `yaml:"app_token" json:"app_token"`
	// SigningSecret checks the v0 signature of HTTP-mode requests; required
	// without AppToken.
	SigningSecret Secret `yaml:"signing_secret" json:"signing_secret"`
	// APIURL is the Web API base; empty means https://slack.com/api/.
	APIURL string `yaml:"api_url" json:"api_url,omitempty"`
	// HTTPListen is the host:port of /slack/interactions and /slack/commands.
	HTTPListen string `yaml:"http_listen" json:"http_listen,omitempty"`
	// Channels are the channel ids prompts are posted to.
	Channels []string `yaml:"channels" json:"channels"`
	// Approvers and Admins are Slack user ids (U…), as for Telegram.
	Approvers []string `yaml:"approvers" json:"approvers"`
	Admins    []string `yaml:"admins" json:"admins"`
}

// Enabled reports whether the channel is on (its bot token is set).
func (s Slack) Enabled() bool { return s.BotToken != "" }

// Tools classifies tools (docs/design.md, "Tool patterns and file classes", "Path
// arguments"). A list left out (nil) means the built-in default; an explicit empty
// list means none.
type Tools struct {
	// Categories, in order: the first whose patterns match a tool gives its category.
	// nil means shell = [execute_cmd, Bash], filesystem = [@fs_any].
	Categories []Category `yaml:"categories" json:"categories,omitempty"`
	// FSRead and FSWrite are the tools of @fs_read and @fs_write.
	FSRead  []string `yaml:"fs_read" json:"fs_read,omitempty"`
	FSWrite []string `yaml:"fs_write" json:"fs_write,omitempty"`
	// PathArgs are the argument keys that hold a call's paths. Every one a call sends
	// is evaluated, and the most restrictive answer wins (deny, then require, then
	// allow; docs/design.md, "Path arguments"); a file tool (FSRead, FSWrite) that sends none
	// is evaluated on its working directory (rules.Set.Evaluate).
	PathArgs []string `yaml:"path_args" json:"path_args,omitempty"`
	// MCPFilesystem are the MCP servers that run the reference filesystem server: their
	// tools (mcp__<server>__read_file, …) are file tools, under the same rules as
	// Read and Write (rules.MCPFSRead, rules.MCPFSWrite). nil means [filesystem].
	MCPFilesystem []string `yaml:"mcp_filesystem" json:"mcp_filesystem,omitempty"`
	// NeedsHuman are more places that need a human to be written, beside the built-in
	// ones (docs/design.md, "Protected and guarded places"): absolute, "~/…" in the
	// service's home, or relative to each workspace (".github/workflows").
	NeedsHuman []string `yaml:"needs_human" json:"needs_human,omitempty"`
	// Shell are the tools that run a shell script, decided command by command
	// (docs/design.md, "Shell commands"): the script is argument Arg, and CwdArg,
	// when set, names the directory it starts in. nil means Bash (command) and
	// execute_cmd (cmd, cwd_arg cwd).
	Shell []rules.ShellTool `yaml:"shell" json:"shell,omitempty"`
	// Web are the tools that fetch a URL, the only ones a rule's host_pattern may
	// name (docs/design.md, "Web hosts"): the URL is argument Arg. nil means WebFetch
	// (url).
	Web []rules.WebTool `yaml:"web" json:"web,omitempty"`
}

// Category names a set of tool patterns (docs/design.md, "Deciding a call"). It has
// the shape of gate.Category: convert each element.
type Category struct {
	// Name matches [a-z0-9_-]+; a bypass scope names it as "category:<name>".
	Name string `yaml:"name" json:"name"`
	// Tools are tool patterns as rules use them: "*", a name, "prefix*", @fs_….
	Tools []string `yaml:"tools" json:"tools"`
}

// Profile is a run context (docs/design.md, "Terms"). Parse adds the built-in "default"
// profile when the file has none of that id.
type Profile struct {
	// ID matches [a-z0-9_-]+ and is unique; "default" may be redefined.
	ID string `yaml:"id" json:"id"`
	// SecurityGroup is the permission group of calls in this profile; default "default".
	SecurityGroup string `yaml:"security_group" json:"security_group"`
	// WorkspaceRoot, when set, is the profile's own workspace (docs/design.md,
	// "Projects"): its calls' relative paths and the rules' path patterns are relative
	// to it. Relative means relative to the configuration file's directory; it must be
	// an existing directory, and no two profiles may name the same one. Load makes it
	// absolute and resolves its symlinks. Empty means Config.WorkspaceRoot.
	WorkspaceRoot string `yaml:"workspace_root" json:"workspace_root,omitempty"`
	// WorkingDirectory resolves relative paths; empty means the profile's workspace,
	// relative means relative to it. Load makes it absolute.
	WorkingDirectory string `yaml:"working_directory" json:"working_directory"`
	// AllowFSReads and AllowFSWrites are files or directories the profile may read
	// (or write) without approval (docs/design.md, "Profile fast-path"), as
	// configured.
	AllowFSReads  []string `yaml:"allow_fs_reads" json:"allow_fs_reads,omitempty"`
	AllowFSWrites []string `yaml:"allow_fs_writes" json:"allow_fs_writes,omitempty"`
}

// Job is a scheduled job (docs/design.md, "Scheduled jobs"). Parse checks Schedule is
// not empty; the cron package parses it.
type Job struct {
	// Name matches [a-z0-9_-]+ and is unique.
	Name string `yaml:"name" json:"name"`
	// Schedule is a 5-field cron spec (optionally with CRON_TZ=) or a descriptor
	// such as @daily or @every 1h.
	Schedule string `yaml:"schedule" json:"schedule"`
	// AgentID is the agent_id of the run's tool calls.
	AgentID string `yaml:"agent_id" json:"agent_id,omitempty"`
	// Profile names an existing profile; default "default".
	Profile string `yaml:"profile" json:"profile"`
	// ContextLabel is shown in approval prompts, e.g. "CronJob: Nightly backup".
	ContextLabel string `yaml:"context_label" json:"context_label,omitempty"`
	// Overlap is skip (default), queue or allow; cron defines what each does.
	Overlap cron.Overlap `yaml:"overlap" json:"overlap"`
	// ApprovalTimeout overrides Config.ApprovalTimeout for this job's requests; left
	// out (zero) means the global one; a written 0 is refused.
	ApprovalTimeout Duration `yaml:"approval_timeout" json:"approval_timeout"`
	// Notify is failure (default), always or never; cron defines what each does.
	Notify cron.Notify `yaml:"notify" json:"notify"`
	// Steps run in order, each one gated; at least one.
	Steps []Step `yaml:"steps" json:"steps"`
}

// Step is one tool call of a job: a built-in tool and its arguments.
type Step struct {
	// Tool is the built-in tool to call (execute_cmd, read_file, …); required.
	Tool string `yaml:"tool" json:"tool"`
	// Args are its arguments as YAML decodes them (strings, numbers, nested maps).
	// They are not redacted when a Config is logged: keep secrets out of them.
	Args map[string]any `yaml:"args" json:"args"`
}

// Profile returns the profile with that id, and whether it exists.
func (c *Config) Profile(id string) (Profile, bool) {
	for _, p := range c.Profiles {
		if p.ID == id {
			return p, true
		}
	}
	return Profile{}, false
}

// RulesProfiles returns the profiles in the rules package's form, for gate.Options.
func (c *Config) RulesProfiles() []rules.Profile {
	out := make([]rules.Profile, len(c.Profiles))
	for i, p := range c.Profiles {
		out[i] = rules.Profile{
			ID:               p.ID,
			SecurityGroup:    p.SecurityGroup,
			WorkspaceRoot:    p.WorkspaceRoot,
			WorkingDirectory: p.WorkingDirectory,
			AllowFSReads:     p.AllowFSReads,
			AllowFSWrites:    p.AllowFSWrites,
		}
	}
	return out
}

// RulesOptions returns the evaluation options the configuration implies: the tool
// classes, path arguments, shell tools, the service's home directory for ~ in
// scripts (none when it is unknown), the workspace root, and as protected paths the data
// directory and the configuration file (docs/design.md, "Protected and guarded
// places"). Call it after Load (or Resolve), so the paths are absolute.
func (c *Config) RulesOptions() rules.Options {
	protected := []string{c.DataDir}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		home = "" // ~ in a shell script is then a path no one can name
	}
	if c.File != "" {
		protected = append(protected, c.File)
	}
	return rules.Options{
		WorkspaceRoot: c.WorkspaceRoot,
		FSRead:        c.Tools.FSRead,
		FSWrite:       c.Tools.FSWrite,
		PathArgs:      c.Tools.PathArgs,
		MCPFilesystem: c.Tools.MCPFilesystem,
		Protected:     protected,
		Shell:         c.Tools.Shell,
		Web:           c.Tools.Web,
		Home:          home,
	}
}

// SecurityGroups returns the permission groups the profiles name, once each, in
// order: the groups created at start-up when absent (docs/design.md, "Rule order").
func (c *Config) SecurityGroups() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range c.Profiles {
		if !seen[p.SecurityGroup] {
			seen[p.SecurityGroup] = true
			out = append(out, p.SecurityGroup)
		}
	}
	return out
}

// quote quotes s for a message, cut to 80 bytes.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}
