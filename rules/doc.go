// Package rules decides what happens to an AI agent's tool call: allow it, deny it, or
// require a human's approval. It is the pure core of skald-bot: it imports only the
// standard library, keeps no state between calls but the resolution of its path
// patterns, and touches the file system only to resolve paths (lstat, readlink).
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
// Compile turns every group and rule into a Set, indexed by tool name, that many
// goroutines evaluate at once. Set.Evaluate decides a call (docs/design.md, "Deciding
// a call"): every path argument of the call — each string, or element of an array,
// under a key of Options.PathArgs, and the literal folder of each alternative of
// Glob's pattern and Grep's glob — is normalised in every form a tool may open (every
// base, ".." as the OS and as a lexical cleaner takes it, "~" expanded) and decided on
// its own, the strictest answer winning; other strings that look like paths lock the
// call when they lie in a protected or denied place. A path
// under a protected place (the data directory, the config file) is denied before any
// rule; otherwise the first matching rule of the call's group, then of "default",
// decides, and nothing matching is require. Three kinds of require are locked
// (Decision.Locked: no bypass or fast-path lifts them): a path holding a protected or
// denied place (Grep or LS on a parent of secrets/), a path inside or holding a denied
// place under a tool outside the file classes (an MCP notes tool reading secrets/key),
// and a path the service cannot resolve for the agent (not a string, a NUL byte, a
// loop, a folder it may not search, /proc/self or /dev/fd, which name the agent's own
// process). The reference MCP filesystem server's tools, under the servers of
// Options.MCPFilesystem, are file tools like Read and Write.
//
// A call without a path argument of a tool that is not a file tool allocates nothing
// and reads only rules that can match its tool name: exact names (with the @fs classes
// expanded to their tools) and prefixes are looked up in maps, and each candidate list
// is scanned only up to the best match so far. Rules with a path filter are further
// split by the first directory of their resolved pattern.
//
// # Paths
//
// Normalize resolves a path the way the OS will when the tool opens it: relative to the
// call's working directory, walking it component by component and following every
// symlink where it is met, so data/link/../key with link → ../secrets/x is secrets/key.
// Results under the workspace root are relative to it ("secrets/key"). Under compares
// normalised paths by whole components, so memory/* never matches memory-secrets/x.
//
// A rule's path pattern follows the name it was written with: it is resolved the same
// way, as the file system is now. A Set keeps the resolved patterns with the identity
// (device, inode, change time) of every directory their resolution looked a name up
// in — most often the workspace root alone — and a call with a path checks those with
// one lstat each, resolving again only when one changed (see follow.go).
package rules
