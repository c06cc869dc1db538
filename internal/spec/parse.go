package spec

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

// ErrHelp is returned by Parse when the command line asks for help.
var ErrHelp = errors.New("help requested")

// NormalizeName accepts sysbench's --table_size spelling too.
func NormalizeName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("encbench", pflag.ContinueOnError)
	fs.SetNormalizeFunc(NormalizeName)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}

// Parse reads a phase's arguments (after the phase's name) into a spec. A
// flag of another workload is a usage error naming the workloads it
// belongs to; with -h or --help it returns the spec so far and ErrHelp.
func Parse(cmd Command, args []string, reg *workload.Registry) (Spec, error) {
	args, ignored := dropRunnerFlags(cmd, args)
	name, help, err := scan(cmd, args, reg)
	if err != nil {
		return Spec{}, err
	}
	if help && name == "" {
		return Spec{Command: cmd}, ErrHelp
	}
	fam, err := reg.Lookup(name)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Command: cmd, Workload: name, Options: fam.NewOptions()}
	if help {
		return s, ErrHelp
	}
	s.Ignored = ignored
	fs := newFlagSet()
	Bind(fs, &s)
	var named string
	fs.StringVar(&named, "workload", "", "")
	if args, err = expandVariant(fs, args); err != nil {
		return Spec{}, err
	}
	if err := fs.Parse(args); err != nil {
		return Spec{}, flagError(err, fs, args, cmd, name)
	}
	wl, err := fam.New(name, s.Options)
	if err != nil {
		return Spec{}, err
	}
	if n := wl.Capabilities().DefaultEvents; n > 0 && cmd == Run && !fs.Changed("time") && !fs.Changed("events") {
		s.Runner.Time, s.Runner.Events = 0, n
	}
	return s, nil
}

// scan finds the workload's name (the positional argument or --workload)
// with a flag set that knows every workload's flags, and checks that each
// flag given applies to that workload.
func scan(cmd Command, args []string, reg *workload.Registry) (name string, help bool, err error) {
	fs := newFlagSet()
	probe := Spec{Command: cmd}
	Bind(fs, &probe)
	fs.StringVar(&name, "workload", "", "")
	fs.BoolVarP(&help, "help", "h", false, "")
	for _, n := range reg.Names() {
		f, _ := reg.Lookup(n)
		own := newFlagSet()
		f.NewOptions().Bind(own, n)
		own.VisitAll(func(fl *pflag.Flag) {
			if fs.Lookup(fl.Name) == nil {
				fs.AddFlag(fl)
			}
		})
	}
	if err := fs.Parse(args); err != nil {
		if help {
			return name, true, nil
		}
		return "", false, flagError(err, fs, args, cmd, "")
	}
	pos := fs.Args()
	switch {
	case len(pos) > 1:
		return "", false, errs.Usage("encbench %s takes one workload, got %s", cmd, strings.Join(pos, " "))
	case len(pos) == 1 && name != "" && name != pos[0]:
		return "", false, errs.Usage("workload given twice: %q and --workload %q", pos[0], name)
	case len(pos) == 1:
		name = pos[0]
	}
	if help || name == "" {
		return name, help, nil
	}
	fam, err := reg.Lookup(name)
	if err != nil {
		return "", false, err
	}
	own := Spec{Command: cmd, Workload: name, Options: fam.NewOptions()}
	applies := newFlagSet()
	Bind(applies, &own)
	var owners map[string][]string
	fs.Visit(func(fl *pflag.Flag) {
		if err != nil || fl.Name == "workload" || applies.Lookup(fl.Name) != nil {
			return
		}
		if owners == nil {
			owners = reg.Owners()
		}
		err = errs.Usage("%v (see encbench %s %s --help)", workload.NotApplicable(fl.Name, name, owners[fl.Name]), cmd, name)
	})
	return name, false, err
}

// Help is a phase's usage: for a workload, the phase's flags and the
// workload's own options; without one, the list of workloads.
func Help(cmd Command, name string, reg *workload.Registry) string {
	var b strings.Builder
	general := newFlagSet()
	Bind(general, &Spec{Command: cmd})
	if name == "" {
		fmt.Fprintf(&b, "Usage: encbench %s WORKLOAD [flags]\n\nWorkloads:\n%s\n\n", cmd, reg.Describe())
		fmt.Fprintf(&b, "Flags:\n%s\n`encbench %s WORKLOAD --help` lists the workload's own options too.\n", general.FlagUsages(), cmd)
		return b.String()
	}
	fam, err := reg.Lookup(name)
	if err != nil {
		return err.Error() + "\n"
	}
	fmt.Fprintf(&b, "Usage: encbench %s %s [flags]\n\n%s\n\n", cmd, name, fam.Workloads()[name])
	fmt.Fprintf(&b, "Flags:\n%s\n", general.FlagUsages())
	own := newFlagSet()
	fam.NewOptions().Bind(own, name)
	if own.HasFlags() {
		fmt.Fprintf(&b, "Options of %s (%s family):\n%s", name, fam.Name(), own.FlagUsages())
	}
	return b.String()
}

// Normalize is a flag name as the flag sets store it (dashes).
func Normalize(name string) string { return string(NormalizeName(nil, name)) }
