// Package rules decides what happens to an AI agent's tool call: allow it, deny it, or
// require a human's approval. It is the pure core of skald-bot: it imports only the
// standard library, its shell parser rules/shell and golang.org/x/net/idna, keeps no
// state between calls but the resolution of its path patterns, and touches the file
// system only to resolve paths (lstat, readlink).
// docs/design.md tells the design ("Deciding a call" and its subsections); this comment
// says how the package does it.
//
// # The model
//
// A Rule belongs to a permission Group and matches a tool call by its tool name
// (ToolPattern: "*", an exact name, "prefix*", or a file-tool class @fs_read, @fs_write,
// @fs_any), optionally by the call's agent, source and path (PathPattern: "<dir>/*" for a
// subtree, "prefix*", or an exact path), a shell tool's command (CommandPattern) or a
// web tool's URL host (HostPattern). Validate checks a rule's syntax before the
// store keeps it; CheckCatchAll refuses a second unfiltered "*" rule with another
// action in one group. Both return errors wrapping ErrInvalidRule that name the field.
//
// # Evaluation
//
// Compile turns every group and rule into a Set, indexed by tool name, that many
// goroutines evaluate at once. Set.Evaluate decides a call (docs/design.md, "Deciding
// a call") in five steps:
//
//  1. The call's paths are every Options.PathArgs key of its arguments holding a
//     string or an array of strings (each element a path; null and "" are none; a
//     file: URI is its path), and the literal directory of each alternative of Glob's
//     "pattern" or Grep's "glob" once its braces are expanded (up to the last "/"
//     before the first wildcard, relative to the call's "path"). Each path is decided
//     in every form a tool may open (docs/design.md, "Normalising paths"): joined to
//     the call's Cwd, to its WorkingDir and to the workspace root, with "~" also as the
//     home directory, each normalised as Normalize does and also once cleaned of ".."
//     lexically first. Any other value (a number, an object, an array holding one), a
//     form Normalize refuses, one going through /proc/self, /proc/<pid> or /dev/fd,
//     "~user", a glob with a ".." after a wildcard or too many alternatives, or a Cwd
//     or WorkingDir holding a NUL byte, is unresolvable (PathInvalid): it matches no
//     path rule.
//  2. Each path is decided on its own: under an Options.Protected path (the data
//     directory, the config file) it is denied before any rule (ReasonProtected);
//     otherwise the first matching rule of the call's group, then of DefaultGroup, in
//     Compare order decides (ReasonRule), else require (ReasonNoRule). Unless that is a
//     deny, three kinds of require are locked (Decision.Locked: no bypass or fast-path
//     lifts them): an unresolvable path (ReasonBadPath when a rule allowed); for a tool
//     outside the file classes, a path a deny rule with a path filter matches, whatever
//     its tool pattern (ReasonDenied: an MCP notes tool reading secrets/key); and a path
//     that is a strict ancestor of a protected path or holds what a deny rule with a
//     path filter denies (ReasonContains: Grep or LS on a parent of secrets/) — in
//     the workspace, or in another project of Options.Projects whose root the path
//     holds: "src" holds src/p/secrets when src/p is a project with a secrets/.
//     A directory holds a place also through a symlink directly inside it that
//     leads to the place, into it or above it (docs with docs/sx → ../secrets), and
//     a glob through each folder its components after the literal directory enter,
//     up to a "**" and maxGlobWalk folders (links.go). Decision.Contains names the
//     place in all three, as the call's paths name it. A write to an
//     Options.NeedsHuman path, or of a folder holding one (a write-class file tool, a
//     tool outside the file classes, a shell output redirect or plain argument), is a
//     locked require too (ReasonNeedsHuman).
//  3. The call's decision is its strictest form's — deny, then a locked require, then
//     require, then allow — the first winning a tie; Decision.Paths counts the
//     distinct forms.
//  4. A file tool (IsFSRead, IsFSWrite) without a path is decided on "." — its working
//     directory, so Grep {"pattern":"token"} in the workspace root is guarded like Grep
//     on "."; any other call without a path by the rules without a path filter.
//  5. Every other string of the arguments, nested in objects and arrays too, that
//     looks like a path (it holds a "/", starts with "~" or ".", or is a file: URI),
//     and each word of it, is normalised in the same forms. For a tool outside the
//     file classes it is decided as in step 2 but never allows: a deny denies, a
//     locked require locks. For a file tool, one inside a protected place, or inside
//     what a deny rule with a path filter denies when its agent and source filters
//     apply, makes a call that steps 3 and 4 did not deny a locked require
//     (ReasonInProtected or ReasonDenied). Deeper than 16 levels or more than 1024
//     strings is unresolvable.
//
// The reference MCP filesystem server's tools, under the servers of
// Options.MCPFilesystem, are file tools like Read and Write. Evaluate retries when the
// file system changes under a call while its paths are resolved, and gives up with a
// locked require after three tries.
//
// A call without a path argument of a tool that is not a file tool allocates nothing
// and reads only rules that can match its tool name: exact names (with the @fs classes
// expanded to their tools) and prefixes are looked up in maps, and each candidate list
// is scanned only up to the best match so far. Rules with a path filter are further
// split by the first directory of their resolved pattern.
//
// Shadowing tells an admin which earlier unfiltered rule already decides every call a
// new rule matches (first match wins), and Compare is the one (priority, id) order.
//
// # Shell commands
//
// A call of a shell tool (Options.Shell) whose script argument is a string is parsed
// (package rules/shell) and each simple command decided by the rules of its tool —
// those with a CommandPattern only match commands — the call being deny if any
// command is denied, allow only if every one is allowed, else require; an allow
// pattern allows a command with an option that writes or runs only when it spells
// the option. Redirect targets, and the files the options and operands of known
// programs write or read, are decided as file writes and reads by the file rules and
// by the guards, other words that may be paths by the guards above, each in every
// form of step 1; what the gate cannot see into (a script that does not parse, a
// shell.Command that is Blind, a script that is not a string) as an unresolvable
// path. Decision.Script lists every command (docs/design.md, "Shell commands").
//
// # Web hosts
//
// A call of a web tool (Options.Web) has a host when its URL argument is a string
// net/url parses, of scheme http or https, with a host; the host is lowercased, its
// trailing dot, port and userinfo dropped, mapped by IDNA's lookup profile, and an IP
// address put in canonical form (a numeric last label that is not a dotted IPv4
// address is no host: clients read 0x7f.1 as an address). A rule with a HostPattern
// matches only a call with a host the pattern matches: "example.com" exactly,
// "*.example.com" its strict subdomains, "*" any; the pattern is normalised the same
// way at Compile (docs/design.md, "Web hosts").
//
// # Paths
//
// Normalize resolves a path the way the OS will when the tool opens it: relative to the
// call's working directory, walking it component by component and following every
// symlink where it is met, so data/link/../key with link → ../secrets/x is secrets/key.
// Nothing is cleaned lexically first. Components that do not exist yet are taken as
// written, and a ".." among them drops the last of them — as it would once they are
// created as directories — after which resolution continues through what exists
// (data/new-dir/../link/y is secrets/x/y, as mkdir -p and the OS would make it). A
// directory the service may not read is an error, not a guess: resolving around it
// could be bypassed; /proc/self and /dev/fd name another place for the agent than for
// the service. Results under the workspace root are relative to it ("secrets/key").
// Under compares normalised paths by whole components, so memory/* never matches
// memory-secrets/x. Under a root whose file system folds case (FoldsCase,
// Options.FoldsCase) the paths relative to it, and the patterns resolved there, are
// in lower case, as are absolute paths outside every root when "/" folds (fold.go).
//
// A rule's path pattern follows the name it was written with: it is resolved the same
// way, as the file system is now. A Set keeps the resolved patterns with the identity
// (device, inode, change time) of every directory their resolution looked a name up
// in — most often the workspace root alone — and a call with a path, once decided,
// checks those with one lstat each, resolving again and deciding again only when one
// changed (see follow.go). With Options.Projects, the patterns are resolved in each
// project too, and a form relative to a project is decided by the rules as resolved
// there; a form in or holding a place a project's deny rule resolves to outside that
// project (a link out of it) is decided by that project's rules as well.
package rules
