package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of the parser.
const (
	// MaxScript is the longest script Parse reads, in bytes; a longer one is one
	// unknown command.
	MaxScript = 64 << 10
	// MaxDepth is how deep sh -c scripts nest before the innermost is unknown.
	MaxDepth = 4
	// MaxMatches is how many paths the globs of one script may match.
	MaxMatches = 1000
)

// Script is a parsed shell script: every simple command it can run, in the order
// they appear, those inside substitutions, functions and sh -c strings included.
type Script struct {
	Commands []Command
	// Err says why the script is one unknown command: it does not parse or is too
	// long. It is nil otherwise. Paths gives such a script as a Path with a Problem.
	Err error

	homeSet bool // it assigns HOME: ~ names a place the gate cannot know
}

// Unknown reports whether any command of the script is unknown.
func (s *Script) Unknown() bool {
	for i := range s.Commands {
		if s.Commands[i].Unknown {
			return true
		}
	}
	return false
}

// Command is one simple command of a script.
type Command struct {
	// Words are the command's words after quote removal and brace expansion, the
	// program first as written; a word that is not literal is kept as written ($X).
	Words []string
	// Literal is false when a word holds a parameter expansion, a substitution or
	// arithmetic.
	Literal bool
	// Program is the name patterns match the program by: its base name when it is
	// a bare name or lies in a system bin directory, else its written form.
	Program string
	// Forms are the texts patterns are matched against: the full form first, then
	// the inner forms of its wrappers (env, nice, sudo, …).
	Forms []Form
	// Redirects are the files the command reads or writes by redirection, the
	// standard streams and /dev/null left out.
	Redirects []Redirect
	// Unknown marks a command no pattern may allow: a program that is not literal,
	// eval, source, a non-literal word, a wrapper option or inner command that is
	// not known, a script that does not parse. Why says which.
	Unknown bool
	Why     string
	// Blind, when set, says why the gate cannot see what the command runs or names:
	// the script does not parse, an sh -c script or a word is not literal, a shell
	// or an interpreter reads its code from its input, xargs, arithmetic on a
	// variable. Paths gives the command a Path with this Problem. Blind implies
	// Unknown.
	Blind string
	// Delegated marks a command whose allowing is left to other commands of the
	// script: an sh -c wrapper (its script's commands follow it) or a command of a
	// script run under sudo (the sudo form decides). It can still be denied.
	Delegated bool
	// Risky are the words of its options (or of its awk or sed program) that make it
	// write a file or run a program (docs/design.md, "Shell commands"): an allow
	// pattern allows the command only when it spells each of them.
	Risky []string

	args        []*syntax.Word // the argument words (after the program), for Paths
	argUses     []wordUse      // what each of args is; nil: each may be a path
	unknownProg bool           // its program is not in the table: its arguments may be written
	dirArg      int            // 1 + the index in args of the -C DIR it works in; 0: none
	readsCwd    bool           // it reads the directory it runs in (ls, git status)
	writesCwd   bool           // it writes into that directory (curl -O, tar -x)
	configs     []string       // files it runs from its directory and above (configPrograms)
	repo        bool           // it reads the whole repository it runs in (git show, git archive)
	worktree    bool           // it writes that repository's whole work tree (git checkout BRANCH)
	runs        bool           // it runs the code of the packages it names (go test, go run)
	writes      bool           // it rewrites the packages it names (go fmt, go fix)
	progWord    *syntax.Word   // the program word, a path when it holds a slash
	dirs        []string       // directories it may run in, relative to the start
	dirKnown    bool
}

// Form is one text of a command that patterns match: the command's words, the
// program by its Program name, joined by single spaces.
type Form struct {
	Text string
	// Allow marks the form an allow pattern decides: the innermost form, or the
	// form that starts at sudo or doas. At most one form of a command has it.
	Allow bool
}

// Redirect is a file a command reads or writes through a redirection.
type Redirect struct {
	Op     string // as written: >, >>, <, &>, 2>, …
	Target string // after quote removal; as written when not literal
	Write  bool   // output (>, >>, &>, >|, <>); false for input (<)
	// Literal is false when Target holds an expansion or substitution.
	Literal bool

	word *syntax.Word
}

// systemBins are the directories whose programs are matched by their base name.
var systemBins = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
}

// ProgramName returns the name patterns match a program word by: its base name
// when it is a bare name or lies in /bin, /usr/bin, /usr/local/bin, /sbin or
// /usr/sbin, else the word as written (./data/git).
func ProgramName(word string) string {
	i := strings.LastIndexByte(word, '/')
	if i < 0 {
		return word
	}
	dir := word[:i]
	if dir == "" {
		dir = "/"
	}
	if systemBins[path.Clean(dir)] && word[i+1:] != "" {
		return word[i+1:]
	}
	return word
}

// formText joins words as patterns see them, the first by its program name.
func formText(words []string) string {
	if len(words) == 0 {
		return ""
	}
	n := len(words) - 1
	first := ProgramName(words[0])
	n += len(first)
	for _, w := range words[1:] {
		n += len(w)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(first)
	for _, w := range words[1:] {
		b.WriteByte(' ')
		b.WriteString(w)
	}
	return b.String()
}
