package cli

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/locale"
)

// keyFlags locate the column-encryption keys; the master key may come from
// the environment so that it stays out of shell histories and suite files.
type keyFlags struct{ paths colenc.Paths }

func (k *keyFlags) bind(fs *pflag.FlagSet) { colenc.BindFlags(fs, &k.paths) }

func newKeys() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Manage the keys of client-side column encryption (Tink keysets under a master key)",
	}
	k := &keyFlags{}
	k.bind(cmd.PersistentFlags())
	cmd.AddCommand(&cobra.Command{
		Use:   "init",
		Short: "Create the keyset (and the master key when it is missing), both mode 0600",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			created, err := colenc.Init(k.paths)
			if err != nil {
				return err
			}
			if created {
				fmt.Fprintf(cmd.OutOrStdout(), "master key created: %s (keep it apart from the keyset)\n", k.paths.MasterKey)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "keyset created: %s (rnd: AES-256-GCM, det: AES-SIV)\n", k.paths.Resolved().Keyset)
			return nil
		},
	}, &cobra.Command{
		Use:   "rotate",
		Short: "Add a new primary key per scheme; existing ciphertext still decrypts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := colenc.Rotate(k.paths); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rotated: new primary keys in %s; det columns written before now need re-encryption for equality lookups to find them\n", k.paths.Resolved().Keyset)
			return nil
		},
	}, &cobra.Command{
		Use:   "show",
		Short: "List the keys (ids, status, primary; never key material)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := colenc.Show(k.paths)
			if err != nil {
				return err
			}
			uses, err := colenc.RndUses(k.paths)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "scheme\tkey id\tstatus\tprimary\tsealed\ttype")
			for _, key := range keys {
				sealed := "-"
				if key.Scheme == colenc.Rnd {
					n := uses[strconv.FormatUint(uint64(key.ID), 10)]
					sealed = strconv.FormatUint(n, 10)
					if w := colenc.RndWarning(n); w != "" && key.Primary {
						defer fmt.Fprintln(cmd.ErrOrStderr(), w)
					}
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%v\t%s\t%s\n", key.Scheme, key.ID, key.Status, key.Primary, sealed, key.Type)
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:   "schemes",
		Short: "Say what each column encryption scheme reveals to the database server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			en, err := locale.Get(locale.Default)
			if err != nil {
				return err
			}
			for _, s := range colenc.Schemes {
				part := func(p string) string { return en.T(locale.LeakID(string(s), p)) }
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n  the server learns: %s\n  the server can: %s\n\n", s, part("primitive"), part("reveals"), part("enables"))
			}
			return nil
		},
	})
	return cmd
}
