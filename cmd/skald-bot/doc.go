// Command skald-bot is the approval gate's binary (SPEC §2, §9): it wires the config,
// store, gate and api packages together and offers them as subcommands.
//
//	skald-bot serve [--config FILE]   run the service until SIGINT or SIGTERM
//	skald-bot check | pending | approve | reject | rules | groups | jobs
//	                                  client commands: talk to the running service
//	skald-bot hook claude-code        a Claude Code PreToolUse hook
//	skald-bot version                 print the version
//
// The configuration file is --config, else $SKALD_CONFIG, else ./skald.yaml
// (config.Locate). Errors go to stderr as one line "skald-bot: …"; the exit code is
// 0 on success, 1 on an error, 2 on a usage error (an unknown command or flag, a bad
// argument), or the code a command's error carries (see exitCoder).
//
// serve is a list of components — the gate's background work, the retention pruner
// and the HTTP API today; the scheduler and the chat channels slot in the same way,
// before the API — started in order and stopped in reverse order once a signal
// arrives; the store is closed last (STYLE.md: stop intake, finish in-flight work,
// stop cron, close the store).
package main
