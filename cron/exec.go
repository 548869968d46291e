package cron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// DefaultCmdTimeout is how long execute_cmd lets a command run when its step gives no
// timeout.
const DefaultCmdTimeout = 10 * time.Minute

// waitDelay is how long execute_cmd waits, after killing a command's process group,
// for its output pipes to close.
const waitDelay = 5 * time.Second

// shell runs execute_cmd's command, as "sh -c".
const shell = "/bin/sh"

type execArgs struct {
	cmd     string
	cwd     string
	timeout time.Duration
}

func parseExec(args map[string]any) (execArgs, error) {
	var a execArgs
	if err := checkKeys(args, "cmd", "timeout", "cwd"); err != nil {
		return a, err
	}
	var err error
	if a.cmd, err = needString(args, "cmd"); err != nil {
		return a, err
	}
	if a.cwd, _, err = argString(args, "cwd"); err != nil {
		return a, err
	}
	a.timeout, err = argTimeout(args, DefaultCmdTimeout)
	return a, err
}

func checkExec(args map[string]any) error {
	_, err := parseExec(args)
	return err
}

// runExec is execute_cmd {cmd, timeout?, cwd?}: cmd runs through /bin/sh -c in cwd
// (relative to the working directory; default the working directory itself) in a
// process group of its own, with stdout and stderr together as the output. Past its
// timeout (default DefaultCmdTimeout) the whole process group is killed and the step
// fails with ErrTimeout and exit code -1. A non-zero exit status fails the step with
// that exit code. The command inherits the service's environment except the SKALD_*
// variables, which hold its tokens, and gets the run's answers (Env.Answers).
func runExec(ctx context.Context, env Env, args map[string]any) (Result, error) {
	a, err := parseExec(args)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	dir := env.WorkDir
	if a.cwd != "" {
		if dir, err = env.resolve(a.cwd); err != nil {
			return Result{ExitCode: -1}, fmt.Errorf("cwd: %w", err)
		}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, a.timeout, ErrTimeout)
	defer cancel()
	var out tail
	cmd := exec.CommandContext(ctx, shell, "-c", a.cmd)
	cmd.Dir = dir
	cmd.Env = append(commandEnv(), env.Answers...)
	cmd.Stdout, cmd.Stderr = &out, &out
	ownProcessGroup(cmd)
	cmd.WaitDelay = waitDelay
	err = cmd.Run()
	res := Result{ExitCode: cmd.ProcessState.ExitCode(), Output: out.String()}
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return Result{ExitCode: -1, Output: res.Output},
			fmt.Errorf("%w after %s: the process group was killed", ErrTimeout, a.timeout)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Output: res.Output},
				fmt.Errorf("stopped: %w", context.Cause(ctx))
		}
		return res, err
	}
	return res, nil
}

// commandEnv is the service's environment without the SKALD_* variables.
func commandEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SKALD_") {
			env = append(env, kv)
		}
	}
	return env
}
