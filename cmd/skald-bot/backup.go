package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skald-circle/skald-bot/api"
	"github.com/skald-circle/skald-bot/store"
)

func newBackupCmd(conn *connection) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Copy the running service's database to FILE",
		Long: `Downloads a consistent copy of the running service's database and writes it to FILE.
The service keeps working while the copy is taken; the copy holds everything
committed before it started. Needs the admin token.

The copy is written to FILE.tmp, flushed to disk and checked — a skald-bot database,
whole, every page consistent — before it is renamed to FILE: FILE is the whole
checked copy, or is not written at all. An existing FILE is kept unless --force.

To restore: stop the service, put FILE in place of data_dir/skald.db (mode 0600),
start it.

Exit status: 0 the copy is in FILE; 1 an error (FILE is not written); 2 a usage
error, such as an existing FILE without --force.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if err := checkBackupTarget(path, force); err != nil {
				return err
			}
			return adminCall(cmd, conn, func(c *api.Client) (map[string]any, error) {
				n, err := writeBackup(cmd.Context(), c, path, force)
				if err != nil {
					return nil, err
				}
				if err := syncDir(filepath.Dir(path)); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "skald-bot: warning: %s is written, "+
						"but its directory could not be flushed to disk: %v\n", path, err)
				}
				return map[string]any{"file": path, "bytes": n}, nil
			}, func(v map[string]any) {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d bytes, checked\n", path, v["bytes"])
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	cmd.Flags().BoolVar(&conn.json, "json", false, "print the file and its size as JSON")
	conn.flags(cmd, false)
	return cmd
}

// checkBackupTarget refuses, as a usageError, an empty FILE, one that names a
// directory (a trailing / included) or lies in a directory that does not exist, and
// one that exists when force is not set — before anything is downloaded.
func checkBackupTarget(path string, force bool) error {
	if path == "" || strings.HasSuffix(path, "/") {
		return usagef("backup: %q: name the file to write", path)
	}
	if dir := filepath.Dir(path); dir != "." {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("backup: %s: no such directory", dir)
		}
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("backup: %w", err)
	case fi.IsDir():
		return usagef("%s is a directory: name the file to write", path)
	case !force:
		return usagef("%s exists: give --force to replace it", path)
	}
	return nil
}

// writeBackup downloads the database copy with c into path+".tmp", flushes it to disk,
// checks it (store.Verify) and renames it to path; it returns the copy's size in
// bytes. On any error path.tmp is removed and path is left as it was. path.tmp must
// not exist (another backup may be writing it). Without force, a path that appeared
// during the download is kept, and the copy dropped.
func writeBackup(ctx context.Context, c *api.Client, path string,
	force bool) (n int64, err error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return 0, fmt.Errorf("backup: %s exists: another backup is writing it, "+
			"or one was interrupted (then remove it)", tmp)
	}
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if n, err = c.Backup(ctx, f); err != nil {
		return 0, err
	}
	if err = f.Sync(); err == nil {
		err = f.Close()
	}
	f = nil
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if err = store.Verify(tmp); err != nil {
		return 0, fmt.Errorf("backup: the copy does not check out: %w", err)
	}
	if !force {
		if _, serr := os.Lstat(path); serr == nil {
			return 0, fmt.Errorf("backup: %s appeared while the copy was written: "+
				"kept it, dropped the copy", path)
		}
	}
	if err = os.Rename(tmp, path); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}

// syncDir flushes the directory dir to disk, so a rename in it survives a power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
