package colenc

import (
	"os"

	"github.com/spf13/pflag"
)

// BindFlags registers --master-key-file and --keyset on fs. The master key
// may come from ENCBENCH_MASTER_KEY_FILE so that it stays out of shell
// histories and suite files.
func BindFlags(fs *pflag.FlagSet, p *Paths) {
	master := os.Getenv("ENCBENCH_MASTER_KEY_FILE")
	if master == "" {
		master = "encbench-master.json"
	}
	fs.StringVar(&p.MasterKey, "master-key-file", master, "column encryption master key file (0600; default $ENCBENCH_MASTER_KEY_FILE or ./encbench-master.json)")
	fs.StringVar(&p.Keyset, "keyset", "", "column encryption keyset, encrypted under the master key (0600; default "+DefaultKeysetName+" beside the master key)")
}
