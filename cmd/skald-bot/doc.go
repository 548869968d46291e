// Command skald-bot is the approval gate's binary: it wires the config, store, gate
// and api packages together and offers them as subcommands. docs/design.md tells how
// the gate works; README.md how to run it.
//
//	skald-bot serve [--config FILE]   run the service until SIGINT or SIGTERM
//	skald-bot check | pending | approve | reject | cancel | rules | groups | jobs | backup
//	                                  client commands: talk to the running service
//	skald-bot hook claude-code        a Claude Code PreToolUse hook
//	skald-bot version                 print the version
//
// The configuration file is --config, else $SKALD_CONFIG, else ./skald.yaml
// (config.Locate). Errors go to stderr as one line "skald-bot: …"; the exit code is
// 0 on success, 1 on an error, 2 on a usage error (an unknown command or flag, a
// missing or bad argument — cobra's, or a usageError a command returns, such as
// `approve abc`), or the code a command's error carries (see exitCoder).
//
// serve is a list of components — the gate's background work, the retention pruner,
// the scheduler, the chat fan-out and the notices of finished runs, the Telegram and
// Slack channels when configured, and the HTTP API — started in order and stopped in
// reverse order once a signal arrives; the store is closed last (stop intake,
// finish in-flight work, stop cron, close the store). One set of Prometheus
// metrics is shared by the API (GET /metrics) and the fan-out (failed chat sends).
// data_dir is created 0700; the admin token is api.token, else data_dir/admin.token,
// created on first start and logged by file name only.
// The "serving" log line names the API's bound address (api=127.0.0.1:PORT), so a
// configuration with api.listen on port 0 can be found. Before anything is created,
// serve checks the jobs and binds the API's address: an invalid job or a port in use
// ends start-up with one error line ("skald-bot: api: listen tcp 127.0.0.1:8377:
// bind: address already in use") and exit 1, no data_dir, no store.
package main
