package config

import "os"

// Where the configuration file is looked for.
const (
	// EnvFile is the environment variable that names the configuration file when no
	// --config flag does.
	EnvFile = "SKALD_CONFIG"
	// DefaultFile is the file read when neither --config nor EnvFile names one,
	// relative to the working directory.
	DefaultFile = "skald.yaml"
)

// Locate returns the configuration file a command should read: flag (the --config
// value) when not empty, else the value of EnvFile read through getenv (nil means
// os.Getenv), else DefaultFile. named reports whether the file was named by the flag
// or the variable: a named file that is missing is an error (Load's ErrNotFound),
// while a client command may go on without the default one.
func Locate(flag string, getenv func(string) string) (path string, named bool) {
	if flag != "" {
		return flag, true
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if env := getenv(EnvFile); env != "" {
		return env, true
	}
	return DefaultFile, false
}
