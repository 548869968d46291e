package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Resolve makes the configuration's paths absolute — relative ones to file's
// directory, else the process's — and resolves them through symlinks once
// (docs/design.md, "Normalising paths"), reading the file system and writing nothing
// (Load calls it; call it yourself after Parse). WorkspaceRoot and each profile's
// WorkspaceRoot must be existing directories, no two the same; only DataDir's existing
// part is resolved (serve creates the rest); a relative or empty WorkingDirectory is
// joined to its profile's workspace; File is set to file's resolved path when file is
// not empty. Errors join every problem, each wrapping ErrInvalid (a *FieldError naming
// the key) or an I/O error; on error c is left as it was.
func (c *Config) Resolve(file string) error {
	var errs []error
	bad := func(key, value, problem string) {
		errs = append(errs, &FieldError{Key: key, Value: value, Problem: problem})
	}
	root, err := filepath.Abs(besideFile(file, c.WorkspaceRoot))
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		bad("workspace_root", c.WorkspaceRoot, ioProblem(err))
		root = ""
	} else if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		bad("workspace_root", c.WorkspaceRoot, "not a directory")
		root = ""
	}
	dataDir, err := resolveExisting(besideFile(file, c.DataDir))
	if err != nil {
		bad("data_dir", c.DataDir, ioProblem(err))
	}
	var f string
	if file != "" {
		if f, err = resolveExisting(file); err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %w", file, err))
		}
	}
	roots, rerrs := c.profileRoots(file, root)
	errs = append(errs, rerrs...)
	dirs := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		wd, base := p.WorkingDirectory, cmp.Or(roots[i], root)
		if !filepath.IsAbs(wd) {
			if base == "" || (p.WorkspaceRoot != "" && roots[i] == "") {
				continue // its workspace is reported already
			}
			wd = filepath.Join(base, wd)
		}
		if dirs[i], err = resolveExisting(wd); err != nil {
			bad(fmt.Sprintf("profiles[%d].working_directory", i), p.WorkingDirectory,
				ioProblem(err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	c.WorkspaceRoot, c.DataDir, c.File = root, dataDir, cmp.Or(f, c.File)
	for i := range c.Profiles {
		c.Profiles[i].WorkingDirectory = dirs[i]
		c.Profiles[i].WorkspaceRoot = roots[i]
	}
	return nil
}

// profileRoots returns each profile's workspace_root made absolute — relative to the
// directory of file, else of the process — and resolved through symlinks; "" for a
// profile that names none or whose root is a problem. Each must be an existing
// directory, other than root (the top-level workspace) and every other profile's; the
// problems are returned, one per profile.
func (c *Config) profileRoots(file, root string) ([]string, []error) {
	out := make([]string, len(c.Profiles))
	owner := map[string]int{}
	var errs []error
	for i, p := range c.Profiles {
		if p.WorkspaceRoot == "" {
			continue
		}
		key := fmt.Sprintf("profiles[%d].workspace_root", i)
		bad := func(problem string) {
			errs = append(errs, &FieldError{Key: key, Value: p.WorkspaceRoot, Problem: problem})
		}
		abs, err := filepath.Abs(besideFile(file, p.WorkspaceRoot))
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			bad(ioProblem(err))
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			bad("not a directory")
			continue
		}
		if abs == root {
			bad("is the top-level workspace_root (leave it out)")
			continue
		}
		if j, dup := owner[abs]; dup {
			bad(fmt.Sprintf("is also the workspace of profile %q (profiles[%d])",
				c.Profiles[j].ID, j))
			continue
		}
		owner[abs] = i
		out[i] = abs
	}
	return out, errs
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

// besideFile is path relative to the directory of the configuration file, when path is
// relative and file is not empty; else path.
func besideFile(file, path string) string {
	if file == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(file), path)
}
