// Package config loads skald-bot's YAML configuration file (the keys: docs/configuration.md,
// "Configuration"; how the gate uses them: docs/design.md).
//
// Load reads a file in three steps:
//
//  1. ${VAR} references are replaced by the environment variable's value before the
//     YAML is parsed; an unset variable gives "", and "$$" stands for a literal "$"
//     (so a job command keeps a shell variable as "$${HOME}"; "$HOME" needs no escape).
//  2. The YAML is decoded strictly: an unknown key, a duplicate key or a value of the
//     wrong type is an error naming the line and the key path (jobs[0].steps[1].tool).
//  3. Defaults are filled in (data_dir ./data, workspace_root ., approval_timeout 24h,
//     api.listen 127.0.0.1:8377, bypass_short 15m, retention 90d, log info/text, the
//     built-in "default" profile) and every value is validated; all problems are
//     reported at once, each a *FieldError naming the key and the bad value. A
//     duration written as 0 is not "the default": approval_timeout 0 and
//     bypass_short under 1s are refused, retention 0 keeps everything.
//
// Then Resolve makes workspace_root, data_dir and the profiles' working directories
// absolute and resolves their symlinks (docs/design.md, "Normalising paths").
//
// Durations are Go durations or whole days ("90d"). Tokens are of type Secret, which
// prints as "[redacted]" through fmt, log/slog and JSON, so a Config can be logged.
// The package only parses: the cron package checks job schedules, the gate turns
// profiles and tools into rules.Options (see RulesOptions, RulesProfiles).
package config
