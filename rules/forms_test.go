package rules

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// formsSet is the test workspace with lnk → memory/a, the seeded rules, and a plausible
// allow of mcp__* and @fs_read after the seeded deny; "~" is memory/a.
func formsSet(t *testing.T) (*Set, string) {
	root := workspace(t)
	mustSymlink(t, "memory/a", root+"/lnk")
	t.Setenv("HOME", root+"/memory/a")
	rs := append(seedRules(),
		Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow, Priority: 100},
		Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow, Priority: 100})
	return Compile(nil, rs, seedOptions(root)), root
}

// TestEvaluateEveryForm: a path is decided in every form a tool may open — the OS's
// resolution and the lexically cleaned one, against every base, with ~ expanded —
// and a glob in every alternative of its braces.
func TestEvaluateEveryForm(t *testing.T) {
	s, root := formsSet(t)
	dataDB := protected("state/skald.db")
	mcpRead := func(args map[string]any) Call {
		return Call{Tool: "mcp__filesystem__read_file", Args: args}
	}
	runEvalCases(t, s, []evalCase{
		// A symlink, then "..": the OS leaves the link's target, a tool that cleans
		// ".." first does not.
		{"symlink then ..: the cleaned form is secrets/", "",
			mcpRead(map[string]any{"path": root + "/lnk/../secrets/key"}),
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"symlink then ..: the cleaned form is protected", "",
			Call{Tool: "Read", Args: map[string]any{"file_path": "lnk/../state/skald.db"}},
			forms(dataDB, 2)},
		{"symlink then ..: both forms allowed", "",
			Call{Tool: "Read", Args: map[string]any{"file_path": "lnk/../b"}},
			forms(ruled(Allow, 9, "memory/b"), 2)},
		// A relative path against every base a tool may use.
		{"relative: the root beside the working directory", "",
			Call{Tool: "mcp__filesystem__read_file", Args: map[string]any{"path": "secrets/key"},
				WorkingDir: "memory"},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"relative: the root beside cwd", "",
			Call{Tool: "mcp__filesystem__read_file", Args: map[string]any{"path": "key"},
				Cwd: "secrets", WorkingDir: "memory"},
			forms(ruled(Deny, 11, "secrets/key"), 3)},
		{"relative: every base allowed", "",
			Call{Tool: "Read", Args: map[string]any{"file_path": "a"}, Cwd: "memory"},
			forms(ruled(Allow, 9, "memory/a"), 2)},
		// ~ as the tool expands it, and as a name.
		{"~ expanded", "",
			Call{Tool: "Read", Args: map[string]any{"file_path": "~/../../secrets/key"}},
			forms(ruled(Deny, 11, "secrets/key"), 2)},
		{"~ alone", "", Call{Tool: "Read", Args: map[string]any{"file_path": "~"}},
			forms(ruled(Allow, 21, "~"), 2)},
		{"~ expanded, allowed", "", Call{Tool: "Read", Args: map[string]any{"file_path": "~/b"}},
			forms(ruled(Allow, 21, "~/b"), 2)},
		{"~user cannot be resolved", "",
			Call{Tool: "Read", Args: map[string]any{"file_path": "~root/x"}},
			locked(0, ReasonBadPath, 2)},
		// file: URIs are decoded.
		{"file URI", "", mcpRead(map[string]any{"path": "file://" + root + "/secrets/key"}),
			forms(ruled(Deny, 11, "secrets/key"), 1)},
		{"file URI, percent-encoded", "",
			mcpRead(map[string]any{"path": "file://localhost" + root + "/secr%65ts/key"}),
			forms(ruled(Deny, 11, "secrets/key"), 1)},
		{"file URI of another host", "", mcpRead(map[string]any{"path": "file://h" + root + "/x"}),
			locked(0, ReasonBadPath, 1)},
		{"file URI, relative", "", mcpRead(map[string]any{"path": "file:x"}),
			locked(0, ReasonBadPath, 1)},
		// Globs: every alternative of the braces; ".." after a wildcard reaches anywhere.
		{"a brace before ..", "",
			Call{Tool: "Glob",
				Args: map[string]any{"pattern": "{../secrets,x}/*", "path": "memory"}},
			forms(ruled(Deny, 11, "secrets"), 3)},
		{"nested braces", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "memory/{a,{b,../secrets}}/*"}},
			forms(ruled(Deny, 11, "secrets"), 3)},
		{"a wildcard before ..", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "*/../../secrets/*"}},
			locked(0, ReasonBadPath, 1)},
		{"Grep: ** before ..", "", Call{Tool: "Grep", Args: map[string]any{"glob": "**/../x"}},
			locked(0, ReasonBadPath, 1)},
		{"too many alternatives", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": strings.Repeat("{a,b}", 7) + "/*"}},
			locked(0, ReasonBadPath, 1)},
		{"braces, every alternative allowed", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "memory/{a,b}/*.go"}},
			forms(ruled(Allow, 9, "memory/a"), 2)},
		{"an unbalanced brace is literal", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "memory/{a/*"}},
			forms(ruled(Allow, 9, "memory"), 1)},
		{".. before the wildcard is a path", "",
			Call{Tool: "Glob", Args: map[string]any{"pattern": "memory/../docs/*"}},
			forms(ruled(Allow, 21, "docs"), 1)},
	})
}

// TestEvaluateScannedStrings: outside the path arguments, a string anywhere in the
// arguments, or a word of it, that names, lies in or (for a tool outside the file
// classes) holds a protected or denied place locks the call.
func TestEvaluateScannedStrings(t *testing.T) {
	s, root := formsSet(t)
	denied := inPlace(ReasonDenied, "secrets", "secrets/key")
	unres := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
	notes := func(args map[string]any) Call { return Call{Tool: "mcp__notes__read", Args: args} }
	cases := []evalCase{
		{"nested object", "",
			notes(map[string]any{"opts": map[string]any{"path": "secrets/key"}}), denied},
		{"objects in an array", "",
			notes(map[string]any{"files": []any{map[string]any{"path": "secrets/key"}}}), denied},
		{"a file URI", "",
			Call{Tool: "WebFetch", Args: map[string]any{"url": "file://" + root + "/secrets/key"}},
			denied},
		{"a file URI in a path key", "",
			notes(map[string]any{"path": "file://" + root + "/secrets/key"}), forms(denied, 1)},
		{"the cleaned form", "", notes(map[string]any{"file": "lnk/../secrets/key"}), denied},
		{"~ expanded", "", notes(map[string]any{"file": "~/../../secrets/key"}), denied},
		{"a protected place", "", notes(map[string]any{"file": root + "/state/skald.db"}),
			protected("state/skald.db")},
		{"a protected place, a file tool's other key", "",
			Call{Tool: "Edit",
				Args: map[string]any{"file_path": "memory/x",
					"new_string": root + "/state/skald.db"}},
			forms(inPlace(ReasonInProtected, "state", "state/skald.db"), 1)},
		{"a file tool's other key", "",
			Call{Tool: "Edit",
				Args: map[string]any{"file_path": "memory/x", "new_string": "./secrets/key"}},
			forms(denied, 1)},
		{"holding: .", "", notes(map[string]any{"q": "."}),
			inPlace(ReasonContains, "data/skald", ".")},
		{"holding: /", "", notes(map[string]any{"q": "/"}),
			inPlace(ReasonContains, "data/skald", "/")},
		{"holding: the root", "", notes(map[string]any{"root": root}),
			inPlace(ReasonContains, "data/skald", ".")},
		{"holding: data", "", notes(map[string]any{"p": "data"}),
			inPlace(ReasonContains, "data/skald", "data")},
		{"a name without a slash", "", notes(map[string]any{"q": "secrets"}),
			inPlace(ReasonDenied, "secrets", "secrets")},
		{"a command", "", notes(map[string]any{"cmd": "cat secrets/key"}), denied},
		{"an option's value", "", notes(map[string]any{"x": "--file=secrets/key"}), denied},
		{"an assignment", "", notes(map[string]any{"x": "a=secrets/key"}), denied},
		{"in parentheses", "", notes(map[string]any{"x": "(secrets/key)"}), denied},
		{"quoted, in a list", "", notes(map[string]any{"x": `a,"secrets/key";b`}), denied},
		{"a long text", "",
			notes(map[string]any{"x": strings.Repeat("word ", maxScanLen) + "secrets/key"}),
			denied},
		{"a glob", "", notes(map[string]any{"p": root + "/secret?/key"}),
			inPlace(ReasonContains, "data/skald", ".")},
		{"a glob in a place", "", notes(map[string]any{"p": "secrets/*"}),
			inPlace(ReasonDenied, "secrets", "secrets")},
		{"a file tool's other key holding", "",
			Call{Tool: "Edit",
				Args: map[string]any{"file_path": "memory/x", "new_string": ". / secrets"}},
			forms(inPlace(ReasonDenied, "secrets", "secrets"), 1)},
		{"a file tool's other key holding nothing", "",
			Call{Tool: "Edit", Args: map[string]any{"file_path": "memory/x", "new_string": ". /"}},
			forms(ruled(Allow, 9, "memory/x"), 1)},
		{"words", "", notes(map[string]any{"q": "hello world: secretsx, keys"}),
			ruled(Allow, 20, "")},
		{"a command substitution", "", notes(map[string]any{"q": "`cat secrets/key`"}), denied},
		{"elsewhere", "", notes(map[string]any{"file": "memory/a", "n": 3.0, "ok": true}),
			ruled(Allow, 20, "")},
		// A word the scan cannot read that a tool could turn into a path: unresolvable.
		{"an unreadable long path", "",
			notes(map[string]any{"f": strings.Repeat("a/../", 900) + "secrets/key"}),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}},
		{"an unreadable run of slashes", "",
			notes(map[string]any{"f": strings.Repeat("/", maxScanLen) + root + "/secrets/key"}),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}},
		{"a NUL in a path", "", notes(map[string]any{"f": "secrets/key\x00"}),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}},
		{"a NUL after a name", "", notes(map[string]any{"f": "secrets\x00"}),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}},
		{"a NUL in prose", "", notes(map[string]any{"f": "hello\x00 world"}),
			ruled(Allow, 20, "")},
		{"a long word of prose", "",
			notes(map[string]any{"f": strings.Repeat("x", maxScanLen+1)}), ruled(Allow, 20, "")},
		{"too deep", "", notes(deep(maxScanDepth + 2)),
			Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}},
		// A word whose place differs for the service and the tool, or that the service
		// cannot resolve, is the tool's to know: unresolvable; in a file tool's
		// contents it is only text.
		{"/proc/self", "", notes(map[string]any{"q": "/proc/self/cwd/secrets/key"}), unres},
		{"/proc/self in a command", "", notes(map[string]any{"q": "cat /proc/self/root/etc/x"}),
			unres},
		{"/dev/fd", "", notes(map[string]any{"q": []any{"/dev/fd/3"}}), unres},
		{"/proc/<pid>", "", notes(map[string]any{"q": "/proc/1/cwd"}), unres},
		{"/proc, no process's own", "", notes(map[string]any{"q": "see /proc/cpuinfo"}),
			ruled(Allow, 20, "")},
		{"/proc/self in a file tool's contents", "",
			Call{Tool: "Edit", Args: map[string]any{"file_path": "memory/x",
				"new_string": "cat /proc/self/cwd/secrets/key"}},
			forms(ruled(Allow, 9, "memory/x"), 1)},
	}
	// A word a tool may expand into a path: unresolvable, still deniable.
	bad := Decision{Action: Require, Reason: ReasonBadPath, PathState: PathInvalid}
	for _, v := range []string{"cat $PWD/secrets/key", `cat se\crets/key`, `se\crets`,
		"${HOME}/x", "$(pwd)/k", `%USERPROFILE%\.ssh`, `..\secrets\key`,
		"~root/.ssh/id_rsa", "~+/x", "file:secrets/key", "file://host/x", "secr%65ts/key",
		"%2e%2e%2fx", "secrets$X", "$X..", "-f=${X"} {
		cases = append(cases, evalCase{"expands: " + v, "", notes(map[string]any{"q": v}), bad})
	}
	for _, v := range []string{"costs $5/month, 50% off", "use $PATH", `C:\Program Files`,
		"https://example.com/a%20b", `\d+ items`, "$X.", "~5 min", "100%", "$"} {
		cases = append(cases,
			evalCase{"expands nothing: " + v, "", notes(map[string]any{"q": v}),
				ruled(Allow, 20, "")})
	}
	// An option spelt with look-alike letters: what the tool reads is not what a human does.
	for _, v := range []string{"--оutput=x", "run －－force", "−rf"} {
		cases = append(cases, evalCase{"look-alike: " + v, "", notes(map[string]any{"q": v}), bad})
	}
	cases = append(cases,
		evalCase{"foreign text", "", notes(map[string]any{"q": "-привет, мир — да"}),
			ruled(Allow, 20, "")})
	// A file tool's other keys are contents: it expands nothing in them.
	cases = append(cases, evalCase{"a file tool's contents expand nothing", "",
		Call{Tool: "Edit",
			Args: map[string]any{"file_path": "memory/x",
				"new_string": "PATH=$HOME/bin:$PATH sort --оutput=x"}},
		forms(ruled(Allow, 9, "memory/x"), 1)})
	// The home directory's variable alone is ~: here memory/a, and it holds nothing.
	for _, v := range []string{"x=${HOME}", "$HOME", "%USERPROFILE%"} {
		cases = append(cases,
			evalCase{"home: " + v, "", notes(map[string]any{"q": v}), ruled(Allow, 20, "")})
	}
	cases = append(cases, evalCase{"expands, beside a protected path", "",
		notes(map[string]any{"dir": "state", "q": "$HOME/x"}),
		Decision{Action: Deny, Reason: ReasonProtected, Path: "state", PathState: PathOK,
			Paths: 1}})
	for _, k := range []string{"file", "filename", "uri", "src", "from", "to"} {
		cases = append(cases,
			evalCase{"key " + k, "", notes(map[string]any{k: "secrets/key"}), denied})
	}
	runEvalCases(t, s, cases)
}

// TestEvaluateShellWords: a string is read as a shell joins its words too — quotes
// removed, escapes and $'…' decoded, braces expanded — and a word holding a
// substitution that could name a path is unresolvable; prose stays allowed.
func TestEvaluateShellWords(t *testing.T) {
	s, _ := formsSet(t)
	for _, tc := range []struct {
		q      string
		closed bool // deny or a locked require; else allowed
	}{
		{`cat "sec"rets/key`, true},
		{`cat se"cr"ets/key`, true},
		{`cat sec''rets/key`, true},
		{`cat sec""rets`, true},
		{`cat {sec,x}rets/key`, true},
		{`cat sec{rets,x}/key`, true},
		{`cat $'\x73ecrets'/key`, true},
		{`cat $'\x73ecrets'`, true},
		{`cat $(printf c2VjcmV0cw==|base64 -d)/key`, true},
		// A substitution alone is a value the call does not say, like a variable alone;
		// glued to text that could complete a path or a place's name, it is not.
		{`cat $(cat data/nl)`, false},
		{"cat `cat data/nl`", false},
		{`cat "$(cat data/nl)"`, false},
		{`cat <(cat data/nl)`, false},
		{`cat $(printf c2VjcmV0cw==|base64 -d)`, false},
		{"Run `go test ./...` first", false},
		{`cat $(cat data/nl)/key`, true},
		{`cat $(cat secrets/key)`, true},
		{`$(echo sec)rets`, true},
		{"`echo sec`rets", true},
		{`$(printf sec)rets`, true},
		{`sec$(:)rets`, true},
		{`"$(echo sec)"rets`, true},
		{`${X}rets`, true},
		{`sec${X}ets`, true},
		{`$(date).log`, false},
		{`${X}-notes`, false},
		// A string a program hands to a shell again (sh -c, eval, ssh, su -c) is
		// read again, up to maxReread deep.
		{`bash -c 'cat sec"r"ets'`, true},
		{`sh -c "cat sec'r'ets"`, true},
		{`eval 'cat sec"r"ets'`, true},
		{`eval "cat se\"cr\"ets"`, true},
		{`bash -c $'cat sec\'r\'ets'`, true},
		{`su -c 'cat sec"r"ets'`, true},
		{`ssh host 'cat sec"r"ets'`, true},
		{`find docs -exec sh -c 'cat sec"r"ets' \;`, true},
		{`bash -c "bash -c 'cat sec\"r\"ets'"`, true},
		{`bash -c 'cat "$1"' _ "sec"rets`, true},
		{`bash -c 'echo "hello, world"'`, false},
		{`say "it is 'fine'"`, false},
		{nested(maxReread + 1), false}, // the string and maxReread inner ones
		{nested(maxReread + 2), true},
		// Globs: bash's extended ones too; a glob that may match a place's name reaches
		// it, one that may not lists its directory, and "[" globs only when closed.
		{`sec@(r)ets`, true},
		{`sec+(r)ets/key`, true},
		{`!(x)`, true},
		{`bash -c 'cat sec@(r)ets'`, true},
		{`sec?ets`, true},
		{`sec[r]ets`, true},
		{`sec[!x]ets/key`, true}, // "[!" negates, as "[^" does
		{`[!x]ecrets`, true},
		{`sec[!r]ets`, false}, // a secrets it never matches: lists "." only
		{`secre*`, true},
		{`wow!(really) no`, false},
		{`is it ready? yes`, false},
		{`see [1] and [2]`, false},
		{`[2, 3]`, false},
		{`[1/2] done`, false},
		{`{"a": [1, 2]}`, false},
		{`ls *.go`, false},
		{`ls */key`, true},
		{`ls secrets/*.go`, true},
		// cmd.exe: "^" escapes, %VAR:~n,m% and %VAR:a=b% expand.
		{`type sec^rets\key`, true},
		{`sec^rets`, true},
		{`2^10 = 1024`, false},
		{`up^`, false},
		{`sec^^rets^`, true}, // read again, as cmd /c would
		{`%X:~0,3%rets`, true},
		{`sec%X:a=b%ets`, true},
		{`%X:~0,3%.log`, false},
		// A sentence's dash is no look-alike option; a dash that spells one is.
		{`—fix the thing`, false},
		{`use –v for more`, false},
		{`x —-force`, true},
		{`x ––force`, true},
		{`x —fоrce`, true},
		{`cat "$X"/key`, true},
		{`cat secret{s..s}/key`, true},
		{`cat {r..t}ecrets/key`, true},
		{`cat {s..s}ecrets`, true},
		{`cat ${x-secrets}`, true},
		{`cat "${x:-secrets}"`, true},
		{`cat ${x:+secrets}`, true},
		{`cat ${x-sec}rets`, true},
		{`echo ${HOME:-x} {1..3}`, false},
		{`cat {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}`, true},
		{`it's "sec"rets/key`, true},
		{`it's "fine"`, false},
		{`costs $5, "really"`, false},
		{`{json: 1}`, false},
		{"run `ls` now", false},
		{`echo "hello, world"`, false},
	} {
		t.Run(tc.q, func(t *testing.T) {
			d := s.Evaluate(DefaultGroup, Call{Tool: "mcp__notes__read",
				Args: map[string]any{"cmd": tc.q}})
			if closed := d.Action == Deny || d.Locked(); closed != tc.closed {
				t.Errorf("Evaluate(%q) = %+v, want closed %v", tc.q, d, tc.closed)
			}
			if !tc.closed && d.Action != Allow {
				t.Errorf("Evaluate(%q) = %+v, want allow", tc.q, d)
			}
		})
	}
}

// nested is a harmless echo quoted n levels deep, each level escaped for the next.
func nested(n int) string {
	s := "echo hi"
	for range n {
		s = "sh -c " + strconv.Quote(s)
	}
	return s
}

// deep is an object nested n levels deep.
func deep(n int) map[string]any {
	m := map[string]any{"q": "x"}
	for range n {
		m = map[string]any{"o": m}
	}
	return m
}

// TestExpandBraces covers the alternatives of a glob's braces.
func TestExpandBraces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"a", []string{"a"}, true},
		{"{a,b}/c", []string{"a/c", "b/c"}, true},
		{"{a,{b,c}}", []string{"a", "b", "c"}, true},
		{"x{}y", []string{"xy"}, true},
		{`\{a,b}`, []string{`\{a,b}`}, true},
		{"{a", []string{"{a"}, true},
		{"{a{b,c}", []string{"{ab", "{ac"}, true},
		{strings.Repeat("{a,b}", 7), nil, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := expandBraces(tc.in, nil)
			if ok != tc.ok || ok && strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("expandBraces(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestNoHome: without a home directory, a path starting with ~/ cannot be resolved.
func TestNoHome(t *testing.T) {
	root := workspace(t)
	t.Setenv("HOME", "")
	s := Compile(nil,
		append(seedRules(),
			Rule{ID: 21, GroupID: DefaultGroup, ToolPattern: "@fs_read", Action: Allow,
				Priority: 100}),
		seedOptions(root))
	home := Call{Tool: "Read", Args: map[string]any{"file_path": "~/x"}}
	if d := s.Evaluate(DefaultGroup, home); !d.Locked() {
		t.Errorf("Read ~/x without a home → %+v, want locked", d)
	}
	if _, err := os.Stat(filepath.Join(root, "secrets")); err != nil {
		t.Fatal(err)
	}
}

// TestHomeWord: the home directory's variable alone stands for ~, so a home that holds
// the workspace holds its guarded places.
func TestHomeWord(t *testing.T) {
	root := workspace(t)
	t.Setenv("HOME", root)
	s := Compile(nil,
		append(seedRules(),
			Rule{ID: 20, GroupID: DefaultGroup, ToolPattern: "mcp__*", Action: Allow,
				Priority: 100}),
		seedOptions(root))
	for _, v := range []string{"$HOME", "--dir=${HOME}", "%USERPROFILE%"} {
		t.Run(v, func(t *testing.T) {
			c := Call{Tool: "mcp__notes__x", Args: map[string]any{"q": v}}
			if d := s.Evaluate(DefaultGroup, c); !d.Locked() || d.Contains == "" {
				t.Errorf("%q → %+v, want a locked require holding a place", v, d)
			}
		})
	}
}

// TestEvaluateBareWords: a plain name is a path in the directory a tool runs in — a
// symlink there leads where it points, and in a guarded place every name lies in it.
func TestEvaluateBareWords(t *testing.T) {
	s, root := formsSet(t)
	mustSymlink(t, "secrets/key", root+"/k")
	mustSymlink(t, "../secrets/x", root+"/docs/kx")
	mustSymlink(t, "../state", root+"/memory/st")
	denied := func(path string) Decision { return inPlace(ReasonDenied, "secrets", path) }
	allowed := ruled(Allow, 20, "")
	notes := func(cwd, wd string, args map[string]any) Call {
		return Call{Tool: "mcp__notes__x", Cwd: cwd, WorkingDir: wd, Args: args}
	}
	prose := strings.Repeat("a lot of words that name nothing here ", 20)
	runEvalCases(t, s, []evalCase{
		{"a link in the root", "", notes("", "", map[string]any{"arg": "k"}),
			denied("secrets/key")},
		{"a link in the root, a word of a text", "",
			notes("", "", map[string]any{"arg": "open k now"}), denied("secrets/key")},
		{"a link in the cwd", "", notes("docs", "", map[string]any{"arg": "kx"}),
			denied("secrets/x")},
		{"a link in the working directory", "",
			notes("", root+"/docs", map[string]any{"arg": "kx"}), denied("secrets/x")},
		{"a link to the data directory", "", notes("memory", "", map[string]any{"arg": "st"}),
			protected("state")},
		{"a link to an allowed place", "", notes("", "", map[string]any{"arg": "lnk"}), allowed},
		{"a link of another directory", "", notes("", "", map[string]any{"arg": "kx"}), allowed},
		{"run in secrets/: an entry", "", notes("secrets", "", map[string]any{"arg": "key"}),
			denied("secrets/key")},
		{"run in secrets/: a new name", "", notes("secrets", "", map[string]any{"arg": "new"}),
			denied("secrets/new")},
		{"run in secrets/ through a link", "", notes("data/link", "", map[string]any{"arg": "y"}),
			denied("secrets/x/y")},
		{"run elsewhere", "", notes("docs", "", map[string]any{"arg": "key"}), allowed},
		{"a long text", "", notes("", "", map[string]any{"arg": prose}), allowed},
		{"a long text, then a link", "", notes("", "", map[string]any{"arg": prose + "k"}),
			denied("secrets/key")},
	})
}

// TestEvaluateWebURL: a web tool's http(s) URL is read as a URL, by the host rules; its
// "?" is no glob holding "/" ("https://h?@evil.net"). A file: URL is still a path.
func TestEvaluateWebURL(t *testing.T) {
	s, root := formsSet(t)
	fetch := func(u string) Call { return Call{Tool: "WebFetch", Args: map[string]any{"url": u}} }
	want := s.Evaluate(DefaultGroup, fetch("https://xn--80ak6aa92e.com/a"))
	for _, u := range []string{"https://xn--80ak6aa92e.com?@evil.net",
		"https://xn--80ak6aa92e.com/*", "HTTPS://xn--80ak6aa92e.com/{a,b}/../secrets"} {
		t.Run(u, func(t *testing.T) {
			if d := s.Evaluate(DefaultGroup, fetch(u)); d != want {
				t.Errorf("Evaluate(%q) = %+v, want %+v", u, d, want)
			}
		})
	}
	if d := s.Evaluate(DefaultGroup, fetch("file://"+root+"/secrets/key")); d.Action == Allow ||
		d.Contains != "secrets" {
		t.Errorf("a file: URL = %+v, want it decided as secrets/key", d)
	}
}
