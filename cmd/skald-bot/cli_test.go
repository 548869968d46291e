package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
	"github.com/skald-circle/skald-bot/internal/testkit/teststore"
	"github.com/skald-circle/skald-bot/rules"
)

// runClient runs the command line in-process with env cleared of SKALD_* but
// SKALD_API_TOKEN, the admin token of startServer, and returns the exit code, stdout
// and stderr.
func runClient(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("SKALD_URL", "")
	t.Setenv("SKALD_API_TOKEN", adminToken)
	t.Setenv("SKALD_CONFIG", "")
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckExitCodes(t *testing.T) {
	s := startServer(t, "/w")
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{
			args: []string{"--tool", "TodoWrite"},
			code: 0,
			out:  "allow: Allowed by skald-bot: rule 8 (allow TodoWrite)",
		},
		{
			args: []string{"--tool", "Read", "--arg", "path=secrets/k"},
			code: 1,
			out:  "deny: Denied by skald-bot: rule 11 (deny @fs_any secrets/*)",
		},
		{
			args: []string{"--tool", "Bash", "--args-json", `{"command":"make"}`,
				"--wait", "0s", "--keep"},
			code: 3,
			out:  "pending: Waiting for approval (request ",
		},
		{
			args: []string{"--tool", "Bash", "--args-json", `{"command":"make -j"}`,
				"--wait", "0s"},
			code: 3,
			out:  "cancelled: No answer within 0s; request ",
		},
	} {
		t.Run(c.out, func(t *testing.T) {
			code, out, errOut := runClient(t,
				append([]string{"check", "--server", s.url}, c.args...)...)
			if code != c.code || !strings.HasPrefix(out, c.out) || errOut != "" {
				t.Errorf("check %v: exit %d %q %q, want %d %q",
					c.args, code, out, errOut, c.code, c.out)
			}
		})
	}
	// Rejected while waiting: 1.
	ids := s.answer(t, false, "no", "telegram")
	code, out, _ := runClient(t, "check", "--server", s.url, "--tool", "Bash",
		"--arg", "command=rm -rf /", "--wait", "1m")
	if id := <-ids; code != 1 ||
		out != "rejected: Rejected by jane via Telegram (request "+testkit.ID(id)+"): no\n" {
		t.Fatalf("rejected: exit %d %q", code, out)
	}

	// Errors: exit 2, one line on stderr, nothing stored.
	before, err := s.db.Pending()
	testkit.Must(t, err)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{
			[]string{"--tool", "Bash", "--group", "nope"},
			`422: check Bash: group "nope": unknown group`,
		},
		{[]string{"--tool", "Bash", "--args-json", "[1]"}, "--args-json: not a JSON object"},
		{[]string{"--tool", "Bash", "--arg", "novalue"}, `--arg "novalue": want key=value`},
		{[]string{"--tool", "Bash", "--wait", "-1s"}, "--wait -1s: must not be negative"},
		{[]string{"--tool", "Bash", "--server", refusedURL(t)}, "connection refused"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			args := append([]string{"check", "--server", s.url}, c.args...)
			code, out, errOut := runClient(t, args...)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, "skald-bot: ") ||
				!strings.Contains(errOut, c.msg) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("check %v: exit %d %q %q, want 2 and %q",
					c.args, code, out, errOut, c.msg)
			}
		})
	}
	if after, err := s.db.Pending(); err != nil || len(after) != len(before) {
		t.Fatalf("pending %d → %d after refused checks (err %v)", len(before), len(after), err)
	}
	// A usage error is 2 as well.
	if code, _, errOut := runClient(t, "check", "--server", s.url); code != 2 ||
		!strings.Contains(errOut, `"tool" not set`) {
		t.Fatalf("no --tool: exit %d %q", code, errOut)
	}
}

func TestApproveRejectPending(t *testing.T) {
	s := startServer(t, "/w")
	code, out, _ := runClient(t, "check", "--server", s.url, "--tool", "Bash",
		"--arg", "command=ls", "--session", "s9", "--wait", "0s", "--keep", "--json")
	var res struct {
		RequestID uint64 `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 3 || res.RequestID == 0 {
		t.Fatalf("check: %d %s: %v", code, out, err)
	}
	id := testkit.ID(res.RequestID)
	if code, out, _ := runClient(t, "pending", "--server", s.url); code != 0 ||
		!strings.Contains(out, id+"  ") ||
		!strings.Contains(out, `{"cmd":"ls","command":"ls"}`) &&
			!strings.Contains(out, `{"command":"ls"}`) {
		t.Fatalf("pending: %d %q", code, out)
	}
	before, err := s.db.Request(res.RequestID)
	testkit.Must(t, err)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{
			args: []string{"approve", id, "--bypass", "forever"},
			code: 2,
			msg:  `--bypass "forever": want a duration such as 15m, or session`,
		},
		{[]string{"approve", "x"}, 2, `id "x": want a positive integer`},
		{[]string{"approve", "999"}, 1, "404: "},
		{[]string{"approve"}, 2, "accepts 1 arg(s)"},
		{[]string{"reject", id, "--bypass", "15m"}, 2, "unknown flag: --bypass"},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, _, errOut := runClient(t, append(c.args, "--server", s.url)...)
			if code != c.code || !strings.Contains(errOut, c.msg) ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d %q, want %d %q", c.args, code, errOut, c.code, c.msg)
			}
		})
	}
	if after, err := s.db.Request(res.RequestID); err != nil || after.Status != before.Status {
		t.Fatal("a refused command changed the request", err)
	}
	if code, out, errOut := runClient(t, "approve", id, "--bypass", "15m", "--note", "ok",
		"--server", s.url); code != 0 || out != "request "+id+" approved\n" {
		t.Fatalf("approve: %d %q %q", code, out, errOut)
	}
	q, err := s.db.Request(res.RequestID)
	testkit.Must(t, err)
	if q.Resolution.By != "cli" || q.Resolution.Note != "ok" || q.Resolution.Bypass == nil ||
		q.Resolution.Bypass.Secs != 900 {
		t.Fatalf("resolution %+v", q.Resolution)
	}
	if code, _, errOut := runClient(t, "reject", id, "--server", s.url); code != 1 ||
		!strings.Contains(errOut, "already approved by cli via") {
		t.Fatalf("reject after approve: %d %q", code, errOut)
	}
}

func TestBypassSecs(t *testing.T) {
	for in, want := range map[string]int64{"session": 0, "15m": 900, "1h": 3600, "2d": 172800} {
		if got, err := bypassSecs(in); err != nil || got != want {
			t.Errorf("bypassSecs(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0s", "soon", "-5m"} {
		if _, err := bypassSecs(in); err == nil {
			t.Errorf("bypassSecs(%q): no error", in)
		}
	}
}

func TestRulesAndGroupsCommands(t *testing.T) {
	s := startServer(t, "/w")
	steps := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"groups", "add", "ci", "--name", "CI"}, 0, "group ci added\n"},
		{
			args: []string{"rules", "add", "allow", "Bash", "--group", "ci", "--note", "builds"},
			code: 0,
			out:  "rule ",
		},
		{[]string{"groups", "dup", "ci", "ci-2"}, 0, "group ci-2 added with 1 rules of ci\n"},
		{[]string{"groups", "set", "ci-2", "--description", "copy"}, 0, "group ci-2 changed\n"},
		{[]string{"groups", "list"}, 0, "ID"},
		{[]string{"rules", "list", "--group", "ci-2"}, 0, "ID"},
		{[]string{"groups", "rm", "ci-2"}, 0, "group ci-2 removed\n"},
		{[]string{"groups", "rm", "default"}, 1, ""},
		{[]string{"rules", "add", "allow", "a*b"}, 1, ""},
		{[]string{"rules", "add", "maybe", "Bash"}, 2, ""},
		{[]string{"jobs", "list"}, 0, "NAME"},
		{[]string{"jobs", "run", "nightly"}, 1, ""},
		{[]string{"jobs", "runs", "nightly"}, 1, ""},
	}
	for _, c := range steps {
		t.Run(c.out, func(t *testing.T) {
			code, out, errOut := runClient(t, append(c.args, "--server", s.url)...)
			if code != c.code || !strings.HasPrefix(out, c.out) {
				t.Errorf("%v: exit %d %q %q, want %d %q", c.args, code, out, errOut, c.code, c.out)
			}
		})
	}
	rs, err := s.gate.Rules("ci")
	testkit.Must(t, err)
	if len(rs) != 1 || rs[0].Note != "builds" || rs[0].Priority != rules.DefaultPriority {
		t.Fatalf("rules of ci: %+v", rs)
	}
	id := testkit.ID(rs[0].ID)
	if code, _, errOut := runClient(t, "rules", "set", id, "--server", s.url); code != 2 ||
		!strings.Contains(errOut, "nothing to change") {
		t.Fatalf("set nothing: %d %q", code, errOut)
	}
	if code, out, _ := runClient(t, "rules", "set", id, "--priority", "5", "--action", "deny",
		"--server", s.url); code != 0 || out != "rule "+id+" changed\n" {
		t.Fatalf("set: %d %q", code, out)
	}
	rs, err = s.gate.Rules("ci")
	testkit.Must(t, err)
	if rs[0].Priority != 5 || rs[0].Action != rules.Deny || rs[0].ToolPattern != "Bash" ||
		rs[0].Note != "builds" {
		t.Fatalf("after set: %+v", rs[0])
	}
	if code, out, _ := runClient(t, "rules", "rm", id, "--server", s.url); code != 0 ||
		out != "rule "+id+" removed\n" {
		t.Fatalf("rm: %d %q", code, out)
	}
	if code, _, errOut := runClient(t, "rules", "rm", id, "--server", s.url); code != 1 ||
		!strings.Contains(errOut, "404") {
		t.Fatalf("rm again: %d %q", code, errOut)
	}
}

// TestUsageErrorsExit2 checks every bad argument of a client command — cobra's own
// and the ones the command finds — exits 2 with one line on stderr pointing at
// --help, prints nothing on stdout and reaches no server (the one given is closed).
// TestRulesAddNote: rules add and rules set say when an earlier rule already decides
// every call the rule matches, with the --priority that would put it first.
func TestRulesAddNote(t *testing.T) {
	s := startServer(t, "/w")
	var seeded uint64
	rs, err := s.gate.Rules("default")
	testkit.Must(t, err)
	for _, r := range rs {
		if r.ToolPattern == "Bash" && r.Action == rules.Require {
			seeded = r.ID
		}
	}
	// A store seeded before command rules has the Bash require at priority 10.
	if code, _, errOut := runClient(t, "rules", "set", testkit.ID(seeded), "--priority", "10",
		"--server", s.url); code != 0 {
		t.Fatalf("rules set %d --priority 10: exit %d %q", seeded, code, errOut)
	}
	code, out, errOut := runClient(t, "rules", "add", "deny", "Bash", "--server", s.url)
	want := "Note: rule " + testkit.ID(seeded) +
		" (require Bash, priority 10) comes first for Bash; " + "use --priority 9 to take precedence.\n"
	if code != 0 || !strings.HasPrefix(out, "rule ") || !strings.HasSuffix(out, " added\n"+want) {
		t.Fatalf("rules add deny Bash: exit %d %q %q, want the note %q", code, out, errOut, want)
	}
	id := strings.Fields(out)[1]
	if code, out, _ := runClient(t, "rules", "set", id, "--priority", "5",
		"--server", s.url); code != 0 || out != "rule "+id+" changed\n" {
		t.Errorf("rules set --priority 5: exit %d %q, want no note", code, out)
	}
	if code, out, _ := runClient(t, "rules", "set", id, "--priority", "20",
		"--server", s.url); code != 0 || out != "rule "+id+" changed\n"+want {
		t.Errorf("rules set --priority 20: exit %d %q, want the note", code, out)
	}
	if code, out, _ := runClient(t, "rules", "add", "deny", "Bash", "--priority", "5", "--json",
		"--server", s.url); code != 0 || strings.Contains(out, "Note") {
		t.Errorf("--json: exit %d %q, want the rule only", code, out)
	}
}

// TestRulesAddListFails: when the rules cannot be listed after the rule is added (for
// the precedence note), rules add still succeeds, says so on stderr, and the rule is
// stored once.
func TestRulesAddListFails(t *testing.T) {
	s := startServer(t, "/w")
	target, err := url.Parse(s.url)
	testkit.Must(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/approval/rules" {
			http.Error(w, `{"error":"listing is down"}`, http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	before, err := s.gate.Rules("default")
	testkit.Must(t, err)
	code, out, errOut := runClient(t, "rules", "add", "deny", "Bash", "--server", front.URL)
	if code != 0 || !strings.HasPrefix(out, "rule ") || !strings.HasSuffix(out, " added\n") {
		t.Fatalf("rules add: exit %d %q %q, want the rule added", code, out, errOut)
	}
	id := strings.Fields(out)[1]
	want := "skald-bot: warning: rule " + id + " is added, but the rules could not be listed"
	if !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "listing is down") {
		t.Errorf("stderr %q, want %q… with the server's error", errOut, want)
	}
	after, err := s.gate.Rules("default")
	testkit.Must(t, err)
	if len(after) != len(before)+1 {
		t.Errorf("%d rules, want %d: the one added", len(after), len(before)+1)
	}
}

// TestRulesPatternFlags: rules add and rules set take --command and --host, rules
// list shows the pattern, the call it names is then allowed, and a pattern the tool
// cannot take (or a malformed one) is refused with the rules unchanged.
func TestRulesPatternFlags(t *testing.T) {
	for _, c := range []struct {
		flag, tool, pattern, arg string
		allowed                  string // how the check's output starts, %s the rule id
		column, set              string
		refused                  []string // rules add … with the flag, refused
		refusedMsg               string
		badSet, badSetMsg        string // a value rules set refuses, if any
		of                       func(rules.Rule) string
	}{
		{flag: "--command", tool: "Bash", pattern: "git status *",
			arg: "command=git status --short", column: "COMMAND", set: "git diff *",
			allowed:    `allow: Allowed by skald-bot: command "git status --short" allowed by rule %s`,
			refused:    []string{"allow", "Read", "--command", "ls *"},
			refusedMsg: `only applies to the shell tools (Bash, execute_cmd), not "Read"`,
			of:         func(r rules.Rule) string { return r.CommandPattern }},
		{flag: "--host", tool: "WebFetch", pattern: "*.example.com",
			arg: "url=https://docs.example.com/", column: "HOST", set: "example.org",
			allowed: `allow: Allowed by skald-bot: rule %s (allow WebFetch host="*.example.com")`,
			refused: []string{"allow", "Read", "--host", "example.com"},
			refusedMsg: `host_pattern "example.com": only applies to the web tools (WebFetch), ` +
				`not "Read"`,
			badSet: "example.org:443", badSetMsg: "no scheme, port, path or user",
			of: func(r rules.Rule) string { return r.HostPattern }},
	} {
		t.Run(c.flag, func(t *testing.T) {
			s := startServer(t, "/w")
			code, out, errOut := runClient(t, "rules", "add", "allow", c.tool, c.flag, c.pattern,
				"--server", s.url)
			if code != 0 || !strings.HasPrefix(out, "rule ") || strings.Contains(out, "Note") {
				t.Fatalf("rules add %s: exit %d %q %q", c.flag, code, out, errOut)
			}
			id := strings.Fields(out)[1]
			code, out, errOut = runClient(t, "check", "--tool", c.tool, "--arg", c.arg,
				"--server", s.url)
			if want := fmt.Sprintf(c.allowed, id); code != 0 || !strings.HasPrefix(out, want) {
				t.Errorf("check: exit %d %q %q, want %q", code, out, errOut, want)
			}
			if code, out, errOut := runClient(t, "rules", "list", "--server", s.url); code != 0 ||
				!strings.Contains(out, c.column) || !strings.Contains(out, c.pattern) {
				t.Errorf("rules list: exit %d %q %q, want the pattern", code, out, errOut)
			}
			if code, out, errOut := runClient(t, "rules", "set", id, c.flag, c.set,
				"--server", s.url); code != 0 || !strings.Contains(out, "changed") {
				t.Fatalf("rules set %s: exit %d %q %q", c.flag, code, out, errOut)
			}
			before := teststore.Snapshot(t, s.db)
			code, _, errOut = runClient(t, append(append([]string{"rules", "add"}, c.refused...),
				"--server", s.url)...)
			if code != 1 || !strings.Contains(errOut, c.refusedMsg) {
				t.Errorf("rules add %q: exit %d %q", c.refused, code, errOut)
			}
			if c.badSet != "" {
				code, _, errOut = runClient(t, "rules", "set", id, c.flag, c.badSet,
					"--server", s.url)
				if code != 1 || !strings.Contains(errOut, c.badSetMsg) {
					t.Errorf("rules set %s %q: exit %d %q", c.flag, c.badSet, code, errOut)
				}
			}
			teststore.Unchanged(t, s.db, before)
			n, err := strconv.ParseUint(id, 10, 64)
			testkit.Must(t, err)
			r, err := s.gate.Rule(n)
			if err != nil || c.of(r) != c.set {
				t.Errorf("after set: %v %+v", err, r)
			}
		})
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	server := refusedURL(t)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"approve"}, "accepts 1 arg(s), received 0"},
		{[]string{"approve", "abc"}, `id "abc": want a positive integer`},
		{[]string{"approve", "0"}, `id "0": want a positive integer`},
		{[]string{"approve", "-1"}, "unknown shorthand flag: '1' in -1"},
		{
			[]string{"approve", "7", "--bypass", "forever"},
			`--bypass "forever": want a duration such as 15m, or session`,
		},
		{
			[]string{"approve", "7", "--bypass", "0s"},
			`--bypass "0s": want a duration such as 15m, or session`,
		},
		{[]string{"reject", "x"}, `id "x": want a positive integer`},
		{[]string{"reject", "7", "--bypass", "15m"}, "unknown flag: --bypass"},
		{[]string{"cancel"}, "accepts 1 arg(s), received 0"},
		{[]string{"cancel", "x", "--reason", "r"}, `id "x": want a positive integer`},
		{[]string{"backup"}, "accepts 1 arg(s), received 0"},
		{[]string{"backup", "/"}, `backup: "/": name the file to write`},
		{[]string{"backup", ""}, `backup: "": name the file to write`},
		{[]string{"backup", "/no/such/dir/x.db"}, "backup: /no/such/dir: no such directory"},
		// The source file beside the test.
		{[]string{"backup", "backup.go"}, "backup.go exists: give --force to replace it"},
		{[]string{"pending", "extra"}, `unknown command "extra" for "skald-bot pending"`},
		{[]string{"rules", "rm", "x"}, `id "x": want a positive integer`},
		{[]string{"rules", "set", "x", "--action", "deny"}, `id "x": want a positive integer`},
		{
			[]string{"rules", "set", "3"},
			"rules set 3: nothing to change: give at least one of --action",
		},
		{
			[]string{"rules", "set", "3", "--priority", "high"},
			`invalid argument "high" for "--priority"`,
		},
		{[]string{"rules", "add", "maybe", "Bash"}, `ACTION "maybe": want allow, deny or require`},
		{[]string{"rules", "add", "allow"}, "accepts 2 arg(s), received 1"},
		{
			[]string{"groups", "set", "ci"},
			"groups set ci: nothing to change: give --name or --description",
		},
		{[]string{"groups", "dup", "ci"}, "accepts 2 arg(s), received 1"},
		{[]string{"jobs", "run"}, "accepts 1 arg(s), received 0"},
		{[]string{"jobs", "runs", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"check"}, `required flag(s) "tool" not set`},
		{[]string{"check", "--tool", "Bash", "--wait", "-1s"}, "--wait -1s: must not be negative"},
		{[]string{"nope"}, `unknown command "nope" for "skald-bot"`},
	} {
		t.Run(c.msg, func(t *testing.T) {
			code, out, errOut := runClient(t, append(c.args, "--server", server)...)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, "skald-bot: ") ||
				!strings.Contains(errOut, c.msg) ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q",
					c.args, code, out, errOut, c.msg)
			}
			if c.args[0] != "check" && !strings.Contains(errOut, "--help)") {
				t.Errorf("%v: stderr %q does not point at --help", c.args, errOut)
			}
		})
	}
}

// TestPendingShowsArgumentsAsWritten: the pending table and --json show <, > and &
// in arguments as themselves, not as encoding/json's HTML escapes.
func TestPendingShowsArgumentsAsWritten(t *testing.T) {
	s := startServer(t, "/w")
	if code, _, errOut := runClient(t, "check", "--server", s.url, "--tool", "Bash",
		"--arg", "command=ls > out && cat <in", "--wait", "0s", "--keep"); code != 3 {
		t.Fatalf("check: exit %d %q", code, errOut)
	}
	code, out, _ := runClient(t, "pending", "--server", s.url)
	if code != 0 || !strings.Contains(out, `{"command":"ls > out && cat <in"}`) ||
		strings.Contains(out, `\u00`) {
		t.Errorf("pending table: exit %d\n%s", code, out)
	}
	code, out, _ = runClient(t, "pending", "--server", s.url, "--json")
	var in struct {
		Approvals []struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"approvals"`
	}
	if err := json.Unmarshal([]byte(out), &in); code != 0 || err != nil ||
		len(in.Approvals) != 1 ||
		in.Approvals[0].Arguments["command"] != "ls > out && cat <in" ||
		strings.Contains(out, `\u00`) {
		t.Errorf("pending --json: exit %d %v\n%s", code, err, out)
	}
}

func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x \u003e y \u003c z \u0026"}`: `{"a":"x > y < z &"}`,
		`{"a":"\\u003e"}`:                    `{"a":"\\u003e"}`, // an escaped backslash, then text
		`{"a":"\\\u003e"}`:                   `{"a":"\\>"}`,
		`{"a":"\u00e9\n\""}`:                 `{"a":"\u00e9\n\""}`,
		`{"a":"\u003"}`:                      `{"a":"\u003"}`,
		`"\`:                                 `"\`,
	} {
		got := string(unescapeHTML([]byte(in)))
		if got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil &&
			(json.Unmarshal([]byte(got), &b) != nil || !reflect.DeepEqual(a, b)) {
			t.Errorf("unescapeHTML(%s) = %s changed the value", in, got)
		}
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	for _, args := range [][]string{
		{"check"}, {"pending"}, {"approve"}, {"reject"}, {"cancel"}, {"backup"},
		{"rules"}, {"rules", "list"}, {"rules", "add"}, {"rules", "rm"}, {"rules", "set"},
		{"groups"}, {"groups", "list"}, {"groups", "add"}, {"groups", "dup"},
		{"groups", "set"}, {"groups", "rm"}, {"jobs"}, {"jobs", "list"}, {"jobs", "run"},
		{"jobs", "runs"},
		{"hook"}, {"hook", "claude-code"}, {"hook", "install"}, {"hook", "uninstall"},
		{"rules", "export"}, {"rules", "import"}, {"rules", "import", "claude-code"},
		{"serve"}, {"version"},
		{"dev"}, {"dev", "telegram"}, {},
	} {
		code, out, _ := runClient(t, append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v --help: exit %d %q", args, code, out)
		}
		// Help is for users: it cites no section of a document they do not have.
		if strings.Contains(out, "§") {
			t.Errorf("%v --help cites the spec:\n%s", args, out)
		}
	}
	// rules set changes only the flags given: its help shows no default that it
	// would not apply.
	if _, out, _ := runClient(t, "rules", "set", "--help"); strings.Contains(out, "(default") {
		t.Errorf("rules set --help shows defaults:\n%s", out)
	}
	if _, out, _ := runClient(t, "rules", "add", "--help"); !strings.Contains(out,
		`permission group (default "default")`) ||
		!strings.Contains(out, "(default 100)") {
		t.Errorf("rules add --help lost its defaults:\n%s", out)
	}
}

func TestConnection(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("api:\n  listen: 0.0.0.0:9999\n  token: from-config-0123456789\n"),
		0o600)
	env := map[string]string{}
	conn := &connection{getenv: func(k string) string { return env[k] }}

	check := func(wantURL, wantToken, wantAgent string) {
		t.Helper()
		c, err := conn.client()
		if err != nil || c.BaseURL != wantURL || c.Token != wantToken || c.Actor != "cli" {
			t.Fatalf("client: %v %+v, want %s %s", err, c, wantURL, wantToken)
		}
		c, err = conn.agentClient()
		if err != nil || c.BaseURL != wantURL || c.Token != wantAgent {
			t.Fatalf("agent client: %v %+v, want %s %q", err, c, wantURL, wantAgent)
		}
	}
	t.Chdir(dir)
	check(defaultServer, "", "") // no config anywhere
	conn.config = cfg
	check("http://127.0.0.1:9999", "from-config-0123456789", "") // an agent never sends api.token
	env["SKALD_URL"] = "127.0.0.1:7000"
	env["SKALD_API_TOKEN"] = "from-env"
	check("http://127.0.0.1:7000", "from-env", "from-env")
	conn.server = "http://[::1]:8000/"
	check("http://[::1]:8000", "from-env", "from-env")

	// A named configuration that is missing or invalid is an error.
	conn.server, env = "", map[string]string{"SKALD_CONFIG": filepath.Join(dir, "missing.yaml")}
	conn.config = ""
	if _, err := conn.client(); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing config: %v", err)
	}
	os.WriteFile(cfg, []byte("api:\n  listne: x\n"), 0o600)
	conn.config = cfg
	if _, err := conn.client(); err == nil || !strings.Contains(err.Error(), "listne") {
		t.Fatalf("invalid config: %v", err)
	}
	// ./skald.yaml is read when present; with no api.token, the admin commands send the
	// token file of its data_dir, the agent-side ones nothing.
	os.WriteFile(filepath.Join(dir, "skald.yaml"),
		[]byte("data_dir: state\napi:\n  listen: 127.0.0.1:1234\n"), 0o600)
	conn.config, env = "", map[string]string{}
	check("http://127.0.0.1:1234", "", "")
	os.Mkdir(filepath.Join(dir, "state"), 0o700)
	tok, created, err := ensureAdminToken(filepath.Join(dir, "state"))
	if err != nil || !created || len(tok) < 43 {
		t.Fatalf("ensureAdminToken: %d characters, %v %v", len(tok), created, err)
	}
	check("http://127.0.0.1:1234", tok, "")
	// A token file open to others is refused, not sent.
	os.Chmod(filepath.Join(dir, "state", "admin.token"), 0o644)
	if _, err := conn.client(); err == nil || !strings.Contains(err.Error(),
		"is open to others (mode 0644); run chmod 600 on it") {
		t.Fatalf("a token file open to others: %v", err)
	}
}

// TestAdminTokenFile: the first start creates one line of 43 base64url characters
// (32 random bytes), mode 0600, and later starts reuse it; a damaged file is an error
// that leaves it as it is.
func TestAdminTokenFile(t *testing.T) {
	dir := t.TempDir()
	tok, created, err := ensureAdminToken(dir)
	if err != nil || !created || len(tok) != 43 {
		t.Fatalf("first: %q %v %v", tok, created, err)
	}
	path := filepath.Join(dir, "admin.token")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != tok+"\n" {
		t.Fatalf("token file holds %q, %v", data, err)
	}
	again, created, err := ensureAdminToken(dir)
	if err != nil || created || again != tok {
		t.Fatalf("second: %v %v, want the same token", created, err)
	}
	other, _, err := ensureAdminToken(t.TempDir())
	if err != nil || other == tok {
		t.Fatalf("another data_dir: the same token (%v)", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("data_dir holds %v (%v), want the token file only", entries, err)
	}
	for name, content := range map[string]string{
		"empty": "", "short": "abc\n", "two lines": tok + "\n" + tok + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ensureAdminToken(dir); err == nil ||
				!strings.Contains(err.Error(), "is not one token line; delete it") {
				t.Fatalf("err = %v", err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != content {
				t.Fatalf("the file changed: %q %v", got, err)
			}
		})
	}
}

// TestClientTokenBesideConfig: a relative data_dir is taken beside the configuration
// file, as serve takes it, so the admin commands find the generated token from any
// directory, with the file named by --config or $SKALD_CONFIG.
func TestClientTokenBesideConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "skald.yaml")
	if err := os.WriteFile(cfg, []byte("data_dir: ./state\napi:\n  listen: 127.0.0.1:1234\n"),
		0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	tok, _, err := ensureAdminToken(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	tests := []struct {
		name string
		conn *connection
	}{
		{"--config", &connection{config: cfg, getenv: func(string) string { return "" }}},
		{"SKALD_CONFIG", &connection{getenv: func(k string) string {
			return map[string]string{"SKALD_CONFIG": cfg}[k]
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.conn.client()
			if err != nil || c.Token != tok || c.BaseURL != "http://127.0.0.1:1234" {
				t.Fatalf("client from another directory: %v %+v, want the token of %s",
					err, c, filepath.Join(dir, "state"))
			}
		})
	}
}
