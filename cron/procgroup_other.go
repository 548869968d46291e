//go:build !unix

package cron

import "os/exec"

// ownProcessGroup leaves cmd as it is where process groups do not exist: cancelling
// it kills the shell only.
func ownProcessGroup(*exec.Cmd) {}
