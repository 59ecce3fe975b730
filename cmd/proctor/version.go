package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/proctorhq/proctor/server"
)

// version is a release's version, set at link time with -ldflags "-X main.version=..." (the
// Makefile and the Dockerfile do). Without it the binary's build info decides: the module
// version, or the revision it was built from (server.Version).
var version string

// Whatever reports the version (--version, /metrics, MCP's serverInfo) asks server.Version, so
// the link-time version is handed over before anything runs.
func init() {
	if version != "" {
		server.SetVersion(version)
	}
}

// versionLine is what `proctor version` and `proctor --version` print.
func versionLine() string {
	return fmt.Sprintf("proctor %s (%s %s/%s)\n", server.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprint(cmd.OutOrStdout(), versionLine())
		},
	}
}
