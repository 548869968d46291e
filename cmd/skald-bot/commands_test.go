package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/config"
	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
	"github.com/skald-circle/skald-bot/store"
)

// The commands init, config check, explain, audit and bypass, run as the real binary.

// admin is the environment of an admin command against startServer.
var admin = []string{"SKALD_API_TOKEN=" + adminToken}

func TestProcessInitNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := cli(t, "init", "--dir", dir)
	path := filepath.Join(dir, "skald.yaml")
	if code != 0 || !strings.HasPrefix(out, "wrote "+path+"\n") ||
		!strings.Contains(out, "skald-bot serve") || errOut != "" {
		t.Fatalf("init: exit %d %q %q", code, out, errOut)
	}
	written := mustRead(t, path)
	if _, err := config.Parse([]byte(written), func(string) string { return "" }); err != nil {
		t.Fatalf("the starter configuration is not valid: %v", err)
	}
	if code, out, errOut := cli(t, "config", "check", "--config", path); code != 0 ||
		out != path+": valid\n" {
		t.Fatalf("config check of the starter: exit %d %q %q", code, out, errOut)
	}
	// Again: refused, the file as it was.
	if err := os.WriteFile(path, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, "init", "--dir", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, path+" exists; nothing written") {
		t.Fatalf("init over a file: exit %d %q %q", code, out, errOut)
	}
	if got := mustRead(t, path); got != "# mine\n" {
		t.Fatalf("init changed the file: %q", got)
	}
	// A directory that does not exist: an error, nothing created.
	missing := filepath.Join(dir, "nope")
	if code, _, errOut := cli(t, "init", "--dir", missing); code != 1 ||
		!strings.Contains(errOut, "no such file or directory") {
		t.Fatalf("init in a missing directory: exit %d %q", code, errOut)
	}
}

func TestProcessConfigCheckListsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	// Values, a profile's missing workspace and a job's schedule, in one pass; the job
	// with a problem of its own is not told again by the scheduler's check.
	yaml := "log: {level: loud}\napi: {listen: nowhere}\n" +
		"profiles: [{id: shop, workspace_root: nope}]\n" +
		"jobs: [{name: Bad Name, schedule: \"@daily\", steps: [{tool: write_file}]},\n" +
		"  {name: late, schedule: \"99 * * * *\", " +
		"steps: [{tool: execute_cmd, args: {cmd: \"true\"}}]}]\n"
	if err := os.WriteFile(bad, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "config", "check", "--config", bad)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != 1 || out != "" || len(lines) != 6 || lines[0] != bad+": 5 problems" ||
		!strings.Contains(lines[1], `log.level "loud"`) ||
		!strings.Contains(lines[2], `api.listen "nowhere"`) ||
		!strings.Contains(lines[3], `jobs[0].name "Bad Name"`) ||
		lines[4] != `  config: profiles[0].workspace_root "nope": no such directory` ||
		!strings.HasPrefix(lines[5], `  cron: job "late": schedule "99 * * * *": `) {
		t.Fatalf("config check: exit %d %q %q", code, out, errOut)
	}
	// A job step's unknown tool lists the known ones.
	unknown := filepath.Join(dir, "unknown.yaml")
	yaml = "workspace_root: " + dir +
		"\njobs: [{name: j, schedule: \"@daily\", steps: [{tool: exec_cmd}]}]\n"
	if err := os.WriteFile(unknown, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = cli(t, "config", "check", "--config", unknown)
	if code != 1 || !strings.Contains(errOut, `unknown tool "exec_cmd" (known: `) ||
		!strings.Contains(errOut, "execute_cmd") {
		t.Fatalf("config check of an unknown tool: exit %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "config", "check", "--config",
		filepath.Join(dir, "missing.yaml")); code != 1 ||
		!strings.Contains(errOut, "config file not found") {
		t.Fatalf("config check of a missing file: exit %d %q", code, errOut)
	}
}

func TestProcessExplain(t *testing.T) {
	s := startServer(t, "/w")
	r, err := s.gate.CreateRule(rules.Rule{GroupID: "default", ToolPattern: "Bash",
		CommandPattern: "git status",
		Action:         rules.Allow, Priority: 1}, store.Actor{By: "t", Via: "test"})
	testkit.Must(t, err)
	before := teststore.Snapshot(t, s.db)
	// Without --cwd the call is made from the current directory, as the hook's are.
	wd, err := os.Getwd()
	testkit.Must(t, err)
	code, out, errOut := cliIn(t, nil, admin, "explain", "--server", s.url,
		"--tool", "Read", "--arg", "file_path=secrets/key")
	if code != 0 || !strings.Contains(out, "paths: "+wd+"/secrets/key, secrets/key\n") {
		t.Fatalf("explain from %s: exit %d\n%s%s", wd, code, out, errOut)
	}
	code, out, errOut = cliIn(t, nil, admin, "explain", "--server", s.url, "--cwd", "",
		"--tool", "Read", "--arg", "file_path=secrets/key")
	if code != 0 || errOut != "" ||
		!strings.HasPrefix(out, "Read in group default (profile default): deny — rule ") ||
		!strings.Contains(out, "paths: secrets/key\n") ||
		!strings.Contains(out, "no: tool pattern does not match Read") ||
		!strings.Contains(out,
			"no: path pattern memory/* matches none of the call's paths: secrets/key") ||
		!strings.Contains(out, "deny @fs_any secrets/*") || !strings.HasSuffix(out, "decided\n") {
		t.Fatalf("explain: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cliIn(t, nil, admin, "explain", "--server", s.url,
		"--tool", "Bash", "--arg", "command=git push", "--json")
	var ex api.ExplainResult
	if err := json.Unmarshal([]byte(out), &ex); code != 0 || err != nil ||
		ex.Decision != rules.Require ||
		len(ex.Steps) < 2 || ex.Steps[0].RuleID != r.ID || ex.Steps[0].Matched ||
		ex.Steps[0].Why != "command pattern git status matches none of: git push" ||
		!ex.Steps[len(ex.Steps)-1].Decided {
		t.Fatalf("explain --json: exit %d %v\n%s", code, err, out)
	}
	// Errors: an unknown group, no tool; the agent routes' local caller may not.
	for _, c := range []struct {
		env  []string
		args []string
		code int
		msg  string
	}{
		{
			env:  admin,
			args: []string{"--tool", "Read", "--group", "nope"},
			code: 1,
			msg:  `422: explain Read: group "nope": unknown group`,
		},
		{admin, nil, 2, `"tool" not set`},
		{nil, []string{"--tool", "Read"}, 1, "401"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, _, errOut := cliIn(t, nil, c.env,
				append([]string{"explain", "--server", s.url}, c.args...)...)
			if code != c.code || !strings.Contains(errOut, c.msg) {
				t.Errorf("explain %v: exit %d %q, want %d %q", c.args, code, errOut, c.code, c.msg)
			}
		})
	}
	teststore.Unchanged(t, s.db, before)
}

func TestProcessAuditAndBypass(t *testing.T) {
	s := startServer(t, "/w")
	// A fresh store's audit holds its seeding; times carry their zone.
	if code, out, _ := cliIn(t, nil, append(admin, "TZ=UTC"), "audit",
		"--server", s.url); code != 0 ||
		!strings.HasPrefix(out, "ID  AT ") ||
		!strings.Contains(out, " UTC  system  seed  rule.create ") {
		t.Fatalf("audit of a fresh store: exit %d %q", code, out)
	}
	// wantOut runs args against s as the admin and fails the test unless the command
	// exits 0 printing exactly want.
	wantOut := func(want string, args ...string) {
		t.Helper()
		code, out, errOut := cliIn(t, nil, admin, append(args, "--server", s.url)...)
		if code != 0 || out != want {
			t.Fatalf("%s: exit %d %q %q, want 0 %q", strings.Join(args, " "), code, out, errOut,
				want)
		}
	}
	wantOut("no pending requests\n", "pending")
	wantOut("session s1 has no bypasses\n", "bypass", "list", "s1")
	wantOut("no bypasses\n", "bypass", "list") // of every session
	wantOut("session s1: bypass tool:Bash for the session\n",
		"bypass", "add", "s1", "--for", "session", "--scope", "tool:Bash")
	code, out, _ := cliIn(t, nil, admin, "bypass", "list", "s1", "--server", s.url)
	if code != 0 || !strings.Contains(out, "tool:Bash  every caller  for the session") {
		t.Fatalf("bypass list: exit %d %q", code, out)
	}
	// Without a session: every session's, by session.
	if code, _, errOut := cliIn(t, nil, admin, "bypass", "add", "s0", "--for", "1h",
		"--scope", "tool:Read", "--caller", "local", "--server", s.url); code != 0 {
		t.Fatalf("bypass add s0: exit %d %q", code, errOut)
	}
	code, out, _ = cliIn(t, nil, admin, "bypass", "list", "--server", s.url)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 ||
		!strings.HasPrefix(lines[0], "SESSION  SCOPE") ||
		!strings.HasPrefix(lines[1], "s0       tool:Read  local ") ||
		!strings.HasPrefix(lines[2], "s1       tool:Bash  every caller  for the session") {
		t.Fatalf("bypass list of every session: exit %d %q", code, out)
	}
	code, out, _ = cliIn(t, nil, admin, "bypass", "list", "--json", "--server", s.url)
	var bs []api.Bypass
	if err := json.Unmarshal([]byte(out), &bs); code != 0 || err != nil || len(bs) != 2 ||
		bs[0].SessionID != "s0" {
		t.Fatalf("bypass list --json: exit %d %v %s", code, err, out)
	}
	wantOut("session s0: bypasses cleared\n", "bypass", "rm", "s0")
	// The bypass lets s1's Bash through.
	if code, out, _ := cliIn(t, nil, nil, "check", "--server", s.url, "--tool", "Bash",
		"--arg", "command=make", "--session", "s1"); code != 0 ||
		!strings.Contains(out, "session bypass") {
		t.Fatalf("check under the bypass: exit %d %q", code, out)
	}
	// Bad input: a clear error, nothing changed.
	before := teststore.Snapshot(t, s.db)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{
			args: []string{"bypass", "add", "s1", "--for", "forever"},
			code: 2,
			msg:  `--for "forever": want a duration such as 15m, or session`,
		},
		{[]string{"bypass", "add", "s1", "--scope", "bogus"}, 1, "422"},
		{[]string{"bypass", "add"}, 2, "accepts 1 arg(s)"},
		{[]string{"bypass", "list", "s1", "s2"}, 2, "accepts at most 1 arg(s)"},
		{[]string{"audit", "--limit", "0"}, 2, "--limit 0: want 1 to 10000"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, _, errOut := cliIn(t, nil, admin, append(c.args, "--server", s.url)...)
			if code != c.code || !strings.Contains(errOut, c.msg) {
				t.Errorf("%v: exit %d %q, want %d %q", c.args, code, errOut, c.code, c.msg)
			}
		})
	}
	teststore.Unchanged(t, s.db, before)
	code, out, _ = cliIn(t, nil, admin, "audit", "--server", s.url, "--json")
	var es []api.AuditEntry
	if err := json.Unmarshal([]byte(out), &es); code != 0 || err != nil || len(es) == 0 ||
		!strings.HasPrefix(es[0].Action, "bypass") {
		t.Fatalf("audit --json: exit %d %v %s", code, err, out)
	}
	code, out, _ = cliIn(t, nil, admin, "audit", "--server", s.url, "--limit", "1")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 ||
		!strings.Contains(lines[1], "bypass") {
		t.Fatalf("audit --limit 1: exit %d %q", code, out)
	}
	wantOut("session s1: bypasses cleared\n", "bypass", "rm", "s1")
	wantOut("session s1 has no bypasses\n", "bypass", "list", "s1") // after rm
}

func TestProcessSuggestionOnItsOwnLines(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"aprove 1", "skald-bot: unknown command \"aprove\" for \"skald-bot\" " +
			"(see skald-bot --help)\nDid you mean this?\n\tapprove\n"},
		{"rules ad allow X", "skald-bot: unknown command \"ad\" for \"skald-bot rules\" " +
			"(see skald-bot rules --help)\nDid you mean this?\n\tadd\n\trm\n"},
		{"config chek", "skald-bot: unknown command \"chek\" for \"skald-bot config\" " +
			"(see skald-bot config --help)\nDid you mean this?\n\tcheck\n"},
		{"jobs zzz", "skald-bot: unknown command \"zzz\" for \"skald-bot jobs\" " +
			"(see skald-bot jobs --help)\n"},
	} {
		t.Run(c.args, func(t *testing.T) {
			code, out, errOut := cli(t, strings.Fields(c.args)...)
			if code != 2 || out != "" || errOut != c.want {
				t.Fatalf("exit %d %q %q, want 2 %q", code, out, errOut, c.want)
			}
		})
	}
	// A group given nothing prints its help and succeeds.
	if code, out, _ := cli(t, "rules"); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Fatalf("rules: exit %d %q", code, out)
	}
}
