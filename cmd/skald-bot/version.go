package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the release, set at build time with
// -ldflags "-X main.version=v1.2.3"; "dev" otherwise.
var version = "dev"

// newVersionCmd returns `skald-bot version`: one line with the release, the VCS
// revision when the build recorded one, the Go version and the platform.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}

// versionLine is e.g. "skald-bot dev (rev 1a2b3c4d5e6f, go1.26.8 linux/amd64)".
func versionLine() string {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = "rev " + s.Value[:12] + ", "
			}
		}
	}
	return fmt.Sprintf("skald-bot %s (%s%s %s/%s)", version, rev,
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
