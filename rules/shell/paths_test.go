package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPaths(t *testing.T) {
	base, home := workspaceAndHome(t)
	rel := func(p string) string {
		if r, err := filepath.Rel(filepath.Dir(base), p); err == nil && r[0] != '.' {
			return r
		}
		return p
	}
	tests := []struct {
		name, script string
		want         []string // access:path relative to the workspace's parent
	}{
		{"argument", "cat data/x", []string{"argument:w/data/x"}},
		{"option value", "grep --file=data/x -n y",
			[]string{"read:w/data/x", "argument:w/y"}},
		{"glob", "cat data/*", []string{"listing:w/data", "listing:w/data",
			"argument:w/data/x", "argument:w/data/y"}},
		{"glob no match", "cat nope*", []string{"listing:w", "listing:w", "argument:w/nope*"}},
		{"glob not a path", "echo ../w/data/*", []string{"listing:w", "listing:w/data",
			"listing:w/data"}},
		{"glob in the middle", "echo data/*/x", []string{"listing:w/data", "listing:w/data"}},
		{"quoted glob not a path", `echo "data/*"`, nil},
		{"symlink target", "ln -s ../secrets data/sd", []string{"write:w/secrets",
			"write:w/data/sd"}},
		{"symlink into a directory", "ln -s ../x data", []string{"write:w/x",
			"write:w/data"}},
		{"symlink -t", "ln -s -t data ../a ../b", []string{"write:w/data", "write:w/a",
			"write:w/b"}},
		{"symlink several", "ln -s ../a ../b data/", []string{"write:w/a", "write:w/b",
			"write:w/data"}},
		{"symlink absolute", "ln -s /etc/x data/y", []string{"write:/etc/x",
			"write:w/data/y"}},
		{"symlink here", "ln -s data/x", []string{"write:w/data/x", "write:w"}},
		{"hard link", "ln ../x data/y", []string{"write:x", "write:w/data/y"}},
		{"quoted glob", `cat "data/*"`, []string{"argument:w/data/*"}},
		{"braces", "cat {data,src}/x", []string{"argument:w/data/x", "argument:w/src/x"}},
		{"tilde", "cat ~/.ssh/id_rsa", []string{"argument:home/.ssh/id_rsa"}},
		{"quoted tilde", "cat '~/x'", []string{"argument:w/~/x"}},
		{"redirects", "sort < data/x > data/y 2>> data/z",
			[]string{"read:w/data/x", "write:w/data/y", "write:w/data/z"}},
		{"exempt redirects", "echo > /dev/null 2>&1 <&0", nil},
		{"cd and", "cd data && cat x", []string{"argument:w/data", "argument:w/data/x"}},
		{"cd may fail", "cd data; cat x",
			[]string{"argument:w/data", "argument:w/x", "argument:w/data/x"}},
		{"cd and then more", "cd data && cat x; cat y", []string{"argument:w/data",
			"argument:w/data/x", "argument:w/y", "argument:w/data/y"}},
		{"cd absolute", "cd /tmp; cat x", []string{"argument:/tmp", "argument:w/x",
			"argument:/tmp/x"}},
		{"cd home", "cd; cat x", []string{"argument:w/x", "argument:home/x"}},
		{"program path", "./data/x run", []string{"argument:w/data/x", "argument:w/run"}},
		{"bin program", "/bin/ls", []string{"argument:/bin/ls", "argument:w"}},
		{"home program", "~/bin/x", []string{"argument:home/bin/x"}},
		{"substitution", "echo $(cat data/x)", []string{"argument:w/data/x"}},
		{"sh -c", "bash -c 'cat data/x' sh data/y", []string{"argument:w/data/x"}},
		{"eval", "eval 'cat data/x'", []string{"argument:w/data/x"}},
		{"test clause", "[[ -f data/x ]]", []string{"argument:w/data/x"}},
		{"not literal", "cat $X data/y", []string{"problem:", "argument:w/data/y"}},
		{"downloads", "curl -o data/x http://h; curl -O http://h/y; wget http://h/z",
			[]string{"write:w/data/x", "write:w", "write:w"}},
		{"copies", "cp -r data/x data/y; mv data/a data/b; dd if=data/c of=data/d",
			[]string{"argument:w/data/x", "write:w/data/y", "write:w/data/a",
				"write:w/data/b", "read:w/data/c", "write:w/data/d"}},
		{"curl file URL", "curl -s file:///etc/passwd http://h/x", []string{"read:/etc/passwd"}},
		{"git REV:PATH", "git -C data show HEAD:x", []string{"argument:w/data", "argument:w/x",
			"argument:w/data/x", "working directory:w", "working directory:w/data",
			"repository:w", "repository:w/data"}},
		{"a repository reader", "git log -p; git log --oneline; git archive HEAD",
			[]string{"working directory:w", "repository:w", "argument:w",
				"working directory:w", "argument:w", "argument:w/HEAD", "working directory:w",
				"repository:w"}},
		{"config programs", "cd data && make; npm test; go vet; python3 x.py",
			[]string{"argument:w/data", "working directory:w/data", "working directory:w",
				"working directory:w/data", "working directory:w", "working directory:w/data",
				"argument:w/x.py", "working directory:w", "argument:w/data/x.py",
				"working directory:w/data"}},
		{"no path words", "grep -n -e x -- y; echo data/x; tail -n 5",
			[]string{"argument:w/y"}},
		{"write options", "sort -o data/y data/x; tee data/z",
			[]string{"write:w/data/y", "argument:w/data/x", "write:w/data/z"}},
		{"cwd readers", "ls; ls -l data; git status", []string{"argument:w", "argument:w/data",
			"working directory:w", "argument:w"}},
		{"tilde forms", "cat ~+/x ~-/y ~root/z", []string{"problem:~+/x", "problem:~-/y",
			"problem:~root/z"}},
		{"dot globs", "cat .* ..?* data/.[a-z]*", []string{"problem:.*", "problem:..?*",
			"problem:data/.[a-z]*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.script)
			paths, err := s.Paths(base, home)
			if err != nil {
				t.Fatalf("Paths: %v", err)
			}
			var got []string
			for _, p := range paths {
				if p.Problem != "" {
					got = append(got, "problem:"+p.Name)
					continue
				}
				got = append(got, fmt.Sprintf("%s:%s", p.Access, rel(p.Abs())))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Paths(%q)\n got %q\nwant %q", tt.script, got, tt.want)
			}
		})
	}
}

func TestPathsErr(t *testing.T) {
	base, home := workspaceAndHome(t)
	many := filepath.Join(base, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxMatches + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, script string
		want         error
		some         string // a path still returned, relative to base
	}{
		{"too many matches", "cat data/x many/*", ErrTooManyMatches, "data/x"},
		{"brace explosion", "cat {1..100}{1..100}{1..100}", ErrTooManyMatches, ""},
		{"cd not literal", "cd $D; cat data/x", ErrUnknownDir, ""},
		{"cd dash", "cd -; cat x", ErrUnknownDir, ""},
		{"pushd", "pushd data; cat x", ErrUnknownDir, ""},
		{"cd in function", "f() { cd data; }; f; cat x", ErrUnknownDir, ""},
		{"redirect not literal", `echo hi > "$F"; cat data/x`, ErrUnknownPath, "data/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.script)
			paths, err := s.Paths(base, home)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Paths(%q) error = %v, want %v", tt.script, err, tt.want)
			}
			if tt.some != "" && !slices.ContainsFunc(paths, func(p Path) bool {
				return p.Abs() == filepath.Join(base, tt.some)
			}) {
				t.Errorf("paths %v lack %s", paths, tt.some)
			}
		})
	}
}

// TestPathsGlobBudget: a glob that reads more directory entries than the budget is
// unresolvable however few paths it matches, in every glob form: globstar (which
// goes on past an unreadable directory), nested stars, classes and braces.
func TestPathsGlobBudget(t *testing.T) {
	base, home := workspaceAndHome(t)
	wide := filepath.Join(base, "wide")
	for d := range maxDirEntries/1000 + 1 {
		dir := filepath.Join(wide, fmt.Sprint("d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, script := range []string{"echo wide/**/x", "echo wide/**", "ls wide/**/*/x",
		"echo wide/*/x*", "echo wide/*/x[0-9]", "echo {wide,data}/*/x?", "cd wide && echo **/x",
		"cat wide/*/[x]"} {
		t.Run(script, func(t *testing.T) {
			s := Parse(script)
			if _, err := s.Paths(base, home); !errors.Is(err, ErrTooManyMatches) {
				t.Errorf("Paths(%q) error = %v, want %v", script, err, ErrTooManyMatches)
			}
		})
	}
	s := Parse("echo wide/d1/*x wide/*")
	if _, err := s.Paths(base, home); err != nil {
		t.Errorf("Paths of a glob within the budget: %v", err)
	}
}
