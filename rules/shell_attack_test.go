package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skald-circle/skald-bot/internal/testkit"
)

// attackWorkspace is the workspace of the attack tables: a repository at the root
// (with .git/config) that holds secrets/, and src/p, a package of it.
func attackWorkspace(t *testing.T) (root string, s *Set) {
	t.Helper()
	root = workspace(t)
	gitDir(t, root, ".")
	testkit.Must(t, os.MkdirAll(filepath.Join(root, "src", "p"), 0o755))
	testkit.Must(t, os.WriteFile(filepath.Join(root, ".git", "config"), nil, 0o644))
	s = allowCommands(root, root+"/docs", nil, "cp *", "link *", "rsync *", "go *",
		"git status *", "git log *", "git reflog *", "git shortlog *", "git stash *",
		"git whatchanged *", "git add *", "wc *", "du *", "sort *", "find *", "tar *",
		"cat *", "head *", "grep *", "cd *")
	return root, s
}

// TestShellDevices: a device node (a disk, a console) is unresolvable, by name or
// through a link, for shell and file tools; null, zero, random and tty are not.
func TestShellDevices(t *testing.T) {
	root, s := attackWorkspace(t)
	dev := testkit.Device(t)
	mustSymlink(t, dev, filepath.Join(root, "data", "dv"))
	top := bashAt("")
	read := func(p string) Call { return Call{Tool: "Read", Args: map[string]any{"file_path": p}} }
	const (
		A = Allow
		R = Require
	)
	checkShell(t, s, []shellCase{
		{top("cat " + dev), R, true, "cannot be normalised"},
		{top("grep -a SECRET " + dev), R, true, "cannot be normalised"},
		{top("head -c 512 " + dev), R, true, "cannot be normalised"},
		{top("cat data/dv"), R, true, "cannot be normalised"},
		{top("cat < " + dev), R, true, "cannot be normalised"},
		{top("cd /dev && cat " + filepath.Base(dev)), R, true, "cannot be normalised"},
		{top("cat /dev/null"), A, false, ""},
		{top("head -c 8 /dev/zero"), A, false, ""},
		{top("head -c 8 /dev/urandom"), A, false, ""},
		{top("cat /dev/random /dev/tty"), A, false, ""},
	})
	for _, c := range []Call{read(dev), read("data/dv")} {
		if d := s.Evaluate(DefaultGroup, c); d.Action != Require || !d.Locked() {
			t.Errorf("Evaluate(%v) = %s (locked %v) %q, want a locked require", c.Args,
				d.Action, d.Locked(), d.Reason)
		}
	}
}

// TestShellAnsiCEscapes: a $'…' word with an escape the parser would read otherwise
// than bash (\cX, an octal escape above \377) is shown as written and allows nothing.
func TestShellAnsiCEscapes(t *testing.T) {
	_, s := attackWorkspace(t)
	top := bashAt("")
	const (
		A = Allow
		R = Require
	)
	checkShell(t, s, []shellCase{
		{top(`cat $'\cssecrets/key'`), R, false, "not read as bash"},
		{top(`cat $'\c?x'`), R, false, "not read as bash"},
		{top(`cat data/$'\cA'`), R, false, ""},
		{top(`cat $'\400'`), R, false, ""},
		{top(`cat $'\x64ata/file.txt'`), A, false, ""},
		{top(`cat $'\\cs'`), A, false, ""}, // the file \cs, as bash reads it
		{top(`cat $'data/file.txt\c'`), A, false, ""},
	})
}
