// Package shell reads a shell script the way bash would run it, so that rules can
// decide each command it runs (docs/design.md, "Shell commands"). It is pure logic
// on top of mvdan.cc/sh/v3/syntax; only Script.Paths reads the file system, to
// expand globs.
//
// # Commands
//
// Parse splits a script (bash dialect) into its simple commands, in the order they
// appear: through ; && || | & and newlines, ( ) and { }, the conditions and bodies
// of if, while, until, for and case, function bodies, and the insides of $( ),
// backticks, <( ), >( ), here-documents, [[ ]] and arithmetic. Leading assignments
// are dropped, but their substitutions are commands too (X=$(cat key) git status is
// two commands). Assignments are read by an allowlist (docs/design.md, "Shell
// commands"): only a few harmless names (LANG, LC_*, TZ, TERM, …) with a literal
// value keep a command allowable; any other, in any syntax (prefix, bare, export,
// declare, for, read, printf -v, +=, arrays), makes it unknown, and a script that
// assigns HOME has no known ~. One that changes what runs (runnerVars: PATH,
// LD_PRELOAD, GIT_SSH_COMMAND, …) makes the command it is given to Blind, and,
// assigned for the script, every command after it. Arithmetic that names a
// variable, ${!x}, ${x@op}, and a function or alias definition (after which cd
// DIR && no longer narrows the directory) add an unknown command.
//
// A command's words are taken after brace expansion and quote removal; a word with
// a parameter expansion, substitution or arithmetic is kept as written and makes the
// command not literal. The program is named by its base name when it is a bare
// name or lies in /bin, /usr/bin, /usr/local/bin, /sbin or /usr/sbin, else by its
// written form (./data/git stays ./data/git).
//
// # Forms and wrappers
//
// A command has one or more forms, the texts patterns match. A wrapper (env, nice,
// nohup, timeout, time, command, builtin, exec, stdbuf, ionice, busybox, toybox, sudo,
// doas) adds the form of the command it runs: env rm -rf / has the forms "env rm -rf /" and
// "rm -rf /". A deny pattern denies a command when it matches any form; an allow
// pattern allows it when it matches the form marked Allow: the innermost one, or,
// under sudo or doas, the form that starts at sudo. A wrapper option the parser does
// not know stops the unwrapping there.
//
// sh, bash, zsh and dash -c SCRIPT parse SCRIPT again (at most MaxDepth deep): its
// commands follow the wrapper, which is Delegated (its script's commands decide it),
// unless a shell option may make it run other code (-l, -i, -k, --rcfile, …);
// under sudo it is the other way round, the sudo form decides and the inner
// commands are Delegated. The arguments of eval, and the command of trap, are
// parsed the same way, for deny only.
//
// A command is Unknown, and no allow pattern may allow it, when its program is not
// literal, a word is not literal, it is eval, trap, source or ., it runs a script the gate
// cannot read (sh without -c; an interpreter such as python3 asked for more than its
// version), a wrapper option is not known, or it is xargs or find
// with -exec (whose inner command is kept as one more form, for deny). A script
// that does not parse or is longer than MaxScript is one unknown command with no
// forms: no pattern matches it.
//
// A command is also Blind when the gate cannot see what it runs or names: the
// script, or an sh -c, eval or trap script, does not parse, nests deeper than
// MaxDepth or is not literal; a shell or an interpreter reads its code from its
// input (a pipe, a here-document, -, /dev/stdin, a descriptor; not a literal
// < FILE, which is like a script file: docs/design.md, "Shell commands"); xargs; a
// program that is not literal, or a word that is not literal in a command whose
// program may open a file (an expansion may split into options and paths); an
// expansion that runs what a variable holds (arithmetic, ${!x}, ${x@P}); a word
// that reads as an option but is spelt with look-alike letters or dashes
// (LookAlikeOption); a construct the parser does not read. Script.Paths gives
// each Blind command a Path with a Problem, for the caller to decide as a path
// it cannot resolve.
//
// # Patterns
//
// A command pattern is matched against a form: words joined by one space, the
// program by its name as above. * matches any run of characters; a pattern ending
// in " *" or ":*" (the colon standing for the space) also matches the form with
// nothing after it; the match is anchored at both ends. Patterns match literally:
// "rm -rf *" does not match "rm -fr /".
//
// # Options that write or run
//
// The words of known programs are read through one table (programs.go; the table
// of docs/design.md, "Shell commands"): which options and operands are files it
// writes or reads (the operands of formatters that rewrite them, gofmt -w, black,
// go fmt ./..., a directory or tree as a write of it whole), which are no path
// (options, subcommands, patterns, URLs), and which options run a program or code
// (git -c, go test -exec, find -delete, sed -i) or follow symlinks while recursing
// (grep -R, cp -L). Code given inline that may run a command or open a file —
// python3 -c, perl -e, an awk program with system or
// a print to > or |, a sed script with e, r or w — makes the command Blind, as does a
// program that reads the names of the files it opens from its input (zip -@, cpio
// -o, md5sum -c, patch < diff; a list file is a Path with a Problem).
// Those, and the options that write, are the command's
// Risky words: Pattern.Allows allows it only when the pattern spells each of them.
// Long options count when abbreviated where the program accepts that. A git command
// that runs a command its words or settings give (git -c, --exec-path, submodule
// foreach, bisect run, rebase -x, --upload-pack, filter-branch) is Unknown instead.
//
// # Paths
//
// Script.Paths lists what the commands name: the words that may be paths (every
// operand of a program the table does not know, the VALUE of --opt=VALUE), the
// files the table says they write or read, the program when written as a path,
// every redirect target as a read or a write (/dev/null and /dev/std{in,out,err}
// left out, as are dups such as 2>&1), and the directory a command reads or writes
// when it is given no path (ls, git status, curl -O), the directories a glob lists
// (Access List, for every glob, a path or not), and the working directory of a
// program that runs the configuration it finds there (Access Config: git, make,
// npm, go, …; go test and go run also the packages they name, a ./... tree with
// Path.Tree), and the directory of a command that reads its whole repository or
// module (Access Repo: git show, git log -p, go test all; git by an allow-list of
// subcommands and options that print only names and states, gitQuiets, any other
// reading its repository), and the directory of a git command that rewrites its
// whole work tree (checkout BRANCH, pull, reset --hard, an alias: any subcommand
// outside gitKeepsTree that gitTreeWriters does not read by its words) as a Write
// with Marker .git/, the repository's top; git's pathspecs that it writes (restore,
// rm, checkout -- PATHS, clean) are writes, of the whole tree for a pattern (a
// wildcard or a leading ":"); a ./... package pattern
// is a read of its directory. The target of ln -s is taken in
// the link's directory. Words are expanded as bash would —
// braces, ~, globs against the directory the command runs in, with the glob
// options a script may set all on — with at most MaxMatches matches and a budget of
// directory work (ErrTooManyMatches past either); a tilde prefix
// other than ~ and ~/, and a glob component starting with a dot, are a Path with a
// Problem, as is a file that lists the files a command opens (wc --files0-from, tar
// -T). A copy made as a link (cp -l, cp -s, link) writes its sources. Paths are
// joined to their directory without cleaning (Path.Full), for the
// caller to resolve as the OS would. A literal cd DIR moves the directory later
// commands run in; since a cd may fail, a command after it is given both
// directories, unless it runs only when the cd succeeded (cd DIR && …). A cd that is
// not literal, cd -, pushd, popd, or a cd in a loop or function body makes the
// directory unknown. ParseCached caches Parse by script text.
package shell
