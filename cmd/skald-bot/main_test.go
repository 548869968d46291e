package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runCLI runs the command line in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestVersion(t *testing.T) {
	code, out, errOut := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "skald-bot dev (") ||
		strings.Count(out, "\n") != 1 || errOut != "" {
		t.Errorf("version = %d, %q, %q", code, out, errOut)
	}
}

// TestCommandLineErrors checks each bad command line: its exit code and its one line
// on stderr.
func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // no ./skald.yaml here
	t.Setenv("SKALD_CONFIG", "")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("log: {level: loud}\n"+
		"jobs: [{name: Bad Name, schedule: \"@daily\", steps: [{tool: x}]}]\n"),
		0o600); err != nil {
		t.Fatal(err)
	}
	unknown := filepath.Join(dir, "unknown.yaml")
	if err := os.WriteFile(unknown, []byte("api:\n  listen: \"127.0.0.1:0\"\n  tokn: x\n"),
		0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{
			name: "unknown command",
			args: []string{"bogus"},
			code: 2,
			want: `skald-bot: unknown command "bogus" for "skald-bot" (see skald-bot --help)`,
		},
		{
			name: "suggestion",
			args: []string{"aprove", "1"},
			code: 2,
			want: "skald-bot: unknown command \"aprove\" for \"skald-bot\" " +
				"(see skald-bot --help)\nDid you mean this?\n\tapprove",
		},
		{
			name: "unknown flag",
			args: []string{"serve", "--bogus"},
			code: 2,
			want: `skald-bot: unknown flag: --bogus (see skald-bot serve --help)`,
		},
		{
			name: "flag without value",
			args: []string{"serve", "--config"},
			code: 2,
			want: `skald-bot: flag needs an argument: --config (see skald-bot serve --help)`,
		},
		{
			name: "extra argument",
			args: []string{"serve", "now"},
			code: 2,
			want: `skald-bot: unknown command "now" for "skald-bot serve" ` +
				`(see skald-bot serve --help)`,
		},
		{
			name: "version argument",
			args: []string{"version", "x"},
			code: 2,
			want: `skald-bot: unknown command "x" for "skald-bot version" ` +
				`(see skald-bot version --help)`,
		},
		{
			name: "named config missing",
			args: []string{"serve", "--config", "missing.yaml"},
			code: 1,
			want: `skald-bot: config: config file not found: missing.yaml`,
		},
		{
			name: "default config missing",
			args: []string{"serve"},
			code: 1,
			want: `skald-bot: config: config file not found: skald.yaml ` +
				`(name one with --config FILE or $SKALD_CONFIG)`,
		},
		{
			name: "invalid config",
			args: []string{"serve", "--config", bad},
			code: 1,
			want: `skald-bot: config: log.level "loud": must be debug, info, warn or error; ` +
				`config: jobs[0].name "Bad Name": must match [a-z0-9_-]+`,
		},
		{
			name: "unknown key",
			args: []string{"serve", "--config", unknown},
			code: 1,
			want: `skald-bot: config: line 3: unknown key api.tokn`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code || errOut != tt.want+"\n" || out != "" {
				t.Errorf("%v = %d, stdout %q, stderr %q; want %d, %q",
					tt.args, code, out, errOut, tt.code, tt.want)
			}
		})
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 2 {
		t.Errorf("failed commands left files behind: %v (err %v)", entries, err)
	}
}

// coded is an exitCoder, as a client command returns when it has already printed its
// outcome.
type coded int

func (c coded) Error() string { return "outcome already printed" }
func (c coded) ExitCode() int { return int(c) }

func TestExitCoder(t *testing.T) {
	root := &cobra.Command{Use: "skald-bot", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(&cobra.Command{Use: "pending",
		RunE: func(*cobra.Command, []string) error { return coded(3) }})
	markRunErrors(root)
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), root, []string{"pending"}, nil, &stdout, &stderr)
	if code != 3 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 3 and nothing printed", code, stderr.String())
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t)
	if code != 0 || !strings.Contains(out, "serve") || !strings.Contains(out, "version") {
		t.Errorf("help = %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "serve", "--help")
	if code != 0 || !strings.Contains(out, "--config") || !strings.Contains(out, "SKALD_CONFIG") {
		t.Errorf("serve --help = %d, %q", code, out)
	}
}
