package config

import "errors"

// Sentinel errors of Load and Parse, always wrapped with the detail (file, line, key),
// to be tested with errors.Is.
var (
	// ErrNotFound: the configuration file does not exist.
	ErrNotFound = errors.New("config file not found")
	// ErrSyntax: the file is not valid YAML, holds an unknown key, a value of the wrong
	// type, or a malformed ${VAR} reference.
	ErrSyntax = errors.New("invalid YAML")
	// ErrInvalid: a value is out of range or inconsistent with another one. Each
	// problem is a *FieldError naming the key and the bad value.
	ErrInvalid = errors.New("invalid value")
)

// FieldError is one invalid value found by validation. Error returns
// `config: <key> "<value>": <problem>`; the value is left out when it is empty or a
// secret. It unwraps to ErrInvalid.
type FieldError struct {
	// Key is the YAML path of the value, e.g. "jobs[0].name" or "api.listen".
	Key string
	// Value is the offending value as text; empty for a missing value or a secret.
	Value string
	// Problem says what is wrong, e.g. "must match [a-z0-9_-]+".
	Problem string
}

// Error returns `config: <key> "<value>": <problem>`.
func (e *FieldError) Error() string {
	if e.Value == "" {
		return "config: " + e.Key + ": " + e.Problem
	}
	return "config: " + e.Key + " " + quote(e.Value) + ": " + e.Problem
}

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }
