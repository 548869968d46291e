package rules

import "testing"

// TestShellWritesAndRuns decides scripts whose options or operands write a file or
// run a program (docs/design.md, "Shell commands"): their targets are decided by
// the file rules, and an allow pattern allows them only when it spells the option.
// Each hole is tested with its neighbours.
func TestShellWritesAndRuns(t *testing.T) {
	root := workspace(t)
	gitDir(t, root, "docs") // git in docs reads the repository docs, not the root
	rs := starterRules()
	id := uint64(500)
	for _, p := range []string{"sort *", "tee *", "cp *", "mv *", "sed *", "dd *", "wget *",
		"find *", "awk *", "npm *", "go *", "tar *", "rg *", "make *", "python3 *", "tree *",
		"du *", "env *", "git log --output=*", "git format-patch *", "git -c *", "install *",
		"touch *", "mkdir *", "mytool *", "read *", "printf *", "mapfile *"} {
		id++
		rs = append(rs, Rule{ID: id, GroupID: DefaultGroup, ToolPattern: "Bash",
			CommandPattern: p, Action: Allow, Priority: DefaultPriority})
	}
	opt := seedOptions(root)
	opt.Home = root + "/docs" // not agent-writable: git and go may run here
	s := Compile(nil, rs, opt)
	in, root0 := bashAt("docs"), bashAt("") // in docs: the root holds secrets
	tests := []shellCase{
		// git: options that write (--output, format-patch -o) and run (-c, --exec-path,
		// --ext-diff, --upload-pack), abbreviated too.
		{in("git log -p"), A, false, ""},
		{in("git log --output=out.txt"), R, false, `write "out.txt"`}, // spelled; no file rule
		{in("git log --output=../data/o.txt"), A, false, ""},
		{in("git log --output=../secrets/x"), D, false, `write "../secrets/x"`},
		{in("git diff --output=../data/o.txt"), R, false, ""}, // git diff * does not spell it
		{in("git diff --output ../data/o.txt"), R, false, ""},
		{in("git diff --out=../data/o.txt"), R, false, ""},
		{in("git diff --output=../secrets/x"), D, false, ""},
		{in("git show --output=../state/x"), D, false, ""},
		{in("git format-patch -o ../secrets HEAD~1"), D, false, ""},
		{in("git format-patch --output-directory=../secrets HEAD~1"), D, false, ""},
		{in("git diff --ext-diff"), R, false, ""},
		{in("git log --textconv"), R, false, ""},
		{in("git -c core.pager=sh log"), R, false, "git -c runs a command"}, // even spelled
		{in("git -ccore.pager=sh status"), R, false, ""},
		{in("git --paginate -c core.pager=sh status"), R, false, ""},
		{in("git --exec-path=/tmp/x status"), R, false, ""},
		{in("git --config-env=core.pager=X status"), R, false, ""},
		{in("git grep -O x"), R, false, ""},
		{in("git grep token"), R, false, ""}, // no rule for git grep
		{in("git log HEAD:../secrets/key"), R, true, "secrets"},
		{root0("git log -p HEAD:secrets/key"), R, true, "secrets"},
		// sort, tee, cp, mv, install, touch, mkdir, sed -i, dd, tree, wget.
		{in("sort ../data/file.txt"), A, false, ""},
		{in("sort -o ../secrets/x ../data/file.txt"), D, false, ""},
		{in("sort -o ../data/y ../data/file.txt"), R, false, ""}, // -o not spelled
		{in("sort -ro ../data/y ../data/file.txt"), R, false, ""},
		{in("sort --output=../data/y ../data/file.txt"), R, false, ""},
		{in("sort --out=../data/y ../data/file.txt"), R, false, ""},
		{in("sort --compress-program=sh ../data/file.txt"), R, false, ""},
		{in("tee ../data/x"), A, false, ""},
		{in("tee ../secrets/x"), D, false, ""},
		{in("tee -a ../state/x"), D, false, ""},
		{in("cp ../data/file.txt ../data/y"), A, false, ""},
		{in("cp ../data/file.txt ../secrets/y"), D, false, ""},
		{in("cp -t ../secrets ../data/file.txt"), D, false, ""},
		{in("cp --target-directory=../secrets ../data/file.txt"), D, false, ""},
		{in("cp ../secrets/key ../data/y"), R, true, "secrets"},
		{in("mv ../secrets/key ../data/k"), D, false, ""},
		{in("install -m 644 ../data/file.txt ../secrets/y"), D, false, ""},
		{in("touch ../secrets/x"), D, false, ""},
		{in("mkdir -p ../data/new-dir"), A, false, ""},
		{in("mkdir -m 700 ../state/x"), D, false, ""},
		{in("sed s/a/b/ ../data/file.txt"), A, false, ""},
		{in("sed -i s/a/b/ ../data/file.txt"), R, false, ""}, // -i not spelled
		{in("sed -i s/a/b/ ../secrets/key"), D, false, ""},
		{in("sed --in-place=.bak s/a/b/ ../secrets/key"), D, false, ""},
		{in("sed 's/a/b/w out' ../data/file.txt"), R, true, "inline code"},
		{in("sed -n '1e id' ../data/file.txt"), R, true, "inline code"},
		{in("sed -e 's/a/b/e' ../data/file.txt"), R, true, "inline code"},
		{in("dd if=../data/file.txt of=../data/y"), A, false, ""},
		{in("dd if=../data/file.txt of=../secrets/y"), D, false, ""},
		{in("dd if=../secrets/key of=../data/y"), D, false, ""},
		{in("tree -o ../secrets/x"), D, false, ""},
		{in("wget -O ../secrets/x http://h/x"), D, false, ""},
		{in("wget -O ../data/x http://h/x"), R, false, ""}, // -O not spelled
		{in("wget http://h/x"), R, false, `write "."`},     // into docs: no file rule
		{in("wget -P ../secrets http://h/x"), D, false, ""},
		{in("wget -e robots=off http://h/x"), R, false, ""},
		{in("curl file://" + root + "/secrets/key"), D, false, ""}, // curl * is denied anyway
		// Options that run programs: go, npm, find, awk, make, tar, python, rg, env -S.
		{in("go test ./..."), A, false, ""},
		{in("go test -run TestX -count 1 ./..."), A, false, ""},
		{in("go test -exec ./x ./..."), R, false, ""},
		{in("go test -exec=./x ./..."), R, false, ""},
		{in("go test --exec=./x ./..."), R, false, ""},
		{in("go test -toolexec=./x ./..."), R, false, ""},
		{in("go build -o ../secrets/x ."), D, false, ""},
		{in("go test -o ../data/t ./..."), R, false, ""},
		{in("go test -coverprofile=../data/c.out ./..."), R, false, ""},
		{in("go test -coverprofile=../secrets/c ./..."), D, false, ""},
		{in("go test ./... -args -test.coverprofile=../data/c"), R, false, ""},
		{in("go test -ldflags=-extld=sh ./..."), R, false, ""},
		{in("go env -w GOFLAGS=-toolexec=x"), R, false, ""},
		{in("go vet ./..."), A, false, ""},
		{in("npm test"), A, false, ""},
		{in("npm test --script-shell=sh"), R, false, ""},
		{in("npm test --script-shell sh"), R, false, ""},
		{in("npm --prefix ../memory test"), R, false, ""},
		{in("npm --pref=../memory test"), R, false, ""},
		{in("npm run build --userconfig=../data/rc"), R, false, ""},
		{in("find . -name x"), A, false, ""},
		{in("find . -delete"), R, false, ""},
		{in("find ../secrets -delete"), D, false, ""},
		{in("find . -fprint ../secrets/x"), D, false, ""},
		{in("find . -exec cat {} ;"), R, false, ""},
		{in("find . -execdir id ;"), R, false, ""},
		{in("find . -okdir id ;"), R, false, ""},
		{in("awk '{print $1}' ../data/file.txt"), A, false, ""},
		{in(`awk '{system("id")}' ../data/file.txt`), R, true, "inline code"},
		{in(`awk '{print > "x"}' ../data/file.txt`), R, true, "inline code"},
		{in(`awk '{print | "sh"}' ../data/file.txt`), R, true, "inline code"},
		{in("awk -f ../data/prog.awk ../data/file.txt"), R, false, ""},
		{in("make test"), A, false, ""},
		{in("make CC=sh test"), R, false, ""},
		{in("make -C ../memory"), R, false, ""},
		{in("make --eval=x"), R, false, ""},
		{in("tar -tf ../data/a.tar"), A, false, ""},
		{in("tar -xf ../data/a.tar"), R, false, ""},
		{in("tar xf ../data/a.tar"), R, false, ""},
		{in("tar -cf ../secrets/a.tar ."), D, false, ""},
		{in("tar --to-command=sh -xf ../data/a.tar"), R, false, ""},
		{in("python3 ../data/x.py"), R, false, "python3 runs code the gate cannot read"},
		{in("python3 -c 'import os'"), R, true, "inline code"},
		{in("rg token"), A, false, ""}, // rg reads docs
		{in("rg --pre sh token"), R, false, ""},
		// A string a program hands to a shell is read as one: "/" holds data/skald.
		{in("env -S 'rm -rf /'"), R, true, "protected or denied place"},
		{in("env --split-string='rm -rf /'"), R, true, "protected or denied place"},
		{in("ksh -c 'cat ../secrets/key'"), R, true, "secrets"},
		{in("busybox sh -c 'cat ../secrets/key'"), R, true, "secrets"},
		{in("su -c 'cat ../secrets/key'"), R, true, "secrets"},
		{in("watch 'cat ../secrets/key'"), R, true, "secrets"},
		{in("flock /tmp/l -c 'cat<../secrets/key'"), R, true, "secrets"},
		{in(`fish -c 'cat ../sec"r"ets/key'`), R, true, "secrets"},
		{in("mytool 'hello world' ../data/x"), A, false, ""},
		// A program the table does not know: --opt=PATH and -oPATH may be paths.
		{in("mytool --config=../secrets/key"), R, true, "secrets"},
		{in("mytool --config ../secrets/key"), R, true, "secrets"},
		{in("mytool -c../secrets/key"), R, true, "secrets"},
		{in("mytool -o=../state/x"), D, false, "protected"},
		{in("mytool out=../state/x"), D, false, "protected"},
		{in("mytool out=../data/x"), A, false, ""},
		{in("mytool --config=../data/x -v 3"), A, false, ""},
		// Builtins that assign a variable which changes what later commands run.
		{in("printf -v PATH /tmp; go test ./..."), R, true, "the script assigns"},
		{in("printf -vPATH /tmp; go test ./..."), R, true, "the script assigns"},
		{in("read PATH < ../data/x; go test ./..."), R, true, "the script assigns"},
		{in("read -r a LD_PRELOAD < ../data/x; go test ./..."), R, true, "the script assigns"},
		{in("mapfile -t BASH_ENV < ../data/x; go test ./..."), R, true, "the script assigns"},
		{in("echo x | read y; go test ./..."), R, false, "assigns y"},
		{in("echo x | read LANG; go test ./..."), A, false, ""},
		// Programs that read the directory they run in when given no path.
		{root0("ls"), R, true, "holds"},
		{root0("ls -la"), R, true, "holds"},
		{in("ls"), A, false, ""},
		{root0("du -sh"), R, true, ""},
		{root0("tree"), R, true, ""},
		{root0("find -name x"), R, true, ""},
		{root0("grep -r token"), R, true, ""},
		{root0("grep -R token"), R, true, ""},
		{root0("rg token"), R, true, ""},
		{root0("git log"), R, true, ""},
		{root0("git status"), R, true, ""},
		{root0("git status docs"), A, false, ""},
		{root0("git -C docs status"), R, false, ""}, // git status * matches literally
		{root0("git -C secrets status"), R, true, "secrets"},
		{root0("git -C data add ../secrets/key"), R, true, "secrets"}, // data/../secrets/key
		{root0("git -C docs show HEAD:../secrets/key"), R, true, "secrets"},
		{in("tar -C ../secrets -xf ../data/a.tar"), D, false, ""},
		{in("go -C ../secrets test ./..."), R, true, "secrets"},
		{root0("grep token docs/x"), A, false, ""},
		// ~ forms bash expands from places the gate does not know.
		{in("cat ~root/.ssh/id_rsa"), R, true, "~"},
		{in("cat ~+/x"), R, true, ""},
		{in("cat ~-/x"), R, true, ""},
		{in("cat ~1/x"), R, true, ""},
		{in("cat ~+1/x"), R, true, ""},
		{in("cat ~nobody"), R, true, ""},
		{in("cat '~root/x'"), A, false, ""}, // quoted: a name in docs
		// Paths are resolved as the OS would, and also with ".." cleaned first.
		{root0("cat data/link/../key"), R, true, "secrets"},
		{root0("cd data/link && cat ../key"), R, true, "secrets"},
		{root0("cd data/link/.. && cat file.txt"), R, true, "secrets"}, // cd -P: secrets
		{root0("cat data/new/../../secrets/key"), R, true, "secrets"},
		// Globs that may match . and .., and dotfiles.
		{in("cat .*/key"), R, true, "glob"},
		{in("cat ..*/secrets/key"), R, true, "glob"},
		{in("ls .?*"), R, true, "glob"},
		{in("cat ../.[!.]*"), R, true, "glob"},
		{root0("cat secre*/key"), R, true, "secrets"},
		{root0("cat SECRE*/key"), R, true, "secrets"}, // nocaseglob
		{root0("cat **/key"), R, true, "secrets"},     // globstar
		{root0("cat se?rets/k*"), R, true, "secrets"},
	}
	checkShell(t, s, tests)
}

// TestShellExactPattern: the exact form the "➕ Always" offer proposes for a command
// with a risky option allows that command, and a pattern with a star in the place of
// the option allows none of its neighbours.
func TestShellExactPattern(t *testing.T) {
	root := workspace(t)
	for _, tt := range []struct {
		pattern, script string
		want            Action
	}{
		{"git log --output=../data/o.txt", "git log --output=../data/o.txt", Allow},
		{"git log --output=../data/o.txt", "git log --output=../data/p.txt", Require},
		{"go test -exec ./x ./...", "go test -exec ./x ./...", Allow},
		{"go test * ./...", "go test -exec ./x ./...", Require},
		{"go test *", "go test -exec=./x ./...", Require},
		{"sort -o ../data/y ../data/file.txt", "sort -o ../data/y ../data/file.txt", Allow},
		{"sort * ../data/file.txt", "sort -o ../data/y ../data/file.txt", Require},
		{"sort -* ../data/file.txt", "sort -o ../data/y ../data/file.txt", Require},
	} {
		t.Run(tt.pattern+" "+tt.script, func(t *testing.T) {
			rs := append(starterRules(), Rule{ID: 900, GroupID: DefaultGroup, ToolPattern: "Bash",
				CommandPattern: tt.pattern, Action: Allow, Priority: DefaultPriority})
			s := Compile(nil, rs, seedOptions(root))
			d := s.Evaluate(DefaultGroup, Call{Tool: "Bash", Cwd: "docs",
				Args: map[string]any{"command": tt.script}})
			if d.Action != tt.want {
				t.Errorf("Evaluate = %s %q, want %s", d.Action, d.Reason, tt.want)
			}
		})
	}
}

// TestShellDelegatedLine: a wrapper its inner commands decide shows no rule of its
// own, so that a prompt does not show the shell require's id as an allow.
func TestShellDelegatedLine(t *testing.T) {
	root := workspace(t)
	s := Compile(nil, starterRules(), seedOptions(root))
	for _, script := range []string{`bash -c "git status"`, `bash -c "rm -fr x"`,
		`sh -c 'ls; make'`} {
		t.Run(script, func(t *testing.T) {
			d := s.Evaluate(DefaultGroup, Call{Tool: "Bash", Cwd: "docs",
				Args: map[string]any{"command": script}})
			if d.Script == nil || len(d.Script.Commands) < 2 {
				t.Fatalf("Evaluate = %+v, want the wrapper and its commands", d)
			}
			w := d.Script.Commands[0]
			if w.Action != Allow || w.RuleID != 0 || w.Reason != ReasonDelegated || !w.Delegated {
				t.Errorf("wrapper line %+v, want allow, no rule, %q", w, ReasonDelegated)
			}
			for _, c := range d.Script.Commands[1:] {
				if c.Action == Require && c.Reason == ReasonDelegated {
					t.Errorf("inner command %+v takes the wrapper's reason", c)
				}
			}
		})
	}
}

// TestShellGitRuns: git commands that run a command their words or settings give are
// never allowed by a pattern, as interpreters are, even one that spells them; what
// they name is still checked.
func TestShellGitRuns(t *testing.T) {
	root := workspace(t)
	gitDir(t, root, "docs")
	s := allowCommands(root, root+"/docs", nil, "git *", "git -c *", "git --exec-path*",
		"git rebase -x *", "git rebase --exec *", "git bisect run *",
		"git submodule foreach *", "git difftool -x *", "git difftool --extcmd *",
		"git fetch --upload-pack *", "git clone --upload-pack=*", "git grep -O*",
		"git filter-branch *", "git send-email *", "git log --ext-diff *")
	in := bashAt("docs")
	tests := []shellCase{
		{in("git status"), Allow, false, ""},
		{in("git log --oneline"), Allow, false, ""},
		// They rewrite the work tree: a write of the repository's top, docs, which
		// no file rule allows (docs/design.md, "Shell commands").
		{in("git rebase main"), Require, false, `the work tree of command "git rebase main"`},
		{in("git bisect start"), Require, false, ""}, // risky, and not spelled
		{in("git submodule update --init"), Require, false, "the work tree"},
		{in("git -c alias.x='!cat ../secrets/key' x"), Require, false, "git -c runs a command"},
		{in("git -c core.pager=sh log"), Require, false, "git -c runs"},
		{in("git -c core.sshCommand=sh fetch"), Require, false, "git -c runs"},
		{in("git -ccore.editor=sh commit"), Require, false, "runs a command"},
		{in("git --config-env=core.pager=X log"), Require, false, "runs a command"},
		{in("git --exec-path=../data status"), Require, false, "git --exec-path runs"},
		{in("git --exec-path"), Require, false, "runs a command"},
		{in("git rebase -x 'make test' main"), Require, false, "git rebase -x runs a command"},
		{in("git rebase --exec 'make test' main"), Require, false, "runs a command"},
		{in("git rebase --exe='make test' main"), Require, false, "runs a command"},
		{in("git bisect run make test"), Require, false, "git bisect run runs a command"},
		{in("git submodule foreach 'cat ../secrets/key'"), Require, true, "secrets"},
		{in("git submodule foreach 'cat ../data/x'"), Require, false,
			"git submodule foreach runs"},
		{in("git submodule --quiet foreach --recursive id"), Require, false, "runs a command"},
		{in("git difftool -x sh"), Require, false, "runs a command"},
		{in("git difftool --extcmd=sh"), Require, false, "runs a command"},
		{in("git fetch --upload-pack 'sh -c id' origin"), Require, false, "runs a command"},
		{in("git clone --upload-pack=sh ../data/r x"), Require, false, "runs a command"},
		{in("git grep -Osh token"), Require, false, "runs a command"},
		{in("git log --ext-diff -p"), Require, false, "runs a command"},
		{in("git filter-branch --tree-filter id HEAD"), Require, false, "runs a command"},
		{in("git send-email --to-cmd=id x.patch"), Require, false, "runs a command"},
		{in("git clone -c core.fsmonitor=id ../data/r x"), Require, false, "git clone --config"},
		{in("git clone --config=core.hooksPath=../data/h ../data/r x"), Require, false,
			"runs a command"},
		{in("git clone --conf core.hooksPath=../data/h ../data/r x"), Require, false, ""},
		{in("git clone -qc core.hooksPath=../data/h ../data/r x"), Require, false, ""},
		{in("git clone --depth 1 ../data/r ../data/x"), Allow, false, ""},
		{in("git clone --depth 1 ../data/r x"), Require, false, `write "x"`},
		// A deny pattern still denies; a guarded path still locks.
		{in("git submodule foreach 'rm -rf /'; cat ../secrets/key"), Require, true, "secrets"},
	}
	checkShell(t, s, tests)
}

// TestShellRewriters: formatters and fixers that rewrite what they name are decided
// as writes of it, a directory or a go package tree as a write of the whole tree.
func TestShellRewriters(t *testing.T) {
	root := workspace(t)
	s := allowCommands(root, root+"/docs", nil, "gofmt *", "gofmt -w *", "go *",
		"goimports -w *", "prettier *", "prettier --write *", "eslint --fix *", "black *",
		"rustfmt *", "isort *", "sed -i *", "shfmt -w *", "clang-format -i *", "date *")
	top, mem := bashAt(""), bashAt("memory")
	checkShell(t, s, []shellCase{
		{top("gofmt -w secrets"), D, false, `write "secrets"`},
		{top("gofmt -w secrets/x.go"), D, false, ""},
		{top("gofmt -w data/x.go"), A, false, ""},
		{top("gofmt -w docs/x.go"), R, false, `write "docs/x.go"`},
		{top("gofmt -w ."), R, true, "holds"},
		{top("gofmt -w data"), R, true, "holds data/skald"},
		{top("gofmt -w state/x.go"), D, false, "protected"},
		{top("gofmt -l secrets"), R, true, "secrets"}, // a read, by the guards
		{top("gofmt -l data/x.go"), A, false, ""},
		{top("goimports -w secrets/a.go"), D, false, ""},
		{top("go fmt ./secrets"), D, false, ""},
		{top("go fmt ./..."), R, true, "holds"},
		{top("go fmt ./data/..."), R, true, "holds data/skald"},
		{top("go fmt ./memory/..."), A, false, ""},
		{mem("go fmt"), R, false, "which the agent may write"}, // go.mod there runs
		{bashAt("docs")("go fmt"), R, false, `write "."`},
		{top("go fix ./secrets/..."), D, false, ""},
		{top("prettier --write secrets/x.js"), D, false, ""},
		{top("prettier --write data/x.js"), A, false, ""},
		{top("prettier -w data/x.js"), R, false, ""}, // -w not spelled
		{top("prettier --check secrets/x.js"), R, true, "secrets"},
		{top("eslint --fix secrets"), D, false, ""},
		{top("black secrets/x.py"), D, false, ""},
		{top("black data/x.py"), A, false, ""},
		{top("black --check secrets/x.py"), R, true, "secrets"},
		{top("rustfmt secrets/x.rs"), D, false, ""},
		{top("isort secrets/x.py"), D, false, ""},
		{top("shfmt -w secrets"), D, false, ""},
		{top("clang-format -i secrets/x.c"), D, false, ""},
		{top("sed -i s/a/b/ secrets/*"), D, false, ""},
		{top("sed -i s/a/b/ memory/*"), A, false, ""},
		// date reads the file -f names, and prints it.
		{top("date -f secrets/key"), D, false, `read "secrets/key"`},
		{top("date --file=secrets/key"), D, false, ""},
		{top("date -r secrets/key"), D, false, ""},
		{top("date -d tomorrow +%F"), A, false, ""},
	})
}
