package shell

import (
	"slices"
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
		{"curl -K cfg http://h", []string{"-K"}},
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
