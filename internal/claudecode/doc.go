// Package claudecode reads and writes Claude Code's settings files
// (.claude/settings.json): InstallHook and UninstallHook merge skald-bot's PreToolUse
// hook into one, keeping everything else, and Translate turns its
// permissions.allow/ask/deny into skald-bot rules (docs/claude-code.md). The files'
// contract is summarised in testdata/hook_contract.txt and
// testdata/permissions_rule_syntax.txt.
package claudecode
