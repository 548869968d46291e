package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Resolve makes the configuration's paths absolute, reading the file system but
// writing nothing (Load calls it; call it yourself after Parse):
//   - WorkspaceRoot is made absolute (relative to the process's working directory)
//     and resolved through symlinks once (docs/design.md, "Normalising paths"); it
//     must be an existing directory;
//   - DataDir is made absolute, its existing part resolved through symlinks (it may
//     not exist yet: serve creates it);
//   - each profile's WorkingDirectory is joined to WorkspaceRoot when relative (empty
//     means WorkspaceRoot) and resolved the same way;
//   - File is set to file's absolute, resolved path when file is not empty.
//
// Errors wrap ErrInvalid (a *FieldError naming the key) or an I/O error.
func (c *Config) Resolve(file string) error {
	root, err := filepath.Abs(c.WorkspaceRoot)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return &FieldError{Key: "workspace_root", Value: c.WorkspaceRoot, Problem: ioProblem(err)}
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return &FieldError{Key: "workspace_root", Value: c.WorkspaceRoot, Problem: "not a directory"}
	}
	dataDir, err := resolveExisting(c.DataDir)
	if err != nil {
		return &FieldError{Key: "data_dir", Value: c.DataDir, Problem: ioProblem(err)}
	}
	if file != "" {
		f, err := resolveExisting(file)
		if err != nil {
			return fmt.Errorf("config: %s: %w", file, err)
		}
		c.File = f
	}
	dirs := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		wd := p.WorkingDirectory
		if !filepath.IsAbs(wd) {
			wd = filepath.Join(root, wd)
		}
		if dirs[i], err = resolveExisting(wd); err != nil {
			return &FieldError{Key: fmt.Sprintf("profiles[%d].working_directory", i), Value: p.WorkingDirectory, Problem: ioProblem(err)}
		}
	}
	c.WorkspaceRoot, c.DataDir = root, dataDir
	for i := range c.Profiles {
		c.Profiles[i].WorkingDirectory = dirs[i]
	}
	return nil
}

// resolveExisting returns path made absolute, with its longest existing prefix
// resolved through symlinks and the rest cleaned lexically.
func resolveExisting(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		r, err := filepath.EvalSymlinks(abs)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(abs)
		if !errors.Is(err, fs.ErrNotExist) || parent == abs {
			return "", err
		}
		rest = filepath.Join(filepath.Base(abs), rest)
		abs = parent
	}
}

// ioProblem words a file-system error for a FieldError, without the path (the
// FieldError names it).
func ioProblem(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "no such directory"
	}
	return err.Error()
}
