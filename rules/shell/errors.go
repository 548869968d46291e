package shell

import "errors"

// Sentinel errors of the shell package. Test for them with errors.Is.
var (
	// ErrBadPattern is wrapped by every error Compile returns.
	ErrBadPattern = errors.New("invalid command pattern")

	// ErrTooManyMatches is returned by Script.Paths when the globs of a script match
	// more than MaxMatches paths, or walking for them opens and reads more directory
	// entries than its budget, however few it matches.
	ErrTooManyMatches = errors.New("globs match too many paths")

	// ErrUnknownDir is returned by Script.Paths when a command runs in a directory the
	// script does not name literally (a cd to a variable, cd -, pushd, a cd in a loop).
	ErrUnknownDir = errors.New("directory of a command is not known")

	// ErrUnknownPath is returned by Script.Paths when a redirect target is not literal
	// (echo hi > "$F"): the file it reads or writes is not known.
	ErrUnknownPath = errors.New("redirect target is not literal")
)
