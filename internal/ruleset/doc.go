// Package ruleset is rules as code (docs/design.md, "Rules as code"): the permission
// groups and rules written as YAML.
//
// Export writes the store's groups and rules as a file and Parse reads one back,
// checking every rule as the gate would. Diff computes the changes that make the store
// hold what a file says, Merge those that add a list of new rules to a group; both give
// a Plan whose store.RuleChanges apply in one transaction. Write prints a Plan for a
// review; Unreachable lists the allow rules it adds that could never decide a call. The
// rule order itself is rules' (docs/design.md, "Rule order").
package ruleset
