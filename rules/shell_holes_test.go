package rules

import "testing"

// TestShellDerivedWrites: a command that writes a name its words give without
// spelling it (a backup DEST+SUFFIX, split's pieces PREFIXaa, gunzip's X of X.gz,
// go build's ./NAME) is decided as a write of that name, or of its folder when the
// name is unknown, so under a Bash rule that allows any command it is a locked
// require in a folder holding a place that needs a human.
func TestShellDerivedWrites(t *testing.T) {
	_, s := gitWritesSet(t, "*")
	const place = "writes a place that needs a human: docs/.claude/settings.json"
	d, top := bashAt("docs"), bashAt("")
	checkShell(t, s, []shellCase{
		// Backups named by a suffix.
		{d("cp -b -S .json y .claude/settings"), R, true, `write ".claude" of command`},
		{d("cp -bS.json y .claude/settings"), R, true, place},
		{d("cp -b --suffix=.json y .claude/settings"), R, true, place},
		{d("cp --suf .json -b -- y .claude/settings"), R, true, place},
		{d("mv -b -S .json y .claude/settings"), R, true, place},
		{d("ln -b -S .json y .claude/settings"), R, true, place},
		{d("install -b -S .json y .claude/settings"), R, true, place},
		{d("SIMPLE_BACKUP_SUFFIX=.json cp -b y .claude/settings"), R, true,
			"assigns SIMPLE_BACKUP_SUFFIX"},
		{d("export SIMPLE_BACKUP_SUFFIX=.json; cp -b y .claude/settings"), R, true,
			"SIMPLE_BACKUP_SUFFIX"},
		{d("cp -b y .claude/settings"), R, false, `write ".claude/settings"`}, // settings~
		{top("cp -b -S .bak memory/a memory/b"), A, false, ""},
		// Pieces named by a prefix.
		{d("split -l1 -a2 x .claude/settings.js"), R, true, place},
		{d("split --lines=1 -- x .claude/settings.js"), R, true, place},
		{d("csplit -f .claude/settings.js x 1"), R, true, place},
		{d("csplit --prefix=.claude/settings.js -b %02d.json x 1"), R, true, place},
		{d("split x"), R, true, `write "." of command "split x"`}, // xaa, … here
		{top("split -l1 memory/x memory/p"), A, false, ""},
		// Decompressed files: the name without its suffix.
		{d("gzip -d .claude/settings.json.gz"), R, true, `write ".claude/settings.json"`},
		{d("gzip --decompress -k .claude/settings.json.gz"), R, true, place},
		{d("gunzip .claude/settings.json.gz"), R, true, place},
		{d("unxz -k .claude/settings.json.xz"), R, true, place},
		{d("bunzip2 .claude/settings.json.bz2"), R, true, place},
		{d("zstd -d .claude/settings.json.zst"), R, true, place},
		{d("zstd -d -k x.zst -o .claude/settings.json"), R, true, place},
		{d("gzip -S .json .claude/settings"), R, true, place},
		{d("gzip -dc .claude/settings.json.gz"), A, false, ""}, // to its output
		{top("gunzip -k memory/x.gz"), A, false, ""},
		// The program go build writes; go install's, where the call does not say.
		{top("go build ./src/cmd/tool"), R, false, `write "tool"`},
		{top("go build -o memory/tool ./src/cmd/tool"), R, false, "rule 2"}, // -o: risky
		{top("go build --o=memory/tool ./src/cmd/tool"), R, false, "rule 2"},
		{top("go build src/cmd/tool/main.go"), R, false, `write "main"`},
		{d("go build ./..."), A, false, ""}, // several packages: discarded
		{d("go install ./cmd/skald-bot"), R, true, "GOBIN"},
		{d("go install example.com/x@latest"), R, true, "GOBIN"},
	})
}

// TestShellInnerWrites: the command find -exec and fd -x run gets what they find,
// which it may write: their start paths are written. ar x and 7z x -oDIR extract into
// the directory they run in or name.
func TestShellInnerWrites(t *testing.T) {
	_, s := gitWritesSet(t, "*")
	const place = "writes a place that needs a human: docs/.claude/settings.json"
	d, top := bashAt("docs"), bashAt("")
	checkShell(t, s, []shellCase{
		{d("find .claude -type f -exec truncate -s0 {} +"), R, true, place},
		{d("find .claude -execdir rm {} ;"), R, true, place},
		{d("find .claude -ok rm {} ;"), R, true, place},
		{d("find -name x -exec rm {} +"), R, true, `write "." of command`},
		{top("find memory -exec cat {} +"), R, false, "find -exec runs a command"},
		{d("fd . .claude -x truncate -s0"), R, true, place},
		{d("fd -X rm . .claude"), R, true, place},
		{d("fd --exec=rm x .claude"), R, true, place},
		{d("fd --search-path .claude -x rm"), R, true, place},
		{d("fd x .claude"), A, false, ""},
		{d("7z x -o.claude x.7z"), R, true, place},
		{d("ar x x.a"), R, true, `write "." of command "ar x x.a"`},
		{d("ar rcs .claude/settings.json x.o"), R, true, place},
		{d("ar t x.a"), A, false, ""},
	})
}

// TestShellBlindRunners: at and batch run a job read from their input, and programs
// that follow the symlinks they meet reach places their words do not name: blind,
// a locked require. ssh's command is scanned as a script run here.
func TestShellBlindRunners(t *testing.T) {
	_, s := gitWritesSet(t, "*")
	d, top := bashAt("docs"), bashAt("")
	checkShell(t, s, []shellCase{
		{d("at now <<< 'rm -rf .claude'"), R, true, "at runs a job"},
		{d("at -f job.txt now"), R, true, "at runs a job"},
		{d("batch <<< 'rm -rf .claude'"), R, true, "batch runs a job"},
		{d("rclone copy -L a b"), R, true, "rclone follows the symlinks it meets"},
		{d("rclone copy --copy-links a b"), R, true, "follows the symlinks"},
		{d("rclone copy a b"), A, false, ""},
		{d("bsdtar -L -cf x.tar x"), R, true, "bsdtar follows the symlinks"},
		{d("bsdtar -cLf x.tar x"), R, true, "bsdtar follows the symlinks"},
		{top("tar -L 100 -cf memory/x.tar memory/x"), A, false, ""}, // GNU: tape length
		{d("pax -L -w x"), R, true, "pax follows the symlinks"},
		{d("eza --follow-symlinks -R"), R, true, "eza follows the symlinks"},
		{d("exa -X -R x"), R, true, "exa follows the symlinks"},
		{d("eza -R x"), A, false, ""},
		{d("getfacl -R -L x"), R, true, "getfacl follows the symlinks"},
		{d("getfacl --logical -R x"), R, true, "follows the symlinks"},
		{d("setfacl -R -L -m u:x:r x"), R, true, "setfacl follows the symlinks"},
		{d("chown -R -L me x"), R, true, "chown follows the symlinks"},
		{d("chgrp -RL me x"), R, true, "chgrp follows the symlinks"},
		{top("ssh host 'cat secrets/key'"), R, true, "a rule denies: secrets"},
		{top("ssh -p 22 host -- 'cat secrets/key'"), R, true, "a rule denies: secrets"},
		{top("ssh host cat secrets/key"), R, true, "denied place: secrets"},
		{top("ssh host uptime"), A, false, ""},
	})
}
