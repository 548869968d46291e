package cron

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skald-circle/skald-bot/rules"
)

// MaxOutput is how much of a step's output a run keeps, in bytes: the last 16 KiB.
const MaxOutput = 16 << 10

// Tool runs one kind of step. The built-ins are execute_cmd, read_file, write_file,
// list_files and http_request (Builtins); tests add their own through Options.Tools.
type Tool struct {
	// Check validates a step's arguments without running anything; Validate calls it
	// at start-up so a bad job refuses start-up. Nil accepts any arguments. Errors
	// should wrap ErrBadArgs.
	Check func(args map[string]any) error
	// Run executes the step and blocks until it is done or ctx ends (the run engine
	// cancels ctx when the service stops). A nil error is success. On failure it
	// still returns what it has: the output so far and an exit code. The engine keeps
	// only the last MaxOutput bytes of Output and recovers a panic (the step fails).
	Run func(ctx context.Context, env Env, args map[string]any) (Result, error)
}

// Env is where a step runs.
type Env struct {
	// Root is the workspace root, absolute and resolved through symlinks.
	Root string
	// WorkDir is the profile's working directory, absolute: relative paths resolve
	// against it.
	WorkDir string
	// Answers are the answers of the run's earlier ask_user steps as environment
	// entries ("SKALD_ANSWER_1=main", …; see AskUserTool), for execute_cmd.
	Answers []string
}

// Result is what a step produced.
type Result struct {
	// ExitCode is execute_cmd's exit status (-1 when it was killed or never started);
	// for the other built-ins 0 on success and 1 on failure (http_request: the HTTP
	// status when it is 400 or more).
	ExitCode int
	// Output is what the step printed or read.
	Output string
}

// Builtins returns the built-in tools, by name: execute_cmd {cmd, timeout?,
// cwd?}, read_file {path}, write_file {path, content}, list_files {path} and
// http_request {method, url, headers?, body?, timeout?}. A new map on every call.
func Builtins() map[string]Tool {
	return map[string]Tool{
		"execute_cmd":  {Check: checkExec, Run: runExec},
		"read_file":    {Check: checkReadFile, Run: runReadFile},
		"write_file":   {Check: checkWriteFile, Run: runWriteFile},
		"list_files":   {Check: checkListFiles, Run: runListFiles},
		"http_request": {Check: checkHTTP, Run: runHTTP},
	}
}

// resolve returns the absolute path a step's path argument names: relative to the
// working directory, resolved as the rules resolve it (docs/design.md, "Normalising
// paths"). A resolved path inside a directory named secrets is refused with ErrSecrets.
// Other errors wrap ErrBadArgs.
func (env Env) resolve(p string) (string, error) {
	n, err := rules.Normalize(p, env.WorkDir, env.Root)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadArgs, err)
	}
	if inSecrets(n) {
		return "", fmt.Errorf("path %q: %w", p, ErrSecrets)
	}
	if n == "." {
		return env.Root, nil
	}
	if !filepath.IsAbs(n) {
		return filepath.Join(env.Root, filepath.FromSlash(n)), nil
	}
	return n, nil
}

// inSecrets reports whether the normalised path n (relative to the workspace root, or
// absolute outside it) has a component named secrets.
func inSecrets(n string) bool {
	for c := range strings.SplitSeq(filepath.ToSlash(n), "/") {
		if c == "secrets" {
			return true
		}
	}
	return false
}

// tail is an io.Writer that keeps the last MaxOutput bytes written to it. Not safe
// for concurrent use: exec gives it one writer at a time.
type tail struct {
	buf []byte
	// cut is set once bytes before buf were dropped (or never read), so buf may start
	// inside a character.
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= MaxOutput {
		t.buf = append(t.buf[:0], p[len(p)-MaxOutput:]...)
		t.cut = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - MaxOutput; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns what was kept, starting at a character boundary.
func (t *tail) String() string {
	if t.cut {
		return trimPartial(string(t.buf))
	}
	return string(t.buf)
}

// lastBytes returns the last max bytes of s, starting at a character boundary.
func lastBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return trimPartial(s[len(s)-max:])
}

// trimPartial drops the bytes of a character cut at the start of s (at most
// utf8.UTFMax-1 continuation bytes).
func trimPartial(s string) string {
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// argString returns args[key] as a string: ok false when absent or null, an error
// wrapping ErrBadArgs when it is not a string.
func argString(args map[string]any, key string) (s string, ok bool, err error) {
	v, present := args[key]
	if !present || v == nil {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, fmt.Errorf("%w: %s must be a string, not %T", ErrBadArgs, key, v)
	}
	return s, true, nil
}

// needString is argString for a required, non-empty argument.
func needString(args map[string]any, key string) (string, error) {
	s, ok, err := argString(args, key)
	switch {
	case err != nil:
		return "", err
	case !ok || s == "":
		return "", fmt.Errorf("%w: %s is required", ErrBadArgs, key)
	}
	return s, nil
}

// argTimeout returns args["timeout"]: a Go duration string ("30s", "10m") or a number
// of seconds; def when absent. It must be positive.
func argTimeout(args map[string]any, def time.Duration) (time.Duration, error) {
	v, present := args["timeout"]
	if !present || v == nil {
		return def, nil
	}
	var d time.Duration
	switch t := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(t); err != nil {
			return 0, fmt.Errorf("%w: timeout %q is not a duration (use 30s, 10m)", ErrBadArgs, t)
		}
	case int:
		d = time.Duration(t) * time.Second
	case int64:
		d = time.Duration(t) * time.Second
	case uint64:
		d = time.Duration(t) * time.Second
	case float64:
		d = time.Duration(t * float64(time.Second))
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return 0, fmt.Errorf("%w: timeout %s is not a number of seconds", ErrBadArgs, t)
		}
		d = time.Duration(f * float64(time.Second))
	default:
		return 0, fmt.Errorf("%w: timeout must be a duration such as 30s, not %T", ErrBadArgs, v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: timeout %v must be positive", ErrBadArgs, v)
	}
	return d, nil
}

// checkKeys refuses an argument not in allowed, so a typo fails at start-up.
func checkKeys(args map[string]any, allowed ...string) error {
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("%w: unknown argument %q (want %s)",
				ErrBadArgs, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}
