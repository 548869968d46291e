package claudecode

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/skald-circle/skald-bot/rules"
)

// The priorities of translated rules: Claude Code decides deny first, then ask, then
// allow, whatever their order in the file.
const (
	DenyPriority    = rules.DefaultPriority - 20
	AskPriority     = rules.DefaultPriority - 10
	AllowPriority   = rules.DefaultPriority
	maxPermissionsN = 10000
)

// Translated is a rule made from a permission rule of a settings file.
type Translated struct {
	// From is the permission rule as written, with its list: `allow Bash(npm run *)`.
	From string
	Rule rules.Rule
}

// Skipped is a permission rule Translate could not turn into a rule, and why.
type Skipped struct {
	From   string
	Reason string
}

// Translate turns the permissions.allow, ask and deny lists of a Claude Code settings
// file into rules (docs/claude-code.md, "3. Import the project's permissions"): allow →
// allow, ask → require, deny → deny, at AllowPriority, AskPriority and DenyPriority so that the
// lists keep Claude Code's order. file is the settings file's absolute path: a path
// rule "/x" is relative to the project holding its .claude directory (else to file's
// directory); home is the directory "~" stands for ("" makes "~" rules untranslatable).
// A rule written twice is translated once. Every rule it cannot translate is in
// skipped with the reason. Errors: ErrMalformed for a file that is not a JSON object,
// or whose permissions or lists are not shaped as Claude Code reads them.
func Translate(data []byte, file, home string) (out []Translated, skipped []Skipped, err error) {
	var doc struct {
		Permissions json.RawMessage `json:"permissions"`
	}
	if _, err := parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %v", file, ErrMalformed, syntaxProblem(data, err))
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %v", file, ErrMalformed, err)
	}
	var perms map[string]json.RawMessage
	if doc.Permissions != nil && json.Unmarshal(doc.Permissions, &perms) != nil {
		return nil, nil, fmt.Errorf("%s: %w: permissions is not an object", file, ErrMalformed)
	}
	t := translator{base: filepath.ToSlash(ProjectDir(file)), home: filepath.ToSlash(home)}
	seen := map[string]bool{}
	for _, list := range []string{"deny", "ask", "allow"} {
		raw, ok := perms[list]
		if !ok || string(raw) == "null" {
			continue
		}
		var entries []string
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: permissions.%s is not a list of strings", file,
				ErrMalformed, list)
		}
		for _, e := range entries {
			from := list + " " + e
			if seen[from] {
				continue
			}
			seen[from] = true
			r, reason := t.entry(list, strings.TrimSpace(e))
			if reason == "" {
				err := rules.Validate(r)
				if err == nil {
					err = rules.CheckShellRule(r, nil)
				}
				if err == nil {
					err = rules.CheckHostRule(r, nil)
				}
				if err != nil {
					reason = strings.TrimPrefix(err.Error(), "rules: ")
				}
			}
			if reason != "" {
				skipped = append(skipped, Skipped{From: from, Reason: reason})
				continue
			}
			out = append(out, Translated{From: from, Rule: r})
		}
	}
	if len(out)+len(skipped) > maxPermissionsN {
		return nil, nil, fmt.Errorf("%s: %w: more than %d permission rules", file, ErrMalformed,
			maxPermissionsN)
	}
	return out, skipped, nil
}

// ProjectDir returns the project a settings file at the absolute path file belongs to:
// the directory holding its .claude directory, else the file's own directory.
func ProjectDir(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) == ".claude" {
		return filepath.Dir(dir)
	}
	return dir
}

// translator translates the entries of one settings file.
type translator struct {
	base string // the directory "/x" path rules are relative to, with / separators
	home string // "~"; "" for none
}

var (
	bareTool  = regexp.MustCompile(`^[A-Za-z0-9_.-]+\*?$`)
	bashField = regexp.MustCompile(
		`^(command|description|timeout|run_in_background|dangerouslyDisableSandbox):`)
	assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	manySpaces = regexp.MustCompile(`\s+`)
)

// shellKeywords start the fragments of compound commands that Claude Code saves as
// rules ("Bash(do)", "Bash(for f in …)"): no simple command begins with one.
var shellKeywords = []string{"for", "do", "done", "if", "then", "else", "elif", "fi", "while",
	"until", "case", "esac", "in", "function", "select", "{", "}", "!", "[[", "]]", "time"}

// entry translates one permission rule of list (allow, ask or deny), or says why not.
func (t translator) entry(list, e string) (rules.Rule, string) {
	r := rules.Rule{GroupID: rules.DefaultGroup}
	switch list {
	case "allow":
		r.Action, r.Priority = rules.Allow, AllowPriority
	case "ask":
		r.Action, r.Priority = rules.Require, AskPriority
	default:
		r.Action, r.Priority = rules.Deny, DenyPriority
	}
	tool, spec, hasSpec := strings.Cut(e, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return r, "no closing parenthesis"
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if spec == "*" || hasSpec && spec == "" {
		hasSpec = false // Tool(*) is every use of Tool
	}
	switch tool {
	case "Bash":
		r.ToolPattern = "Bash"
		if hasSpec {
			cmd, reason := bashPattern(spec)
			if reason != "" {
				return r, reason
			}
			r.CommandPattern = cmd
		}
		return r, ""
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit":
		r.ToolPattern = "@fs_write"
		if tool == "Read" {
			r.ToolPattern = "@fs_read"
			if list == "deny" {
				r.ToolPattern = "@fs_any" // a Read deny also blocks editing the path
			}
		}
		if hasSpec {
			p, reason := t.pathPattern(list, spec)
			if reason != "" {
				return r, reason
			}
			r.PathPattern = p
		}
		return r, ""
	case "WebFetch":
		r.ToolPattern = "WebFetch"
		if !hasSpec {
			return r, ""
		}
		host, ok := strings.CutPrefix(spec, "domain:")
		switch {
		case !ok:
			return r, "skald-bot matches a WebFetch URL by its host only (domain:…)"
		case host == "*" && list != "allow":
			return r, "" // every fetch: asking or refusing also what is no http(s) URL is safe
		}
		r.HostPattern = host // exact, *.X the subdomains, * every host: as Claude Code
		return r, ""
	}
	if hasSpec {
		return r, fmt.Sprintf("skald-bot rules cannot match the arguments of %s", tool)
	}
	if !bareTool.MatchString(tool) && tool != "*" {
		return r, "not a tool name"
	}
	if rest, ok := strings.CutPrefix(tool, "mcp__"); ok && !strings.Contains(rest, "__") &&
		!strings.HasSuffix(rest, "*") {
		tool += "__*" // mcp__server is every tool of the server
	}
	r.ToolPattern = tool
	return r, ""
}

// bashPattern is the command_pattern of a Bash(spec) rule, or why there is none.
func bashPattern(spec string) (string, string) {
	spec = strings.TrimSpace(manySpaces.ReplaceAllString(spec, " "))
	first, _, _ := strings.Cut(spec, " ")
	switch {
	case bashField.MatchString(spec):
		return "", "matches an input field of Bash: skald-bot rules cannot"
	case slices.Contains(shellKeywords, first):
		return "", "a fragment of a compound command: skald-bot decides each simple command " +
			"of a script, so no rule is needed for it"
	case assignment.MatchString(first):
		return "", "begins with a variable assignment: skald-bot matches a command without " +
			"its assignments (write the rule without it if that is meant)"
	case strings.ContainsAny(spec, "$`"):
		return "", "holds a shell expansion: a command with one is never allowed by a pattern"
	case strings.ContainsAny(spec, `"'\`):
		return "", "holds quotes: skald-bot matches a command's words after quote removal " +
			"(write the command_pattern by hand)"
	case strings.ContainsAny(spec, ";&|<>()"):
		return "", "a compound command or a redirect: write a rule for each command"
	}
	if rest, ok := strings.CutSuffix(spec, ":*"); ok && rest != "" {
		spec = rest + " *" // Claude Code's older spelling of the trailing wildcard
	}
	return spec, ""
}

// pathPattern is the path_pattern of a Read(spec) or Edit(spec) rule of list, or why
// there is none. A pattern that would cover more than Claude Code's rule is refused
// for allow, and kept for ask and deny (asking or refusing more is safe).
func (t translator) pathPattern(list, spec string) (string, string) {
	if strings.Contains(spec, `\`) || len(spec) > 1 && spec[1] == ':' {
		return "", "a Windows path"
	}
	var p string
	switch {
	case strings.HasPrefix(spec, "//"):
		p = "/" + strings.TrimLeft(spec, "/")
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if t.home == "" {
			return "", "no home directory for ~"
		}
		p = t.home + spec[1:]
	case strings.HasPrefix(spec, "/"):
		p = t.base + spec // relative to the project of the settings file
	case strings.HasPrefix(spec, "./"):
		p = strings.TrimPrefix(spec, "./")
	default:
		seg, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(spec, "/**"), "/"), "/")
		if !strings.Contains(strings.TrimSuffix(spec, "/**"), "/") || seg == "**" {
			return "", "matches at any depth: skald-bot's path patterns start at the workspace " +
				"(write ./" + strings.TrimPrefix(spec, "**/") + " for its top level)"
		}
		p = spec
	}
	broader := func(pattern, what string) (string, string) {
		if list == "allow" {
			return "", what + ": skald-bot's pattern " + pattern + " would allow more"
		}
		return pattern, ""
	}
	wild := func(s string) bool { return strings.ContainsAny(s, "*?[]{}") }
	rest, subtree := strings.CutSuffix(p, "/**/*")
	if !subtree {
		rest, subtree = strings.CutSuffix(p, "/**")
	}
	if p == "**" || p == "/**" {
		rest, subtree = strings.TrimSuffix(p, "**"), true
	}
	if subtree && !wild(rest) {
		switch rest {
		case "":
			return "", "the whole working directory: a rule without a path, or the profile " +
				"fast-path, covers it"
		case "/":
			return "*", ""
		}
		return cleanPattern(rest) + "/*", ""
	}
	if !wild(p) {
		return cleanPattern(p), ""
	}
	dir, last := path.Split(p)
	if wild(dir) || strings.ContainsAny(last, "?[]{}") || strings.Count(last, "*") != 1 ||
		!strings.HasSuffix(last, "*") {
		return "", "a wildcard before the end of the pattern: skald-bot's path patterns are " +
			"a subtree (dir/*), a prefix (name*) or an exact path"
	}
	if last == "*" {
		return broader(cleanPattern(dir)+"/*", "only the entries directly in "+dir)
	}
	return broader(cleanPattern(p), "a name prefix within one directory")
}

// cleanPattern cleans a path (or a prefix pattern's path) lexically, keeping a
// trailing star.
func cleanPattern(p string) string {
	star := strings.HasSuffix(p, "*")
	p = strings.TrimSuffix(p, "*")
	trail := strings.HasSuffix(p, "/") && star
	c := path.Clean(p)
	if trail && c != "/" {
		c += "/"
	}
	if star {
		c += "*"
	}
	return c
}
