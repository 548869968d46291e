// Package bench measures skald-bot's rule engine (package rules) side by side with the
// two policy engines a user would otherwise reach for — Open Policy Agent (Rego, through
// a prepared query) and Cedar (cedar-go) — and the store's approval-request throughput,
// memory and start-up time. It is its own Go module so that the service never depends
// on OPA or Cedar; README.md holds the measured table and the one command that
// reproduces it. The semantics every engine is held to are those of the repository's
// docs/design.md, "Deciding a call".
//
// Generate builds one policy — a realistic mix of exact tool names, mcp__server__*
// prefixes, @fs_* classes with path subtrees, agent and source filters, in two
// permission groups — as our []rules.Rule. NewOurs, NewRego and NewCedar turn that one
// policy into each engine:
//
//   - ours: rules.Compile, then Set.Evaluate (docs/design.md, "Deciding a call");
//   - Rego: one Rego rule per rule, keyed in the rule tree by tool name or tool prefix so
//     that OPA looks up only the candidates of a call, and the first match by (tier,
//     priority, id) taken as the minimum of the matching rules (RegoModule);
//   - Cedar: one permit (allow) or forbid (deny) policy per rule (CedarPolicies). Cedar
//     has no order — a forbid overrides any permit — so it only gets an OrderFree mix,
//     whose decisions do not depend on the order: allow and deny only, and rules that
//     can match the same call always agree. No matching policy (Cedar's default deny with
//     no reason) reads as our default: require.
//
// # Generated policies
//
// One rule in four belongs to Group, the others to rules.DefaultGroup. Their shapes, by
// id modulo 10: exact tool_N names (three in ten), an exact mcp__srvN__<action>, a
// prefix mcp__srvN__*, @fs_read with projN/*, @fs_write with projN/src/*, an exact
// tool_N filtered by agent, a prefix mcp__srvN__* filtered by source, and @fs_any with
// secretN/*. An Ordered mix draws each action among allow, deny and require (deny or
// require for secret directories), turns one rule in fifty into a "*" filtered by
// source at priority 900 to 999 (a fallback), and makes rule 1 the catch-all "*"
// require at priority 999999. An OrderFree mix derives each action from the name the
// rule is about (see OrderFree).
//
// # Rego
//
// Each of our rules becomes one Rego rule per tool name it names (an @fs class is
// expanded to rules.DefaultFSRead and rules.DefaultFSWrite), filed in the rule tree
// where a call looks it up (see regoHead): by_path[name][first directory] when it has a
// path pattern under a directory, else by_tool[name]; a prefix under by_prefix[prefix];
// "*" in any_tool. Its group, agent, source and path filters become the rule's body;
// strings are quoted as JSON, which Rego reads. Each deny rule with a path filter also
// becomes a guard_in[first directory] (or guard_any) rule with the same body: a call of
// a tool outside the file classes (fileTools) that one matches, whatever its tool
// pattern, is require unless a rule denies it, and an allow then names no rule.
//
// # Cedar
//
// The request is principal Agent::"<agent_id>", action Action::"call", resource
// Tool::"<tool>", and the context {group, tool, source, path, has_path}. An exact tool
// name is a resource constraint, a prefix a like pattern on context.tool, an @fs class
// membership of ToolClass::"fs_read" or "fs_write" (CedarEntities); the agent a
// principal constraint; group, source and path conditions on the context. Each deny
// rule with a path filter is also a forbid annotated @guard("<id>") for the tools
// outside the file classes (not in ToolClass::"file"), with the rule's agent, group,
// source and path conditions but not its tool: Cedar has no effect but permit and
// forbid, so Cedar.Eval reads a Deny that only guards caused as require. These forbids
// follow the rules' policies.
//
// # Guards and paths
//
// A tool outside the file classes whose path lies in a place a deny rule with a path
// filter denies is require unless a rule denies it (docs/design.md, "Protected and
// guarded places"): Rego and Cedar encode that guard with one extra rule per such deny
// rule. A folder that holds such a place is guarded by ours only while the place exists
// on disk, which the other two cannot see; the generated calls never name one.
//
// Paths are passed already normalised to all three. Normalisation (docs/design.md,
// "Normalising paths") is our OS-level work: Evaluate still runs it on every call with a
// path (os.Lstat), which the other two skip; BenchmarkNormalize measures that share apart.
//
// Calls generates the calls, mostly near a rule (matching it or missing it by one
// filter), and Compare checks that engines decide each one identically: the benchmarks
// refuse to run, and the tests fail, on any mismatch.
package bench
