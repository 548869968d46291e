package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// gitWritesSet compiles the seeded rules and a Bash allow rule per pattern for a
// workspace whose root is a repository holding secrets/, with two more of their own:
// docs, holding the settings file that needs a human, and work, whose top (not what
// lies in it) a rule lets the agent write.
func gitWritesSet(t *testing.T, patterns ...string) (root string, s *Set) {
	t.Helper()
	root = workspace(t)
	gitDir(t, root, ".")
	gitDir(t, root, "docs")
	gitDir(t, root, "work")
	settings := filepath.Join(root, "docs/.claude/settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := seedOptions(root)
	opt.NeedsHuman = []string{settings}
	work := Rule{ID: 90, GroupID: DefaultGroup, ToolPattern: "@fs_write", PathPattern: "work",
		Action: Allow, Priority: 5}
	return root, Compile(nil, commandRules([]Rule{work}, patterns...), opt)
}

// TestShellGitPathspecWrites: git subcommands that write the files their pathspecs
// name are decided as writes of them, so a folder holding a place that needs a human
// is a locked require under allow git *, and a denied file is denied.
func TestShellGitPathspecWrites(t *testing.T) {
	_, s := gitWritesSet(t, "git *", "cd *")
	const place = "writes a place that needs a human: docs/.claude/settings.json"
	d, top := bashAt("docs"), bashAt("")
	checkShell(t, s, []shellCase{
		{d("git restore .claude"), R, true,
			`write ".claude" of command "git restore .claude" ` + place},
		{d("git restore --source=HEAD~3 -- .claude/settings.json"), R, true, place},
		{d("git restore -s HEAD~3 .claude"), R, true, place},
		{d("git restore --sou HEAD~3 -- .claude"), R, true, place},
		{d("git restore .claude --worktree"), R, true, place},
		{d("git restore -SW .claude"), R, true, place},
		{d("git restore --staged --worktree .claude"), R, true, place},
		{d("git restore --staged .claude"), A, false, ""}, // the index only
		{d("git rm -r .claude"), R, true, `write ".claude" of command "git rm -r .claude"`},
		{d("git rm -rf -- .claude/settings.json"), R, true, place},
		{d("git rm -r --cached .claude"), A, false, ""},
		{d("git checkout HEAD -- .claude"), R, true, place},
		{d("git checkout --quiet HEAD~2 -- .claude/settings.json"), R, true, place},
		{d("git checkout -- .claude"), R, true, place},
		{top("git checkout -- secrets/key"), D, false, `write "secrets/key"`},
		{top("git restore secrets"), D, false, `write "secrets"`},
		{d("git mv .claude x"), R, true, place},
		{d("git mv -f x .claude"), R, true, place},
		{d("git clean -fdx"), R, true, `write "." of command "git clean -fdx" ` + place},
		{d("git clean -f -d .claude"), R, true, place},
		{d("git clean -fd -e x -- .claude"), R, true, place},
		{d("git clean -n"), A, false, ""}, // a dry run lists them
		{d("git clean --dry-run -d"), A, false, ""},
		{top("git -C docs clean -fd"), R, true, place},
		{top("git -C docs restore .claude"), R, true, place},
		{top("cd docs && git rm -r .claude"), R, true, place},
		{d("git merge-file .claude/settings.json a b"), R, true, place},
		{d("git merge-file -p x a b"), A, false, ""},
		{d("git clone ../work .claude"), R, true, place},
		{d("git worktree add .claude"), R, true, place},
		{d("git worktree list"), A, false, ""},
		{d("git bundle create .claude/settings.json --all"), R, true, place},
		{d("git apply x.patch"), R, true, "lists the files"}, // blind: the patch names them
		{d("git am"), R, true, "reads the names of the files it writes"},
	})
}

// TestShellGitTreeWrites: git subcommands that rewrite the whole work tree (a branch
// checked out, a merge, a pull, a hard reset, a stash applied, an alias) are a write
// of the repository's top: where it holds a place that needs a human or a guarded
// one, a locked require; where the agent may write, allowed. Read-only git is not.
func TestShellGitTreeWrites(t *testing.T) {
	_, s := gitWritesSet(t, "git *", "cd *")
	const place = "writes a place that needs a human: docs/.claude/settings.json"
	d, top, work := bashAt("docs"), bashAt(""), bashAt("work")
	var tests []shellCase
	for _, script := range []string{"git checkout main", "git checkout -q main",
		"git checkout main --", "git checkout -b topic origin/main", "git checkout -f",
		"git checkout .", "git switch main", "git switch -c topic main",
		"git switch --orphan x", "git merge x", "git merge --abort", "git rebase x",
		"git pull", "git pull --rebase origin main", "git reset --hard",
		"git reset --hard HEAD~1", "git reset --har", "git reset --merge", "git reset --keep x",
		"git stash", "git stash -u", "git stash push -- x", "git stash pop", "git stash apply",
		"git cherry-pick x", "git revert HEAD", "git submodule update",
		"git sparse-checkout set x", "git read-tree -u HEAD", "git co main"} {
		tests = append(tests, shellCase{d(script), R, true, place})
	}
	tests = append(tests, []shellCase{
		{d("git checkout main"), R, true,
			`the work tree of command "git checkout main" ` + place},
		{top("git -C docs checkout main"), R, true, "the work tree"}, // and the root's
		{top("cd docs && git pull"), R, true, place},
		{bashAt("docs/.claude")("git reset --hard"), R, true, place}, // the repository's top
		{top("git checkout main"), R, true, `the work tree of command "git checkout main" holds`},
		// Where a rule lets the agent write the top, the write is allowed.
		{work("git checkout main"), A, false, ""},
		{work("git reset --hard HEAD~1"), A, false, ""},
		{work("git stash pop"), A, false, ""},
		{top("git -C work pull"), R, true, "holds"}, // the root's tree too
		// What keeps the work tree stays a matter of the command rules.
		{d("git checkout -b topic"), A, false, ""},
		{d("git checkout"), A, false, ""},
		{d("git switch -c topic"), A, false, ""},
		{d("git reset HEAD~1"), A, false, ""},
		{d("git reset -- x"), A, false, ""},
		{d("git stash list"), A, false, ""},
		{d("git stash drop"), A, false, ""},
		{d("git status"), A, false, `command "git status" allowed`},
		{d("git log --oneline"), A, false, ""},
		{d("git diff"), A, false, ""},
		{d("git show HEAD"), A, false, ""},
		{d("git branch -l"), A, false, ""},
		{d("git add .claude"), A, false, ""},
		{d("git commit -m x"), A, false, ""},
		{d("git fetch"), A, false, ""},
	}...)
	checkShell(t, s, tests)
}

// TestShellRemoversAndArchivers: programs that remove, overwrite or unpack what they
// name write it, searchers asked to follow symlinks are blind, and install -d and
// -D write their directories and destination.
func TestShellRemoversAndArchivers(t *testing.T) {
	_, s := gitWritesSet(t, "trash *", "trash-put *", "gio *", "srm *", "shred *",
		"wipe *", "ag *", "ack *", "fd *", "rg *", "7z *", "7z x *", "7z e *", "7z a *",
		"7z d *", "7z l *", "zip *", "zip -m *", "unzip *", "tar *", "install *", "rsync *")
	const place = "writes a place that needs a human: docs/.claude/settings.json"
	const follows = "follows the symlinks it meets"
	d, top := bashAt("docs"), bashAt("")
	checkShell(t, s, []shellCase{
		// Removals and overwrites of their operands.
		{d("trash .claude"), R, true, `write ".claude" of command "trash .claude" ` + place},
		{d("trash -- .claude"), R, true, place},
		{d("trash-put -v .claude"), R, true, place},
		{d("srm -r .claude"), R, true, place},
		{d("shred .claude/settings.json"), R, true, place},
		{d("shred -n 3 -u .claude/settings.json"), R, true, place},
		{d("shred --iterations=3 -- .claude/settings.json"), R, true, place},
		{d("wipe -rf .claude"), R, true, place},
		{d("wipe -Q 2 .claude"), R, true, place},
		{d("gio trash .claude"), R, true, place},
		{d("gio remove -f .claude/settings.json"), R, true, place},
		{d("gio move .claude x"), R, true, place},
		{d("gio move x .claude/settings.json"), R, true, place},
		{d("gio copy x .claude/settings.json"), R, true, place},
		{d("gio rename .claude x"), R, true, place},
		{d("gio list .claude"), A, false, ""},
		{d("gio info .claude"), A, false, ""},
		{d("gio launch x.desktop"), R, false, "gio launch runs a program"},
		{top("trash secrets/key"), D, false, `write "secrets/key"`},
		{top("trash data/x"), A, false, ""},
		{d("trash x"), R, false, `write "x" of command "trash x": rule`},
		// Searchers that follow symlinks when asked: blind.
		{d("ag -f x"), R, true, "ag " + follows},
		{d("ag --follow x ."), R, true, follows},
		{d("ag x --follow"), R, true, follows},
		{d("ack --follow x"), R, true, "ack " + follows},
		{d("ack --fol x"), R, true, follows},
		{d("fd -L x"), R, true, "fd " + follows},
		{d("fd --follow x"), R, true, follows},
		{d("fd -HL x ."), R, true, follows},
		{d("rg --follow x"), R, true, "rg " + follows},
		{d("rg -L x"), R, true, follows},
		{d("ag x"), A, false, ""},
		{d("ack x ."), A, false, ""},
		{d("fd -e go x"), A, false, ""},
		{top("ag x"), R, true, "holds"}, // it recurses where it runs
		{top("fd key secrets"), R, true, "secrets"},
		{d("ag --pager less x"), R, false, ""}, // runs a program: risky, not spelled
		{d("fd -x rm x"), R, true, `write "." of command "fd -x rm x"`},
		{d("ack -x x"), R, true, "reads the names of the files it opens"},
		{d("ack --files-from=list x"), R, true, "lists the files"},
		// Archivers: what they write and where they unpack.
		{d("7z x a.7z"), R, true, `write "." of command "7z x a.7z" ` + place},
		{d("7z x a.7z -o.claude"), R, true, place},
		{d("7z x -y -o. a.7z"), R, true, place},
		{d("7z x -o../memory a.7z"), A, false, ""},
		{d("7z e a.7z -so"), A, false, ""},
		{d("7z a -sdel ../data/o.7z .claude"), R, true, place},
		{d("7z a ../data/o.7z .claude"), A, false, ""}, // reads it
		{d("7z a .claude/settings.json x"), R, true, place},
		{d("7z d .claude/settings.json x"), R, true, place},
		{d("7z a ../data/o.7z -i@list"), R, true, "lists the files"},
		{d("7z a -l ../data/o.7z x"), R, true, "7z " + follows},
		{top("7z a data/o.7z"), R, true, "holds"}, // every file where it runs
		{top("7z a data/o.7z secrets"), R, true, "secrets"},
		{d("7z l a.7z"), A, false, ""},
		{d("7z x a.7z"), R, true, ""},
		{d("zip -m ../data/a.zip .claude/settings.json"), R, true, place},
		{d("zip --move ../data/a.zip .claude"), R, true, place},
		{d("zip ../data/a.zip x"), A, false, ""},
		{d("zip -r ../data/a.zip .claude"), R, true, "zip " + follows},
		{d("unzip a.zip"), R, true, place},
		{d("unzip a.zip -d .claude"), R, true, place},
		{d("unzip -d../memory a.zip"), A, false, ""},
		{d("unzip -l a.zip"), A, false, ""},
		{d("tar -xf a.tar"), R, true, place},
		{d("tar -xf a.tar -C .claude"), R, true, place},
		{d("tar -xf a.tar -C.claude"), R, true, place},
		{d("tar -xf a.tar --directory=.claude"), R, true, place},
		{d("tar --extract --file a.tar --dir .claude"), R, true, place},
		{d("tar --ext -f a.tar"), R, true, place},
		{d("tar --delete -f .claude/settings.json x"), R, true, place},
		{d("tar -cf ../data/a.tar --remove-files .claude"), R, true, place},
		{d("tar --create --file=../data/a.tar .claude"), A, false, ""}, // reads it
		{d("rsync -a --remove-source-files .claude ../memory/"), R, true, place},
		{d("rsync --remove-sou .claude/settings.json ../memory/x"), R, true, place},
		{d("rsync -a .claude ../memory/"), A, false, ""},
		{d("tar -tf a.tar"), A, false, ""},
		{d("tar --list -f a.tar"), A, false, ""},
		// install: -d makes its operands, -D and -t write the destination.
		{d("install -d .claude"), R, true, `write ".claude" of command "install -d .claude"`},
		{d("install -d x .claude"), R, true, place},
		{d("install --directory .claude"), R, true, place},
		{d("install -m 755 -d .claude"), R, true, place},
		{d("install -D x .claude/settings.json"), R, true, place},
		{d("install -t .claude x"), R, true, place},
		{d("install -m 644 x -t .claude"), R, true, place},
		{d("install --target-directory=.claude x"), R, true, place},
		{top("install -d data/x memory/y"), A, false, ""},
		{top("install x data/y"), A, false, ""},
	})
}
