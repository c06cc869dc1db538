package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/sandbox"
)

func newSandbox() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Start and stop local database servers for benchmarking",
	}
	var o sandbox.Options
	autovacuum := true
	up := &cobra.Command{
		Use:   "up",
		Short: "Create a data directory, start a server on a free loopback port and print its DSN as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.NoAutovacuum = !autovacuum
			info, err := sandbox.Up(cmd.Context(), o)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetEscapeHTML(false)
			out := map[string]any{
				"engine": info.Engine, "version": info.Version, "dsn": info.DSN,
				"pid": info.PID, "port": info.Port, "dir": info.Dir, "variant": info.Variant,
			}
			if len(info.Members) > 0 {
				var members []map[string]any
				for _, m := range info.Members {
					members = append(members, map[string]any{"name": m.Name, "dsn": m.DSN, "pid": m.PID, "port": m.Port, "dir": m.Dir})
				}
				out["replicas"], out["cluster_dsn"], out["sync"] = members, info.ClusterDSN, info.Sync
			}
			return enc.Encode(out)
		},
	}
	up.Flags().StringVar(&o.Engine, "engine", "", "server to start: "+strings.Join(sandbox.Engines(), " or "))
	up.Flags().StringVar(&o.Dir, "dir", "", "new or empty directory for the server's data, socket and logs")
	up.Flags().StringVar(&o.BufferPool, "buffer-pool", "", "shared_buffers / innodb_buffer_pool_size (default 512MB for PostgreSQL, 1G for MariaDB)")
	up.Flags().StringVar(&o.Variant, "variant", "plain", "encryption layers to turn on, named as in runs and suites: plain, tls (tls1.2, tls1.3, tls1.2:cipher=NAME), tde (MariaDB; tde:cipher=aes-cbc) or both joined with + (encbench layers lists them)")
	up.Flags().StringVar(&o.TLSVersion, "tls-version", "", "pin the server to TLS 1.2 or 1.3 (an alias of --variant tls1.2 or tls1.3)")
	up.Flags().StringVar(&o.TLSCipher, "tls-cipher", "", "TLS 1.2 cipher suite for the server (OpenSSL name; an alias of --variant tls1.2:cipher=NAME)")
	up.Flags().StringVar(&o.CertAlgorithm, "cert-key", "", "key of the generated certificates: ecdsa-p256 (the default), rsa-2048 or rsa-4096 (ecdsa and rsa are the older spellings; an alias of --variant tls:cert=NAME)")
	up.Flags().StringVar(&o.TDECipher, "tde-cipher", "", "MariaDB file_key_management algorithm: aes-ctr (the default) or aes-cbc (an alias of --variant tde:cipher=NAME)")
	up.Flags().StringVar(&o.TDEKeyFile, "tde-key-file", "", "use this file_key_management key file (mode 0600) instead of generating one")
	up.Flags().StringVar(&o.ServerCPUs, "server-cpus", "", "pin the server to these CPUs (a list like 1 or 0-1)")
	up.Flags().StringVar(&o.BinDir, "bin-dir", "", "directory with the server binaries (default: the installed packages)")
	up.Flags().BoolVar(&o.ClientCert, "client-cert", false, "mutual TLS: require a client certificate of the sandbox's CA (PostgreSQL cert authentication, MariaDB REQUIRE X509); the DSN names the sandbox's client certificate (an alias of --variant tls:client-cert=on)")
	up.Flags().BoolVar(&o.TLSOptional, "tls-optional", false, "with a TLS variant: offer TLS without requiring it, so clients choose per connection")
	up.Flags().StringArrayVar(&o.Settings, "set", nil, "a server setting name=value, after encbench's own (my.cnf for MariaDB, postgresql.conf for PostgreSQL); repeat for more")
	up.Flags().BoolVar(&o.StatStatements, "stat-statements", false, "load pg_stat_statements so the server counts statements (PostgreSQL)")
	up.Flags().IntVar(&o.Replicas, "replicas", 0, "start N replicas of the server, each streaming from it (PostgreSQL: a base backup and a replication slot each); the output names each and a multi-host cluster_dsn")
	up.Flags().BoolVar(&o.Sync, "sync", false, "with --replicas: every commit waits for a replica (PostgreSQL: synchronous_standby_names = '*', a flush on one replica; MariaDB: semi-synchronous, one replica's receipt)")
	up.Flags().BoolVar(&o.Sync, "semi-sync", false, "MariaDB's name for --sync: semi-synchronous replication (rpl_semi_sync_master_enabled), each commit waits until a replica has received it (10 s at most, then asynchronous, as the server does)")
	up.Flags().BoolVar(&autovacuum, "autovacuum", true, "run autovacuum (PostgreSQL); suites turn it off and vacuum and analyze between runs themselves")
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
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List the sandboxes on this machine: directory, engine, variant, server state and owner",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := sandbox.List()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DIR\tENGINE\tVARIANT\tPID\tPORT\tSERVER\tOWNER")
			for _, s := range all {
				i := s.Info
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", i.Dir, i.Engine, i.Variant, i.PID, i.Port, s.Server, s.OwnerText())
				for _, m := range i.Members {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%s\t%s\n", m.Dir, i.Engine, "replica of the above", m.PID, m.Port, sandbox.MemberState(m), s.OwnerText())
				}
			}
			return tw.Flush()
		},
	}
	var under string
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Stop the sandboxes whose encbench is gone (killed mid-suite) and forget those whose server died",
		Long: "Stop the sandboxes whose encbench is gone (killed mid-suite) and forget those whose server died.\n" +
			"With --under DIR, also stop every sandbox server started from a directory under DIR, whoever owns it,\n" +
			"found from the process table (so that DIR can be deleted or reused).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if under != "" {
				procs, err := sandbox.StopServersUnder(under)
				for _, p := range procs {
					fmt.Fprintf(cmd.OutOrStdout(), "stopped: server pid %d, started from under %s (%s)\n", p.PID, under, p.Command)
				}
				if err != nil {
					return err
				}
			}
			stopped, err := sandbox.Prune()
			for _, s := range stopped {
				verb := "stopped"
				if s.Server == "stopped" {
					verb = "forgot (its server had already exited)"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s sandbox %s (owner: %s)\n", verb, s.Info.Engine, s.Info.Dir, s.OwnerText())
			}
			if len(stopped) == 0 && err == nil && under == "" {
				fmt.Fprintln(cmd.OutOrStdout(), "no orphaned sandbox")
			}
			return err
		},
	}
	prune.Flags().StringVar(&under, "under", "", "also stop every sandbox server started from under this directory, whoever owns it")
	var restartDir string
	var ro sandbox.RestartOptions
	restart := &cobra.Command{
		Use:   "restart",
		Short: "Stop the sandbox server in --dir and start it again on the same data and port (a fault to inject mid-run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ro.Down < 0 {
				return errs.Usage("--down must not be negative")
			}
			info, err := sandbox.Restart(cmd.Context(), restartDir, ro)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restarted the %s sandbox in %s (pid %d, port %d)\n", info.Engine, info.Dir, info.PID, info.Port)
			return nil
		},
	}
	restart.Flags().StringVar(&restartDir, "dir", "", "the sandbox's directory")
	restart.Flags().BoolVar(&ro.Immediate, "immediate", false, "stop without a clean shutdown (PostgreSQL's immediate mode, MariaDB killed): the server recovers from its log, as after a crash")
	restart.Flags().DurationVar(&ro.Down, "down", 0, "how long the server stays down before it starts again")
	restart.Flags().StringVar(&ro.Member, "member", "", "restart this replica of a replicated sandbox (replica1, ...) instead of its primary")
	cmd.AddCommand(up, down, ls, prune, restart)
	return cmd
}
