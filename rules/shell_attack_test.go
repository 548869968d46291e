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
		"cat *", "head *", "grep *", "cd *", "zip *", "cpio *", "md5sum *", "sha256sum *",
		"wget *", "curl *", "xargs *", "file *", "patch *", "git apply *", "git am *")
	return root, s
}

// TestShellHardLinks: a copy made as a link (cp -l, cp -s, link, rsync --link-dest)
// makes its sources aliases of the copy, so they are written as much as it is: a
// later Write of data/gc would edit .git/config.
func TestShellHardLinks(t *testing.T) {
	_, s := attackWorkspace(t)
	top, docs := bashAt(""), bashAt("docs")
	checkShell(t, s, []shellCase{
		{top("cp -l .git/config data/gc"), R, false, `write ".git/config"`},
		{top("cp --link .git/config data/gc"), R, false, `write ".git/config"`},
		{top("cp --li .git/config data/gc"), R, false, `write ".git/config"`},
		{top("cp --l .git/config data/gc"), R, false, `write ".git/config"`},
		{top("cp -rl src data/hl"), R, false, `write "src"`},
		{top("cp -al src data/hl"), R, false, `write "src"`},
		{top("cp -la src data/hl"), R, false, `write "src"`},
		{top("cp -r -l src data/hl"), R, false, `write "src"`},
		{top("cp -s " + "/etc/hostname data/v"), R, false, `write "/etc/hostname"`},
		{top("cp --symbolic-link .git/config data/gc"), R, false, `write ".git/config"`},
		{top("cp -l /etc/hostname data/v"), R, false, `write "/etc/hostname"`},
		{top("cp -l src/p/p.go data/pp.go"), R, false, `write "src/p/p.go"`},
		{top("cp -l -t data/d .git/config"), R, false, `write ".git/config"`},
		{top("cp --link --target-directory=data/d .git/config"), R, false, ""},
		{top("link .git/config data/gc"), R, false, `write ".git/config"`},
		{docs("cp -l ../.git/config ../data/g"), R, false, `write "../.git/config"`},
		{top("rsync -a --link-dest=src src/ data/x"), R, false, ""},
		{top("rsync -a --link-dest src src/ data/x"), R, false, ""},
		{top("cp -l secrets/key data/k"), D, false, "secrets"},
		// A copy, or a link of a place the agent may write, stays allowed.
		{top("cp .git/config data/gc"), A, false, ""},
		{top("cp -S l .git/config data/gc"), R, true, "holds data/skald"}, // a backup in data
		{top("cp -r src data/c"), A, false, ""},
		{top("cp -l data/file.txt data/hl"), A, false, ""},
		{top("rsync -a src/ data/x"), A, false, ""},
	})
}

// TestShellGoFlags: the flags of go build, test, run, install and vet are all known:
// one the table does not list is risky, -overlay and -pkgdir run the code they name,
// -c and -artifacts write where go runs, -fuzz into the package's testdata.
func TestShellGoFlags(t *testing.T) {
	_, s := attackWorkspace(t)
	top, src := bashAt(""), bashAt("src")
	checkShell(t, s, []shellCase{
		{top("go test -overlay=data/ov.json ./src/p"), R, false, ""},
		{top("go test -overlay data/ov.json ./src/p"), R, false, ""},
		{top("go test --overlay=data/ov.json ./src/p"), R, false, ""},
		{top("go build -overlay=data/ov.json ./src/p"), R, false, ""},
		{top("go run -overlay=data/ov.json ./src/p"), R, false, ""},
		{top("go vet -overlay=data/ov.json ./src/p"), R, false, ""},
		{top("go install -overlay=data/ov.json ./src/p"), R, true, "GOBIN"},
		{top("go test -pkgdir=data/pk ./src/p"), R, false, ""},
		{src("go test -c ./p"), R, false, "-c"},
		{src("go test -c -o ../data/p.test ./p"), R, false, ""},
		{src("go test -artifacts ./p"), R, false, ""},
		{top("go test -fuzz=. ./src/p"), R, false, ""},
		{top("go test -fuzz FuzzX ./src/p"), R, false, ""},
		{top("go test --fuzz=. ./src/p"), R, false, ""},
		{top("go test ./src/p -args -test.fuzz=."), R, false, ""},
		{top("go test -newflag ./src/p"), R, false, ""},
		{top("go build -newflag=x ./src/p"), R, false, ""},
		// Known flags that write or run nothing stay allowed.
		{top("go test ./src/p"), A, false, ""},
		{top("go test -run X -count=1 -v -race ./src/p"), A, false, ""},
		{top("go test -fuzztime=10s -fullpath ./src/p"), A, false, ""},
		{top("go build -trimpath -modcacherw ./src/p"), R, false, `write "p"`}, // ./p
		{top("go test ./src/p -args -test.v"), A, false, ""},
		{top("go list -deps ./src/p"), A, false, ""},
	})
}

// TestShellGitShowsContent: git status, log, reflog, shortlog and stash read only
// names and messages when every option is one known to show no content of a file
// (an allow-list); any other option reads the repository, which holds secrets/.
func TestShellGitShowsContent(t *testing.T) {
	_, s := attackWorkspace(t)
	src := bashAt("src")
	tests := []shellCase{
		{src("git status"), A, false, ""},
		{src("git status -s"), A, false, ""},
		{src("git status -sb --porcelain=v2"), A, false, ""},
		{src("git status --short --branch -uno"), A, false, ""},
		{src("git status --untracked-files=all --ignored"), A, false, ""},
		{src("git log --oneline -n 5"), A, false, ""},
		{src("git log -n5 --format=%H --graph --decorate --all"), A, false, ""},
		{src("git log -10 --author=x --since=yesterday --grep=fix"), A, false, ""},
		{src("git log -np"), A, false, ""}, // p is -n's value
		{src("git reflog -n 3"), A, false, ""},
		{src("git shortlog -sne"), A, false, ""},
		{src("git stash list"), A, false, ""},
		{src("git log -- ../docs"), A, false, ""},
	}
	for _, script := range []string{
		"git status -v", "git status -vv", "git status --verbose", "git status --verb",
		"git status -v -v", "git status -sv", "git status --v", "git status -s --verbose",
		"git log --check", "git log --color-moved", "git log --compact-summary",
		"git log -t", "git log --submodule=diff", "git log -R", "git log --relative",
		"git log --cumulative", "git log -p", "git log --pat", "git log -pn5",
		"git log --oneline --stat", "git log --notes", "git log --show-signature",
		"git log --format=%H -G x", "git reflog -p", "git shortlog -p", "git stash show",
		"git stash list -p", "git whatchanged", "git log --oneline -S token",
	} {
		tests = append(tests, shellCase{src(script), R, true, "the repository of command"})
	}
	checkShell(t, s, tests)
}

// TestShellFileLists: a file that lists the files a command opens (wc
// --files0-from, find -files0-from, tar -T, rsync --files-from, git
// --pathspec-from-file, md5sum -c, wget -i, curl -K, xargs -a, file -f, a patch),
// or its input when it reads the names from there (zip -@, cpio -o, patch < diff),
// cannot be checked: the call needs a human, whatever the list's place, and nothing
// lifts it.
func TestShellFileLists(t *testing.T) {
	_, s := attackWorkspace(t)
	docs := bashAt("docs")
	tests := []shellCase{
		{docs("wc ../data/file.txt"), A, false, ""},
		{docs("wc -l ../data/file.txt"), A, false, ""},
		{docs("tar -cf ../data/a.tar ../data/file.txt"), A, false, ""},
		{docs("find . -name x"), A, false, ""},
		{docs("zip ../data/a.zip ../data/file.txt"), A, false, ""},
		{docs("cpio -t < ../data/a.cpio"), A, false, ""},
		{docs("cpio -i < ../data/a.cpio"), R, false, ""}, // -i writes docs: not spelled
		{docs("md5sum ../data/file.txt"), A, false, ""},
		{docs("sha256sum -b ../data/file.txt"), A, false, ""},
		{docs("wget -q --spider http://h/x"), A, false, ""},
		{docs("curl -s http://h/x"), A, false, ""},
		{docs("file ../data/file.txt"), A, false, ""},
		{docs("patch ../data/file.txt ../data/fix.diff"), A, false, ""},
		{docs("patch ../data/file.txt < ../data/fix.diff"), A, false, ""},
		{docs("patch ../secrets/key < ../data/fix.diff"), D, false, "secrets"},
		{docs("xargs -a ../data/list cat"), R, true, ""},
		{docs("xargs cat -a x"), R, true, "xargs"}, // -a is cat's
	}
	for _, script := range []string{
		"wc --files0-from=../data/list", "wc --files0-from ../data/list",
		"wc --files0=../data/list", "wc --files0-from=-", "wc -l --files0-from=../data/list",
		"du --files0-from=../data/list", "du -s --files0-from ../data/list",
		"sort --files0-from=../data/list", "find -files0-from ../data/list2",
		"tar -cf ../data/a.tar -T ../data/list",
		"tar -cf ../data/a.tar -T../data/list",
		"tar -c --files-from=../data/list -f ../data/a.tar",
		"tar -c --files-from ../data/list -f ../data/a.tar",
		"rsync --files-from=../data/list . ../data/x",
		"git add --pathspec-from-file=../data/list",
		"md5sum -c ../data/sums", "sha256sum --check ../data/sums", "md5sum --ch ../data/sums",
		"sha256sum -bc ../data/sums", "wget -i ../data/urls", "wget --input-file=../data/urls",
		"wget -i -", "curl -K ../data/cfg", "curl --config ../data/cfg http://h",
		"curl --conf=../data/cfg", "file -f ../data/list", "file --files-from ../data/list",
		"patch -i ../data/fix.diff", "patch -p1 --input=../data/fix.diff",
		"git apply ../data/fix.diff", "git am ../data/m.mbox",
	} {
		tests = append(tests, shellCase{docs(script), R, true, "lists the files"})
	}
	for _, script := range []string{
		"zip ../data/a.zip -@ < ../data/list", "zip -q@ ../data/a.zip",
		"cpio -o < ../data/list > ../data/a.cpio", "cpio -ov -F ../data/a.cpio",
		"cpio --create -F ../data/a.cpio", "cpio -p ../data/x < ../data/list",
		"md5sum -c", "sha256sum --check < ../data/sums", "patch -p1 < ../data/fix.diff",
		"patch", "git apply < ../data/fix.diff", "git am -3",
	} {
		tests = append(tests, shellCase{docs(script), R, true, "from its input"})
	}
	checkShell(t, s, tests)
}

// TestShellDevices: a device node (a disk, a console) is unresolvable, by name or
// through a link, for shell and file tools; null, zero, random and tty are not.
func TestShellDevices(t *testing.T) {
	root, s := attackWorkspace(t)
	dev := testkit.Device(t)
	mustSymlink(t, dev, filepath.Join(root, "data", "dv"))
	top := bashAt("")
	read := func(p string) Call { return Call{Tool: "Read", Args: map[string]any{"file_path": p}} }
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
// than bash (\cX, an octal escape above \377) is shown as written and is a word the
// gate cannot read: a require nothing lifts.
func TestShellAnsiCEscapes(t *testing.T) {
	_, s := attackWorkspace(t)
	top := bashAt("")
	checkShell(t, s, []shellCase{
		{top(`cat $'\cssecrets/key'`), R, true, "not literal"},
		{top(`cat $'\c?x'`), R, true, "not literal"},
		{top(`cat data/$'\cA'`), R, true, ""},
		{top(`cat $'\400'`), R, true, ""},
		{top(`cat $'\x64ata/file.txt'`), A, false, ""},
		{top(`cat $'\\cs'`), A, false, ""}, // the file \cs, as bash reads it
		{top(`cat $'data/file.txt\c'`), A, false, ""},
	})
}

// TestShellLookAlikeOptions: an option spelt with look-alike letters or dashes is no
// option a program reads but one a human reads: a require nothing lifts.
func TestShellLookAlikeOptions(t *testing.T) {
	_, s := attackWorkspace(t)
	top := bashAt("")
	checkShell(t, s, []shellCase{
		{top("sort --оutput=data/x data/file.txt"), R, true, "look-alike"}, // Cyrillic о
		{top("sort －－output=data/x data/file.txt"), R, true, "look-alike"}, // fullwidth
		{top("cat −n data/file.txt"), R, true, "look-alike"},               // a minus sign
		{top("cat 'data/file.txt' && wc -l data/file.txt"), A, false, ""},
		{top("cat -- data/file.txt"), A, false, ""},
		{top("grep -e привет data/file.txt"), A, false, ""},
	})
}

// TestShellInlineCode: code given inline to an interpreter (python3 -c, perl -e, node
// --eval), an awk program that runs a command or opens a file, and a sed script with
// e, r or w are opaque to the gate: a require nothing lifts, not even a pattern that
// spells them, while a deny of either form still denies. Filters on named files stay
// reads, and a script file stays a require a rule may lift.
func TestShellInlineCode(t *testing.T) {
	root := workspace(t)
	deny := Rule{ID: 90, GroupID: DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "python3 -c *", Action: Deny, Priority: 1}
	s := allowCommands(root, "", []Rule{deny}, "python3 *", "perl *", "ruby *", "node *",
		"php *", "lua *", "deno *", "Rscript *", "awk *", "sed *", "sed -i *", "env *")
	top := bashAt("")
	tests := []shellCase{
		{top("python3 -c 'import os'"), D, false, ""},
		{top("env python3 -c 'import os'"), D, false, ""},
		{top("timeout 5 python3 -c 1"), D, false, ""},
		{top("python -c 'import os'"), R, true, "inline code"},
		{top("python3 -Ic 'import os'"), R, true, "python3 -Ic runs inline code"},
		{top("python3 -W ignore -c 1"), R, true, "inline code"},
		{top("perl -e 'unlink glob q(*)'"), R, true, "inline code"},
		{top("perl -ne print data/file.txt"), R, true, "inline code"},
		{top("perl -Mstrict -e 1"), R, true, "inline code"},
		{top("perl -I lib -E 'say 1'"), R, true, "inline code"},
		{top("ruby -e 'puts 1'"), R, true, "inline code"},
		{top("node -e 'require(\"fs\")'"), R, true, "inline code"},
		{top("node --eval=1"), R, true, "inline code"},
		{top("node -p process.env"), R, true, "inline code"},
		{top("node --require ./x -e 1"), R, true, "inline code"},
		{top("php -r 'echo 1;'"), R, true, "inline code"},
		{top("lua -e 'print(1)'"), R, true, "inline code"},
		{top("deno eval 'Deno.exit()'"), R, true, "inline code"},
		{top("Rscript -e 1"), R, true, "inline code"},
		{top(`awk '{system("id")}' data/file.txt`), R, true, "inline code"},
		{top(`awk 'BEGIN { while (("ls" | getline l) > 0) print l }'`), R, true, "inline code"},
		{top(`awk '{ print $1 > "/dev/stderr" }' data/file.txt`), R, true, "inline code"},
		{top(`awk '{ if ($2) print $1 >> "out" }' data/file.txt`), R, true, "inline code"},
		{top(`awk '@include "x"' data/file.txt`), R, true, "inline code"},
		{top("sed 'w out' data/file.txt"), R, true, "inline code"},
		{top("sed '/x/e date' data/file.txt"), R, true, "inline code"},
		{top("sed -n '1r /etc/passwd' data/file.txt"), R, true, "inline code"},
		{top("sed -e p -e 's/a/b/w out' data/file.txt"), R, true, "inline code"},
		{top("sed --expression='s|a|b|e' data/file.txt"), R, true, "inline code"},
		{top("sed -i 's/a/b/w out' memory/x"), R, true, "inline code"},
		// A script in a file: the gate cannot read it, a rule may still allow it.
		{top("python3 data/x.py"), R, false, "python3 runs code the gate cannot read"},
		{top("node data/x.js -e 1"), R, false, "runs code"}, // -e is the script's
		{top("python3 -m json.tool data/file.txt"), R, false, ""},
		{top("awk -f data/p.awk data/file.txt"), R, false, "awk runs a program"},
		{top("sed -f data/p.sed data/file.txt"), R, false, "sed -f runs a script"},
		// Filters on the files they name stay reads.
		{top("python3 --version"), A, false, ""},
		{top("awk '{print $1}' data/file.txt"), A, false, ""},
		{top("awk '$1 > 5 { print $2 }' data/file.txt"), A, false, ""},
		{top("awk 'NR>1' data/file.txt"), A, false, ""},
		{top(`awk '{ x = sprintf("%d", $1 > 2); print (x > 1) }' data/file.txt`), A, false, ""},
		{top(`awk '{ print "a > b" }' data/file.txt`), A, false, ""},
		{top("sed -n '/start/,/end/p' data/file.txt"), A, false, ""},
		{top(`sed 's/a\/b/c/g; 3q' data/file.txt`), A, false, ""},
		{top("sed '1i header' data/file.txt"), A, false, ""},
		{top("sed -e '$!N' -e 's/x/y/2p' data/file.txt"), A, false, ""},
		{top(`sed '\,x,d' data/file.txt`), A, false, ""},
		{top("sed -i s/a/b/ memory/x"), A, false, ""}, // its files are its writes
		{top("sed -i s/a/b/ secrets/x"), D, false, "secrets"},
	}
	checkShell(t, s, tests)
}

// TestShellRunnerAssigns: an assignment of a variable that changes what runs (PATH,
// LD_PRELOAD, GIT_SSH_COMMAND, …) as a prefix, under env or sudo, or for the rest of
// the script (bare, export, declare, read, for) makes the commands it reaches a
// require nothing lifts, even under a tool-wide allow; a deny still denies. Other
// assignments stay as they were: never allowed by a pattern, lifted by allow Bash.
func TestShellRunnerAssigns(t *testing.T) {
	root := workspace(t)
	deny := Rule{ID: 90, GroupID: DefaultGroup, ToolPattern: "Bash",
		CommandPattern: "rm *", Action: Deny, Priority: 1}
	all := Rule{ID: 91, GroupID: DefaultGroup, ToolPattern: "Bash", Action: Allow,
		Priority: 2}
	s := allowCommands(root, "", []Rule{deny, all}, "ls *")
	top := bashAt("")
	tests := []shellCase{
		{top("ls docs"), A, false, ""},
		{top("FOO=1 ls docs"), A, false, ""}, // allow Bash lifts a plain assignment
		{top("export FOO=1; ls docs"), A, false, ""},
		{top("LANG=C ls docs"), A, false, ""},
		{top("IFS= read -r line <<< x"), A, false, ""},
		{top("export PATH; ls docs"), A, false, ""}, // no new value
		{top("PATH=/tmp/x ls docs"), R, true, "assigns PATH"},
		{top("PATH+=:data ls docs"), R, true, "assigns PATH"},
		{top("LD_PRELOAD=data/x.so ls docs"), R, true, "assigns LD_PRELOAD"},
		{top("LD_AUDIT=data/x.so ls docs"), R, true, ""},
		{top("BASH_ENV=data/rc bash -c 'ls docs'"), R, true, ""},
		{top("ENV=data/rc sh -c 'ls docs'"), R, true, ""},
		{top("IFS=/ ls docs"), R, true, "assigns IFS"},
		{top("GIT_SSH_COMMAND='sh -c id' git fetch"), R, true, ""},
		{top("GIT_EXTERNAL_DIFF=data/d git diff"), R, true, ""},
		{top("GIT_PAGER=data/p git log"), R, true, ""},
		{top("GIT_EDITOR=data/e git commit"), R, true, ""},
		{top("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager git log"), R, true, ""},
		{top("PAGER=data/p man ls"), R, true, ""},
		{top("EDITOR=data/e crontab -e"), R, true, ""},
		{top("PYTHONPATH=data python3 --version"), R, true, ""},
		{top("NODE_OPTIONS='--require ./data/x' npm test"), R, true, ""},
		{top("PERL5OPT=-Mdata perl --version"), R, true, ""},
		{top("env PATH=/tmp/x ls docs"), R, true, "env assigns PATH"},
		{top("sudo LD_PRELOAD=/tmp/x.so ls"), R, true, "sudo assigns LD_PRELOAD"},
		{top("export PATH=/tmp/x; ls docs"), R, true, "the script assigns PATH"},
		{top("PATH=/tmp/x; ls docs"), R, true, "the script assigns PATH"},
		{top("declare -x LD_PRELOAD=/tmp/x.so; ls docs"), R, true, ""},
		{top("local PAGER=x 2>/dev/null; ls docs"), R, true, ""},
		{top("declare -n r=PATH; r=/tmp/x; ls docs"), R, true, "name reference"},
		{top("read -r PATH < docs/x; ls docs"), R, true, ""},
		{top("for PATH in /tmp/x; do ls docs; done"), R, true, ""},
		{top(": ${LD_PRELOAD:=/tmp/x.so}; ls docs"), R, true, ""},
		{top("bash -c 'export PATH=/tmp/x'; ls docs"), R, true, ""},
		{top("export CDPATH=/etc; cd docs && ls"), R, true, ""},
		// A deny still denies.
		{top("PATH=/tmp/x rm -rf docs"), D, false, ""},
		{top("export PATH=/tmp/x; rm -rf docs"), D, false, ""},
	}
	checkShell(t, s, tests)
}
