// Package rules decides what happens to an AI agent's tool call: allow it, deny it, or
// require a human's approval (SPEC §4). It is the pure core of skald-bot: it imports
// only the standard library, keeps no state between calls, and touches the file system
// only to resolve paths (os.Lstat, os.Readlink).
//
// # The model
//
// A Rule belongs to a permission Group and matches a tool call by its tool name
// (ToolPattern: "*", an exact name, "prefix*", or a file-tool class @fs_read, @fs_write,
// @fs_any), optionally by the call's agent, source and path (PathPattern: "<dir>/*" for a
// subtree, "prefix*", or an exact path). Validate checks a rule's syntax before the
// store keeps it; CheckCatchAll refuses a second unfiltered "*" rule with another
// action in one group. Both return errors wrapping ErrInvalidRule that name the field.
//
// # Evaluation
//
// Compile turns every group and rule into a Set: an immutable snapshot, indexed by tool
// name, that many goroutines evaluate at once without locks. Set.Evaluate follows SPEC
// §4:
//
//  1. every path argument of the call — each of the keys "path", "file_path",
//     "notebook_path" that holds a value — is normalised (see below) and decided on
//     its own, and the call gets the most restrictive answer (deny, then require, then
//     allow): a tool may act on any key it is sent, so a harmless "path" cannot vouch
//     for a "file_path" in secrets/. A value that is not a string or cannot be
//     normalised matches no path rule and is at least require. A file tool (@fs_read,
//     @fs_write) sent none of these keys is decided as if its path were its working
//     directory — the call's cwd, else the profile's, else the workspace root — since
//     Grep {"pattern":"token"}, Glob or LS {} search that directory; other tools
//     without a path are decided by their rules alone. This is how we read SPEC §4.4,
//     which names only the first key;
//  2. a path in a protected directory (the data directory) or on a protected file
//     (the config file) is denied before any rule, in every group (SPEC §12.25);
//  3. the rules of the call's group, then those of group "default", each in (priority,
//     id) order, are tried; the first that matches decides. So a group's own allow can
//     override a deny of "default" (SPEC §12.15);
//  4. when nothing matches, the answer is require: the gate is closed by default;
//  5. a path that holds a guarded place — a strict ancestor of a protected path, or of
//     what a deny rule with a path filter that applies to the call denies — is never
//     allowed without a human: an allow becomes require, and Decision.Contains tells
//     the gate that no bypass or fast-path may lift it. SPEC §4 and §12.25 match only
//     paths inside a place; this extension stops Grep or LS on a parent folder from
//     reading secrets/ or the data directory. A place counts only while it exists on
//     disk (one lstat per candidate place, on calls with a path only), so a workspace
//     without secrets/ is not held back by the secrets/* deny. Compile lists each
//     tier's guarded places, sorted, so a path finds those below it by binary search.
//
// Session bypasses and the profile fast-path (SPEC §4.8, §4.9) are not here: the gate
// applies them to the Decision. Set.Visible says whether a tool is shown to an agent at
// all (hidden when the first rule without a path filter that matches it is a deny).
//
// A call without a path argument of a tool that is not a file tool allocates nothing
// and reads only rules that can match its tool name: exact names (with the @fs classes
// expanded to their tools) and prefixes are looked up in maps, and each candidate list
// is scanned only up to the best match so far. Rules with a path filter are further
// split by the first directory of their pattern, so a call with a path reads only
// those that could match it.
//
// # Paths
//
// Normalize resolves a path the way the OS will when the tool opens it: relative to the
// call's working directory (else the profile's, else the workspace root), walking it
// component by component and following every symlink where it is met. A ".." after a
// symlink therefore leaves the link's target — data/link/../key with link → ../secrets/x
// is secrets/key — and cleaning the path lexically first, the classic bypass, never
// happens. Results under the workspace root are relative to it ("secrets/key"), others
// stay absolute. A path that cannot be normalised (a NUL byte, not a string, a symlink
// loop) matches no path rule. ResolvePattern resolves a rule's path pattern the same way
// when the rule is created, so a secrets directory that is itself a symlink is still
// matched (SPEC §12.14). Under compares normalised paths by whole components, so
// memory/* never matches memory-secrets/x.
package rules
