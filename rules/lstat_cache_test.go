package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// TestLstatCache checks that a call's lstat cache answers for the file system as the
// call first saw it, past its inline entries, and that a new call's cache (each call
// takes a new one) sees a change made since.
func TestLstatCache(t *testing.T) {
	dir := t.TempDir()
	names := make([]string, 12) // more than the inline entries
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("f%d", i))
		testkit.Must(t, os.WriteFile(names[i], nil, 0o600))
	}
	var first lstatCache
	for _, n := range names {
		if link, err := first.lstat([]byte(n)); link || err != nil {
			t.Fatalf("lstat(%s) = %v, %v; want a file", n, link, err)
		}
	}
	for _, n := range names { // now symlinks
		testkit.Must(t, os.Remove(n))
		testkit.Must(t, os.Symlink("elsewhere", n))
	}
	missing := filepath.Join(dir, "missing")
	for _, n := range names {
		if link, err := first.lstat([]byte(n)); link || err != nil {
			t.Errorf("same call: lstat(%s) = %v, %v; want the cached file", n, link, err)
		}
	}
	if _, err := first.lstat([]byte(missing)); err != syscall.ENOENT {
		t.Errorf("lstat(missing) = %v, want ENOENT", err)
	}
	var next lstatCache
	for _, n := range names {
		if link, err := next.lstat([]byte(n)); !link || err != nil {
			t.Errorf("next call: lstat(%s) = %v, %v; want a symlink", n, link, err)
		}
	}
	var none *lstatCache // keeps nothing
	if link, err := none.lstat([]byte(names[0])); !link || err != nil {
		t.Errorf("nil cache: lstat = %v, %v; want a symlink", link, err)
	}
}
