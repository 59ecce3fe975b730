package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proctorhq/proctor/config"
	"github.com/proctorhq/proctor/server"
)

// Exit statuses.
const (
	exitFailure       = 1
	exitInvalidConfig = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit status. It is main without the
// process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var problems config.Errors
	if errors.As(err, &problems) {
		fmt.Fprintln(stderr, problems.Error())
		return exitInvalidConfig
	}
	fmt.Fprintln(stderr, "proctor:", err)
	return exitFailure
}

// globalFlags are the root command's persistent flags.
type globalFlags struct {
	configFile string
}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "proctor",
		Short: "Proctor: a multi-school OAuth 2.0 / OpenID Connect server for course sites",
		Long: `Proctor is a multi-school OAuth 2.0 / OpenID Connect authorization server for online
course sites, with the GraphQL Member API, an MCP endpoint and the operator REST API beside it.

Configuration: a server file (--config or PROCTOR_CONFIG) and one YAML file per school in its
schools directory; every server key can be overridden with PROCTOR_<KEY> (docs/configuration.md).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints what `proctor version` prints.
		Version: server.Version(),
	}
	root.SetVersionTemplate(versionLine())
	// --tenant is the earlier name of --school; scripts written for it keep working.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "tenant" {
			name = "school"
		}
		return pflag.NormalizedName(name)
	})
	root.PersistentFlags().StringVar(&g.configFile, "config", os.Getenv("PROCTOR_CONFIG"),
		"server configuration file (default: built-in defaults and PROCTOR_* environment only)")
	root.AddCommand(
		newServeCommand(g),
		newMigrateCommand(g),
		newDoctorCommand(g),
		newDemoCommand(),
		newMailboxCommand(),
		newSeedCommand(g),
		newSchoolsCommand(g),
		newMembersCommand(g),
		newKeysCommand(g),
		newClientsCommand(g),
		newEventsCommand(g),
		newBenchCommand(g),
		newVersionCommand(),
	)
	return root
}
