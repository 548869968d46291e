package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/shell"
)

// Change says what InstallHook or UninstallHook did to a settings file.
type Change string

// The changes; their strings are what the command line prints.
const (
	Added            Change = "added"
	Updated          Change = "updated"
	AlreadyInstalled Change = "already installed"
	Removed          Change = "removed"
	NotInstalled     Change = "not installed"
)

// Hook is the PreToolUse command hook to install: Command runs the hook (skald-bot's
// `hook claude-code` with its flags, quoted for the shell), Timeout is Claude Code's
// limit for it in seconds.
type Hook struct {
	Command string
	Timeout int
}

// IsOurs reports whether a hook command runs skald-bot's Claude Code hook: its program's
// base name starts with "skald-bot" and its words hold "hook claude-code".
func IsOurs(command string) bool {
	words, err := shell.Fields(command, func(string) string { return "" })
	if err != nil || len(words) < 3 || !strings.HasPrefix(filepath.Base(words[0]), "skald-bot") {
		return false
	}
	for i := 1; i+1 < len(words); i++ {
		if words[i] == "hook" && words[i+1] == "claude-code" {
			return true
		}
	}
	return false
}

// InstallHook writes h into the settings file at path as the PreToolUse entry for
// every tool (matcher "*"), creating the file and its directory when absent. An entry
// whose command IsOurs is updated in place; every other key, hook and permission is
// kept, in its order; the file is written indented by two spaces, so installing twice
// gives the same bytes. It returns Added, Updated or AlreadyInstalled (nothing
// written). Errors: a file that is not a JSON object or whose hooks are not shaped as
// Claude Code reads them (ErrMalformed, naming the key), or an I/O error; the file is
// untouched then.
func InstallHook(path string, h Hook) (Change, error) {
	f, err := readHookFile(path)
	if err != nil {
		return "", err
	}
	doc, mode, hooks, pre, entries := f.doc, f.mode, f.hooks, f.pre, f.entries
	want := object{}
	setHook(&want, h)
	change := Added
	found := false
	for i, e := range entries {
		entry, list := e.obj, e.hooks
		kept := 0
		for j := range list {
			hk, err := parseObject(list[j])
			if err != nil || !ours(hk) {
				kept++
				continue
			}
			if found { // a second copy of ours: drop it
				list[j] = nil
				change = Updated
				continue
			}
			kept++
			found = true
			if !sameHook(hk, h) || !isAll(entry.get("matcher")) {
				change = Updated
			} else {
				change = AlreadyInstalled
			}
			setHook(&hk, h)
			list[j] = hk.marshal()
			entry.set("matcher", mustJSON("*"))
		}
		if kept == 0 && len(list) > 0 { // held only copies of ours
			pre[i] = nil
			continue
		}
		entry.set("hooks", marshalList(list))
		pre[i] = entry.marshal()
	}
	if change == AlreadyInstalled {
		return change, nil
	}
	if !found {
		entry := object{}
		entry.set("matcher", mustJSON("*"))
		entry.set("hooks", marshalList([]json.RawMessage{want.marshal()}))
		pre = append(pre, entry.marshal())
	}
	hooks.set("PreToolUse", marshalList(pre))
	doc.set("hooks", hooks.marshal())
	return change, writeSettings(path, doc, mode)
}

// UninstallHook removes from the settings file at path every PreToolUse hook whose
// command IsOurs, then the entries, the PreToolUse list and the hooks object that
// leaves empty; everything else is kept as InstallHook keeps it. It returns Removed, or
// NotInstalled (nothing written; also for a file that does not exist). Errors as
// InstallHook's.
func UninstallHook(path string) (Change, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return NotInstalled, nil
	}
	f, err := readHookFile(path)
	if err != nil {
		return "", err
	}
	doc, mode, hooks, pre, entries := f.doc, f.mode, f.hooks, f.pre, f.entries
	removed := false
	var keep []json.RawMessage
	for i, e := range entries {
		entry, list := e.obj, e.hooks
		n := len(list)
		list = slices.DeleteFunc(list, func(raw json.RawMessage) bool {
			hk, err := parseObject(raw)
			return err == nil && ours(hk)
		})
		if len(list) == n {
			keep = append(keep, pre[i])
			continue
		}
		removed = true
		if len(list) > 0 {
			entry.set("hooks", marshalList(list))
			keep = append(keep, entry.marshal())
		}
	}
	if !removed {
		return NotInstalled, nil
	}
	if len(keep) > 0 {
		hooks.set("PreToolUse", marshalList(keep))
	} else {
		hooks.del("PreToolUse")
	}
	if len(hooks.keys) > 0 {
		doc.set("hooks", hooks.marshal())
	} else {
		doc.del("hooks")
	}
	return Removed, writeSettings(path, doc, mode)
}

// ErrMalformed marks a settings file that is not shaped as Claude Code reads it.
var ErrMalformed = errors.New("malformed settings file")

// readSettings reads the settings file at path as an object: {} when it does not exist
// or holds only white space. mode is the file's, else 0644.
func readSettings(path string) (object, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return object{}, 0o644, nil
	}
	if err != nil {
		return object{}, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return object{}, 0, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return object{}, fi.Mode().Perm(), nil
	}
	doc, err := parseObject(data)
	if err != nil {
		return object{}, 0, fmt.Errorf("%s: %w: %v", path, ErrMalformed, syntaxProblem(data, err))
	}
	return doc, fi.Mode().Perm(), nil
}

// syntaxProblem words why data is not one JSON object: the decoder's syntax error with
// its line, else err.
func syntaxProblem(data []byte, err error) error {
	var v any
	jerr := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(jerr, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: %v", line, se)
	}
	return err
}

// preToolUse returns doc's hooks object and its PreToolUse list, each empty when absent.
func preToolUse(doc object) (object, []json.RawMessage, error) {
	hooks := object{}
	if raw := doc.get("hooks"); raw != nil {
		var err error
		if hooks, err = parseObject(raw); err != nil {
			return object{}, nil, fmt.Errorf("%w: hooks is not an object", ErrMalformed)
		}
	}
	var pre []json.RawMessage
	if raw := hooks.get("PreToolUse"); raw != nil {
		if err := json.Unmarshal(raw, &pre); err != nil {
			return object{}, nil, fmt.Errorf("%w: hooks.PreToolUse is not a list", ErrMalformed)
		}
	}
	return hooks, pre, nil
}

// entryHooks returns the hooks list of PreToolUse entry i.
func entryHooks(entry object, i int) ([]json.RawMessage, error) {
	var list []json.RawMessage
	if raw := entry.get("hooks"); raw != nil {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%w: hooks.PreToolUse[%d].hooks is not a list", ErrMalformed, i)
		}
	}
	return slices.DeleteFunc(list, func(r json.RawMessage) bool { return r == nil }), nil
}

// hookFile is a settings file read for a change to its PreToolUse hooks.
type hookFile struct {
	doc, hooks object // the file, and its hooks object ({} when absent)
	mode       fs.FileMode
	pre        []json.RawMessage // hooks.PreToolUse as read
	entries    []preEntry        // pre, parsed
}

// readHookFile reads the settings file at path (readSettings) and parses its hooks
// (preToolUse, parseEntries); errors as theirs, naming path.
func readHookFile(path string) (hookFile, error) {
	doc, mode, err := readSettings(path)
	if err != nil {
		return hookFile{}, err
	}
	hooks, pre, err := preToolUse(doc)
	if err != nil {
		return hookFile{}, fmt.Errorf("%s: %w", path, err)
	}
	entries, err := parseEntries(path, pre)
	if err != nil {
		return hookFile{}, err
	}
	return hookFile{doc: doc, hooks: hooks, mode: mode, pre: pre, entries: entries}, nil
}

// preEntry is a PreToolUse entry and its hooks list.
type preEntry struct {
	obj   object
	hooks []json.RawMessage
}

// parseEntries parses every entry of the PreToolUse list pre of the settings file at
// path; the error of the first malformed one names path and the entry (ErrMalformed).
func parseEntries(path string, pre []json.RawMessage) ([]preEntry, error) {
	es := make([]preEntry, len(pre))
	for i := range pre {
		entry, err := parseObject(pre[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w: hooks.PreToolUse[%d] is not an object", path,
				ErrMalformed, i)
		}
		list, err := entryHooks(entry, i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		es[i] = preEntry{entry, list}
	}
	return es, nil
}

// setHook makes hook object hk run h: a command hook with h's command and timeout.
func setHook(hk *object, h Hook) {
	hk.set("type", mustJSON("command"))
	hk.set("command", mustJSON(h.Command))
	hk.set("timeout", mustJSON(h.Timeout))
}

// ours reports whether a hook object is a command hook that IsOurs.
func ours(hk object) bool {
	var typ, cmd string
	return json.Unmarshal(hk.get("type"), &typ) == nil && typ == "command" &&
		json.Unmarshal(hk.get("command"), &cmd) == nil && IsOurs(cmd)
}

// sameHook reports whether a hook object already runs h with h's timeout.
func sameHook(hk object, h Hook) bool {
	var cmd string
	var timeout json.Number
	return json.Unmarshal(hk.get("command"), &cmd) == nil && cmd == h.Command &&
		json.Unmarshal(hk.get("timeout"), &timeout) == nil &&
		timeout.String() == fmt.Sprint(h.Timeout)
}

// isAll reports whether a matcher matches every tool: "*", "" or absent.
func isAll(raw json.RawMessage) bool {
	var m string
	return raw == nil || json.Unmarshal(raw, &m) == nil && m == "*"
}

// writeSettings writes doc to path, indented by two spaces with a final newline,
// through a temporary file in the same directory renamed over it.
func writeSettings(path string, doc object, mode fs.FileMode) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc.marshal(), "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".settings-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// object is a JSON object that keeps its keys in the order written.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject parses one JSON object (and nothing after it); of a key written twice
// the last value counts, at the first one's place.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return object{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return object{}, errors.New("not a JSON object")
	}
	o := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key := tok.(string) // the decoder allows only strings as keys
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return object{}, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return object{}, errors.New("more than one JSON value")
	}
	return o, nil
}

func (o *object) get(key string) json.RawMessage { return o.vals[key] }

func (o *object) set(key string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; ok {
		delete(o.vals, key)
		o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
	}
}

// marshal returns the object as compact JSON, its keys in order.
func (o *object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshalList returns the values as a JSON array.
func marshalList(vs []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for _, v := range vs {
		if v == nil {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
		n++
	}
	b.WriteByte(']')
	return b.Bytes()
}

// mustJSON encodes a string or a number, without HTML escapes.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and ints always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ProjectSettings are the settings files Claude Code reads in a project, relative to
// its root: the shared one first, which `skald-bot init` writes the hook into.
var ProjectSettings = []string{".claude/settings.json", ".claude/settings.local.json"}

// ManagedSettings is the settings file an administrator manages on Linux; it overrides
// every other.
const ManagedSettings = "/etc/claude-code/managed-settings.json"

// HookPrograms returns the program of each skald-bot hook (IsOurs) of the settings
// file at path, as its command names it (an absolute path, or a name the shell looks
// up), in order: nil when the file does not exist or has none. Errors: as InstallHook's
// for a file that cannot be read or is malformed.
func HookPrograms(path string) ([]string, error) {
	f, err := readHookFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range f.entries {
		for _, raw := range e.hooks {
			hk, err := parseObject(raw)
			if err != nil || !ours(hk) {
				continue
			}
			var cmd string
			if json.Unmarshal(hk.get("command"), &cmd) != nil {
				continue
			}
			words, err := shell.Fields(cmd, func(string) string { return "" })
			if err == nil && len(words) > 0 && !slices.Contains(out, words[0]) {
				out = append(out, words[0])
			}
		}
	}
	return out, nil
}

// CommandFiles returns the absolute files besides the settings that make Claude Code
// run commands (the MCP servers it starts): each of roots' .mcp.json, then the user's
// ~/.claude.json (skipped when home is empty). Nothing is read.
func CommandFiles(roots []string, home string) []string {
	var out []string
	for _, r := range roots {
		out = append(out, filepath.Join(r, ".mcp.json"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".claude.json"))
	}
	return out
}

// SettingsFiles returns the absolute settings files that configure Claude Code in
// each of roots (ProjectSettings), the user's under home (~/.claude/settings.json,
// skipped when home is empty) and ManagedSettings, in that order. Nothing is read.
func SettingsFiles(roots []string, home string) []string {
	var out []string
	for _, r := range roots {
		for _, f := range ProjectSettings {
			out = append(out, filepath.Join(r, f))
		}
	}
	if home != "" {
		out = append(out, filepath.Join(home, ProjectSettings[0]))
	}
	return append(out, ManagedSettings)
}
