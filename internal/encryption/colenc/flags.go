package colenc

import (
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
)

// BindFlags registers --master-key-file and --keyset on fs. The master key
// may come from ENCBENCH_MASTER_KEY_FILE so that it stays out of shell
// histories and suite files.
func BindFlags(fs *pflag.FlagSet, p *Paths) {
	master := os.Getenv("ENCBENCH_MASTER_KEY_FILE")
	if master == "" {
		master = DefaultMasterKey()
	}
	fs.StringVar(&p.MasterKey, "master-key-file", master, "column encryption master key file (0600; default $ENCBENCH_MASTER_KEY_FILE or encbench/master.json in your configuration directory, mode 0700)")
	fs.StringVar(&p.Keyset, "keyset", "", "column encryption keyset, encrypted under the master key (0600; default "+DefaultKeysetName+" beside the master key)")
}

// DefaultMasterKey is the master key's place when none is given: in a
// directory of the user's own ($XDG_CONFIG_HOME/encbench or
// ~/.config/encbench, created 0700), never the working directory, which
// may be shared or end up in a repository. Empty when the user has no
// home directory.
func DefaultMasterKey() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "encbench", "master.json")
}
