package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func noEnv(string) string { return "" }

// TestValidationErrors sends each invalid value and checks the one message it gets.
func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"approval_timeout zero", "approval_timeout: 0s",
			`config: approval_timeout "0s": ` +
				`must be more than 0 (leave the key out for the default 24h)`},
		{"approval_timeout zero days", "approval_timeout: 0d",
			`config: approval_timeout "0s": ` +
				`must be more than 0 (leave the key out for the default 24h)`},
		{"bypass_short zero", "bypass_short: 0s",
			`config: bypass_short "0s": ` +
				`must be at least 1s (leave the key out for the default 15m)`},
		{"bypass_short under a second", "bypass_short: 500ms",
			`config: bypass_short "500ms": ` +
				`must be at least 1s (leave the key out for the default 15m)`},
		{"job approval_timeout zero",
			"jobs: [{name: a, schedule: \"@daily\", approval_timeout: 0m, steps: [{tool: x}]}]",
			`config: jobs[0].approval_timeout "0s": ` +
				`must be more than 0 (leave the key out for the global approval_timeout)`},
		{"pending_per_caller zero", "limits: {pending_per_caller: 0}",
			`config: limits.pending_per_caller "0": must be a positive integer ` +
				`(leave the key out for the default 1000)`},
		{"pending_total negative", "limits: {pending_total: -3}",
			`config: limits.pending_total "-3": must be a positive integer ` +
				`(leave the key out for the default 10000)`},
		{"log level", "log: {level: loud}",
			`config: log.level "loud": must be debug, info, warn or error`},
		{"log format", "log: {format: xml}", `config: log.format "xml": must be text or json`},
		{"data_dir NUL", "data_dir: \"a\\0b\"",
			`config: data_dir "a\x00b": must not contain a NUL byte`},
		{"workspace_root NUL", "workspace_root: \"a\\0b\"",
			`config: workspace_root "a\x00b": must not contain a NUL byte`},
		{"listen not host:port", "api: {listen: localhost}",
			`config: api.listen "localhost": must be host:port`},
		{"listen bad port", "api: {listen: \"127.0.0.1:99999\"}",
			`config: api.listen "127.0.0.1:99999": port must be a number from 0 to 65535`},
		{"listen beyond loopback", "api: {listen: \"0.0.0.0:8377\"}",
			`config: api.listen "0.0.0.0:8377": listening beyond loopback needs api.token`},
		{"listen all interfaces", "api: {listen: \":8377\"}",
			`config: api.listen ":8377": listening beyond loopback needs api.token`},
		{"listen host name", "api: {listen: \"example.org:8377\"}",
			`config: api.listen "example.org:8377": listening beyond loopback needs api.token`},
		{"admin token short", "api: {token: 123456789012345}",
			`config: api.token: must be at least 16 characters`},
		{"admin token one character", "api: {token: T}",
			`config: api.token: must be at least 16 characters`},
		{"admin token trailing space", "api: {token: \"0123456789abcdef \"}",
			`config: api.token: must not begin or end with white space`},
		{"admin token control", "api: {token: \"0123456789abcdef\\u0007\"}",
			`config: api.token: must not contain control characters`},
		{"agent token short", "api: {agent_tokens: [{token: a1}]}",
			`config: api.agent_tokens[0].token: must be at least 16 characters`},
		{"agent token = admin with a space",
			"api: {token: 0123456789abcdef, agent_tokens: [{token: \"0123456789abcdef \"}]}",
			`config: api.agent_tokens[0].token: must not begin or end with white space`},
		{"allowed host without token", "api: {allowed_hosts: [skald.example, \"skald.lan:8377\"]}",
			`config: api.allowed_hosts "skald.example,skald.lan:8377": ` +
				`needs api.token (a generated token is for loopback only)`},
		{"allowed host path",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"skald.example/x\"]}",
			`config: api.allowed_hosts[0] "skald.example/x": ` +
				`must be host[:port] or https://host[:port]`},
		{"allowed host http",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"http://skald.example\"]}",
			`config: api.allowed_hosts[0] "http://skald.example": ` +
				`must be host[:port] or https://host[:port] ` +
				`(for plain http write host[:port] without a scheme)`},
		{"allowed host port",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"skald.example:0\"]}",
			`config: api.allowed_hosts[0] "skald.example:0": ` +
				`port must be a number from 1 to 65535`},
		{"allowed host empty port",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"skald.example:\"]}",
			`config: api.allowed_hosts[0] "skald.example:": ` +
				`port must be a number from 1 to 65535`},
		{"allowed host name",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"sk_ald.example\"]}",
			`config: api.allowed_hosts[0] "sk_ald.example": ` +
				`must be host[:port] or https://host[:port] ` +
				`(a host name of letters, digits, - and .)`},
		{"allowed host empty", "api: {token: 0123456789abcdef, allowed_hosts: [\"\"]}",
			`config: api.allowed_hosts[0]: must be host[:port] or https://host[:port]`},
		{"allowed host bracket",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"[127.0.0.1]\"]}",
			`config: api.allowed_hosts[0] "[127.0.0.1]": ` +
				`must be host[:port] or https://host[:port]`},
		{"allowed host user",
			"api: {token: 0123456789abcdef, allowed_hosts: [\"https://u@skald.example\"]}",
			`config: api.allowed_hosts[0] "https://u@skald.example": ` +
				`must be host[:port] or https://host[:port]`},
		{"agent token empty",
			"api: {token: admin-0123456789abcdef, agent_tokens: [{profile: default}]}",
			`config: api.agent_tokens[0].token: required`},
		{"agent token equals admin",
			"api: {token: admin-0123456789abcdef, " +
				"agent_tokens: [{token: admin-0123456789abcdef}]}",
			`config: api.agent_tokens[0].token: must differ from api.token`},
		{"agent token duplicate",
			"api: {token: admin-0123456789abcdef, " +
				"agent_tokens: [{token: agent-0123456789abcdef}, " +
				"{token: agent-0123456789abcdef}]}",
			`config: api.agent_tokens[1].token: same as api.agent_tokens[0].token`},
		{"agent token profile",
			"api: {token: admin-0123456789abcdef, " +
				"agent_tokens: [{token: agent-0123456789abcdef, profile: nope}]}",
			`config: api.agent_tokens[0].profile "nope": no such profile`},
		{"telegram api_url", "telegram: {token: 1:t, api_url: \"ftp://x\"}",
			`config: telegram.api_url "ftp://x": must be an http:// or https:// URL`},
		{"telegram chat 0", "telegram: {token: 1:t, chats: [0]}",
			`config: telegram.chats[0] "0": must be a chat id`},
		{"telegram approver negative", "telegram: {token: 1:t, approvers: [-5]}",
			`config: telegram.approvers[0] "-5": must be a user id (a positive number)`},
		{"telegram admin zero", "telegram: {token: 1:t, admins: [1, 0]}",
			`config: telegram.admins[1] "0": must be a user id (a positive number)`},
		{"webhook without url", "telegram: {token: 1:t, webhook: {listen: \"127.0.0.1:8443\"}}",
			`config: telegram.webhook: listen and secret_token need webhook.url`},
		{"webhook bad url",
			"telegram: {token: 1:t, webhook: {url: \"not a url\", listen: \"127.0.0.1:8443\", " +
				"secret_token: s}}",
			`config: telegram.webhook.url "not a url": must be an http:// or https:// URL`},
		{"webhook http",
			"telegram: {token: 1:t, webhook: {url: \"http://bot.example.com/hook\", " +
				"listen: \"127.0.0.1:8443\", secret_token: s}}",
			`config: telegram.webhook.url "http://bot.example.com/hook": ` +
				`must be an https:// URL (Telegram delivers webhooks over HTTPS only)`},
		{"webhook http official api",
			"telegram: {token: 1:t, api_url: \"https://api.telegram.org\", " +
				"webhook: {url: \"http://203.0.113.7/hook\", listen: \"127.0.0.1:8443\", " +
				"secret_token: s}}",
			`config: telegram.webhook.url "http://203.0.113.7/hook": ` +
				`must be an https:// URL (Telegram delivers webhooks over HTTPS only)`},
		{"webhook port",
			"telegram: {token: 1:t, webhook: {url: \"https://bot.example.com:8080/hook\", " +
				"listen: \"127.0.0.1:8443\", secret_token: s}}",
			`config: telegram.webhook.url "https://bot.example.com:8080/hook": port 8080: ` +
				`Telegram delivers webhooks to ports 443, 80, 88 and 8443 only`},
		{"webhook no listen",
			"telegram: {token: 1:t, webhook: {url: \"https://x.example/hook\", secret_token: s}}",
			`config: telegram.webhook.listen: required with webhook.url`},
		{"webhook bad listen",
			"telegram: {token: 1:t, webhook: {url: \"https://x.example/hook\", listen: x, " +
				"secret_token: s}}",
			`config: telegram.webhook.listen "x": must be host:port`},
		{"webhook no secret",
			"telegram: {token: 1:t, webhook: {url: \"https://x.example/hook\", " +
				"listen: \"127.0.0.1:8443\"}}",
			`config: telegram.webhook.secret_token: required with webhook.url: ` +
				`1 to 256 of A-Z a-z 0-9 _ -`},
		{"webhook bad secret",
			"telegram: {token: 1:t, webhook: {url: \"https://x.example/hook\", " +
				"listen: \"127.0.0.1:8443\", secret_token: \"a b\"}}",
			`config: telegram.webhook.secret_token: required with webhook.url: ` +
				`1 to 256 of A-Z a-z 0-9 _ -`},
		{"slack bot token", "slack: {bot_token: xapp-1, app_token: xapp-2}",
			`config: slack.bot_token: must be a bot token (xoxb-…)`},
		{"slack app token", "slack: {bot_token: xoxb-1, app_token: xoxb-2}",
			`config: slack.app_token: must be an app-level token (xapp-…)`},
		{"slack http no secret", "slack: {bot_token: xoxb-1, http_listen: \"127.0.0.1:3000\"}",
			`config: slack.signing_secret: required without slack.app_token (HTTP mode)`},
		{"slack http no listen", "slack: {bot_token: xoxb-1, signing_secret: s}",
			`config: slack.http_listen: required without slack.app_token (HTTP mode)`},
		{"slack bad listen", "slack: {bot_token: xoxb-1, app_token: xapp-1, http_listen: nope}",
			`config: slack.http_listen "nope": must be host:port`},
		{"slack api_url", "slack: {bot_token: xoxb-1, app_token: xapp-1, api_url: \"/relative\"}",
			`config: slack.api_url "/relative": must be an http:// or https:// URL`},
		{"slack channel empty", "slack: {bot_token: xoxb-1, app_token: xapp-1, channels: [\"\"]}",
			`config: slack.channels[0]: must be a Slack id`},
		{"slack approver space",
			"slack: {bot_token: xoxb-1, app_token: xapp-1, approvers: [\"U1 U2\"]}",
			`config: slack.approvers[0] "U1 U2": must be a Slack id`},
		{"slack admin space", "slack: {bot_token: xoxb-1, app_token: xapp-1, admins: [\" \"]}",
			`config: slack.admins[0] " ": must be a Slack id`},
		{"category name", "tools: {categories: [{name: Shell, tools: [Bash]}]}",
			`config: tools.categories[0].name "Shell": must match [a-z0-9_-]+`},
		{"category duplicate",
			"tools: {categories: [{name: a, tools: [x]}, {name: a, tools: [y]}]}",
			`config: tools.categories[1].name "a": duplicate category`},
		{"category no tools", "tools: {categories: [{name: a}]}",
			`config: tools.categories[0].tools: must list at least one tool pattern`},
		{"category star inside", "tools: {categories: [{name: a, tools: [\"a*b\"]}]}",
			`config: tools.categories[0].tools[0] "a*b": a star is only allowed at the end`},
		{"category unknown class", "tools: {categories: [{name: a, tools: [\"@fs_all\"]}]}",
			`config: tools.categories[0].tools[0] "@fs_all": unknown class; ` +
				`use @fs_read, @fs_write or @fs_any`},
		{"fs_read star", "tools: {fs_read: [\"Read*\"]}",
			`config: tools.fs_read[0] "Read*": must be a name without spaces or stars`},
		{"fs_write empty", "tools: {fs_write: [\"\"]}",
			`config: tools.fs_write[0]: must be a name without spaces or stars`},
		{"path_args space", "tools: {path_args: [\"a b\"]}",
			`config: tools.path_args[0] "a b": must be a name without spaces or stars`},
		{"needs_human empty", "tools: {needs_human: [\"\"]}",
			`config: tools.needs_human[0]: must be a path`},
		{"needs_human root", "tools: {needs_human: [a, /]}",
			`config: tools.needs_human[1] "/": must name a place inside a workspace, ` +
				`in ~/, or an absolute one other than /`},
		{"needs_human workspace", "tools: {needs_human: [./]}",
			`config: tools.needs_human[0] "./": must name a place inside a workspace, ` +
				`in ~/, or an absolute one other than /`},
		{"needs_human above", "tools: {needs_human: [a/../../x]}",
			`config: tools.needs_human[0] "a/../../x": must name a place inside a ` +
				`workspace, in ~/, or an absolute one other than /`},
		{"needs_human home", "tools: {needs_human: [\"~\"]}",
			`config: tools.needs_human[0] "~": must name a place inside a workspace, ` +
				`in ~/, or an absolute one other than /`},
		{"needs_human other user", "tools: {needs_human: [\"~bob/x\"]}",
			`config: tools.needs_human[0] "~bob/x": must be ~/… (the service's home), ` +
				`not another user's`},
		{"needs_human duplicate", "tools: {needs_human: [.github/workflows, ./.github/workflows]}",
			`config: tools.needs_human[1] "./.github/workflows": duplicate place`},
		{"mcp_filesystem empty", "tools: {mcp_filesystem: [\"\"]}",
			`config: tools.mcp_filesystem[0]: must be an MCP server name: ` +
				`letters, digits, - and _, without __`},
		{"mcp_filesystem double underscore", "tools: {mcp_filesystem: [fs, a__b]}",
			`config: tools.mcp_filesystem[1] "a__b": must be an MCP server name: ` +
				`letters, digits, - and _, without __`},
		{"mcp_filesystem star", "tools: {mcp_filesystem: [\"fs*\"]}",
			`config: tools.mcp_filesystem[0] "fs*": must be an MCP server name: ` +
				`letters, digits, - and _, without __`},
		{"mcp_filesystem trailing underscore", "tools: {mcp_filesystem: [fs_]}",
			`config: tools.mcp_filesystem[0] "fs_": must be an MCP server name: ` +
				`letters, digits, - and _, without __`},
		{"mcp_filesystem duplicate", "tools: {mcp_filesystem: [fs, fs]}",
			`config: tools.mcp_filesystem[1] "fs": duplicate server`},
		{"shell tool empty", "tools: {shell: [{arg: command}]}",
			`config: tools.shell[0].tool: must be a name without spaces or stars`},
		{"shell tool star", "tools: {shell: [{tool: \"Ba*\", arg: command}]}",
			`config: tools.shell[0].tool "Ba*": must be a name without spaces or stars`},
		{"shell arg missing", "tools: {shell: [{tool: run}]}",
			`config: tools.shell[0].arg: must be a name without spaces or stars`},
		{"shell cwd_arg space", "tools: {shell: [{tool: run, arg: s, cwd_arg: \"a b\"}]}",
			`config: tools.shell[0].cwd_arg "a b": must be a name without spaces or stars`},
		{"web tool star", "tools: {web: [{tool: \"Web*\", arg: url}]}",
			`config: tools.web[0].tool "Web*": must be a name without spaces or stars`},
		{"web arg missing", "tools: {web: [{tool: fetch}]}",
			`config: tools.web[0].arg: must be a name without spaces or stars`},
		{"web tool twice", "tools: {web: [{tool: f, arg: u}, {tool: f, arg: v}]}",
			`config: tools.web[1].tool "f": duplicate web tool`},
		{"shell cwd_arg is arg", "tools: {shell: [{tool: run, arg: s, cwd_arg: s}]}",
			`config: tools.shell[0].cwd_arg "s": must differ from arg`},
		{"shell duplicate", "tools: {shell: [{tool: run, arg: s}, {tool: run, arg: t}]}",
			`config: tools.shell[1].tool "run": duplicate shell tool`},
		{"profile id", "profiles: [{id: Ops}]",
			`config: profiles[0].id "Ops": must match [a-z0-9_-]+`},
		{"profile duplicate", "profiles: [{id: ops}, {id: ops}]",
			`config: profiles[1].id "ops": duplicate profile`},
		{"profile group", "profiles: [{id: ops, security_group: \"a b\"}]",
			`config: profiles[0].security_group "a b": must match [a-z0-9_-]+`},
		{"profile working dir NUL", "profiles: [{id: ops, working_directory: \"a\\0\"}]",
			`config: profiles[0].working_directory "a\x00": must not contain a NUL byte`},
		{"profile allow read empty", "profiles: [{id: ops, allow_fs_reads: [\"\"]}]",
			`config: profiles[0].allow_fs_reads[0]: must be a path`},
		{"profile allow write NUL", "profiles: [{id: ops, allow_fs_writes: [ok, \"b\\0\"]}]",
			`config: profiles[0].allow_fs_writes[1] "b\x00": must be a path`},
		{"job name", "jobs: [{name: Bad Name, schedule: \"@daily\", steps: [{tool: x}]}]",
			`config: jobs[0].name "Bad Name": must match [a-z0-9_-]+`},
		{"job name missing", "jobs: [{schedule: \"@daily\", steps: [{tool: x}]}]",
			`config: jobs[0].name: must match [a-z0-9_-]+`},
		{"job duplicate",
			"jobs: [{name: a, schedule: \"@daily\", steps: [{tool: x}]}, {name: a, " +
				"schedule: \"@daily\", steps: [{tool: x}]}]",
			`config: jobs[1].name "a": duplicate job name`},
		{"job schedule", "jobs: [{name: a, schedule: \" \", steps: [{tool: x}]}]",
			`config: jobs[0].schedule: required (a cron spec such as "0 2 * * *" or "@every 1h")`},
		{"job profile",
			"jobs: [{name: a, schedule: \"@daily\", profile: nope, steps: [{tool: x}]}]",
			`config: jobs[0].profile "nope": no such profile`},
		{"job overlap",
			"jobs: [{name: a, schedule: \"@daily\", overlap: wait, steps: [{tool: x}]}]",
			`config: jobs[0].overlap "wait": must be skip, queue or allow`},
		{"job notify",
			"jobs: [{name: a, schedule: \"@daily\", notify: sometimes, steps: [{tool: x}]}]",
			`config: jobs[0].notify "sometimes": must be failure, always or never`},
		{"job no steps", "jobs: [{name: a, schedule: \"@daily\"}]",
			`config: jobs[0].steps: must list at least one step`},
		{"job step tool",
			"jobs: [{name: a, schedule: \"@daily\", steps: [{tool: x}, {args: {cmd: ls}}]}]",
			`config: jobs[0].steps[1].tool: required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml), noEnv)
			if c != nil {
				t.Errorf("Parse returned a Config with an error")
			}
			if err == nil {
				t.Fatalf("Parse(%q) = nil error, want %q", tt.yaml, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error\n got %q\nwant %q", tt.yaml, err.Error(), tt.want)
			}
			if !errors.Is(err, ErrInvalid) || errors.Is(err, ErrSyntax) {
				t.Errorf("error %v: want ErrInvalid only", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Key == "" {
				t.Errorf("error %v: want a *FieldError with a key", err)
			}
		})
	}
}

// TestValidationCollectsAll checks every problem is reported at once, in file order.
func TestValidationCollectsAll(t *testing.T) {
	in := `
log: {level: loud}
api: {listen: "0.0.0.0:1"}
jobs:
  - {name: X, schedule: "", steps: []}
`
	_, err := Parse([]byte(in), noEnv)
	want := []string{
		`config: log.level "loud": must be debug, info, warn or error`,
		`config: api.listen "0.0.0.0:1": listening beyond loopback needs api.token`,
		`config: jobs[0].name "X": must match [a-z0-9_-]+`,
		`config: jobs[0].schedule: required (a cron spec such as "0 2 * * *" or "@every 1h")`,
		`config: jobs[0].steps: must list at least one step`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("error\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

// TestValidValues checks values at the edges of what is accepted.
func TestValidValues(t *testing.T) {
	for _, in := range []string{
		`api: {listen: "localhost:8377"}`,
		`api: {listen: "[::1]:0"}`,
		`api: {listen: "0.0.0.0:8377", token: secret-0123456789abcdef}`,
		`api: {token: admin-0123456789abcdef, agent_tokens: [{token: agent-0123456789abcdef, ` +
			`profile: default, agent_id: bot}]}`,
		`api: {agent_tokens: [{token: agent-0123456789abcdef}]}`,
		`api: {token: 0123456789abcdef, allowed_hosts: [skald.example, "skald.example:8377", ` +
			`"https://Skald.Example", "https://skald.example:8443", "10.0.0.5", ` +
			`"[2001:db8::1]:8377", "2001:db8::1", "[2001:db8::2]"]}`,
		`api: {token: "0123456789abcdef"}`,
		`telegram: {token: "", chats: [0], api_url: "ftp://ignored-while-off"}`,
		`telegram: {token: 1:t, chats: [-1001234], approvers: [1], ` +
			`webhook: {url: "https://x.example/h", listen: "127.0.0.1:0", secret_token: a_B-9}}`,
		`telegram: {token: 1:t, webhook: {url: "https://x.example:8443/h", ` +
			`listen: "127.0.0.1:0", secret_token: s}}`,
		`telegram: {token: 1:t, webhook: {url: "http://127.0.0.1:9000/h", ` +
			`listen: "127.0.0.1:0", secret_token: s}}`,
		`telegram: {token: 1:t, webhook: {url: "http://localhost:9000/h", ` +
			`listen: "127.0.0.1:0", secret_token: s}}`,
		`telegram: {token: 1:t, webhook: {url: "http://[::1]:9000/h", listen: "127.0.0.1:0", ` +
			`secret_token: s}}`,
		`telegram: {token: 1:t, api_url: "http://10.0.0.5:8081", ` +
			`webhook: {url: "http://10.0.0.6:3000/h", listen: "0.0.0.0:3000", secret_token: s}}`,
		`slack: {bot_token: xoxb-1, app_token: xapp-1, channels: [C1]}`,
		`slack: {bot_token: xoxb-1, signing_secret: s, http_listen: "127.0.0.1:3000"}`,
		`tools: {categories: [{name: mail, tools: ["mcp__gmail__*", "@fs_read", "*"]}], ` +
			`fs_read: [], path_args: [file]}`,
		`tools: {mcp_filesystem: [filesystem, my-fs_2], path_args: [path, paths]}`,
		`tools: {mcp_filesystem: []}`,
		`tools: {shell: [{tool: run, arg: script, cwd_arg: dir}, {tool: Bash, arg: command}]}`,
		`tools: {shell: []}`,
		`profiles: [{id: default, security_group: strict}]`,
		`jobs: [{name: a_b-1, schedule: "0 2 * * *", steps: [{tool: execute_cmd, ` +
			`args: {cmd: "echo $HOME"}}]}]`,
	} {
		if _, err := Parse([]byte(in), noEnv); err != nil {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}

// TestLimits: a key left out or null gets its default, a written value is kept, and
// anything but an integer is a syntax error naming the key.
func TestLimits(t *testing.T) {
	for _, c := range []struct {
		yaml             string
		perCaller, total Count
	}{
		{"{}", DefaultPendingPerCaller, DefaultPendingTotal},
		{"limits: {pending_total: ~}", DefaultPendingPerCaller, DefaultPendingTotal},
		{"limits: {pending_per_caller: 5, pending_total: 7}", 5, 7},
	} {
		t.Run(c.yaml, func(t *testing.T) {
			cfg, err := Parse([]byte(c.yaml), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			if *cfg.Limits.PendingPerCaller != c.perCaller || *cfg.Limits.PendingTotal != c.total {
				t.Errorf("limits %d, %d; want %d, %d",
					*cfg.Limits.PendingPerCaller, *cfg.Limits.PendingTotal, c.perCaller, c.total)
			}
		})
	}
	for _, in := range []string{
		"limits: {pending_total: many}", "limits: {pending_per_caller: 1.5}", "limits: {max: 1}",
	} {
		_, err := Parse([]byte(in), noEnv)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "limits.") {
			t.Errorf("Parse(%q): %v, want a syntax error naming the key", in, err)
		}
	}
}

// TestZeroDurations checks what a written zero means beside a key left out: retention
// 0 keeps everything, a null value is the default, a job without approval_timeout
// uses the global one.
func TestZeroDurations(t *testing.T) {
	for _, c := range []struct {
		yaml                string
		retention, approval time.Duration
	}{
		{"retention: 0s", 0, DefaultApprovalTimeout},
		{"retention: 0d\napproval_timeout: 1s", 0, time.Second},
		{"retention:\napproval_timeout: ~", DefaultRetention, DefaultApprovalTimeout},
		{"{}", DefaultRetention, DefaultApprovalTimeout},
	} {
		t.Run(c.yaml, func(t *testing.T) {
			cfg, err := Parse([]byte(c.yaml), noEnv)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.yaml, err)
			}
			if cfg.Retention.Duration != c.retention ||
				cfg.ApprovalTimeout.Duration != c.approval ||
				cfg.BypassShort.Duration != DefaultBypassShort {
				t.Errorf("Parse(%q): retention %s, approval_timeout %s, bypass_short %s",
					c.yaml, cfg.Retention, cfg.ApprovalTimeout, cfg.BypassShort)
			}
		})
	}
}
