package cron

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func checkPathOnly(args map[string]any) error {
	if err := checkKeys(args, "path"); err != nil {
		return err
	}
	_, err := needString(args, "path")
	return err
}

func checkReadFile(args map[string]any) error  { return checkPathOnly(args) }
func checkListFiles(args map[string]any) error { return checkPathOnly(args) }

func checkWriteFile(args map[string]any) error {
	if err := checkKeys(args, "path", "content"); err != nil {
		return err
	}
	if _, err := needString(args, "path"); err != nil {
		return err
	}
	if _, ok, err := argString(args, "content"); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: content is required", ErrBadArgs)
		}
		return err
	}
	return nil
}

// argPath checks args with check and resolves their path against env.
func argPath(env Env, args map[string]any, check func(map[string]any) error) (string, error) {
	if err := check(args); err != nil {
		return "", err
	}
	return env.resolve(args["path"].(string))
}

// failed is the Result of a built-in file or HTTP tool that failed.
var failed = Result{ExitCode: 1}

// runReadFile is read_file {path}: the file's content, its last MaxOutput bytes when
// it is longer (only those are read). A path in a secrets directory is refused.
func runReadFile(_ context.Context, env Env, args map[string]any) (Result, error) {
	p, err := argPath(env, args, checkReadFile)
	if err != nil {
		return failed, err
	}
	f, err := os.Open(p)
	if err != nil {
		return failed, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return failed, err
	}
	if fi.IsDir() {
		return failed, fmt.Errorf("%s is a directory (use list_files)", args["path"])
	}
	var out tail
	if fi.Size() > MaxOutput {
		if _, err := f.Seek(-MaxOutput, io.SeekEnd); err != nil {
			return failed, err
		}
		out.cut = true
	}
	if _, err := io.Copy(&out, f); err != nil {
		return failed, err
	}
	return Result{Output: out.String()}, nil
}

// runWriteFile is write_file {path, content}: it creates the missing parent
// directories (0755) and writes content to the file (0644), replacing it. A path in a
// secrets directory is refused.
func runWriteFile(_ context.Context, env Env, args map[string]any) (Result, error) {
	p, err := argPath(env, args, checkWriteFile)
	if err != nil {
		return failed, err
	}
	content := args["content"].(string)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return failed, err
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return failed, err
	}
	return Result{Output: fmt.Sprintf("wrote %d bytes to %s\n", len(content), args["path"])}, nil
}

// runListFiles is list_files {path}: the directory's entries, one a line, sorted,
// directories with a trailing "/". A directory named secrets, and a symlink that
// leads into one, is left out; listing a path inside one is refused.
func runListFiles(_ context.Context, env Env, args map[string]any) (Result, error) {
	p, err := argPath(env, args, checkListFiles)
	if err != nil {
		return failed, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return failed, err
	}
	var b strings.Builder
	for _, e := range entries {
		full := filepath.Join(p, e.Name())
		if _, err := env.resolve(full); err != nil {
			continue // secrets, or a path that cannot be resolved: not shown
		}
		b.WriteString(e.Name())
		if fi, err := os.Stat(full); err == nil && fi.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return Result{Output: lastBytes(b.String(), MaxOutput)}, nil
}
