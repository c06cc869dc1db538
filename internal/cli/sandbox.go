package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/sandbox"
)

func newSandbox() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Start and stop local database servers for benchmarking",
	}
	var o sandbox.Options
	up := &cobra.Command{
		Use:   "up",
		Short: "Create a data directory, start a server on a free loopback port and print its DSN as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, err := sandbox.Up(cmd.Context(), o)
			if err != nil {
				return err
			}
			line, err := json.Marshal(map[string]any{
				"engine": info.Engine, "version": info.Version, "dsn": info.DSN,
				"pid": info.PID, "port": info.Port, "dir": info.Dir,
			})
			if err != nil {
				return fmt.Errorf("encoding sandbox info: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(line))
			return nil
		},
	}
	up.Flags().StringVar(&o.Engine, "engine", "", "server to start: "+strings.Join(sandbox.Engines(), " or "))
	up.Flags().StringVar(&o.Dir, "dir", "", "new or empty directory for the server's data, socket and logs")
	up.Flags().StringVar(&o.BufferPool, "buffer-pool", "", "shared_buffers / innodb_buffer_pool_size (default 512MB for PostgreSQL, 1G for MariaDB)")
	up.Flags().StringVar(&o.BinDir, "bin-dir", "", "directory with the server binaries (default: the installed packages)")
	up.Flags().BoolVar(&o.StatStatements, "stat-statements", false, "load pg_stat_statements so the server counts statements (PostgreSQL)")
	var downDir string
	down := &cobra.Command{
		Use:   "down",
		Short: "Stop the sandbox server in --dir and wait until it has exited",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return sandbox.Down(downDir)
		},
	}
	down.Flags().StringVar(&downDir, "dir", "", "the sandbox's directory")
	cmd.AddCommand(up, down)
	return cmd
}
