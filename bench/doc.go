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
