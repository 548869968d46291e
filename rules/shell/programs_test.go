package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestRisky lists the options (and programs) that make a command write a file or run
// a program, by the table of known programs, with their neighbours that do not.
func TestRisky(t *testing.T) {
	tests := []struct {
		script string
		want   []string
	}{
		{"git log --oneline -n 5", nil},
		{"git log --output=x", []string{"--output=x"}},
		{"git log --outp x", []string{"--outp"}},
		{"git -c a=b log", []string{"-c"}},
		{"git -ca=b log", []string{"-ca=b"}},
		{"git --exec-path=/x log", []string{"--exec-path=/x"}},
		{"git diff --ext-diff", []string{"--ext-diff"}},
		{"git diff --no-ext-diff", nil},
		{"git format-patch -o d HEAD~1", []string{"-o"}},
		{"git grep -o x", nil}, // only-matching
		{"git config core.pager sh", []string{"config"}},
		{"git config --get core.pager", nil},
		{"git rebase -x make main", []string{"-x"}},
		{"go test -race -count=1 ./...", nil},
		{"go test -exec x ./...", []string{"-exec"}},
		{"go test -o=t ./...", []string{"-o=t"}},
		{"go build -o bin/x .", []string{"-o"}},
		{"go test ./... -args -test.cpuprofile=c", []string{"-test.cpuprofile=c"}},
		{"go env -w GOFLAGS=x", []string{"-w"}},
		{"go env GOPATH", nil},
		{"go generate ./...", []string{"generate"}},
		{"npm test", nil},
		{"npm test --script-shell=sh", []string{"--script-shell=sh"}},
		{"npm -C x test", []string{"-C"}},
		{"find . -name x -print", nil},
		{"find . -delete", []string{"-delete"}},
		{"find . -fprint f", []string{"-fprint"}},
		{"sort -n f", nil},
		{"sort -no f f", []string{"-no"}},
		{"sort --output=f f", []string{"--output=f"}},
		{"sed -n p f", nil},
		{"sed -i s/a/b/ f", []string{"-i"}},
		{"sed s/a/b/w f", []string{"s/a/b/w"}},
		{"sed 1e f", []string{"1e"}},
		{"awk '{print $1}' f", nil},
		{`awk 'BEGIN{system("x")}'`, []string{`BEGIN{system("x")}`}},
		{"curl -s http://h", nil},
		{"curl -o f http://h", []string{"-o"}},
		{"curl -O http://h/f", []string{"-O"}},
		{"curl -K cfg http://h", nil}, // a list: see TestShellFileLists
		{"wget -O f http://h", []string{"-O"}},
		{"wget --execute=x http://h", []string{"--execute=x"}},
		{"tar -tzf a.tgz", nil},
		{"tar -xzf a.tgz", []string{"-x"}},
		{"tar --use-compress-program=sh -cf a .", []string{"--use-compress-program=sh"}},
		{"make test", nil},
		{"make CC=sh", []string{"CC=sh"}},
		{"python3 x.py", nil},
		{"python3 -c x", []string{"-c"}},
		{"node -e x", []string{"-e"}},
		{"rg --pre sh x", []string{"--pre"}},
		{"rg -e x", nil},
		{"dd if=a of=b", nil}, // dd's files are its operands, decided by the file rules
		{"env timeout 5 go test -toolexec=x", []string{"-toolexec=x"}},
		// Options that follow symlinks while recursing.
		{"grep -r x d", nil},
		{"grep -R x d", []string{"-R"}},
		{"grep -nR x d", []string{"-nR"}},
		{"grep --dereference-recursive x d", []string{"--dereference-recursive"}},
		{"grep --deref x d", []string{"--deref"}},
		{"rg -L x", []string{"-L"}},
		{"rg --follow x", []string{"--follow"}},
		{"ls -R d", nil},
		{"ls -LR d", []string{"-LR"}},
		{"ls --dereference d", []string{"--dereference"}},
		{"du -sL d", []string{"-sL"}},
		{"tree -l d", []string{"-l"}},
		{"find -L d -name x", []string{"-L"}},
		{"find d -follow", []string{"-follow"}},
		{"find -H d", nil},
		{"cp -r d e", nil},
		{"cp -rL d e", []string{"-rL"}},
		{"cp --dereference d e", []string{"--dereference"}},
		{"tar -chf a.tar d", []string{"-chf"}},
		{"tar --dereference -cf a.tar d", []string{"--dereference"}},
		{"rsync -aL d e", []string{"-aL"}},
		{"rsync --copy-links d e", []string{"--copy-links"}},
		{"rsync -a d e", nil},
		{"scp -r d h:", []string{"-r"}},
		{"zip -r a.zip d", []string{"-r"}},
		{"chmod -RL 600 d", []string{"-RL"}},
		{"ag -f x", []string{"-f"}},
		{"ag --follow x", []string{"--follow"}},
		{"ag -i x", nil},
		{"ack --follow x", []string{"--follow"}},
		{"ack --pager=less x", []string{"--pager=less"}},
		{"fd -L x", []string{"-L"}},
		{"fd -x rm", []string{"-x"}},
		{"fd -e go x", nil},
		// Archivers by their command: what writes an archive or unpacks one.
		{"7z l a.7z", nil},
		{"7z x a.7z", []string{"x"}},
		{"7z a -sdel a.7z d", []string{"-sdel", "a"}},
		{"7z a -l a.7z d", []string{"-l", "a"}},
		{"tar --extract -f a.tar", []string{"-x"}},
		{"tar --list -f a.tar", nil},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			s := Parse(tt.script)
			if len(s.Commands) != 1 {
				t.Fatalf("%d commands", len(s.Commands))
			}
			if got := s.Commands[0].Risky; !slices.Equal(got, tt.want) {
				t.Errorf("Risky = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpaque: inline code that may open or run more, names read from a list or the
// input, and an assignment that changes what runs make a command blind; a script
// file makes it unknown only; filters on the files they name stay allowable.
func TestOpaque(t *testing.T) {
	const blind, unknown, plain = 2, 1, 0
	tests := []struct {
		script string
		want   int
	}{
		{"python3 -c 1", blind},
		{"python3 -Xdev -c 1", blind},
		{"python3 x.py -c 1", unknown},
		{"python3 -m venv d", unknown},
		{"perl -lne print f", blind},
		{"perl -Mfeature=say x.pl", unknown},
		{"node --print 1", blind},
		{"node --inspect-port 9 x.js", unknown},
		{"php -B 1 -R 2", blind},
		{"awk '{print $1 > \"f\"}'", blind},
		{"awk '{print $1 | \"sort\"}'", blind},
		{"awk '{print $1 || $2}'", blind}, // in doubt
		{"awk '$1 > 5'", plain},
		{"awk '{print ($1 > 5)}'", plain},
		{"awk -f p.awk f", unknown},
		{"sed 's/x/y/;w f'", blind},
		{"sed 's/x/y/W f'", blind},
		{"sed 'e'", blind},
		{"sed 'R f'", blind},
		{"sed 's/x/y'", blind}, // does not end: in doubt
		{"sed '/x/!d'", plain},
		{"sed -n '2,+3p;$='", plain},
		{"sed 'y/ab/cd/'", plain},
		{"sed ':a;N;$!ba;s/\\n/ /g'", plain},
		{"sed '/a/{s/b/c/;p}'", plain},
		{"sed -f s.sed f", unknown},
		// Code from the input is blind, from a file (an operand, < FILE) unknown.
		{"python3 <<< x", blind},
		{"python3 - <<< x", blind},
		{"python3 -i x.py", blind},
		{"python3 -W ignore -", blind},
		{"python3 -- -", blind},
		{"python3 /dev/fd/3 3< x.py", blind},
		{"python3 < /dev/tcp/h/80", blind},
		{"python3 -u - < x.py", unknown},
		{"{ python3; } < x.py", unknown},
		{"python3 -m pytest", unknown},
		{"python3 --version", plain},
		{"bash < x.sh", unknown},
		{"bash /dev/stdin", blind},
		{"deno run -", blind},
		{"deno fmt", unknown},
		{"bun install", unknown},
		{"Rscript", unknown}, // prints its usage
		{"sqlite3 db", blind},
		{"sqlite3 db 'select 1'", blind},
		{"sqlite3 db < q.sql", unknown},
		{"pwsh -NoExit -File x.ps1", blind},
		{"pwsh -file x.ps1", unknown},
		{"awk -f a.awk -f - f", blind},
		{"gawk -E x.awk f", unknown},
		{"sed -f /dev/stdin f", blind},
		{"jq -f /dev/stdin f", blind},
		{"jq -f x.jq f", plain},
		{"zip -@ a.zip", blind},
		{"cpio -o", blind},
		{"sha1sum -c", blind},
		{"sha1sum -c sums", blind}, // the list is a Path with a Problem
		{"sha1sum f", plain},
		{"patch < d", blind},
		{"patch f d", plain},
		{"git apply", blind},
		{"git apply --stat d", plain},
		{"PATH=x ls", blind},
		{"GIT_CONFIG_KEY_0=core.pager git log", blind},
		{"env GIT_PAGER=x git log", blind},
		{"FOO=1 ls", unknown},
		{"IFS= read -r l", unknown},
		{"IFS=: read -r l", blind},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			s := Parse(tt.script)
			if len(s.Commands) != 1 {
				t.Fatalf("%d commands", len(s.Commands))
			}
			c := s.Commands[0]
			got := plain
			switch {
			case c.Blind != "":
				got = blind
			case c.Unknown:
				got = unknown
			}
			paths, err := s.Paths("/w", "/h")
			if err != nil {
				t.Fatal(err)
			}
			if got == plain && slices.ContainsFunc(paths, func(p Path) bool {
				return p.Problem != ""
			}) {
				got = blind
			}
			if got != tt.want {
				t.Errorf("Blind %q, Unknown %v (%q); want %d", c.Blind, c.Unknown, c.Why, tt.want)
			}
		})
	}
}

// TestGoBuildOut: go build of one package writes ./NAME, unless -o names the file.
func TestGoBuildOut(t *testing.T) {
	tests := []struct {
		words []string
		want  derive // of the last word
	}{
		{[]string{"go", "build", "./cmd/y"}, deriveBase},
		{[]string{"go", "build", "-trimpath", "./cmd/y"}, deriveBase},
		{[]string{"go", "build", "-o", "x", "./cmd/y"}, deriveNone},
		{[]string{"go", "build", "--o=x", "./cmd/y"}, deriveNone},
		{[]string{"go", "build", "-o=x", "./cmd/y"}, deriveNone},
		{[]string{"go", "build", "./a", "./b"}, deriveNone},
		{[]string{"go", "build", "./..."}, deriveNone},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			u := classify(tt.words)
			if got := u.uses[len(tt.words)-1].derive; got != tt.want {
				t.Errorf("derive = %d, want %d", got, tt.want)
			}
		})
	}
}
