package config

import (
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/rules"
)

// Defaults applied by Parse to keys left out (SPEC §5, §8, §12.10, §12.19, §12.23).
const (
	DefaultDataDir         = "./data"
	DefaultWorkspaceRoot   = "."
	DefaultApprovalTimeout = 24 * time.Hour
	DefaultBypassShort     = 15 * time.Minute
	DefaultRetention       = 90 * 24 * time.Hour
	DefaultListen          = "127.0.0.1:8377"
	DefaultLogLevel        = "info"
	DefaultLogFormat       = "text"
	// DBFile is the name of the bbolt file inside DataDir.
	DBFile = "skald.db"
	// DefaultProfile is the profile that always exists (SPEC §12.3).
	DefaultProfile = "default"
)

// Config is the whole configuration file (SPEC §10). Parse fills in the defaults and
// validates it; Load also resolves its paths. Secrets are of type Secret, so a Config
// can be printed or logged without revealing them. It is read-only after Load.
type Config struct {
	// DataDir holds the database (DBFile). Relative paths are relative to the
	// process's working directory; Load makes it absolute. Default "./data".
	DataDir string `yaml:"data_dir" json:"data_dir"`
	// WorkspaceRoot is the directory relative tool-call paths resolve against
	// (SPEC §4.5). Load makes it absolute and resolves its symlinks (SPEC §12.14);
	// it must exist. Default ".".
	WorkspaceRoot string `yaml:"workspace_root" json:"workspace_root"`
	// ApprovalTimeout is how long a request stays pending before it expires
	// (SPEC §5). Default 24h; a written 0 is refused.
	ApprovalTimeout Duration `yaml:"approval_timeout" json:"approval_timeout"`
	// BypassShort is the window of the ⏱ button and of "15m" typed in a command
	// (SPEC §12.10). Default 15m; less than 1s is refused (0 seconds would be a
	// bypass for the whole session).
	BypassShort Duration `yaml:"bypass_short" json:"bypass_short"`
	// Retention is how long finished requests, runs and audit entries are kept
	// (SPEC §12.19). Default 90d; a written 0 keeps everything (nothing is pruned).
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
	// Profiles are the run contexts; Parse appends the built-in "default" when absent.
	Profiles []Profile `yaml:"profiles" json:"profiles"`
	// Jobs are the scheduled jobs, in file order.
	Jobs []Job `yaml:"jobs" json:"jobs"`

	// File is the absolute, symlink-resolved path of the file Load read; empty after
	// Parse. The gate protects it (SPEC §12.25).
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

// API configures the HTTP API (SPEC §8, §12.2).
type API struct {
	// Listen is host:port. Default 127.0.0.1:8377. A host beyond loopback needs Token.
	Listen string `yaml:"listen" json:"listen"`
	// Token is the admin bearer token; empty means single-user mode on loopback.
	Token Secret `yaml:"token" json:"token"`
	// AgentTokens are the agents' tokens (SPEC §12.2); they need Token.
	AgentTokens []AgentToken `yaml:"agent_tokens" json:"agent_tokens"`
}

// AgentToken is a bearer token an agent uses (SPEC §12.2): its calls are evaluated in
// Profile (default "default") and get AgentID when it is set.
type AgentToken struct {
	// Token is the bearer token; required, unique, not api.token.
	Token Secret `yaml:"token" json:"token"`
	// Profile names an existing profile; default "default".
	Profile string `yaml:"profile" json:"profile"`
	// AgentID, when set, is the agent_id of every call made with the token.
	AgentID string `yaml:"agent_id" json:"agent_id,omitempty"`
}

// Telegram configures the Telegram channel (SPEC §6). An empty Token turns it off.
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

// Webhook makes Telegram deliver updates by webhook instead of long polling (SPEC §6):
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

// Slack configures the Slack channel (SPEC §6). An empty BotToken turns it off.
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

// Tools classifies tools (SPEC §4.3, §4.4, §12.4). A list left out (nil) means its
// SPEC default; an explicit empty list means none.
type Tools struct {
	// Categories, in order: the first whose patterns match a tool gives its category.
	// nil means shell = [execute_cmd, Bash], filesystem = [@fs_any].
	Categories []Category `yaml:"categories" json:"categories,omitempty"`
	// FSRead and FSWrite are the tools of @fs_read and @fs_write.
	FSRead  []string `yaml:"fs_read" json:"fs_read,omitempty"`
	FSWrite []string `yaml:"fs_write" json:"fs_write,omitempty"`
	// PathArgs are the argument keys that hold a call's paths. Every one a call sends
	// is evaluated, and the most restrictive answer wins (deny, then require, then
	// allow; our reading of SPEC §4.4); a file tool (FSRead, FSWrite) that sends none
	// is evaluated on its working directory (rules.Set.Evaluate).
	PathArgs []string `yaml:"path_args" json:"path_args,omitempty"`
	// MCPFilesystem are the MCP servers that run the reference filesystem server: their
	// tools (mcp__<server>__read_file, …) are file tools, under the same rules as
	// Read and Write (rules.MCPFSRead, rules.MCPFSWrite). nil means [filesystem].
	MCPFilesystem []string `yaml:"mcp_filesystem" json:"mcp_filesystem,omitempty"`
}

// Category names a set of tool patterns (SPEC §12.4). It has the shape of
// gate.Category, which config may not import: convert each element.
type Category struct {
	// Name matches [a-z0-9_-]+; a bypass scope names it as "category:<name>".
	Name string `yaml:"name" json:"name"`
	// Tools are tool patterns as rules use them: "*", a name, "prefix*", @fs_….
	Tools []string `yaml:"tools" json:"tools"`
}

// Profile is a run context (SPEC §3, §12.3). Parse adds the built-in "default"
// profile when the file has none of that id.
type Profile struct {
	// ID matches [a-z0-9_-]+ and is unique; "default" may be redefined.
	ID string `yaml:"id" json:"id"`
	// SecurityGroup is the permission group of calls in this profile; default "default".
	SecurityGroup string `yaml:"security_group" json:"security_group"`
	// WorkingDirectory resolves relative paths; empty means WorkspaceRoot, relative
	// means relative to it. Load makes it absolute.
	WorkingDirectory string `yaml:"working_directory" json:"working_directory"`
	// AllowFSReads and AllowFSWrites are files or directories the profile may read
	// (or write) without approval (SPEC §4.9), as configured.
	AllowFSReads  []string `yaml:"allow_fs_reads" json:"allow_fs_reads,omitempty"`
	AllowFSWrites []string `yaml:"allow_fs_writes" json:"allow_fs_writes,omitempty"`
}

// Overlap says what a job's trigger does while a run of it is unfinished (SPEC §7).
type Overlap string

// Overlap policies; Parse sets OverlapSkip when the key is left out.
const (
	OverlapSkip  Overlap = "skip"
	OverlapQueue Overlap = "queue"
	OverlapAllow Overlap = "allow"
)

// Notify says which finished runs are announced in chat (SPEC §7).
type Notify string

// Notify policies; Parse sets NotifyFailure when the key is left out.
const (
	NotifyFailure Notify = "failure"
	NotifyAlways  Notify = "always"
	NotifyNever   Notify = "never"
)

// Job is a scheduled job (SPEC §7). Parse checks Schedule is not empty; the cron
// package parses it.
type Job struct {
	// Name matches [a-z0-9_-]+ and is unique (SPEC §12.16).
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
	// Overlap is skip (default), queue or allow.
	Overlap Overlap `yaml:"overlap" json:"overlap"`
	// ApprovalTimeout overrides Config.ApprovalTimeout for this job's requests; left
	// out (zero) means the global one; a written 0 is refused.
	ApprovalTimeout Duration `yaml:"approval_timeout" json:"approval_timeout"`
	// Notify is failure (default), always or never.
	Notify Notify `yaml:"notify" json:"notify"`
	// Steps run in order, each one gated; at least one.
	Steps []Step `yaml:"steps" json:"steps"`
}

// Step is one tool call of a job (SPEC §7): a built-in tool and its arguments.
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
			WorkingDirectory: p.WorkingDirectory,
			AllowFSReads:     p.AllowFSReads,
			AllowFSWrites:    p.AllowFSWrites,
		}
	}
	return out
}

// RulesOptions returns the evaluation options the configuration implies: the tool
// classes, path arguments, the workspace root, and as protected paths the data
// directory and the configuration file (SPEC §12.25). Call it after Load (or
// Resolve), so the paths are absolute.
func (c *Config) RulesOptions() rules.Options {
	protected := []string{c.DataDir}
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
	}
}

// SecurityGroups returns the permission groups the profiles name, once each, in
// order (the groups SPEC §12.26 creates when absent).
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
