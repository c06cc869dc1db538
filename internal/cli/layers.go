package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/variant"
)

func newLayers() *cobra.Command {
	return &cobra.Command{
		Use:   "layers",
		Short: "List the encryption layers, their options and the engines whose sandboxes run them",
		Long: "List the encryption layers a variant can name, with their options and the engines whose sandboxes run them.\n\n" +
			"A variant is plain (no layer), " + variant.AAName + " (the baseline against itself), or layers joined with +,\n" +
			"each LAYER[:key=value[,key=value]] or one of its aliases, for example tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256+tde.\n" +
			"Runs take it as --variant, suites in their variants: list, sandboxes as sandbox up --variant.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			for i, l := range layer.Default().List() {
				if i > 0 {
					fmt.Fprintln(out)
				}
				fmt.Fprintf(out, "%s (%s; sandboxes: %s)\n  %s\n", l.Name(), l.Where(), strings.Join(l.Engines(), ", "), l.Summary())
				if opts := l.Options(); len(opts) > 0 {
					w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
					for _, o := range opts {
						values := "VALUE"
						if len(o.Values) > 0 {
							values = strings.Join(o.Values, "|")
						}
						fmt.Fprintf(w, "    %s=%s\t%s\n", o.Key, values, o.Help)
					}
					fmt.Fprintln(out, "  options:")
					if err := w.Flush(); err != nil {
						return err
					}
				}
				if as := aliasText(l); as != "" {
					fmt.Fprintf(out, "  aliases: %s\n", as)
				}
			}
			return nil
		},
	}
}

func aliasText(l layer.Layer) string {
	var out []string
	for _, a := range l.Aliases() {
		if a.Key != "" {
			out = append(out, fmt.Sprintf("%s (%s=the name)", a.Name, a.Key))
			continue
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(a.Options)) {
			kv = append(kv, k+"="+a.Options[k])
		}
		out = append(out, fmt.Sprintf("%s (%s)", a.Name, strings.Join(kv, ",")))
	}
	return strings.Join(out, ", ")
}
