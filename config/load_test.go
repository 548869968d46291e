package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skald-circle/skald-bot/cron"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/rules"
)

// TestSyntaxErrors checks each decoding problem is reported with its line and key.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", "data_dir: x\nfoo: 1\n", `config: line 2: unknown key foo`},
		{"unknown nested key", "jobs:\n  - name: x\n    shedule: y\n",
			`config: line 3: unknown key jobs[0].shedule`},
		{"unknown key in flow mapping", "api: {listen: \"127.0.0.1:1\", tokn: x}\n",
			`config: line 1: unknown key api.tokn`},
		{"unknown webhook key", "telegram:\n  webhook:\n    secret: x\n",
			`config: line 3: unknown key telegram.webhook.secret`},
		{"File is not a key", "file: /etc/passwd\n", `config: line 1: unknown key file`},
		{"string for integer", "telegram:\n  chats: [abc]\n",
			`config: line 2: telegram.chats[0]: "abc" is not an integer`},
		{"scalar for mapping", "api: 3\n", `config: line 1: api: "3" is not a mapping`},
		{"mapping for string", "api:\n  token: {a: 1}\n",
			`config: line 2: api.token: a mapping is not a string`},
		{"mapping for list", "jobs: {a: 1}\n", `config: line 1: jobs: a mapping is not a list`},
		{"scalar for list", "profiles:\n  - {id: x, allow_fs_reads: 3}\n",
			`config: line 2: profiles[0].allow_fs_reads: "3" is not a list`},
		{"bad duration", "approval_timeout: 5x\n",
			`config: line 1: approval_timeout "5x": not a duration (use 90s, 15m, 24h or 90d)`},
		{"negative duration", "retention: -5m\n",
			`config: line 1: retention "-5m": must not be negative`},
		{"duration in a job", "jobs:\n  - {name: a, approval_timeout: soon}\n",
			`config: line 2: jobs[0].approval_timeout "soon": not a duration (use 90s, 15m, ` +
				`24h or 90d)`},
		{"duration as a list", "bypass_short:\n  - 1m\n",
			`config: line 2: bypass_short: a list is not a duration (use 90s, 15m, 24h or 90d)`},
		{"duration as a flow list", "retention: [1]\n",
			`config: line 1: retention: a list is not a duration (use 90s, 15m, 24h or 90d)`},
		{"duration as a mapping", "jobs:\n  - name: a\n    approval_timeout: {h: 1}\n",
			`config: line 3: jobs[0].approval_timeout: a mapping is not a duration (use 90s, ` +
				`15m, 24h or 90d)`},
		{"duplicate key", "data_dir: x\ndata_dir: y\n",
			`config: line 2: data_dir: duplicate key (first at line 1)`},
		{"bad YAML", "a: [\n", `config: line 1: did not find expected node content`},
		{"two documents", "---\ndata_dir: a\n---\ndata_dir: b\n",
			`config: more than one YAML document`},
		{"top level list", "- a\n", `config: line 1: a list is not a mapping`},
		{"unterminated var", "api:\n  token: ${TOKEN\n",
			`config: line 2: unterminated ${ (write $$ for a literal $)`},
		{"bad var name", "x: ${FOO:-1}\n",
			`config: line 1: "${FOO:-1}" is not a variable reference (want ${NAME}: letters, ` +
				`digits, _)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml), noEnv)
			if err == nil || c != nil {
				t.Fatalf("Parse(%q) = %v, %v; want error %q", tt.yaml, c, err, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error\n got %q\nwant %q", tt.yaml, err.Error(), tt.want)
			}
			if !errors.Is(err, ErrSyntax) || errors.Is(err, ErrInvalid) {
				t.Errorf("error %v: want ErrSyntax only", err)
			}
		})
	}
}

// TestSyntaxErrorsCollected checks several type errors come out together.
func TestSyntaxErrorsCollected(t *testing.T) {
	_, err := Parse([]byte("nope: 1\ntelegram:\n  chats: [x]\n"), noEnv)
	want := "config: line 1: unknown key nope\n" +
		"config: line 3: telegram.chats[0]: \"x\" is not an integer"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
}

// TestDefaults checks what an empty file means.
func TestDefaults(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n", "{}", "log: {}\n"} {
		c, err := Parse([]byte(in), noEnv)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		limits := Limits{PendingPerCaller: new(Count(1000)), PendingTotal: new(Count(10000))}
		want := &Config{
			DataDir:         "./data",
			WorkspaceRoot:   ".",
			ApprovalTimeout: Duration{Duration: 24 * time.Hour},
			BypassShort:     Duration{Duration: 15 * time.Minute},
			Retention:       Duration{Duration: 90 * 24 * time.Hour},
			Log:             Log{Level: "info", Format: "text"},
			API:             API{Listen: "127.0.0.1:8377"},
			Limits:          limits,
			Profiles:        []Profile{{ID: "default", SecurityGroup: "default"}},
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("Parse(%q) =\n%+v\nwant\n%+v", in, c, want)
		}
	}
}

// TestJobDefaults checks a job's defaults and that step arguments keep their types.
func TestJobDefaults(t *testing.T) {
	c, err := Parse([]byte(`
profiles: [{id: ops}]
jobs:
  - name: a
    schedule: "@every 1m"
    steps:
      - tool: http_request
        args: {method: GET, url: "http://127.0.0.1/x", headers: {A: b}, timeout: 5}
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	j := c.Jobs[0]
	if j.Profile != "default" || j.Overlap != cron.OverlapSkip || j.Notify != cron.NotifyFailure ||
		j.ApprovalTimeout.Duration != 0 {
		t.Errorf("job defaults = %+v", j)
	}
	args := j.Steps[0].Args
	if args["timeout"] != 5 || !reflect.DeepEqual(args["headers"], map[string]any{"A": "b"}) {
		t.Errorf("args = %#v", args)
	}
	if p, ok := c.Profile("ops"); !ok || p.SecurityGroup != "default" {
		t.Errorf("profile ops = %+v, %v", p, ok)
	}
	if got := c.SecurityGroups(); !reflect.DeepEqual(got, []string{"default"}) {
		t.Errorf("SecurityGroups = %v", got)
	}
}

// TestExpandInParse checks ${VAR} reaches the values and $$ stays a dollar.
func TestExpandInParse(t *testing.T) {
	env := map[string]string{"TG": "123:abc", "CHAT": "-1001", "ADM": "adm0-0123456789abc"}
	c, err := Parse([]byte(`
api: {token: "${ADM}"}
telegram:
  token: ${TG}
  chats: [${CHAT}]
  approvers: [${UNSET}]
jobs:
  - name: a
    schedule: "@daily"
    steps: [{tool: execute_cmd, args: {cmd: "echo $${HOME} $$ $HOME"}}]
`), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.API.Token.Reveal() != "adm0-0123456789abc" || c.Telegram.Token.Reveal() != "123:abc" {
		t.Errorf("tokens not expanded")
	}
	if !reflect.DeepEqual(c.Telegram.Chats, []int64{-1001}) || len(c.Telegram.Approvers) != 0 {
		t.Errorf("chats %v approvers %v", c.Telegram.Chats, c.Telegram.Approvers)
	}
	if got := c.Jobs[0].Steps[0].Args["cmd"]; got != "echo ${HOME} $ $HOME" {
		t.Errorf("cmd = %q", got)
	}
}

// TestExampleFile loads the repository's config.example.yaml with no environment:
// no channel, the API on loopback without a token, one job every minute whose first
// step writes under data/ and whose second runs a command.
func TestExampleFile(t *testing.T) {
	data, err := os.ReadFile("../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Telegram.Enabled() || c.Slack.Enabled() || c.API.Token != "" ||
		!IsLoopback(c.API.Listen) {
		t.Errorf("example enables a channel or a token: %+v", c)
	}
	if c.API.Listen != DefaultListen {
		t.Errorf("api.listen = %q", c.API.Listen)
	}
	if len(c.Jobs) != 1 || c.Jobs[0].Schedule != "@every 1m" || len(c.Jobs[0].Steps) != 2 {
		t.Fatalf("jobs = %+v", c.Jobs)
	}
	s := c.Jobs[0].Steps
	if s[0].Tool != "write_file" || !strings.HasPrefix(s[0].Args["path"].(string), "data/") ||
		s[1].Tool != "execute_cmd" {
		t.Errorf("steps = %+v", s)
	}
	// The heartbeat must not fall under data_dir, which the gate protects.
	if rules.Under(filepath.Clean(s[0].Args["path"].(string)), filepath.Clean(c.DataDir)) {
		t.Errorf("step path %v is under data_dir %s", s[0].Args["path"], c.DataDir)
	}
	// Nor may data_dir (the admin token's file) fall under the seeded allowed data/.
	if rules.Under(filepath.Clean(c.DataDir), "data") || c.API.NamesToken() {
		t.Errorf("data_dir %s is under data/, or the example names a token", c.DataDir)
	}
}

// TestUnsetTokenVariable: a ${VAR} that expands to "" in api.token or an agent token
// refuses the configuration, naming the key and the variable; an empty chat token
// only turns its channel off.
func TestUnsetTokenVariable(t *testing.T) {
	env := map[string]string{"SET": "agent-0123456789abcdef"}
	getenv := func(k string) string { return env[k] }
	cases := []struct{ name, yaml, want string }{
		{"admin", "api: {token: ${SKALD_API_TOKEN}}",
			`config: api.token: ${SKALD_API_TOKEN} is empty or unset ` +
				`(set it, or leave api.token out)`},
		{"admin quoted", "api:\n  token: \"${EMPTY}\"\n",
			`config: api.token: ${EMPTY} is empty or unset`},
		{"admin prefix", "api: {token: \"admin-0123456789abcdef${EMPTY}\"}",
			`config: api.token: ${EMPTY} is empty or unset`},
		{"agent", "api: {agent_tokens: [{token: ${SET}}, {token: ${AGENT_TWO}}]}",
			`config: api.agent_tokens[1].token: ${AGENT_TWO} is empty or unset ` +
				`(set it, or leave api.agent_tokens[1].token out)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), getenv)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) ||
				!errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q) = %v, want %q", c.yaml, err, c.want)
			}
			if strings.Contains(err.Error(), "required") || strings.Count(err.Error(), "\n") != 0 {
				t.Errorf("more than the one problem: %v", err)
			}
		})
	}
	c, err := Parse([]byte("telegram: {token: ${EMPTY}}\n"+
		"api: {agent_tokens: [{token: ${SET}}]}\n"), getenv)
	if err != nil || c.Telegram.Enabled() || c.API.AgentTokens[0].Token.Reveal() != env["SET"] {
		t.Fatalf("Parse with an empty chat token = %+v, %v", c, err)
	}
}

// TestLoad checks Load resolves paths and protects the data dir and the file.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	mkdir(t, real)
	if err := os.Symlink(real, filepath.Join(dir, "ws")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(real, "sub"))
	file := filepath.Join(dir, "skald.yaml")
	testkit.WriteFile(t, file, `
workspace_root: `+filepath.Join(dir, "ws")+`
data_dir: `+filepath.Join(dir, "ws", "state", "db")+`
profiles:
  - {id: sub, working_directory: sub}
  - {id: abs, working_directory: /}
tools: {mcp_filesystem: [fs, files]}
`)
	before := listDir(t, dir)
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkspaceRoot != real {
		t.Errorf("WorkspaceRoot = %q, want %q", c.WorkspaceRoot, real)
	}
	if want := filepath.Join(real, "state", "db"); c.DataDir != want {
		t.Errorf("DataDir = %q, want %q", c.DataDir, want)
	}
	if c.File != file {
		t.Errorf("File = %q, want %q", c.File, file)
	}
	wd := map[string]string{}
	for _, p := range c.Profiles {
		wd[p.ID] = p.WorkingDirectory
	}
	if wd["sub"] != filepath.Join(real, "sub") || wd["abs"] != "/" || wd["default"] != real {
		t.Errorf("working directories = %v", wd)
	}
	o := c.RulesOptions()
	if o.WorkspaceRoot != real || !reflect.DeepEqual(o.Protected, []string{c.DataDir, file}) ||
		!reflect.DeepEqual(o.MCPFilesystem, []string{"fs", "files"}) {
		t.Errorf("RulesOptions = %+v", o)
	}
	if rp := c.RulesProfiles(); len(rp) != 3 || rp[0].ID != "sub" ||
		rp[0].WorkingDirectory != wd["sub"] {
		t.Errorf("RulesProfiles = %+v", rp)
	}
	if after := listDir(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("Load changed the directory: %v → %v", before, after)
	}
}

// TestLoadRelative checks relative paths are taken from the configuration file's
// directory, whatever the working directory.
func TestLoadRelative(t *testing.T) {
	t.Run("from elsewhere", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		testkit.Must(t, os.Mkdir(filepath.Join(dir, "ws"), 0o755))
		testkit.WriteFile(t, filepath.Join(dir, "skald.yaml"), "data_dir: ./state\nworkspace_root: ws\n")
		t.Chdir(elsewhere)
		c, err := Load(filepath.Join(dir, "skald.yaml"))
		testkit.Must(t, err)
		real, err := filepath.EvalSymlinks(dir)
		testkit.Must(t, err)
		if c.WorkspaceRoot != filepath.Join(real, "ws") ||
			c.DataDir != filepath.Join(real, "state") {
			t.Errorf("paths = %q %q, want beside %s", c.WorkspaceRoot, c.DataDir, real)
		}
	})
	dir := t.TempDir()
	t.Chdir(dir)
	testkit.WriteFile(t, "skald.yaml", "")
	c, err := Load("skald.yaml")
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	testkit.Must(t, err)
	if c.WorkspaceRoot != real || c.DataDir != filepath.Join(real, "data") ||
		c.File != filepath.Join(real, "skald.yaml") {
		t.Errorf("paths = %q %q %q", c.WorkspaceRoot, c.DataDir, c.File)
	}
}

// TestLoadErrors checks each failure of Load and that it changes nothing on disk.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "afile"), "")
	nope, pa := filepath.Join(dir, "nope"), filepath.Join(dir, "pa")
	afile := filepath.Join(dir, "afile")
	tests := []struct {
		name, yaml, want string
		is               error
	}{
		{"missing workspace", "workspace_root: " + nope,
			`config: workspace_root "` + nope + `": no such directory`, ErrInvalid},
		{"workspace is a file", "workspace_root: " + afile,
			`config: workspace_root "` + afile + `": not a directory`, ErrInvalid},
		{"syntax", "workspace_root: [",
			"config: line 2: did not find expected ',' or ']'", ErrSyntax},
		{"invalid", "workspace_root: " + dir + "\nlog: {level: x}",
			`config: log.level "x": must be debug, info, warn or error`, ErrInvalid},
		// Every problem in one pass: values, then paths on disk, each profile's.
		{"all at once", "workspace_root: " + nope + "\nlog: {level: x}\nprofiles:\n" +
			"  - {id: a, workspace_root: " + pa + "}\n" +
			"  - {id: b, workspace_root: " + afile + ", working_directory: sub}\n" +
			"  - {id: c, workspace_root: " + pa + "}",
			`config: log.level "x": must be debug, info, warn or error` + "\n" +
				`config: workspace_root "` + nope + `": no such directory` + "\n" +
				`config: profiles[0].workspace_root "` + pa + `": no such directory` + "\n" +
				`config: profiles[1].workspace_root "` + afile + `": not a directory` + "\n" +
				`config: profiles[2].workspace_root "` + pa + `": no such directory`, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, "skald.yaml")
			testkit.WriteFile(t, file, tt.yaml+"\ndata_dir: "+filepath.Join(dir, "data")+"\n")
			before := listDir(t, dir)
			c, err := Load(file)
			if err == nil || c != nil || err.Error() != tt.want || !errors.Is(err, tt.is) {
				t.Errorf("Load = %v, %v; want %q (%v)", c, err, tt.want, tt.is)
			}
			if after := listDir(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("Load changed the directory: %v → %v", before, after)
			}
		})
	}
	c, err := Load(filepath.Join(dir, "missing.yaml"))
	if c != nil || !errors.Is(err, ErrNotFound) ||
		err.Error() != "config: config file not found: "+filepath.Join(dir, "missing.yaml") {
		t.Errorf("Load(missing) = %v, %v", c, err)
	}
	c, err = Load(dir)
	if c != nil || err == nil || !strings.HasPrefix(err.Error(), "config: read ") {
		t.Errorf("Load(dir) = %v, %v", c, err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// listDir returns every path under dir with its size and mode, to compare states.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLocate(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvFile {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		flag, env, want string
		named           bool
	}{
		{"a.yaml", "b.yaml", "a.yaml", true},
		{"", "b.yaml", "b.yaml", true},
		{"", "", "skald.yaml", false},
	}
	for _, tt := range tests {
		t.Run("flag="+tt.flag+",env="+tt.env, func(t *testing.T) {
			got, named := Locate(tt.flag, env(tt.env))
			if got != tt.want || named != tt.named {
				t.Errorf("Locate(%q) with %s=%q = %q, %v; want %q, %v",
					tt.flag, EnvFile, tt.env, got, named, tt.want, tt.named)
			}
		})
	}
	t.Setenv(EnvFile, "from-env.yaml")
	if got, named := Locate("", nil); got != "from-env.yaml" || !named {
		t.Errorf("Locate with the process environment = %q, %v", got, named)
	}
}
