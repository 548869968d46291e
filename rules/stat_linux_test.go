package rules

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// TestLstat checks lstat against syscall.Lstat for a file, a symlink, a missing
// name, a file used as a directory, a path too long for the stack buffer and one with
// a NUL byte.
func TestLstat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	testkit.Must(t, os.WriteFile(file, []byte("x"), 0o600))
	testkit.Must(t, os.Symlink("f", filepath.Join(dir, "l")))
	long := dir + strings.Repeat("/.", 300) + "/f" // over 512 bytes, still the file
	for _, tc := range []struct{ name, path string }{
		{"file", file},
		{"symlink", filepath.Join(dir, "l")},
		{"missing", filepath.Join(dir, "missing")},
		{"not a directory", file + "/x"},
		{"long", long},
		{"NUL", file + "\x00x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want syscall.Stat_t
			err := lstat(tc.path, &got)
			wantErr := syscall.Lstat(tc.path, &want)
			if err != wantErr {
				t.Fatalf("lstat = %v, syscall.Lstat = %v", err, wantErr)
			}
			if got != want {
				t.Errorf("lstat = %+v, want %+v", got, want)
			}
		})
	}
}
