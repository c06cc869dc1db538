package spec

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer/colenc"
	tdelayer "github.com/encbench/encbench/internal/layer/tde"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
	"github.com/encbench/encbench/internal/variant"
)

// expandVariant replaces --variant NAME with the flags its layers stand
// for (--tls, --tls-version, --tls-cipher, --tde, --encrypt-columns), so a
// run names its layers as a suite does and its reproduced command line
// still says each; fs is the phase's and workload's flag set. A flag the
// variant sets that is given too is refused, as is a layer a run cannot
// take from its name.
func expandVariant(fs *pflag.FlagSet, args []string) ([]string, error) {
	name, rest, given, err := takeVariant(args)
	if err != nil || name == "" {
		return args, err
	}
	v, err := variant.Parse(name)
	if err != nil {
		return nil, errs.Usage("--variant: %v", err)
	}
	var implied [][2]string
	tls, hasTLS := tlslayer.Of(v.Layers)
	tdeCipher, hasTDE := tdelayer.Of(v.Layers)
	col, _ := colenc.Of(v.Layers)
	switch {
	case v.AA:
		return nil, errs.Usage("--variant aa is a suite's A/A check (the baseline on a server of its own): a run names the layers it has")
	case tdeCipher != "":
		return nil, errs.Usage("--variant %s: tde:cipher= configures a sandbox's server; give it to encbench sandbox up --tde-cipher", name)
	case col.Set != "":
		return nil, errs.Usage("--variant %s names a suite's column set; a run gives the workload's --encrypt with its columns and schemes", name)
	case hasTLS:
		implied = append(implied, [2]string{"tls", "on"})
		for _, kv := range [][2]string{{"tls-version", tls.Version}, {"tls-cipher", tls.Cipher}, {"tls-server-key", tls.Cert}} {
			if kv[1] != "" {
				implied = append(implied, kv)
			}
		}
		if tls.ClientCert {
			implied = append(implied, [2]string{"tls-client-auth", "true"})
		}
	default:
		implied = append(implied, [2]string{"tls", "disable"})
	}
	if hasTDE && fs.Lookup("tde") != nil {
		implied = append(implied, [2]string{"tde", "true"})
	}
	if col.Level > 0 {
		if fs.Lookup("encrypt-columns") == nil {
			return nil, errs.Usage("--variant %s encrypts a share of TPC-C's business columns (--encrypt-columns), which this workload does not take; give its --encrypt", name)
		}
		implied = append(implied, [2]string{"encrypt-columns", strconv.Itoa(col.Level)})
	}
	for _, l := range v.PluginNames() {
		if given["layer"] {
			return nil, errs.Usage("--variant %s names its layers already: give --variant or --layer, not both", name)
		}
		rest = append(rest, "--layer="+l)
	}
	for _, kv := range implied {
		if given[kv[0]] {
			return nil, errs.Usage("--variant %s sets --%s already: give one of them", name, kv[0])
		}
		rest = append(rest, "--"+kv[0]+"="+kv[1])
	}
	return rest, nil
}

// takeVariant removes --variant NAME (or --variant=NAME) from args and
// names the other flags given.
func takeVariant(args []string) (name string, rest []string, given map[string]bool, err error) {
	given = map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		flag, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") || Normalize(flag) != "variant" {
			if strings.HasPrefix(a, "--") {
				given[Normalize(flag)] = true
			}
			rest = append(rest, a)
			continue
		}
		if name != "" {
			return "", nil, nil, errs.Usage("--variant given twice")
		}
		if !hasValue {
			if i+1 >= len(args) {
				return "", nil, nil, errs.Usage("--variant needs a variant, such as tls1.3+tde (encbench layers lists them)")
			}
			i++
			value = args[i]
		}
		if value == "" {
			return "", nil, nil, errs.Usage("--variant needs a variant, such as tls1.3+tde (encbench layers lists them)")
		}
		name = value
	}
	return name, rest, given, nil
}
